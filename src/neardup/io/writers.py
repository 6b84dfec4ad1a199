"""Writers for result tables and record streams: JSONL (orjson) or Parquet (pyarrow).

Output is deterministic: rows are written in the order given, keys in a fixed order,
so the same input and seed give byte-identical files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import orjson

FORMATS = ("jsonl", "parquet")


def write_rows(path: Path, rows: Iterable[dict[str, Any]], fmt: str = "jsonl") -> int:
    """Write ``rows`` to ``path`` as JSONL or Parquet; returns the number written."""
    if fmt == "jsonl":
        n = 0
        with open(path, "wb") as fh:
            for row in rows:
                fh.write(orjson.dumps(row, option=orjson.OPT_SERIALIZE_NUMPY))
                fh.write(b"\n")
                n += 1
        return n
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        rows = list(rows)
        columns = list(dict.fromkeys(key for row in rows for key in row))  # every key, in order
        table = pa.table({c: [row.get(c) for row in rows] for c in columns})
        pq.write_table(table, path)
        return table.num_rows
    raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")


def write_json(path: Path, obj: Any) -> None:
    """Write one JSON document, indented for people."""
    path.write_bytes(orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY) + b"\n")


def format_for(path: Path) -> str:
    """``parquet`` for a ``.parquet``/``.pq`` file name, else ``jsonl``."""
    return "parquet" if path.suffix.lower() in (".parquet", ".pq") else "jsonl"
