"""File-level jobs: inputs on disk in, result files out (what ``neardup dedup`` runs).

:func:`dedup_files` runs a :class:`~neardup.pipeline.Deduplicator` over the inputs as a
:class:`~neardup.job.Job` (:class:`DedupTask`), which writes ``pairs``, ``clusters`` and
``summary.json`` into an output folder, all at once or not at all; with ``unique`` it reads
the inputs a second time and writes every record, unchanged, except the clustered
documents that the document kept for them covers (``unique_coverage`` of their words; with
relations off, every non-representative), and with ``keep_rejected=False`` the records
that were rejected.  With the Spark engine reading the files (no ``unique``), the executors write ``pairs`` and
``clusters`` into the job's folder themselves (:mod:`neardup.engines.spark_output`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from .engines.base import Destination
from .io.dedup_rows import cluster_row, pair_row
from .io.readers import FIELDS, Fields, Record, Rejection, read_inputs
from .io.writers import format_for, write_rows
from .job import Job, JobOutput, RunStats
from .pipeline import DedupResult, Deduplicator, WrittenResult


def write_unique(result: DedupResult, inputs: Sequence[str], path: Path, prefer_html: bool = False,
                 fields: Fields = FIELDS, keep_rejected: bool = True, fmt: str = "jsonl") -> tuple[int, int]:
    """Write the input records minus the dropped duplicates; returns how many were written, and how
    many of them are records that were rejected (written back, not compared).

    ``keep_rejected``: records that were read but rejected for their content (empty or missing
    text, no text after extraction, no words, undecodable, extraction failed) are written too -- they were not
    found to be duplicates of anything; without it only the documents that were compared are
    written.  An id is written once (a later record repeating it is left out), and input that
    is not a record at all (invalid JSON, an unreadable file) cannot be written back.
    """
    dropped = result.dropped_ids(keep_rejected)
    compared = set(result.ids)
    with_words = {result.ids[i] for i in np.flatnonzero(result.usable).tolist()}
    written: set[str] = set()
    rejected = 0

    def rows():
        nonlocal rejected
        for item in read_inputs(inputs, prefer_html, fields):
            if isinstance(item, Rejection):
                # a record rejected before it was a document (empty or missing text): kept too
                rid = None if item.row is None else str(item.row.get(fields.id, item.row.get("id")))
                if keep_rejected and rid is not None and rid not in written:
                    written.add(rid)
                    rejected += 1
                    yield item.row
                continue
            if not isinstance(item, Record) or item.id in dropped:
                continue
            if item.id in written or not (keep_rejected or item.id in compared):
                continue
            written.add(item.id)
            rejected += item.id not in with_words
            if item.fields:
                yield item.fields
            else:
                field = "text" if item.text is not None or item.html_in_text else "html"  # as the file held it
                yield {"id": item.id, field: item.text if item.text is not None else item.html}

    return write_rows(path, rows(), fmt), rejected


class DedupTask:
    """``dedup`` as a :class:`~neardup.job.Task`: the deduplicator's pairs and clusters as tables -- or,
    given ``into`` (the job's open output folder) and an engine whose executors write them (Spark
    reading the files, no ``unique``), no table: the executors wrote them into the folder during the run."""

    def __init__(self, deduplicator: Deduplicator, into: Destination | None = None) -> None:
        self.deduplicator, self.into = deduplicator, into
        self.result: DedupResult | WrittenResult | None = None

    @property
    def run_stats(self) -> RunStats:
        assert self.result is not None  # set by tables()
        return self.result.stats

    def tables(self, job: Job) -> Iterator[tuple[str, Iterable[dict[str, Any]]]]:
        # the inputs themselves: an engine may read them on its executors (Spark), the local one reads job.records()
        result = self.result = self.deduplicator.run_files(job.inputs, job.prefer_html, self.into)
        result.stats.require_usable()
        if isinstance(result, WrittenResult):
            return
        yield "pairs", (pair_row(p) for p in result.iter_pairs())
        typed = result.related is not None
        yield "clusters", (cluster_row(c, typed) for c in result.iter_clusters())

    def summary(self, inputs: Sequence[Any], total: float | None = None, **extra: Any) -> dict[str, Any]:
        assert self.result is not None
        return self.result.summary(inputs, total, **extra)


def dedup_files(
    inputs: Sequence[str],
    outdir: str | Path,
    unique: str | Path | None = None,
    fmt: str = "jsonl",
    prefer_html: bool = False,
    fields: Fields = FIELDS,
    keep_rejected: bool = True,
    coalesce: bool | None = None,
    **options: Any,
) -> tuple[DedupResult | WrittenResult, dict[str, Any]]:
    """Run near-duplicate detection over files, write the result files into ``outdir``.

    Returns the result and the summary written to ``summary.json``.  Raises
    :class:`~neardup.errors.InputError` (writing nothing) when no record could be used.  With the
    Spark engine reading the files (and no ``unique``), the executors write the pairs and clusters
    (:mod:`neardup.engines.spark_output`): as one file each when ``coalesce`` is true, as part
    files (``pairs/part-00000.jsonl``...) when false, by their size when ``None``; the result is
    then a :class:`~neardup.pipeline.WrittenResult` (counts, no arrays).
    """
    unique_fmt = None if unique is None else format_for(Path(unique))  # a name of another format: refused first
    job = Job(inputs, outdir, fmt, prefer_html, fields)
    deduplicator = Deduplicator(fields=fields, **options)
    with job.writing() as out:
        into = Destination(out.folder.tmp, fmt, coalesce) if unique is None else None
        task = DedupTask(deduplicator, into)
        # --unique is checked before the run and renamed into place right after the folder
        unique_tmp = None if unique is None else out.side_file(unique)

        def written_unique(out: JobOutput) -> dict[str, Any]:
            if unique is None or unique_tmp is None:
                return {}
            assert isinstance(task.result, DedupResult)  # no executors' writing with --unique
            written, rejected = write_unique(task.result, inputs, unique_tmp, prefer_html, fields, keep_rejected,
                                             unique_fmt or "jsonl")
            return {"unique_written": written, "unique_rejected_written": rejected, "unique_file": str(unique),
                    "unique_keeps_rejected": keep_rejected}

        summary = out.run(task, written_unique)
    assert task.result is not None
    return task.result, summary
