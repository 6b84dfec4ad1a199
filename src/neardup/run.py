"""File-level jobs: inputs on disk in, result files out (what ``neardup dedup`` runs).

:func:`dedup_files` reads the inputs, runs a :class:`~neardup.pipeline.Deduplicator`,
and writes ``pairs``, ``clusters`` and ``summary.json`` into an output folder; with
``unique`` it reads the inputs a second time and writes every kept record, unchanged,
except the non-representative members of each cluster.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Sequence

from .io.readers import Record, read_inputs
from .io.writers import format_for, write_json, write_rows
from .pipeline import DedupResult, Deduplicator


def write_unique(result: DedupResult, inputs: Sequence[str], path: Path, prefer_html: bool = False) -> int:
    """Write the input records minus the dropped duplicates; returns how many were written."""
    dropped = result.dropped_ids()
    kept_ids = set(result.ids)
    written: set[str] = set()

    def rows():
        for item in read_inputs(inputs, prefer_html):
            if not isinstance(item, Record) or item.id not in kept_ids:
                continue
            if item.id in dropped or item.id in written:
                continue
            written.add(item.id)
            if item.fields:
                yield item.fields
            else:
                body = {"text": item.text} if item.text is not None else {"html": item.html}
                yield {"id": item.id, **body}

    return write_rows(path, rows(), format_for(path))


def dedup_files(
    inputs: Sequence[str],
    outdir: str | Path,
    unique: str | Path | None = None,
    fmt: str = "jsonl",
    prefer_html: bool = False,
    **options: Any,
) -> tuple[DedupResult, dict[str, Any]]:
    """Run near-duplicate detection over files, write the result files into ``outdir``.

    Returns the result and the summary written to ``summary.json``.
    """
    start = time.perf_counter()
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    result = Deduplicator(**options).run(read_inputs(inputs, prefer_html))
    ext = "jsonl" if fmt == "jsonl" else "parquet"
    write_rows(
        out / f"pairs.{ext}",
        ({"a": p.a, "b": p.b, "score": round(p.score, 6)} for p in result.pairs),
        fmt,
    )
    write_rows(
        out / f"clusters.{ext}",
        ({"cluster": c.cluster, "ids": c.ids, "representative": c.representative} for c in result.clusters),
        fmt,
    )
    summary = result.summary()
    summary["inputs"] = [str(p) for p in inputs]
    if unique is not None:
        summary["unique_written"] = write_unique(result, inputs, Path(unique), prefer_html)
        summary["unique_file"] = str(unique)
    summary["seconds"]["total"] = round(time.perf_counter() - start, 3)
    write_json(out / "summary.json", summary)
    return result, summary
