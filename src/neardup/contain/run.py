"""File jobs of ``neardup contain``: inputs on disk in, ``containments`` and ``summary.json`` out.

A :class:`~neardup.job.Job` runs :class:`ContainTask` (all files or none; JSONL rows are
written as CoDet reports each batch, so the output never accumulates in memory; Parquet keeps
the nested sentence pairs as nested columns).
With ``truth`` (a simulator's ``truth.jsonl``) the run is also evaluated and the
measures go into the summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from ..errors import UserError
from ..io.readers import FIELDS, Fields
from ..job import DetectorTask, Job, JobOutput
from .detector import METHODS, Containment, ContainmentDetector
from .evaluate import evaluate_containments
from ..evaluate.truth import Truth
from .words import save_word_stats


class ContainTask(DetectorTask):
    """``contain`` as a :class:`~neardup.job.Task`: the detector's containments as one table, streamed
    (evaluated against ``gold`` when given)."""

    table = "containments"

    def row(self, c: Containment) -> dict[str, Any]:
        return {"container": c.container, "contained": c.contained, "score": round(c.score, 6),
                "sentences": c.sentences.tolist()}

    def evaluation(self) -> dict[str, Any]:
        """The measures against the truth (``{"evaluation": ...}``), or nothing without one."""
        if self.gold is None:
            return {}
        return {"evaluation": evaluate_containments([(r["container"], r["contained"]) for r in self.found], self.gold)}


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
    input's word statistics (only when they come from the input, and not for ``method="align"``,
    which uses none) for later ``stats=``.
    Returns the summary; raises :class:`~neardup.errors.InputError` (writing nothing)
    when no record could be used.
    """
    detector = ContainmentDetector(**options)
    if save_stats is not None and detector.method == "align":
        # the aligner weighs no word by its frequency: an align run counts no word statistics to save
        raise UserError("--save-stats saves the word statistics (IDF) of CoDet and the baselines; --method align "
                        f"uses none: give --method {', '.join(m for m in METHODS if m != 'align')}, or no --save-stats")
    if save_stats is not None and detector.stats is not None:
        raise UserError("--save-stats saves the input's statistics; it cannot be combined with --stats")
    task = ContainTask(detector, Truth.read(truth) if truth is not None else None)

    def after(out: JobOutput) -> dict[str, Any]:
        extra: dict[str, Any] = {}
        if save_stats is not None:
            assert detector.input_df is not None  # counted when no --stats was given and not aligning (refused above)
            save_word_stats(detector.input_df, save_stats, detector.word_prefix)
            extra["stats_saved"] = str(save_stats)
        return {**extra, **task.evaluation()}

    return Job(inputs, outdir, fmt, prefer_html, fields).run(task, after)
