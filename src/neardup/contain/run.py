"""File jobs of ``neardup contain``: inputs on disk in, ``containments`` and ``summary.json`` out.

Written through the shared output layer (:class:`~neardup.io.writers.OutputFolder`:
all files or none; JSONL rows are written as CoDet reports each batch, so the output
never accumulates in memory; Parquet keeps the nested sentence pairs as nested columns).
With ``truth`` (a simulator's ``truth.jsonl``) the run is also evaluated and the
measures go into the summary.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterator, Sequence


from ..errors import UserError
from ..io.readers import FIELDS, Fields, read_inputs
from ..io.writers import OutputFolder, write_json, write_rows
from ..job import read_as
from .detector import ContainmentDetector
from .evaluate import evaluate_containments
from ..evaluate.truth import Truth
from .words import save_word_stats


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
    start = time.perf_counter()
    detector = ContainmentDetector(**options)
    if save_stats is not None and detector.df is not None:
        raise UserError("--save-stats saves the input's statistics; it cannot be combined with --stats")
    gold = Truth.read(truth) if truth is not None else None
    pairs: list[tuple[str, str]] = []

    def rows() -> Iterator[dict[str, Any]]:
        for c in detector.stream(read_inputs(inputs, prefer_html, fields)):
            if gold is not None:
                pairs.append((c.container, c.contained))
            yield {"container": c.container, "contained": c.contained, "score": round(c.score, 6),
                   "sentences": c.sentences.tolist()}

    with OutputFolder(outdir) as out:
        write_rows(out.path(f"containments.{fmt}"), rows(), fmt)
        detector.run_stats.require_usable()
        extra: dict[str, Any] = {"read_as": read_as(prefer_html, fields)}
        if save_stats is not None:
            assert detector.input_df is not None  # counted when no --stats was given (the CLI refuses both)
            save_word_stats(detector.input_df, save_stats, detector.word_prefix)
            extra["stats_saved"] = str(save_stats)
        if gold is not None:
            extra["evaluation"] = evaluate_containments(pairs, gold)
        summary = detector.summary(inputs, time.perf_counter() - start, **extra)
        write_json(out.path("summary.json"), summary)
        out.commit()
    return summary
