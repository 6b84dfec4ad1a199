"""Rows of any shape to one Parquet file, in bounded memory.

A row stream (``--unique``'s input records, a result table) is not known whole before it is
written: a field may first appear in its millionth record, or be null until then.  So rows are
taken in parts of bounded size (their text is never all in memory), each typed as pyarrow finds
it; one part is the file as ``pq.write_table`` writes it, and more are spilled to Arrow files, their
schemas unified (a null column takes the type of its values, an integer column that also holds
fractions becomes floating point) and copied into the file a part at a time, cast to that schema.  A field whose values cannot share a column
type (a number in one record, a string in another) is the user's to know: a
:class:`~neardup.errors.UserError` names the field and the types, and JSONL, which keeps any
shape, is the way out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator

from ..errors import UserError

#: Rows per part: a row group of ``pq.write_table``, so that rows that fit one part are its file
#: byte for byte (Spark's joined parts too: :func:`~neardup.engines.spark_output._join_parquet`).
PART_ROWS = 1 << 20
#: Characters of string values per part, at most (a part of long texts is cut earlier).
PART_CHARS = 64 << 20


def write_parquet_rows(path: Path, rows: Iterable[dict[str, Any]], parts: Path) -> int:
    """Write ``rows`` to ``path``; returns the number of rows.  Columns in the order their keys first
    appear, typed as ``pa.table`` types them.  Rows that fit one part are written at once; more go
    through Arrow files in the folder ``parts`` (made here; removed by the caller)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    batches = _batches(rows)
    first = _table(next(batches, []), path)
    second = next(batches, None)
    if second is None:
        pq.write_table(first, path)
        return first.num_rows
    parts.mkdir()
    written = [_spill(parts, 0, first), _spill(parts, 1, _table(second, path))]
    written += [_spill(parts, i, _table(batch, path)) for i, batch in enumerate(batches, 2)]
    schema = _unified([s for _, s in written], path)
    n = 0
    with pq.ParquetWriter(path, schema) as out:
        for part, _ in written:
            with pa.memory_map(str(part)) as source:
                table = pa.ipc.open_file(source).read_all()
            n += table.num_rows
            out.write_table(_conformed(table, schema))
    return n


def _batches(rows: Iterable[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """``rows`` in lists of at most :data:`PART_ROWS` rows and about :data:`PART_CHARS` characters."""
    batch: list[dict[str, Any]] = []
    chars = 0
    for row in rows:
        batch.append(row)
        chars += sum(len(v) for v in row.values() if isinstance(v, str))
        if len(batch) >= PART_ROWS or chars >= PART_CHARS:
            yield batch
            batch, chars = [], 0
    if batch:
        yield batch


def _table(batch: list[dict[str, Any]], final: Path) -> Any:
    """``batch`` as an Arrow table, a column per key, each typed by its values."""
    import pyarrow as pa

    columns = {}
    for key in dict.fromkeys(k for row in batch for k in row):
        values = [row.get(key) for row in batch]
        try:
            columns[str(key)] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise UserError(f"cannot write {final.name}: field {key!r} holds values of different types "
                            f"({_kinds(values)}), and a Parquet column holds one; write .jsonl instead") from exc
    return pa.table(columns)


def _spill(parts: Path, i: int, table: Any) -> tuple[Path, Any]:
    """``table`` in an Arrow file of ``parts`` (the exact types, unlike a Parquet round trip)."""
    import pyarrow as pa

    part = parts / f"{i:06d}.arrow"
    with pa.OSFile(str(part), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return part, table.schema


def _kinds(values: list[Any]) -> str:
    """The Python types among ``values`` by JSON name, e.g. ``number and string``."""
    names = {bool: "boolean", int: "number", float: "number", str: "string", list: "list", dict: "object"}
    kinds = sorted({names.get(type(v), type(v).__name__) for v in values if v is not None})
    return " and ".join(kinds)


def _unified(schemas: list[Any], final: Path) -> Any:
    """One schema for every part: null columns typed by the others, integers widened to floats."""
    import pyarrow as pa

    try:
        return pa.unify_schemas(schemas, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        types: dict[str, set[str]] = {}
        for schema in schemas:
            for field in schema:
                if not pa.types.is_null(field.type):
                    types.setdefault(field.name, set()).add(str(field.type))
        clash = next((name for name, kinds in types.items() if len(kinds) > 1), "?")
        raise UserError(f"cannot write {final.name}: field {clash!r} holds values of different types "
                        f"({' and '.join(sorted(types.get(clash, ())))}), and a Parquet column holds one; "
                        "write .jsonl instead") from exc


def _conformed(table: Any, schema: Any) -> Any:
    """``table`` with ``schema``'s columns in its order (null where the part has none), cast to it."""
    import pyarrow as pa

    columns = [table.column(f.name).cast(f.type) if f.name in table.column_names else pa.nulls(table.num_rows, f.type)
               for f in schema]
    return pa.Table.from_arrays(columns, schema=schema)
