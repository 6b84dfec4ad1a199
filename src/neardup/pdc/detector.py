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
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from ..errors import UserError
from ..extract import DEFAULT_EXTRACTOR
from ..features.sets import HashedSets
from ..input_stage import Progress, batches, progress_bar
from ..job import RunStats, run_report
from ..sentences import SentenceBatch
from ..sentences.tokens import distinct, sentence_tokens
from ..stats.df import DocumentFrequencies
from .signatures import SIGNATURES, imatch_signatures, shingle_signatures, spot_signatures
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


class PartialDetector:
    """Finds runs of duplicated sentences between documents (see the module docstring).

    >>> text = "One fine day. Two birds sang. Three cats slept. Four dogs barked."
    >>> r = PartialDetector().run([("a", text), ("b", "Intro here. " + text)])
    >>> [(p.a, p.b, p.spans[0].a_start, p.spans[0].b_start, p.spans[0].length) for p in r.pairs]
    [('a', 'b', 0, 1, 4)]
    """

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
        self.idf_min, self.idf_max, self.antecedents = idf_min, idf_max, antecedents
        self.df = DocumentFrequencies.load(stats) if stats else None
        self.stats_path = stats
        self.extract, self.strict, self.progress, self.batch_docs = extract, strict, progress, batch_docs
        self.run_stats = RunStats()
        self.counts: dict[str, int] = {}
        self._ids: list[str] = []
        self._sentences = SentenceBatch(np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), [])

    def sentence_offsets(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Sentence ``(starts, ends)`` of every document of the last run, by id."""
        sb, off = self._sentences, self._sentences.doc_offsets
        return {d: (sb.starts[off[i]:off[i + 1]], sb.ends[off[i]:off[i + 1]]) for i, d in enumerate(self._ids)}

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {"signature": self.signature, "tau": self.tau, "gamma": self.gamma, "gap": self.gap}
        if self.signature == "shingles":
            out["shingle_size"] = self.shingle_size
        elif self.signature == "imatch":
            out.update(idf_min=self.idf_min, idf_max=self.idf_max, stats=self.stats_path)
        else:
            out["antecedents"] = self.antecedents
        return out

    # -- reading -----------------------------------------------------------------------
    def _read(self, docs: Iterable[Any], bar: Progress) -> tuple[list[str], SentenceBatch, np.ndarray, np.ndarray]:
        """Ids, sentences (offsets only) and sentence tokens (CSR) of the whole input."""
        ids: list[str] = []
        doc_counts, starts, ends, toks, tok_counts = [], [], [], [], []
        df = DocumentFrequencies() if self.signature == "imatch" and self.df is None else None

        def flush(texts: list[str]) -> None:
            sb = SentenceBatch.from_texts(texts)
            t, off = sentence_tokens(sb.texts)
            doc_counts.append(sb.counts())
            starts.append(sb.starts)
            ends.append(sb.ends)
            toks.append(t)
            tok_counts.append(np.diff(off))
            if df is not None:
                df.update(distinct(t, off[sb.doc_offsets]))
            bar.update(len(texts))

        for batch in batches(docs, self.extract, self.run_stats, self.strict, batch_bytes=None,
                             batch_docs=self.batch_docs):
            ids.extend(batch.ids)
            flush(batch.texts)
        if df is not None:
            self.df = df
        counts = _concat(doc_counts, np.int64)
        doc_off = np.r_[0, np.cumsum(counts)].astype(np.int64)
        sentences = SentenceBatch(doc_off, _concat(starts, np.int64), _concat(ends, np.int64), [])
        tok_off = np.r_[0, np.cumsum(_concat(tok_counts, np.int64))].astype(np.int64)
        return ids, sentences, _concat(toks, np.uint64), tok_off

    def _signatures(self, tokens: np.ndarray, tok_off: np.ndarray) -> HashedSets:
        if self.signature == "shingles":
            return shingle_signatures(tokens, tok_off, self.shingle_size)
        if self.signature == "imatch":
            assert self.df is not None  # given, or counted over the input before signatures
            return imatch_signatures(tokens, tok_off, self.df, self.idf_min, self.idf_max)
        return spot_signatures(tokens, tok_off, self.antecedents)

    # -- running -----------------------------------------------------------------------
    def stream(self, docs: Iterable[Any]) -> Iterator[PartialPair]:
        """Yield each document pair with spans, once the input is read; see :meth:`summary`."""
        self.run_stats = RunStats()
        stats = self.run_stats
        bar = progress_bar(self.progress)
        t = start = time.perf_counter()
        ids, sentences, tokens, tok_off = self._read(docs, bar)
        self._ids, self._sentences = ids, sentences
        bar.close()
        t = stats.timed("read", t)
        sets = self._signatures(tokens, tok_off)
        side = Sentences(sets, sentences.sentence_doc(), np.arange(sentences.n_sentences)
                         - np.repeat(sentences.doc_offsets[:-1], sentences.counts()))
        t = stats.timed("signatures", t)
        inverted = index(side)
        t = stats.timed("index", t)
        dups = sentence_duplicates(inverted, side, self.tau)
        t = stats.timed("sentence_duplicates", t)
        spans = sequence_matching(dups, self.gap, self.gamma)
        stats.timed("sequence_matching", t)
        stats.kept = len(ids)
        self.counts = {"documents": len(ids), "sentences": int(sentences.n_sentences),
                       "duplicated_sentence_pairs": len(dups), "spans": int(spans.shape[0])}
        n_doc = max(len(ids), 1)
        bounds = np.r_[np.flatnonzero(np.r_[True, spans[1:, 0] != spans[:-1, 0]]), spans.shape[0]] if spans.shape[0] else []
        pairs = 0
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            block = spans[lo:hi]
            da, db = divmod(int(block[0, 0]), n_doc)
            pairs += 1
            yield self._pair(ids, sentences, da, db, block)
        self.counts["pairs"] = pairs
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
