"""The containment detector: documents in, directed containments out (``neardup contain``).

:class:`ContainmentDetector` reads records through the same input stage as ``dedup``
(:func:`neardup.input_stage.documents`: readers, extraction, rejections, ``strict``),
splits them into sentences, turns sentences into CoDet's words
(:mod:`.words`), and then

* ``method="codet"``: inserts documents into the corpus tree in arrival
  order, one batch at a time, and yields every containment of a new document with the
  documents in the window as the batch is done (:mod:`.tree`, :mod:`.codet`).  With
  IDF from a statistics file nothing but the window is kept, so memory stays flat on
  an endless stream; with IDF from the input the whole input's words (hashes, not
  text) are held until it has been read.
* ``method="align"`` (the default): seed-and-extend alignment (:mod:`neardup.align.aligner`); ``d_C``
  contains ``d_A`` when no run of more than ``max_new_words`` consecutive words of ``d_A``
  lies outside the passages aligned with ``d_C`` (``d_A`` has no text of its own: what
  is left out is edits, a new headline, a dateline -- the aligner bridges gaps of up to
  that many words inside a copy) and at least ``min_coverage`` of its words lie inside
  them (the score).  So copy-editing does not matter, an added paragraph does, and the
  direction follows: a trim does not contain its original (the cut paragraphs are its
  original's own text), an article with a pasted passage is not contained in its host.
  Near-duplicates pass both ways.  A batch method like the baselines, restricted to the
  window afterwards; with ``engine`` (an engine object: Spark) the aligner's stages run
  there (the same pairs, so the same containments).
* ``ffp``, ``dsc``, ``imatch``, ``simhash``: the paper's baselines (:mod:`.baselines`),
  batch methods over the whole input, restricted to the same window afterwards.

Arrival order is time order: a record's ``time`` field (ISO 8601 or seconds) when it
has one, else its position in the input.  A time earlier than one already seen is
taken as the latest time seen (the document is late, not from the past) and counted;
a ``time`` that cannot be read rejects the record.  A window of ``N`` documents or of
a duration (``90s``, ``30m``, ``48h``, ``7d``) bounds which earlier documents a new
one is compared with; without one, all.

Length: the streaming job around the tree and its two alternatives (aligned coverage, the
paper's baselines), which share its input stage, windows and output rows.
"""

from __future__ import annotations

import math
import resource
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from ..errors import UserError
from ..extract import DEFAULT_EXTRACTOR
from ..text.stopwords import ENGLISH_STOPWORDS
from ..io.readers import Record, Rejection
from ..params import Params
from ..input_stage import Batch, Progress, batches, progress_bar
from ..job import RunStats, run_report
from ..sentences import SentenceBatch
from ..sentences.tokens import gram_sets
from ..stats.df import DocumentFrequencies
from . import baselines
from .arrival import Arrival, arrival_times
from ..align.aligner import DEFAULT_ALIGN, AlignParams
from .codet import containments
from ..windows import COUNT_WINDOW, NO_WINDOW, TIME_WINDOW, parse_window
from .tree import CorpusTree
from .words import (DEFAULT_PREFIX, document_word_sets, idf_weights, load_word_stats, sentence_words,
                    sort_by_weight, stopword_hashes)

METHODS = ("align", "codet") + baselines.BASELINES
#: Default equivalency threshold level (tuned on a simulated corpus of another seed; see the report).
DEFAULT_ETL = 0.35
#: ``align``'s aligner: ``partial``'s, but a seed is boilerplate only past 1,000 documents, since
#: containment is about the many copies of one story (50 would miss a story on 60 sites).
CONTAIN_ALIGN = AlignParams(max_df=1000)
#: ``align``: the most consecutive words of the contained document outside aligned passages
#: (chosen by argument: the aligner's word gap, the longest edit it bridges inside a copy)
#: and the least share of its words inside them (most of it; a guard for short documents).
DEFAULT_MAX_NEW, DEFAULT_COVERAGE = DEFAULT_ALIGN.gap, 0.5


@dataclass(frozen=True)
class Containment:
    """``container`` contains ``contained``; ``sentences`` has rows (container sentence, contained sentence).

    Sentence indices count the sentences :func:`neardup.sentences.split_sentences` finds
    in each document's text (baselines, which do not compare sentences, give none).
    """

    container: str
    contained: str
    score: float
    sentences: np.ndarray


@dataclass
class _Batch:
    """Documents of one batch, ready for a method: ids, times, sentences and their words."""

    ids: list[str]
    times: np.ndarray
    sentences: SentenceBatch
    words: np.ndarray
    word_off: np.ndarray

    def doc_words(self) -> tuple[np.ndarray, np.ndarray]:
        """CSR of each document's words (its sentences' words, in order)."""
        return self.words, self.word_off[self.sentences.doc_offsets]


@dataclass
class ContainResult:
    """All containments of a run and its summary."""

    containments: list[Containment]
    summary: dict[str, Any] = field(default_factory=dict)


@dataclass
class ContainRun:
    """One run's state: what it derived from the parameters, read, counted and built."""

    stopwords: np.ndarray  # hashes of the stopwords
    window_kind: int  # :data:`~neardup.windows.NO_WINDOW`, ``COUNT_WINDOW`` or ``TIME_WINDOW``
    window_size: float
    df: DocumentFrequencies | None  # from the ``stats`` file, when given
    stats: RunStats = field(default_factory=RunStats)
    input_df: DocumentFrequencies | None = None  # counted from the input, when no file was given
    tree: CorpusTree | None = None
    counts: dict[str, int] = field(default_factory=dict)
    trace: list[dict[str, float]] = field(default_factory=list)


def _rss_mb() -> float:
    """Resident memory of this process now, in MiB (Linux ``/proc``; peak elsewhere)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * resource.getpagesize() / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class ContainmentDetector(Params):
    """Finds which documents contain which (see the module docstring).

    >>> det = ContainmentDetector("codet", word_prefix=0, stopwords=None)
    >>> [(c.container, c.contained) for c in det.run([("a", "Shares gain 2%. Oil rose."), ("b", "Oil rose.")]).containments]
    [('a', 'b')]

    Parameters (:class:`~neardup.params.Params`: stored as given, ``get_params``, ``clone``);
    each run's state in :attr:`last_run`.
    """

    _run: "ContainRun | None" = None

    def __init__(
        self,
        method: str = "align",
        etl: float = DEFAULT_ETL,
        depth: int = 5,
        suffixes: int = 1,
        sort_words: bool = True,
        word_prefix: int = DEFAULT_PREFIX,
        stopwords: Iterable[str] | None = ENGLISH_STOPWORDS,
        stats: str | None = None,
        window: str | int | None = None,
        extract: str = DEFAULT_EXTRACTOR,
        strict: bool = False,
        progress: bool = False,
        batch_docs: int = 1000,
        trace_every: int = 0,
        min_coverage: float = DEFAULT_COVERAGE,
        max_new_words: int = DEFAULT_MAX_NEW,
        align: AlignParams = CONTAIN_ALIGN,
        engine: Any = "local",
    ) -> None:
        if method not in METHODS:
            raise UserError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
        if engine != "local" and method != "align":
            raise UserError(f"contain --method {method} runs on the local engine only (CoDet inserts each document "
                            "into its corpus tree in arrival order; the baselines are batch methods not ported): "
                            "use --engine local, or --method align (the default), which runs on Spark")
        if not etl > 0:
            raise UserError(f"ETL must be positive, got {etl}")
        if depth < 1 or suffixes < 1 or batch_docs < 1:
            raise UserError("depth, suffixes and batch size must be at least 1")
        if not 0 < min_coverage <= 1 or max_new_words < 0:
            raise UserError(f"min coverage must be in (0, 1] and max new words at least 0, got {min_coverage}, "
                            f"{max_new_words}")
        align.check()
        parse_window(window)  # checked here, parsed when a run starts
        self.method, self.etl, self.depth, self.suffixes = method, etl, depth, suffixes
        self.sort_words, self.word_prefix, self.stopwords, self.stats = sort_words, word_prefix, stopwords, stats
        self.window, self.extract, self.strict, self.progress = window, extract, strict, progress
        self.batch_docs, self.trace_every = batch_docs, trace_every
        self.min_coverage, self.max_new_words, self.align, self.engine = min_coverage, max_new_words, align, engine

    def _aligning(self) -> AlignParams:
        """The aligner's parameters: a pair covering ``min_coverage`` of a document is kept
        however sparse its passages (a containment by coverage is never dropped as a mere share)."""
        return replace(self.align, keep_coverage=self.min_coverage)

    # -- the run's state (made when a run starts; the parameters above never change) -----
    def _begin(self) -> ContainRun:
        """A new run's state: the statistics file loaded, the window parsed, the stopwords hashed."""
        kind, size = parse_window(self.window)
        df = load_word_stats(self.stats, self.word_prefix) if self.stats else None
        self._run = ContainRun(stopword_hashes(self.stopwords), kind, size, df)
        return self._run

    @property
    def last_run(self) -> ContainRun:
        """The state of the last run (an empty one before any run)."""
        if self._run is None:
            self._begin()
        assert self._run is not None
        return self._run

    @property
    def run_stats(self) -> RunStats:
        """The input account of the last run."""
        return self.last_run.stats

    @property
    def input_df(self) -> DocumentFrequencies | None:
        """The word statistics counted from the last run's input (``None`` when given by ``stats``)."""
        return self.last_run.input_df

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {"method": self.method, "word_prefix": self.word_prefix,
                               "stopwords": int(stopword_hashes(self.stopwords).shape[0]), "window": self.window,
                               "stats": self.stats}
        if self.method == "codet":
            out.update(etl=self.etl, depth=self.depth, suffixes=self.suffixes, sort_words=self.sort_words)
        if self.method == "align":
            out = {"method": "align", "min_coverage": self.min_coverage, "max_new_words": self.max_new_words,
                   **asdict(self._aligning()), "window": self.window}
        return out

    # -- the input stage ---------------------------------------------------------------
    def _batches(self, docs: Iterable[Any]) -> Iterator[Batch]:
        """The input stage in batches of ``batch_docs``, each document with its arrival time in
        ``values`` (:mod:`.arrival`: a bad time, or none under a duration window, is a rejection)."""
        run = self.last_run
        stats = self.run_stats
        arrival = Arrival(run.window_kind)
        latest = -np.inf

        def admit(record: Record) -> float | Rejection:
            nonlocal latest
            when = arrival.time(record)
            if isinstance(when, Rejection):
                return when
            if math.isnan(when):
                when = float(stats.read)  # its place among the records read (this one counted)
            if when < latest:
                run.counts["late"] = run.counts.get("late", 0) + 1
                when = latest
            latest = when
            return when

        return batches(docs, self.extract, stats, self.strict, batch_bytes=None, batch_docs=self.batch_docs,
                       admit=admit)

    def _sentences(self, docs: Iterable[Any]) -> Iterator[_Batch]:
        for batch in self._batches(docs):
            yield self._prepare(batch.ids, batch.texts, batch.values, [batch.where(i) for i in range(len(batch))])

    def _prepare(self, ids: list[str], texts: list[str], times: list[float],
                 where: list[tuple[str, int | None]]) -> _Batch:
        run = self.last_run
        sb = SentenceBatch.from_texts(texts)
        words, word_off = sentence_words(sb.texts, self.word_prefix, run.stopwords)
        batch = _Batch(ids, np.array(times, np.float64), sb, words, word_off)
        w_off = word_off[sb.doc_offsets]
        empty = np.flatnonzero(np.diff(w_off) == 0)
        for i in empty.tolist():
            self.run_stats.reject(Rejection(*where[i], "no words", ids[i]), self.strict)
        return self._drop(batch, empty) if empty.shape[0] else batch

    @staticmethod
    def _drop(b: _Batch, docs: np.ndarray) -> _Batch:
        """The batch without documents ``docs`` (which have no words)."""
        keep = np.ones(len(b.ids), dtype=bool)
        keep[docs] = False
        sb = b.sentences
        sent_keep = np.repeat(keep, sb.counts())
        counts = sb.counts()[keep]
        doc_off = np.r_[0, np.cumsum(counts)].astype(np.int64)
        texts = [t for t, k in zip(sb.texts, sent_keep.tolist()) if k]
        new_sb = SentenceBatch(doc_off, sb.starts[sent_keep], sb.ends[sent_keep], texts)
        return _Batch([i for i, k in zip(b.ids, keep.tolist()) if k], b.times[keep], new_sb,
                      *_select_words(b.words, b.word_off, sent_keep))

    # -- running -----------------------------------------------------------------------
    def stream(self, docs: Iterable[Any]) -> Iterator[Containment]:
        """Yield containments as documents are processed; :meth:`summary` tells about the run."""
        run = self._begin()
        run.counts.update(documents=0, containments=0)
        if self.method == "align":
            yield from self._aligned(lambda aligner, bar: self._read(docs, aligner, bar), progress=self.progress)
            return
        bar = progress_bar(self.progress)
        start = time.perf_counter()
        batches = self._sentences(docs)
        if run.df is None:  # IDF of the input: read it all first
            held = list(batches)
            run.input_df = DocumentFrequencies()
            for b in held:
                run.input_df.update(document_word_sets(b.words, b.word_off, b.sentences.doc_offsets))
            batches = iter(held)
            self.run_stats.timed("read", start)
        df = run.df or run.input_df
        assert df is not None  # given, or read from the input just above
        if self.method == "codet":
            yield from self._codet(batches, df, bar)
        else:
            yield from self._baseline(list(batches), df, bar)
        bar.close()
        self.run_stats.kept = run.counts["documents"]
        self.run_stats.seconds["total"] = time.perf_counter() - start

    def run(self, docs: Iterable[Any]) -> ContainResult:
        """All containments among ``docs`` (items as :func:`neardup.input_stage.as_records` accepts)."""
        found = list(self.stream(docs))
        return ContainResult(found, self.summary())

    def _sorted_words(self, b: _Batch, df: DocumentFrequencies) -> tuple[np.ndarray, np.ndarray]:
        """The batch's words and IDF, each sentence's words by IDF, highest first (ties by hash)."""
        idf = idf_weights(df, b.words)
        if not self.sort_words:
            return b.words, idf
        return sort_by_weight(b.words, idf, b.word_off)

    def _codet(self, batches: Iterable[_Batch], df: DocumentFrequencies, bar: Progress) -> Iterator[Containment]:
        run = self.last_run
        tree = run.tree = CorpusTree(self.depth, self.suffixes, run.window_kind, run.window_size)
        ids: dict[int, str] = {}
        next_trace = self.trace_every
        for b in batches:
            t = time.perf_counter()
            words, idf = self._sorted_words(b, df)
            first = int(tree.state[2])
            ids.update(zip(range(first, first + len(b.ids)), b.ids))
            passed = tree.insert(words, b.word_off, idf, b.sentences.doc_offsets, b.times, self.etl)
            found = containments(tree, passed, self.etl)
            t = self.run_stats.timed("tree", t)
            for f in found:
                yield Containment(ids[f.container], ids[f.contained], f.score, f.sentences)
            for seq in [s for s in ids if s < tree.oldest_document]:
                del ids[seq]
            run.counts["documents"] += len(b.ids)
            run.counts["containments"] += len(found)
            run.counts["pairs"] = run.counts.get("pairs", 0) + int(passed[0].shape[0])
            run.counts["peak_live_postings"] = tree.peak_live_postings
            bar.update(len(b.ids))
            self.run_stats.timed("report", t)
            if self.trace_every and run.counts["documents"] >= next_trace:
                next_trace += self.trace_every
                run.trace.append({"documents": run.counts["documents"], "rss_mib": round(_rss_mb(), 1),
                                   "nodes": len(tree), "live_postings": tree.live_postings,
                                   "ring_mib": round(tree.nbytes() / 2**20, 2)})

    def _baseline(self, batches: list[_Batch], df: DocumentFrequencies, bar: Progress) -> Iterator[Containment]:
        run = self.last_run
        t = time.perf_counter()
        ids = [i for b in batches for i in b.ids]
        times = np.concatenate([b.times for b in batches]) if batches else np.zeros(0)
        words = np.concatenate([b.words for b in batches]) if batches else np.zeros(0, np.uint64)
        sizes = np.concatenate([np.diff(b.doc_words()[1]) for b in batches]) if batches else np.zeros(0, np.int64)
        offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
        if self.method in ("ffp", "dsc"):
            every = 1 if self.method == "ffp" else baselines.DSC_EVERY
            c, a, score = baselines.share_pairs(gram_sets(words, offsets, baselines.GRAM, every))
        else:
            sets = document_word_sets(words, offsets, np.arange(len(ids) + 1))
            idf = idf_weights(df, sets.hashes)
            pairs = baselines.imatch_pairs if self.method == "imatch" else baselines.simhash_pairs
            c, a, score = pairs(sets, idf)
        keep = self._in_window(c, a, times)
        c, a, score = c[keep], a[keep], score[keep]
        order = np.lexsort((c, a))
        self.run_stats.timed("pairs", t)
        run.counts["documents"] = len(ids)
        run.counts["containments"] = int(order.shape[0])
        bar.update(len(ids))
        for i in order.tolist():
            yield Containment(ids[c[i]], ids[a[i]], float(score[i]), np.zeros((0, 2), np.int64))

    @property
    def reads_files(self) -> bool:
        """Whether :meth:`stream_files` has the engine's executors read the inputs (``align`` on an engine
        that reads: Spark's)."""
        return self.method == "align" and self.engine != "local" and bool(self.engine.executors_read)

    def stream_files(self, inputs: Sequence[str], fields: Any, prefer_html: bool) -> Iterator[Containment]:
        """:meth:`stream` of the records of the files ``inputs``, read by the engine's executors: the
        local rows, rejections and account, each record's time checked there (:class:`.arrival.Arrival`);
        the driver holds one id and one arrival time per document (:func:`.arrival.arrival_times`)."""
        run = self._begin()
        run.counts.update(documents=0, containments=0)

        def read(aligner: Any, bar: Progress) -> tuple[Sequence[str], np.ndarray]:
            given = aligner.read_files(inputs, self.extract, run.stats, self.strict, fields, prefer_html,
                                       admit=Arrival(run.window_kind))
            times, places, documents = given.admitted()
            arrived, late = arrival_times(times, places)
            if late:
                run.counts["late"] = late
            return given.ids(), arrived[documents]

        yield from self._aligned(read, progress=False)

    def _read(self, docs: Iterable[Any], aligner: Any, bar: Progress) -> tuple[list[str], np.ndarray]:
        """The input stage here, its documents added to ``aligner``: their ids and arrival times."""
        t = time.perf_counter()
        ids: list[str] = []
        times: list[float] = []
        for batch in self._batches(docs):
            texts = []
            for record, text, when in zip(batch.records, batch.texts, batch.values):
                bad = Arrival.words(record, text)
                if bad is not None:
                    self.run_stats.reject(bad, self.strict)
                    continue
                ids.append(record.id)
                times.append(when)
                texts.append(text)
            if texts:
                aligner.add(texts)
            bar.update(len(batch))
        self.run_stats.timed("read", t)
        return ids, np.array(times, np.float64)

    def _aligned(self, read: Any, progress: bool) -> Iterator[Containment]:
        """``method="align"``: containment as coverage by aligned passages, both directions judged, of the
        documents ``read(aligner, bar)`` gives the aligner (returning their ids and arrival times)."""
        run = self.last_run
        from ..align.aligner import Aligner

        start = time.perf_counter()
        params = self._aligning()
        aligner = Aligner(params) if self.engine == "local" else self.engine.aligner(params)
        bar = progress_bar(progress)
        none = np.zeros((0, 2), np.int64)
        try:
            ids, when = read(aligner, bar)
            run.counts["documents"] = len(ids)
            bar.stage("aligning the passages documents share")
            t = time.perf_counter()
            windowed = run.window_kind != NO_WINDOW
            for p in aligner.pairs():
                if windowed and not self._in_window(np.array([p.a]), np.array([p.b]), when)[0]:
                    continue
                for container, contained, score, new in ((p.a, p.b, p.coverage_b, p.new_b),
                                                         (p.b, p.a, p.coverage_a, p.new_a)):
                    if score >= self.min_coverage and new <= self.max_new_words:
                        run.counts["containments"] += 1
                        yield Containment(ids[container], ids[contained], score, none)
        finally:
            bar.close()
            aligner.close()
        run.counts["aligned_pairs"] = aligner.counts.get("pairs", 0)
        self.run_stats.timed("align", t)
        self.run_stats.kept = run.counts["documents"]
        self.run_stats.seconds["total"] = time.perf_counter() - start

    def _in_window(self, x: np.ndarray, y: np.ndarray, times: np.ndarray) -> np.ndarray:
        """Which pairs of document indices are within the window of the later one."""
        run = self.last_run
        if run.window_kind == COUNT_WINDOW:
            return np.abs(x - y) <= run.window_size
        if run.window_kind == TIME_WINDOW:
            return np.abs(times[x] - times[y]) <= run.window_size
        return np.ones(x.shape[0], dtype=bool)

    def results(self) -> dict[str, Any]:
        """What the last run found, in numbers (the job-specific part of its report)."""
        run = self.last_run
        out: dict[str, Any] = {
            "containments": run.counts.get("containments", 0),
            "late_documents": run.counts.get("late", 0),
        }
        if "aligned_pairs" in run.counts:
            out["aligned_pairs"] = run.counts["aligned_pairs"]
        if run.tree is not None:
            out["tree"] = {"nodes": len(run.tree), "live_postings": run.tree.live_postings,
                           "peak_live_postings": run.counts.get("peak_live_postings", 0),
                           "pairs_passing": run.counts.get("pairs", 0)}
        if run.trace:
            out["memory_trace"] = run.trace
        return out

    def summary(self, inputs: Sequence[Any] = (), total: float | None = None, **extra: Any) -> dict[str, Any]:
        """The report of the last run (:func:`neardup.job.run_report`), with ``extra`` results."""
        return run_report(self.run_stats, inputs, self.params(), total, **self.results(), **extra)


def _select_words(words: np.ndarray, word_off: np.ndarray, sent_keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Words and CSR offsets of the kept sentences only."""
    lengths = np.diff(word_off)
    mask = np.repeat(sent_keep, lengths)
    return words[mask], np.r_[0, np.cumsum(lengths[sent_keep])].astype(np.int64)
