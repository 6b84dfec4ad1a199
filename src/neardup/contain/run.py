"""File jobs of ``neardup contain``: inputs on disk in, ``containments`` and ``summary.json`` out.

A :class:`~neardup.job.Job` runs :class:`ContainTask` (all files or none; JSONL rows are
written as CoDet reports each batch, so the output never accumulates in memory; Parquet keeps
the nested sentence pairs as nested columns).
With ``truth`` (a simulator's ``truth.jsonl``) the run is also evaluated and the
measures go into the summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from ..errors import UserError
from ..io.readers import FIELDS, Fields
from ..job import Job, JobOutput, RunStats
from .detector import ContainmentDetector
from .evaluate import evaluate_containments
from ..evaluate.truth import Truth
from .words import save_word_stats


class ContainTask:
    """``contain`` as a :class:`~neardup.job.Task`: the detector's containments as one table, streamed
    (evaluated against ``gold`` when given)."""

    def __init__(self, detector: ContainmentDetector, gold: Truth | None = None) -> None:
        self.detector, self.gold = detector, gold
        self.found: list[tuple[str, str]] = []

    @property
    def run_stats(self) -> RunStats:
        return self.detector.run_stats

    def tables(self, job: Job) -> Iterator[tuple[str, Iterable[dict[str, Any]]]]:
        yield "containments", self._rows(job.records())

    def _rows(self, records: Iterable[Any]) -> Iterator[dict[str, Any]]:
        for c in self.detector.stream(records):
            if self.gold is not None:
                self.found.append((c.container, c.contained))
            yield {"container": c.container, "contained": c.contained, "score": round(c.score, 6),
                   "sentences": c.sentences.tolist()}

    def evaluation(self) -> dict[str, Any]:
        """The measures against the truth (``{"evaluation": ...}``), or nothing without one."""
        return {} if self.gold is None else {"evaluation": evaluate_containments(self.found, self.gold)}

    def summary(self, inputs: Sequence[Any], total: float | None = None, **extra: Any) -> dict[str, Any]:
        return self.detector.summary(inputs, total, **extra)


def contain_files(
    inputs: Sequence[str],
    outdir: str | Path,
    prefer_html: bool = False,
    fields: Fields = FIELDS,
    truth: str | Path | None = None,
    save_stats: str | Path | None = None,
    fmt: str = "jsonl",
    **options: Any,
) -> dict[str, Any]:
    """Run containment detection over files; write ``containments.<fmt>`` and ``summary.json``.

    ``options`` are :class:`ContainmentDetector` parameters.  ``save_stats`` writes the
    input's word statistics (only when they come from the input) for later ``stats=``.
    Returns the summary; raises :class:`~neardup.errors.InputError` (writing nothing)
    when no record could be used.
    """
    detector = ContainmentDetector(**options)
    if save_stats is not None and detector.stats is not None:
        raise UserError("--save-stats saves the input's statistics; it cannot be combined with --stats")
    task = ContainTask(detector, Truth.read(truth) if truth is not None else None)

    def after(out: JobOutput) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if save_stats is not None:
            assert detector.input_df is not None  # counted when no --stats was given (the CLI refuses both)
            save_word_stats(detector.input_df, save_stats, detector.word_prefix)
            extra["stats_saved"] = str(save_stats)
        return {**extra, **task.evaluation()}

    return Job(inputs, outdir, fmt, prefer_html, fields).run(task, after)
