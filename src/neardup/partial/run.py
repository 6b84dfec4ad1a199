"""File jobs of ``neardup partial``: inputs on disk in, ``partials`` and ``summary.json`` out.

A :class:`~neardup.job.Job` runs :class:`AlignTask` or :class:`PdcTask` (all files or none;
JSONL or Parquet, spans as nested columns).  With ``truth`` (a
simulator's ``truth.jsonl``) the run is also evaluated (:func:`~.evaluate.partial_measures`, as
``eval --partials`` does) and the measures go into the summary.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from ..evaluate.truth import Truth
from ..errors import UserError
from ..io.readers import FIELDS, Fields
from ..job import DetectorTask, Job, RunStats
from ..align.aligner import DEFAULT_ALIGN, AlignedPair, AlignParams
from ..pdc.detector import PartialDetector, PartialPair
from .evaluate import partial_measures

#: Why ``--truth`` is refused on Spark: the evaluation needs every document's sentences on the driver.
_TRUTH_ON_SPARK = ("--truth needs --engine local (the evaluation keeps every document's sentences in this "
                   "process); with Spark, evaluate the output afterwards with "
                   "`neardup eval DATASET --partials partials.jsonl --truth truth.jsonl`")


class AlignTask(DetectorTask):
    """``partial --method align`` as a :class:`~neardup.job.Task`: the aligner's pairs as one table.

    Texts are not kept: documents go into the aligner in batches of ``batch_docs`` (see
    :mod:`neardup.align.aligner` on memory); with ``gold`` every document's sentence offsets are
    kept for the evaluation.  ``aligner``: the local :class:`~neardup.align.aligner.Aligner` or an
    engine's (Spark: :mod:`neardup.engines.spark_align`).
    """

    table = "partials"

    def __init__(self, aligner: Any, params: AlignParams, extract: str, strict: bool, batch_docs: int,
                 progress: bool, gold: Truth | None = None) -> None:
        super().__init__(aligner, gold)
        self.params, self.extract, self.strict, self.batch_docs, self.progress = (params, extract, strict,
                                                                                  batch_docs, progress)
        self.stats = RunStats()
        self.ids: Sequence[str] = []
        self.sentences: dict[str, Any] = {}

    @property
    def run_stats(self) -> RunStats:
        return self.stats

    def tables(self, job: Job) -> Iterator[tuple[str, Iterable[dict[str, Any]]]]:
        from ..input_stage import batches, progress_bar
        from ..sentences import split_sentences

        start = time.perf_counter()
        bar = progress_bar(self.progress and not self.engine_reads())
        if self.engine_reads():
            self.ids = self.detector.read_files(job.inputs, self.extract, self.run_stats, self.strict, job.fields,
                                                job.prefer_html).ids()  # the engine times its reading
        else:
            ids: list[str] = []
            for batch in batches(job.records(), self.extract, self.run_stats, self.strict, batch_bytes=None,
                                 batch_docs=self.batch_docs):
                ids.extend(batch.ids)
                if self.gold is not None:
                    self.sentences.update((r.id, split_sentences(t)) for r, t in zip(batch.records, batch.texts))
                self.detector.add(batch.texts)
                bar.update(len(batch))
            self.ids = ids
            bar.stage("aligning the passages documents share")
            self.run_stats.timed("read", start)
        self.run_stats.kept = len(self.ids)
        t = time.perf_counter()
        try:
            self.run_stats.require_usable()
            yield self.table, self.rows(self.detector.pairs())
        finally:
            bar.close()
        self.run_stats.timed("align", t)

    def row(self, pair: AlignedPair) -> dict[str, Any]:
        return {"a": self.ids[pair.a], "b": self.ids[pair.b],
                "spans": [p.as_dict() for p in pair.passages],
                "coverage_a": pair.coverage_a, "coverage_b": pair.coverage_b}

    def evaluation(self) -> dict[str, Any]:
        """:func:`~.evaluate.partial_measures` against the truth (``{"evaluation": ...}``), or nothing without one."""
        if self.gold is None:
            return {}
        return {"evaluation": partial_measures(self.found, self.gold, self.sentences)}

    def summary(self, inputs: Sequence[Any], total: float | None = None, **extra: Any) -> dict[str, Any]:
        from ..job import run_report

        counts = self.detector.counts
        return run_report(self.run_stats, inputs, {"method": "align", "extract": self.extract, **asdict(self.params)},
                          total, pairs=counts["pairs"], passages=counts["passages"],
                          seeds={k: counts[k] for k in ("words", "shared_seeds", "seed_pairs")}, **extra)


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
    ``partials`` and ``summary.json`` (:class:`AlignTask`).

    Rows: ``a``, ``b`` (in input order), ``spans`` of ``a_chars``, ``b_chars``, ``a_words``,
    ``b_words``, ``similarity`` (density of matched words), and ``coverage_a``,
    ``coverage_b`` (share of each document's words inside the spans).  With ``truth`` the
    summary gets the PAN and sentence measures (:func:`~.evaluate.evaluate_partial_files`);
    every document's sentence offsets are then kept (so ``truth`` needs the local engine).
    ``engine``: ``"local"`` or an engine object whose ``aligner(params)`` runs the stages
    elsewhere (Spark: :mod:`neardup.engines.spark_align`).
    """
    from ..extract import DEFAULT_EXTRACTOR
    from ..align.aligner import Aligner

    if engine != "local" and truth is not None:
        raise UserError(_TRUTH_ON_SPARK)
    aligner = Aligner(params) if engine == "local" else engine.aligner(params)
    try:
        task = AlignTask(aligner, params, extract or DEFAULT_EXTRACTOR, strict, batch_docs, progress,
                         Truth.read(truth) if truth is not None else None)
        return Job(inputs, outdir, fmt, prefer_html, fields).run(task, lambda out: task.evaluation())
    finally:
        aligner.close()


class PdcTask(DetectorTask):
    """``partial --method pdc`` as a :class:`~neardup.job.Task`: the detector's pairs as one table
    (evaluated against ``gold`` when given)."""

    table = "partials"

    def row(self, pair: PartialPair) -> dict[str, Any]:
        row = asdict(pair)
        row["coverage_a"], row["coverage_b"] = round(pair.coverage_a, 6), round(pair.coverage_b, 6)
        return row

    def evaluation(self) -> dict[str, Any]:
        """:func:`~.evaluate.partial_measures` against the truth (``{"evaluation": ...}``), or nothing without one."""
        if self.gold is None:
            return {}
        return {"evaluation": partial_measures(self.found, self.gold, self.detector.sentence_offsets(),
                                               self.detector.gamma)}



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
    """Run partial-duplicate detection over files; write ``partials.<fmt>`` and ``summary.json``
    (:class:`PdcTask`).

    ``options`` are :class:`PartialDetector` parameters; ``engine`` runs its stages
    (:mod:`neardup.engines`: ``"local"`` or an engine object).  Returns the summary; raises
    :class:`~neardup.errors.InputError` (writing nothing) when no record could be used.
    """
    if engine != "local" and truth is not None:
        raise UserError(_TRUTH_ON_SPARK)
    detector = PartialDetector(**options) if engine == "local" else engine.partial_detector(**options)
    task = PdcTask(detector, Truth.read(truth) if truth is not None else None)
    return Job(inputs, outdir, fmt, prefer_html, fields).run(task, lambda out: task.evaluation())
