"""The partial-duplicate detector (PDC): copied runs of sentences, located (``neardup partial --method pdc``).

:class:`PartialDetector` reads records through the input stage of ``dedup``
(:func:`neardup.input_stage.documents`), splits them into sentences (keeping every
sentence's character span in the extracted text), tokenizes the sentences, and once
the input is read makes each sentence's signatures (:mod:`.signatures`) and runs the
paper's three stages (:mod:`.stages`).  Each document pair with at least one span is
reported with its spans in sentence indices and character offsets, and the share of
each document's sentences the spans cover.

Memory: the sentences' token hashes and offsets of the whole input (not the text).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from ..errors import UserError
from ..extract import DEFAULT_EXTRACTOR
from ..features.sets import HashedSets
from ..input_stage import Progress, batches, progress_bar
from ..job import RunStats, run_report
from ..params import Params
from ..sentences import SentenceBatch
from ..sentences.tokens import distinct, sentence_tokens
from ..stats.df import DocumentFrequencies
from .signatures import SIGNATURES, imatch_signatures, shingle_signatures, spot_antecedents, spot_signatures
from .stages import Sentences, index, jaccard_threshold_ok, sentence_duplicates, sequence_matching


@dataclass(frozen=True)
class Span:
    """A copied run: sentences ``a_start ..`` of ``a`` and ``b_start ..`` of ``b`` (``length`` each)."""

    a_start: int
    b_start: int
    length: int
    a_chars: tuple[int, int]
    b_chars: tuple[int, int]


@dataclass(frozen=True)
class PartialPair:
    """Documents ``a`` (earlier in the input) and ``b`` sharing the ``spans``."""

    a: str
    b: str
    spans: list[Span]
    coverage_a: float
    coverage_b: float


@dataclass
class PartialResult:
    pairs: list[PartialPair]
    summary: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SentencePart:
    """PDC's first stage for a batch of documents: their sentences' character spans and tokens.

    :meth:`of` is pure (a batch's texts in, arrays out; no text kept); :meth:`merge` joins
    the parts of consecutive batches, so any batching of the same documents gives the same
    whole.  ``df``: the documents' word frequencies, when counted (I-Match signatures need the
    input's statistics when no file gives them).
    """

    doc_counts: np.ndarray  # sentences per document
    starts: np.ndarray  # character span of each sentence in its document's text
    ends: np.ndarray
    tokens: np.ndarray  # token hashes of every sentence, in order
    token_counts: np.ndarray  # tokens per sentence
    df: DocumentFrequencies | None = None

    @classmethod
    def of(cls, texts: Sequence[str], count_words: bool = False) -> "SentencePart":
        """The part of the documents ``texts`` (with their word frequencies when ``count_words``)."""
        sb = SentenceBatch.from_texts(texts)
        tokens, off = sentence_tokens(sb.texts)
        df = None
        if count_words:
            df = DocumentFrequencies()
            df.update(distinct(tokens, off[sb.doc_offsets]))
        return cls(sb.counts(), sb.starts, sb.ends, tokens, np.diff(off), df)

    @classmethod
    def merge(cls, parts: Sequence["SentencePart"]) -> "SentencePart":
        """The parts of consecutive batches as one (their documents in order; frequencies summed)."""
        dfs = [p.df for p in parts if p.df is not None]
        return cls(_concat([p.doc_counts for p in parts], np.int64), _concat([p.starts for p in parts], np.int64),
                   _concat([p.ends for p in parts], np.int64), _concat([p.tokens for p in parts], np.uint64),
                   _concat([p.token_counts for p in parts], np.int64),
                   DocumentFrequencies.merged(dfs) if dfs else None)

    def sentences(self) -> SentenceBatch:
        """The sentences' spans as a :class:`SentenceBatch` (offsets only, no text)."""
        doc_off = np.r_[0, np.cumsum(self.doc_counts)].astype(np.int64)
        return SentenceBatch(doc_off, self.starts, self.ends, [])

    def token_offsets(self) -> np.ndarray:
        """CSR offsets of :attr:`tokens` by sentence."""
        return np.r_[0, np.cumsum(self.token_counts)].astype(np.int64)


def word_frequencies(texts: Sequence[str]) -> DocumentFrequencies:
    """The documents' word frequencies (I-Match's statistics), as :meth:`SentencePart.of` counts them:
    one batch's table, which batches (or an engine's partitions) sum."""
    df = SentencePart.of(texts, count_words=True).df
    assert df is not None
    return df


def word_occurrences(texts: Sequence[str]) -> DocumentFrequencies:
    """How often each word occurs in the documents' sentences (SpotSigs' antecedents are the most
    frequent: :func:`~neardup.features.spots.most_frequent` of the sum over all batches)."""
    words, counts = np.unique(SentencePart.of(texts).tokens, return_counts=True)
    return DocumentFrequencies.from_counts(words, counts, len(texts))


@dataclass
class PartialRun:
    """One run's state: the statistics in use, what it read (ids, sentence offsets) and counted."""

    df: DocumentFrequencies | None  # from the ``stats`` file, or counted from the input (imatch)
    antecedents: np.ndarray | None = None  # the input's most frequent words (spotsigs)
    stats: RunStats = field(default_factory=RunStats)
    counts: dict[str, int] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)
    sentences: SentenceBatch = field(default_factory=lambda: SentenceBatch(
        np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), []))


class PartialDetector(Params):
    """Finds runs of duplicated sentences between documents (see the module docstring).

    >>> text = "One fine day. Two birds sang. Three cats slept. Four dogs barked."
    >>> r = PartialDetector().run([("a", text), ("b", "Intro here. " + text)])
    >>> [(p.a, p.b, p.spans[0].a_start, p.spans[0].b_start, p.spans[0].length) for p in r.pairs]
    [('a', 'b', 0, 1, 4)]

    Parameters (:class:`~neardup.params.Params`: stored as given, ``get_params``, ``clone``);
    each run's state in :attr:`last_run`.
    """

    _run: PartialRun | None = None

    def __init__(
        self,
        signature: str = "shingles",
        shingle_size: int = 4,
        tau: float = 0.9,
        gamma: int = 3,
        gap: int = 1,
        idf_min: float = 0.1,
        idf_max: float = 1.0,
        antecedents: int = 10_000,
        stats: str | None = None,
        extract: str = DEFAULT_EXTRACTOR,
        strict: bool = False,
        progress: bool = False,
        batch_docs: int = 1000,
    ) -> None:
        if signature not in SIGNATURES:
            raise UserError(f"signature must be one of {', '.join(SIGNATURES)}, got {signature!r}")
        jaccard_threshold_ok(tau)
        if shingle_size < 1 or gamma < 1 or gap < 0 or antecedents < 1 or batch_docs < 1:
            raise UserError("shingle size, gamma, antecedents and batch size must be at least 1, gap at least 0")
        if not 0 <= idf_min <= idf_max:
            raise UserError(f"need 0 <= idf_min <= idf_max, got {idf_min}, {idf_max}")
        self.signature, self.shingle_size, self.tau = signature, shingle_size, tau
        self.gamma, self.gap = gamma, gap
        self.idf_min, self.idf_max, self.antecedents, self.stats = idf_min, idf_max, antecedents, stats
        self.extract, self.strict, self.progress, self.batch_docs = extract, strict, progress, batch_docs

    # -- the run's state (made when a run starts; the parameters above never change) -----
    def _begin(self) -> PartialRun:
        """A new run's state, with the statistics file loaded when one is given."""
        self._run = PartialRun(DocumentFrequencies.load(self.stats) if self.stats else None)
        return self._run

    @property
    def last_run(self) -> PartialRun:
        """The state of the last run (an empty one before any run)."""
        return self._run if self._run is not None else self._begin()

    @property
    def run_stats(self) -> RunStats:
        """The input account of the last run."""
        return self.last_run.stats

    @property
    def counts(self) -> dict[str, int]:
        """What the last run counted (documents, sentences, spans, pairs)."""
        return self.last_run.counts

    def sentence_offsets(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Sentence ``(starts, ends)`` of every document of the last run, by id."""
        run = self.last_run
        sb, off = run.sentences, run.sentences.doc_offsets
        return {d: (sb.starts[off[i]:off[i + 1]], sb.ends[off[i]:off[i + 1]]) for i, d in enumerate(run.ids)}

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {"signature": self.signature, "tau": self.tau, "gamma": self.gamma, "gap": self.gap}
        if self.signature == "shingles":
            out["shingle_size"] = self.shingle_size
        elif self.signature == "imatch":
            out.update(idf_min=self.idf_min, idf_max=self.idf_max, stats=self.stats)
        else:
            out["antecedents"] = self.antecedents
        return out

    # -- reading: a pure stage per batch, merged -------------------------------------
    def _read(self, docs: Iterable[Any], bar: Progress) -> tuple[list[str], SentenceBatch, np.ndarray, np.ndarray]:
        """Ids, sentences (offsets only) and sentence tokens (CSR) of the whole input."""
        run = self.last_run
        count_words = self.signature == "imatch" and run.df is None
        ids: list[str] = []
        parts = []
        for batch in batches(docs, self.extract, run.stats, self.strict, batch_bytes=None,
                             batch_docs=self.batch_docs):
            ids.extend(batch.ids)
            parts.append(SentencePart.of(batch.texts, count_words))
            bar.update(len(batch))
        whole = SentencePart.merge(parts)
        tok_off = whole.token_offsets()
        if count_words:
            run.df = whole.df
        if self.signature == "spotsigs":
            run.antecedents = spot_antecedents(whole.tokens, tok_off, self.antecedents)
        return ids, whole.sentences(), whole.tokens, tok_off

    def signer(self) -> Callable[[np.ndarray, np.ndarray], HashedSets]:
        """Sentence tokens (CSR) -> their signature sets, with the last run's statistics (I-Match's word
        frequencies, SpotSigs' antecedents: counted over the whole input before any signature).  A
        picklable function of arrays, so an engine's workers sign their batches as the local run does."""
        if self.signature == "shingles":
            return partial(shingle_signatures, n=self.shingle_size)
        run = self.last_run
        if self.signature == "imatch":
            assert run.df is not None  # given, or counted over the input before signatures
            run.df.compact()
            return partial(imatch_signatures, df=run.df, idf_min=self.idf_min, idf_max=self.idf_max)
        assert run.antecedents is not None  # counted over the input before signatures
        return partial(spot_signatures, antecedents=run.antecedents)

    # -- running -----------------------------------------------------------------------
    def stream(self, docs: Iterable[Any]) -> Iterator[PartialPair]:
        """Yield each document pair with spans, once the input is read; see :meth:`summary`."""
        run = self._begin()
        stats = run.stats
        bar = progress_bar(self.progress)
        t = start = time.perf_counter()
        ids, sentences, tokens, tok_off = self._read(docs, bar)
        run.ids, run.sentences = ids, sentences
        bar.stage("signing, indexing and matching sentences")
        t = stats.timed("read", t)
        sets = self.signer()(tokens, tok_off)
        side = Sentences(sets, sentences.sentence_doc(), np.arange(sentences.n_sentences)
                         - np.repeat(sentences.doc_offsets[:-1], sentences.counts()))
        t = stats.timed("signatures", t)
        inverted = index(side)
        t = stats.timed("index", t)
        dups = sentence_duplicates(inverted, side, self.tau)
        t = stats.timed("sentence_duplicates", t)
        spans = sequence_matching(dups, self.gap, self.gamma)
        stats.timed("sequence_matching", t)
        bar.close()
        stats.kept = len(ids)
        run.counts.update(documents=len(ids), sentences=int(sentences.n_sentences),
                          duplicated_sentence_pairs=len(dups), spans=int(spans.shape[0]))
        n_doc = max(len(ids), 1)
        bounds = np.r_[np.flatnonzero(np.r_[True, spans[1:, 0] != spans[:-1, 0]]), spans.shape[0]] if spans.shape[0] else []
        pairs = 0
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            block = spans[lo:hi]
            da, db = divmod(int(block[0, 0]), n_doc)
            pairs += 1
            yield self._pair(ids, sentences, da, db, block)
        run.counts["pairs"] = pairs
        stats.seconds["total"] = time.perf_counter() - start

    @staticmethod
    def _pair(ids: list[str], sentences: SentenceBatch, da: int, db: int, block: np.ndarray) -> PartialPair:
        fa, fb = int(sentences.doc_offsets[da]), int(sentences.doc_offsets[db])
        out = []
        cover_a: set[int] = set()
        cover_b: set[int] = set()
        for _, a0, b0, n in block.tolist():
            out.append(Span(a0, b0, n, (int(sentences.starts[fa + a0]), int(sentences.ends[fa + a0 + n - 1])),
                            (int(sentences.starts[fb + b0]), int(sentences.ends[fb + b0 + n - 1]))))
            cover_a.update(range(a0, a0 + n))
            cover_b.update(range(b0, b0 + n))
        na = int(sentences.doc_offsets[da + 1]) - fa
        nb = int(sentences.doc_offsets[db + 1]) - fb
        return PartialPair(ids[da], ids[db], out, len(cover_a) / na, len(cover_b) / nb)

    def run(self, docs: Iterable[Any]) -> PartialResult:
        """Every document pair of ``docs`` with spans, and the run's summary."""
        found = list(self.stream(docs))
        return PartialResult(found, self.summary())

    def summary(self, inputs: Sequence[Any] = (), total: float | None = None, **extra: Any) -> dict[str, Any]:
        """The report of the last run (:func:`neardup.job.run_report`), with ``extra`` results."""
        results = {k: v for k, v in self.counts.items() if k != "documents"}
        return run_report(self.run_stats, inputs, self.params(), total, **results, **extra)


def _concat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, dtype)
