"""File jobs of ``neardup contain``: inputs on disk in, ``containments.jsonl`` and ``summary.json`` out.

Records are written as they are found (CoDet reports each batch as it is inserted), so
the output never accumulates in memory.  With ``truth`` (a simulator's
``truth.jsonl``) the run is also evaluated and the measures go into the summary.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Sequence

import orjson

from ..io.readers import read_inputs
from ..io.writers import write_json
from .detector import ContainmentDetector
from .evaluate import evaluate_containments
from .truth import Truth
from .words import save_word_stats


def contain_files(
    inputs: Sequence[str],
    outdir: str | Path,
    prefer_html: bool = False,
    truth: str | Path | None = None,
    save_stats: str | Path | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Run containment detection over files; write ``containments.jsonl`` and ``summary.json``.

    ``options`` are :class:`ContainmentDetector` parameters.  ``save_stats`` writes the
    input's word statistics (only when they come from the input) for later ``stats=``.
    Returns the summary.
    """
    start = time.perf_counter()
    detector = ContainmentDetector(**options)
    if save_stats is not None and detector.df is not None:
        raise ValueError("--save-stats saves the input's statistics; it cannot be combined with --stats")
    gold = Truth.read(truth) if truth is not None else None
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    pairs: list[tuple[str, str]] = []
    with open(out / "containments.jsonl", "wb") as fh:
        for c in detector.stream(read_inputs(inputs, prefer_html)):
            fh.write(orjson.dumps({"container": c.container, "contained": c.contained, "score": round(c.score, 6),
                                   "sentences": c.sentences}, option=orjson.OPT_SERIALIZE_NUMPY) + b"\n")
            if gold is not None:
                pairs.append((c.container, c.contained))
    summary = detector.summary()
    summary["inputs"] = [str(p) for p in inputs]
    if save_stats is not None:
        save_word_stats(detector.input_df, save_stats, detector.word_prefix)
        summary["stats_saved"] = str(save_stats)
    if gold is not None:
        summary["evaluation"] = evaluate_containments(pairs, gold)
    summary["seconds"]["total"] = round(time.perf_counter() - start, 3)
    write_json(out / "summary.json", summary)
    return summary
