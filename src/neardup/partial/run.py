"""File jobs of ``neardup partial``: inputs on disk in, ``partials`` and ``summary.json`` out.

Written through the shared output layer (:class:`~neardup.io.writers.OutputFolder`:
all files or none; JSONL or Parquet, spans as nested columns).  With ``truth`` (a
simulator's ``truth.jsonl``) the run is also evaluated (span and document-pair P/R/F1)
and the measures go into the summary.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Iterator, Sequence

from ..evaluate.truth import Truth
from ..errors import UserError
from ..io.readers import FIELDS, Fields, read_inputs
from ..io.writers import OutputFolder, write_json, write_rows
from ..job import read_as
from ..align.aligner import DEFAULT_ALIGN, AlignParams
from ..pdc.detector import PartialDetector
from .evaluate import evaluate_partials

#: Why ``--truth`` is refused on Spark: the evaluation needs every document's sentences on the driver.
_TRUTH_ON_SPARK = ("--truth needs --engine local (the evaluation keeps every document's sentences in this "
                   "process); with Spark, evaluate the output afterwards with "
                   "`neardup eval DATASET --partials partials.jsonl --truth truth.jsonl`")


def _pasted(cases: list[dict], found: list[dict]) -> dict[str, Any]:
    """PAN measures of the pasted passages alone (a simulator's ``why: quote`` cases), when the
    truth has other cases too (split pages): ``{"pan_pasted": ...}``, else nothing."""
    from ..evaluate.pan import pan_measures

    pasted = [c for c in cases if c.get("why") == "quote"]
    if not pasted or len(pasted) == len(cases):
        return {}
    return {"pan_pasted": pan_measures(pasted, found)}


def align_files(
    inputs: Sequence[str],
    outdir: str | Path,
    prefer_html: bool = False,
    fields: Fields = FIELDS,
    fmt: str = "jsonl",
    extract: str | None = None,
    strict: bool = False,
    params: AlignParams = DEFAULT_ALIGN,
    truth: str | Path | None = None,
    batch_docs: int = 1000,
    progress: bool = False,
    engine: Any = "local",
) -> dict[str, Any]:
    """``partial`` (``--method align``): seed-and-extend passages (:mod:`neardup.align`); writes
    ``partials`` and ``summary.json``.

    Rows: ``a``, ``b`` (in input order), ``spans`` of ``a_chars``, ``b_chars``, ``a_words``,
    ``b_words``, ``similarity`` (density of matched words), and ``coverage_a``,
    ``coverage_b`` (share of each document's words inside the spans).  Texts are not kept:
    documents go into the aligner in batches of ``batch_docs`` (see :mod:`neardup.align.aligner` on memory).
    With ``truth`` the summary gets the PAN and sentence measures
    (:func:`~.evaluate.evaluate_partial_files`); every document's sentence offsets are then kept
    (so ``truth`` needs the local engine).  ``engine``: ``"local"`` or an engine object whose
    ``aligner(params)`` runs the stages elsewhere (Spark: :mod:`neardup.engines.spark_align`).
    """
    from ..extract import DEFAULT_EXTRACTOR
    from ..input_stage import batches, progress_bar
    from ..evaluate.pan import pan_measures
    from ..job import RunStats, run_report
    from ..sentences import split_sentences
    from ..align.aligner import Aligner

    if engine != "local" and truth is not None:
        raise UserError(_TRUTH_ON_SPARK)
    start = time.perf_counter()
    stats = RunStats()
    extract = extract or DEFAULT_EXTRACTOR
    aligner = Aligner(params) if engine == "local" else engine.aligner(params)
    gold = Truth.read(truth) if truth is not None else None
    sentences: dict[str, Any] = {}
    found: list[dict[str, Any]] = []
    ids: list[str] = []

    bar = progress_bar(progress)
    for batch in batches(read_inputs(inputs, prefer_html, fields), extract, stats, strict, batch_bytes=None,
                         batch_docs=batch_docs):
        ids.extend(batch.ids)
        if gold is not None:
            sentences.update((r.id, split_sentences(t)) for r, t in zip(batch.records, batch.texts))
        aligner.add(batch.texts)
        bar.update(len(batch))
    bar.close()
    stats.kept = len(ids)
    t = stats.timed("read", start)

    def rows() -> Iterator[dict[str, Any]]:
        for pair in aligner.pairs():
            row = {"a": ids[pair.a], "b": ids[pair.b],
                   "spans": [{"a_chars": list(p.a_chars), "b_chars": list(p.b_chars), "a_words": p.a_words,
                              "b_words": p.b_words, "similarity": p.similarity} for p in pair.passages],
                   "coverage_a": pair.coverage_a, "coverage_b": pair.coverage_b}
            if gold is not None:
                found.append(row)
            yield row

    try:
        with OutputFolder(outdir) as out:
            stats.require_usable()
            write_rows(out.path(f"partials.{fmt}"), rows(), fmt)
            stats.timed("align", t)
            counts = aligner.counts
            extra: dict[str, Any] = {"read_as": read_as(prefer_html, fields)}
            if gold is not None:
                extra["evaluation"] = {"pan": pan_measures(gold.partials, found), **_pasted(gold.partials, found),
                                       **evaluate_partials(found, gold, sentences)}
            summary = run_report(stats, inputs, {"method": "align", "extract": extract, **asdict(params)},
                                 time.perf_counter() - start, pairs=counts["pairs"], passages=counts["passages"],
                                 seeds={k: counts[k] for k in ("words", "shared_seeds", "seed_pairs")}, **extra)
            write_json(out.path("summary.json"), summary)
            out.commit()
    finally:
        aligner.close()
    return summary


def partial_files(
    inputs: Sequence[str],
    outdir: str | Path,
    prefer_html: bool = False,
    fields: Fields = FIELDS,
    truth: str | Path | None = None,
    fmt: str = "jsonl",
    engine: Any = "local",
    **options: Any,
) -> dict[str, Any]:
    """Run partial-duplicate detection over files; write ``partials.<fmt>`` and ``summary.json``.

    ``options`` are :class:`PartialDetector` parameters; ``engine`` runs its stages
    (:mod:`neardup.engines`: ``"local"`` or an engine object).  Returns the summary; raises
    :class:`~neardup.errors.InputError` (writing nothing) when no record could be used.
    """
    start = time.perf_counter()
    if engine != "local" and truth is not None:
        raise UserError(_TRUTH_ON_SPARK)
    detector = PartialDetector(**options) if engine == "local" else engine.partial_detector(**options)
    gold = Truth.read(truth) if truth is not None else None
    found: list[dict[str, Any]] = []

    def rows() -> Iterator[dict[str, Any]]:
        for pair in detector.stream(read_inputs(inputs, prefer_html, fields)):
            row = asdict(pair)
            row["coverage_a"], row["coverage_b"] = round(pair.coverage_a, 6), round(pair.coverage_b, 6)
            if gold is not None:
                found.append(row)
            yield row

    with OutputFolder(outdir) as out:
        write_rows(out.path(f"partials.{fmt}"), rows(), fmt)
        detector.run_stats.require_usable()
        extra: dict[str, Any] = {"read_as": read_as(prefer_html, fields)}
        if gold is not None:
            extra["evaluation"] = evaluate_partials(found, gold, detector.sentence_offsets(), detector.gamma)
        summary = detector.summary(inputs, time.perf_counter() - start, **extra)
        write_json(out.path("summary.json"), summary)
        out.commit()
    return summary
