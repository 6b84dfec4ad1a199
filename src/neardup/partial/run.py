"""File jobs of ``neardup partial``: inputs on disk in, ``partials.jsonl`` and ``summary.json`` out.

With ``truth`` (a simulator's ``truth.jsonl``) the run is also evaluated (span and
document-pair P/R/F1) and the measures go into the summary.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Sequence

import orjson

from ..contain.truth import Truth
from ..io.readers import read_inputs
from ..io.writers import write_json
from .detector import PartialDetector
from .evaluate import evaluate_partials


def partial_files(
    inputs: Sequence[str],
    outdir: str | Path,
    prefer_html: bool = False,
    truth: str | Path | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Run partial-duplicate detection over files; write ``partials.jsonl`` and ``summary.json``.

    ``options`` are :class:`PartialDetector` parameters.  Returns the summary.
    """
    start = time.perf_counter()
    detector = PartialDetector(**options)
    gold = Truth.read(truth) if truth is not None else None
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    found = []
    with open(out / "partials.jsonl", "wb") as fh:
        for pair in detector.stream(read_inputs(inputs, prefer_html)):
            row = asdict(pair)
            row["coverage_a"], row["coverage_b"] = round(pair.coverage_a, 6), round(pair.coverage_b, 6)
            fh.write(orjson.dumps(row) + b"\n")
            if gold is not None:
                found.append(row)
    summary = detector.summary()
    summary["inputs"] = [str(p) for p in inputs]
    if gold is not None:
        summary["evaluation"] = evaluate_partials(found, gold, detector.sentence_offsets(), detector.gamma)
    summary["seconds"]["total"] = round(time.perf_counter() - start, 3)
    write_json(out / "summary.json", summary)
    return summary
