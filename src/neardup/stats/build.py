"""Collection statistics in one streaming pass: document frequencies of words and phrases.

``neardup stats build CORPUS... -o stats.npz`` reads any neardup input through the same
input stage as ``dedup`` (readers, extractor, rejection accounting), tokenizes each
batch in compiled code and counts, per document, its distinct words and its distinct
phrases (word k-shingles, k = 7 as in alonso2013).  The result, a
:class:`CollectionStats`, is saved to an ``.npz`` file that methods load through their
``stats`` parameter, so one reference collection serves many runs; without it a method
counts the collection it is given.

Features and their keys are the ones every method computes: a word's key is its token
hash (:func:`neardup.hashing.hash_str`), a phrase's key is its k-shingle hash
(:func:`neardup.features.shingles.word_shingles` with ``seed=0``).  :func:`doc_features`
returns both for a batch of texts, plus the first word of every phrase (weighted
sampling weighs a phrase by the document frequency of its first word).

Exact counting keeps every distinct phrase (16 bytes each).  For larger corpora
``approximate=True`` counts phrases in a conservative-update count-min sketch
(:mod:`neardup.stats.sketch`) and records, while streaming, the phrases whose estimate
passes ``heavy_df`` -- the "common" phrases weighted sampling needs by name; every
other phrase's frequency is the sketch's estimate.  Words are always counted exactly.

File layout (``np.savez_compressed``): ``n_docs``, ``keys`` and ``counts`` (the word
frequencies, so :meth:`DocumentFrequencies.load` reads the file as word statistics),
``phrase_size``, ``phrase_keys`` and ``phrase_counts`` (every phrase, or only the common
ones when approximate), ``approximate``, ``heavy_df`` and the sketch's ``cms_*`` arrays.
"""

from __future__ import annotations

import functools
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import numpy as np
from numba import njit, prange

from ..errors import UserError
from ..file_cache import by_file_version
from ..features.sets import HashedSets
from ..hashing import xxh64_lanes
from ..text.normalize import char_classes
from ..text.tokenize import doc_tokens, encode_batch
from ..io.writers import atomic_file
from .df import DocumentFrequencies, check_counts
from .sketch import CountMinSketch

FORMAT = "neardup-stats-1"

#: alonso2013: "we call the one percent of phrases found in more than forty-two distinct
#: documents *common*".
COMMON_DF = 42


@njit(cache=True)
def _doc_features(buf, lo, hi, table, k, seed, words, phrases, first):
    """Distinct words, and distinct k-phrases with their first word, of ``buf[lo:hi]``.

    Writes sorted unique word hashes to ``words`` and phrase hashes (sorted, unique) with
    the hash of each phrase's first word to ``phrases`` / ``first``; returns both counts.
    A document of fewer than k tokens (but at least one) has one phrase of all of them.
    """
    toks = np.empty(hi - lo, dtype=np.uint64)
    t = doc_tokens(buf, lo, hi, table, seed, toks)
    if t == 0:
        return 0, 0
    w = np.sort(toks[:t])
    nw = 1
    words[0] = w[0]
    for i in range(1, t):
        if w[i] != w[i - 1]:
            words[nw] = w[i]
            nw += 1
    m = t - k + 1 if t >= k else 1
    width = k if t >= k else t
    ph = np.empty(m, dtype=np.uint64)
    for i in range(m):
        ph[i] = xxh64_lanes(toks, i, i + width, seed)
    order = np.argsort(ph, kind="mergesort")
    npf = 0
    for i in range(m):
        p = ph[order[i]]
        if npf == 0 or p != phrases[npf - 1]:
            phrases[npf] = p
            first[npf] = toks[order[i]]
            npf += 1
    return nw, npf


@njit(parallel=True, nogil=True, cache=True)
def _batch_features(buf, offsets, table, k, seed):
    n = offsets.shape[0] - 1
    total = offsets[n]
    words = np.empty(total, dtype=np.uint64)
    phrases = np.empty(total, dtype=np.uint64)
    first = np.empty(total, dtype=np.uint64)
    nw = np.zeros(n, dtype=np.int64)
    npf = np.zeros(n, dtype=np.int64)
    for d in prange(n):
        lo = offsets[d]
        a, b = _doc_features(buf, lo, offsets[d + 1], table, k, seed, words[lo:], phrases[lo:], first[lo:])
        nw[d] = a
        npf[d] = b
    w_off = np.zeros(n + 1, dtype=np.int64)
    p_off = np.zeros(n + 1, dtype=np.int64)
    for d in range(n):
        w_off[d + 1] = w_off[d] + nw[d]
        p_off[d + 1] = p_off[d] + npf[d]
    w_out = np.empty(w_off[n], dtype=np.uint64)
    p_out = np.empty(p_off[n], dtype=np.uint64)
    f_out = np.empty(p_off[n], dtype=np.uint64)
    for d in prange(n):
        lo = offsets[d]
        w_out[w_off[d] : w_off[d + 1]] = words[lo : lo + nw[d]]
        p_out[p_off[d] : p_off[d + 1]] = phrases[lo : lo + npf[d]]
        f_out[p_off[d] : p_off[d + 1]] = first[lo : lo + npf[d]]
    return w_out, w_off, p_out, f_out, p_off


@dataclass(frozen=True)
class DocFeatures:
    """Distinct words and distinct phrases of a batch; ``first[i]`` is phrase ``i``'s first word."""

    words: HashedSets
    phrases: HashedSets
    first: np.ndarray

    def __len__(self) -> int:
        return len(self.words)

    @staticmethod
    def concat(parts: list["DocFeatures"]) -> "DocFeatures":
        return DocFeatures(
            HashedSets.concat([p.words for p in parts]),
            HashedSets.concat([p.phrases for p in parts]),
            np.concatenate([p.first for p in parts]) if parts else np.zeros(0, np.uint64),
        )


def check_phrase_size(k: int) -> None:
    if k < 1:
        raise UserError(f"phrase size must be at least 1, got {k}")


def doc_features(texts: Sequence[str], phrase_size: int = 7) -> DocFeatures:
    """Words and ``phrase_size``-word phrases of ``texts`` (keys as everywhere in neardup)."""
    check_phrase_size(phrase_size)
    buf, offsets = encode_batch(texts)
    w, w_off, p, f, p_off = _batch_features(buf, offsets, char_classes(), phrase_size, np.uint64(0))
    return DocFeatures(HashedSets(w, w_off), HashedSets(p, p_off), f)


class CollectionStats:
    """Document frequencies of words and phrases over ``n_docs`` documents.

    ``approximate``: phrases go to a count-min sketch of ``width x depth`` counters and
    only the phrases whose estimate exceeds ``heavy_df`` are kept by key.
    """

    def __init__(
        self,
        phrase_size: int = 7,
        approximate: bool = False,
        width: int = 1 << 22,
        depth: int = 4,
        heavy_df: int = COMMON_DF,
    ) -> None:
        check_phrase_size(phrase_size)
        self.phrase_size = phrase_size
        self.approximate = approximate
        self.heavy_df = heavy_df
        self.words = DocumentFrequencies()
        self.phrases = DocumentFrequencies()
        self.sketch = CountMinSketch(width, depth) if approximate else None
        self._heavy: list[np.ndarray] = []

    @property
    def n_docs(self) -> int:
        return self.words.n_docs

    def update(self, feats: DocFeatures) -> None:
        """Count a batch of documents' features."""
        self.words.update(feats.words)
        if self.sketch is None:
            self.phrases.update(feats.phrases)
            return
        self.phrases.n_docs += len(feats)
        keys, counts = np.unique(feats.phrases.hashes, return_counts=True)
        self.sketch.update(keys, counts)
        est = self.sketch.query(keys)
        self._heavy.append(keys[est > self.heavy_df])

    def merge(self, other: "CollectionStats") -> "CollectionStats":
        """Exact counts over both collections, as a new object (statistics of batches merge)."""
        if self.approximate or other.approximate:
            raise ValueError("approximate statistics do not merge")
        out = CollectionStats(self.phrase_size)
        out.words, out.phrases = self.words.merge(other.words), self.phrases.merge(other.phrases)
        return out

    def tables(self) -> dict[str, DocumentFrequencies]:
        """The count tables, by name (words, phrases): what a distributed engine sums (exact only)."""
        if self.approximate:
            raise ValueError("approximate statistics do not merge")
        return {"words": self.words.tables()["df"], "phrases": self.phrases.tables()["df"]}

    def from_tables(self, tables: dict[str, DocumentFrequencies]) -> "CollectionStats":
        """Exact statistics (with this one's phrase size) made of ``tables`` summed over a collection."""
        out = CollectionStats(self.phrase_size)
        out.words, out.phrases = tables["words"], tables["phrases"]
        return out

    @classmethod
    def of(cls, texts: Sequence[str], phrase_size: int) -> "CollectionStats":
        """The exact statistics of ``texts`` alone (what a distributed engine counts per batch)."""
        (out := cls(phrase_size)).update_texts(texts)
        return out

    def update_texts(self, texts: Sequence[str]) -> DocFeatures:
        """Count ``texts``; returns their features."""
        feats = doc_features(texts, self.phrase_size)
        self.update(feats)
        return feats

    def _merge_heavy(self) -> None:
        if self.sketch is None or not self._heavy:
            return
        keys = np.unique(np.concatenate([self.phrases.keys, *self._heavy]))
        self.phrases.keys, self.phrases.counts = keys, self.sketch.query(keys)
        self._heavy = []

    def word_df(self, hashes: np.ndarray) -> np.ndarray:
        """Document frequency of each word hash (0 if never seen)."""
        return self.words.df(hashes)

    def phrase_df(self, hashes: np.ndarray) -> np.ndarray:
        """Document frequency of each phrase hash: exact, or the sketch's estimate."""
        if self.sketch is not None:
            return self.sketch.query(hashes)
        return self.phrases.df(hashes)

    def common_phrases(self, min_df: int = COMMON_DF) -> tuple[np.ndarray, np.ndarray]:
        """Keys and document frequencies of the phrases found in more than ``min_df`` documents."""
        if self.sketch is not None:
            if min_df < self.heavy_df:
                raise UserError(
                    f"these approximate statistics recorded phrases in more than {self.heavy_df} "
                    f"documents only; cannot list those in more than {min_df}"
                )
            self._merge_heavy()
        self.phrases.compact()
        keep = self.phrases.counts > min_df
        return self.phrases.keys[keep], self.phrases.counts[keep]

    def summary(self) -> dict[str, Any]:
        self.words.compact()
        self._merge_heavy()
        self.phrases.compact()
        out: dict[str, Any] = {
            "documents": self.n_docs,
            "words": int(self.words.keys.shape[0]),
            "phrase_size": self.phrase_size,
            "approximate": self.approximate,
        }
        if self.sketch is None:
            out["phrases"] = int(self.phrases.keys.shape[0])
        else:
            out["sketch"] = {"width": self.sketch.width, "depth": self.sketch.depth,
                             "phrase_occurrences": self.sketch.total,
                             "error_bound": round(self.sketch.error_bound(), 3)}
        out["common_df"] = max(COMMON_DF, self.heavy_df)
        out["common_phrases"] = int(self.common_phrases(out["common_df"])[0].shape[0])
        return out

    def save(self, path: str | Path) -> None:
        """Write to an ``.npz`` file (see the module docstring for the layout)."""
        self.words.compact()
        self._merge_heavy()
        self.phrases.compact()
        arrays: dict[str, Any] = {
            "format": np.array(FORMAT),
            "n_docs": np.int64(self.n_docs),
            "keys": self.words.keys,
            "counts": self.words.counts,
            "phrase_size": np.int64(self.phrase_size),
            "phrase_keys": self.phrases.keys,
            "phrase_counts": self.phrases.counts,
            "approximate": np.bool_(self.approximate),
            "heavy_df": np.int64(self.heavy_df),
        }
        if self.sketch is not None:
            arrays.update(self.sketch.to_arrays())
        with atomic_file(path) as tmp, open(tmp, "wb") as fh:  # a file handle: savez adds .npz to bare names
            np.savez_compressed(fh, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> "CollectionStats":
        """Read a file written by :meth:`save` (``neardup stats build``)."""
        try:
            with np.load(path) as data:
                if "format" not in data or str(data["format"]) != FORMAT:
                    raise KeyError("format")
                out = cls(int(data["phrase_size"]), bool(data["approximate"]), heavy_df=int(data["heavy_df"]),
                          width=1, depth=1)
                n_docs = int(data["n_docs"])
                out.words.n_docs = out.phrases.n_docs = n_docs
                check_counts(data["keys"], data["counts"], n_docs, "words")
                check_counts(data["phrase_keys"], data["phrase_counts"], n_docs, "phrases")
                out.words.keys, out.words.counts = data["keys"], data["counts"].astype(np.int64)
                out.phrases.keys = data["phrase_keys"]
                out.phrases.counts = data["phrase_counts"].astype(np.int64)
                if out.approximate:
                    out.sketch = CountMinSketch.from_arrays(data)
                    if out.sketch.total < 0 or out.sketch.table.ndim != 2:
                        raise ValueError("count-min sketch of the wrong shape")
        except (OSError, EOFError, KeyError, ValueError, TypeError, IndexError, AttributeError,
                zipfile.BadZipFile, zlib.error) as exc:
            raise UserError(f"{path}: not a neardup statistics file, or damaged ({type(exc).__name__}: {exc})") from None
        return out


@by_file_version(maxsize=4)
def load_stats(path: str | Path) -> CollectionStats:
    """The statistics in ``path`` (what a method's ``stats`` parameter names), read once per process while it is unchanged."""
    return CollectionStats.load(path)


def check_stats_path(path: str | None) -> None:
    """Reject a ``stats`` parameter naming no file, before any work is done."""
    if path is not None and not Path(path).is_file():
        raise UserError(f"stats file {path} not found (make one with `neardup stats build`)")


def text_batches(
    records: Iterable[Any], extract: str, run, strict: bool = False, batch_bytes: int = 4 << 20
) -> Iterator[list[str]]:
    """Texts of ``records`` through the input stage (counted in ``run``), in batches."""
    from ..input_stage import batches

    for batch in batches(records, extract, run, strict, batch_bytes=batch_bytes):
        yield batch.texts


def build_stats(
    inputs: Sequence[str | Path],
    output: str | Path | None = None,
    phrase_size: int = 7,
    extract: str | None = None,
    prefer_html: bool = False,
    approximate: bool = False,
    width: int = 1 << 22,
    depth: int = 4,
    heavy_df: int = COMMON_DF,
    strict: bool = False,
    progress: bool = False,
    engine: Any = "local",
) -> tuple[CollectionStats, dict[str, Any]]:
    """The ``stats build`` job: count ``inputs`` in one pass, save to ``output``; returns a summary.

    ``extract`` names the HTML extractor (default: the pipeline's); ``prefer_html`` reads
    the ``html`` field of records that have both, as ``dedup --html`` does.  ``engine``: Spark
    counts each batch on its executors (:meth:`CollectionStats.of`) and sums the tables: the same file.
    """
    from ..extract import DEFAULT_EXTRACTOR
    from ..io.readers import read_inputs
    from ..job import RunStats, run_report
    from ..input_stage import progress_bar

    extract = extract or DEFAULT_EXTRACTOR
    start = time.perf_counter()
    stats = CollectionStats(phrase_size, approximate, width, depth, heavy_df)
    run = RunStats()
    bar = progress_bar(progress)
    if engine != "local" and approximate:
        raise UserError("--approximate counts in one process's sketch; with --engine spark the counts are exact")
    def texts() -> Iterator[list[str]]:
        for batch in text_batches(read_inputs([str(p) for p in inputs], prefer_html), extract, run, strict):
            bar.update(len(batch))
            yield batch

    if engine == "local":
        for batch in texts():
            stats.update_texts(batch)
    else:
        stats, _ = engine.statistics(texts(), functools.partial(CollectionStats.of, phrase_size=phrase_size), stats)
    bar.close()
    run.kept = stats.n_docs
    run.require_usable()
    if output is not None:
        stats.save(output)
    parameters = {"phrase_size": phrase_size, "extract": extract, "approximate": approximate}
    if approximate:
        parameters.update(width=width, depth=depth, common_df=heavy_df)
    summary = run_report(run, inputs, parameters, time.perf_counter() - start,
                         output=None if output is None else str(output), statistics=stats.summary())
    return stats, summary
