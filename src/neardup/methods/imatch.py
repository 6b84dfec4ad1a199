"""I-Match (Chowdhury et al. 2002) with randomized lexicons (Kołcz et al. 2004, 2008).

A document becomes one fingerprint: the SHA1 of its distinct terms that belong to a
*lexicon* of terms with mid-range IDF in collection statistics (hajishirzi2010 2.2:
"L consists of only terms with mid-range IDF values ... S = L ∩ U is used as the set
of terms representing d for creating the signature").  Documents with equal
signatures are duplicates.  Terms that are very common (stopwords, template words)
and very rare (typos, names of one page) stay out, so small edits that touch only
them leave the signature unchanged, and word order never matters.  Paper knobs:

* ``idf_scale``, ``idf_min``, ``idf_max`` -- the lexicon's IDF band: ``nidf`` (default)
  bounds IDF normalized to [0, 1] by ln N (a word in every document 0, in one
  document 1), ``percentile`` bounds the IDF percentile among the distinct words of
  the statistics (fractions in [0, 1]), ``idf`` bounds ln(N / df) itself.  The papers
  here give no numbers for I-Match's band; the default [0.2, 0.85] normalized IDF is the
  mid-range band alonso2013 uses for phrases (our choice, not tuned on any data set).
* ``min_terms`` -- a signature needs at least this many lexicon terms, else it is
  invalid and matches nothing ("a constraint is placed on the minimum length of a
  document for which a valid signature can be produced"); 5 is our choice.
* ``lexicons`` m, ``lexicon_drop``, ``min_matches`` -- Kołcz's randomized lexicons:
  signature 0 uses the lexicon itself, signatures 1..m-1 each a copy without a random
  ``lexicon_drop`` share of its terms (a term is dropped from copy j when a hash of the
  term, the seed and j falls below the share, so copies need no storage); a pair is a
  near-duplicate when at least ``min_matches`` of its m signatures match (Kołcz: any
  one).  Default m = 1: plain I-Match.  The score of a pair is the share of its m
  signatures that match (1.0 or 0.0 for plain I-Match); ``threshold`` (off: the share
  ``min_matches / m``) is the share needed.
* ``selection`` ``codet`` -- the I-Match set-up of CoDet's study (varol2011): instead of
  the IDF band, rank the document's distinct words by IDF, skip the ``skip_top`` (2)
  highest and fingerprint the next ``top_terms`` (10).

Terms are neardup's normalized tokens (varol2011 also dropped stopwords and cut words
to 5 letters; neither is done here).  A term enters the fingerprint as its 64-bit token
hash; the document's sorted hashes are fed to SHA1 as little-endian bytes (one
``hashlib`` call per document and lexicon; selecting the terms is vectorized), and the
first 8 bytes of the digest are kept.  Candidates are documents sharing a signature:
for m > 1, pairs sharing the required number of the m signature keys, counted like
supershingles.  Statistics come from ``stats`` (any ``.npz`` of ``neardup stats
build``), else from the documents given.
"""

from __future__ import annotations

import hashlib
import math
from typing import Sequence

import numpy as np

from ..errors import UserError
from ..features.sets import HashedSets
from ..features.shingles import word_shingles
from ..index import banding as lsh
from ..stats.build import check_stats_path
from ..stats.df import DocumentFrequencies
from .base import Method

SELECTIONS = ("lexicon", "codet")
IDF_SCALES = ("nidf", "percentile", "idf")
INVALID = np.uint64(0)

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer over a uint64 array."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * _M1
        z = (z ^ (z >> np.uint64(27))) * _M2
        return z ^ (z >> np.uint64(31))


def sha1_signatures(hashes: np.ndarray, offsets: np.ndarray, keep: np.ndarray, min_terms: int) -> tuple[np.ndarray, np.ndarray]:
    """SHA1 (first 8 bytes) of each document's kept hashes, and how many were kept.

    Documents with fewer than ``min_terms`` kept hashes get :data:`INVALID`.
    """
    n = offsets.shape[0] - 1
    c = np.zeros(keep.shape[0] + 1, dtype=np.int64)
    np.cumsum(keep, out=c[1:])
    counts = c[offsets[1:]] - c[offsets[:-1]]
    starts = c[offsets[:-1]] * 8
    data = memoryview(np.ascontiguousarray(hashes[keep], dtype="<u8").tobytes())
    sig = np.zeros(n, dtype=np.uint64)
    valid = np.flatnonzero(counts >= max(min_terms, 1))
    ends = starts + counts * 8
    values = [
        int.from_bytes(hashlib.sha1(data[lo:hi]).digest()[:8], "little") or 1
        for lo, hi in zip(starts[valid].tolist(), ends[valid].tolist())
    ]
    sig[valid] = np.array(values, dtype=np.uint64)
    return sig, counts


class IMatchMethod(Method):
    """SHA1 of a document's mid-IDF terms; equal signatures (of m lexicons) are duplicates."""

    name = "imatch"
    summary = "SHA1 of the document's mid-IDF lexicon terms; randomized lexicons (Chowdhury; Kolcz)."
    param_help = {
        "threshold": (
            "similarity at or above which a pair is a near-duplicate "
            "(imatch: share of matching signatures, off = min_matches of lexicons)"
        ),
        "stats": "collection statistics (.npz of `neardup stats build`); off = the input itself",
        "selection": "terms to fingerprint: the lexicon's, or CoDet's (skip top IDF words, take next)",
        "idf_scale": "scale of the lexicon bounds: normalized IDF, IDF percentile, or IDF",
        "idf_min": "lowest IDF of a lexicon term (on idf_scale)",
        "idf_max": "highest IDF of a lexicon term (on idf_scale)",
        "min_terms": "fewest lexicon terms for a valid signature",
        "lexicons": "signatures per document: the lexicon plus randomized copies (Kolcz)",
        "lexicon_drop": "share of the terms each randomized lexicon drops",
        "min_matches": "signatures a pair must share to be a near-duplicate",
        "skip_top": "codet: highest-IDF words of the document skipped",
        "top_terms": "codet: words fingerprinted after the skipped ones",
        "seed": "random seed of the hash functions",
    }
    param_choices = {"selection": SELECTIONS, "idf_scale": IDF_SCALES}

    def __init__(
        self,
        threshold: float | None = None,
        stats: str | None = None,
        selection: str = "lexicon",
        idf_scale: str = "nidf",
        idf_min: float = 0.2,
        idf_max: float = 0.85,
        min_terms: int = 5,
        lexicons: int = 1,
        lexicon_drop: float = 0.33,
        min_matches: int = 1,
        skip_top: int = 2,
        top_terms: int = 10,
        seed: int = 1,
    ) -> None:
        if lexicons < 1:
            raise UserError(f"lexicons must be at least 1, got {lexicons}")
        if not 1 <= min_matches <= lexicons:
            raise UserError(f"min_matches must be between 1 and lexicons ({lexicons}), got {min_matches}")
        super().__init__(min_matches / lexicons if threshold is None else threshold, seed)
        self.check_choices(selection=selection, idf_scale=idf_scale)
        if idf_min > idf_max:
            raise UserError(f"idf_min ({idf_min}) exceeds idf_max ({idf_max})")
        if idf_scale != "idf" and not 0.0 <= idf_min <= idf_max <= 1.0:
            raise UserError(f"{idf_scale} bounds must be within [0, 1], got {idf_min}, {idf_max}")
        if not 0.0 <= lexicon_drop < 1.0:
            raise UserError(f"lexicon_drop must be in [0, 1), got {lexicon_drop}")
        if min_terms < 1 or skip_top < 0 or top_terms < 1:
            raise UserError("min_terms and top_terms must be at least 1, skip_top at least 0")
        check_stats_path(stats)
        self.stats = stats
        self.selection = selection
        self.idf_scale = idf_scale
        self.idf_min = idf_min
        self.idf_max = idf_max
        self.min_terms = min_terms
        self.lexicons = lexicons
        self.lexicon_drop = lexicon_drop
        self.min_matches = min_matches
        self.skip_top = skip_top
        self.top_terms = top_terms
        rng = np.random.Generator(np.random.PCG64(seed))
        self._lexicon_keys = rng.integers(0, 2**64 - 1, size=lexicons, dtype=np.uint64, endpoint=True)
        self._df: DocumentFrequencies | None = None
        self._bounds: tuple[float, float] | None = None
        self._sets: list[HashedSets] = []
        self._sigs: list[np.ndarray] = []
        self._terms: list[np.ndarray] = []

    # -- the lexicon -------------------------------------------------------------------
    def idf_bounds(self) -> tuple[float, float]:
        """The lexicon's band as absolute IDF ``(low, high)``, inclusive."""
        if self._bounds is None:
            df = self._df
            log_n = math.log(max(df.n_docs, 1))
            if self.idf_scale == "idf":
                self._bounds = (self.idf_min, self.idf_max)
            elif self.idf_scale == "nidf":
                self._bounds = (self.idf_min * log_n, self.idf_max * log_n)
            else:
                df.compact()
                idf = np.log(max(df.n_docs, 1) / np.maximum(df.counts, 1))
                if not idf.shape[0]:
                    self._bounds = (0.0, 0.0)
                else:
                    lo, hi = np.quantile(idf, [self.idf_min, self.idf_max])
                    self._bounds = (float(lo), float(hi))
        return self._bounds

    def lexicon_mask(self, hashes: np.ndarray, lexicon: int = 0) -> np.ndarray:
        """Which of ``hashes`` are in lexicon ``lexicon`` (0: the full one)."""
        idf = self._df.idf(hashes)
        keep = self._in_band(idf) if self.selection == "lexicon" else np.ones(hashes.shape, bool)
        return keep & self._kept_by_copy(hashes, lexicon)

    def _in_band(self, idf: np.ndarray) -> np.ndarray:
        lo, hi = self.idf_bounds()
        tol = 1e-9 * max(1.0, abs(hi))
        return (idf >= lo - tol) & (idf <= hi + tol)

    def _kept_by_copy(self, hashes: np.ndarray, lexicon: int) -> np.ndarray:
        if lexicon == 0 or self.lexicon_drop == 0.0:
            return np.ones(hashes.shape, dtype=bool)
        u = (_mix(hashes ^ self._lexicon_keys[lexicon]) >> np.uint64(11)).astype(np.float64) * 2.0**-53
        return u >= self.lexicon_drop

    def _codet(self, sets: HashedSets, idf: np.ndarray, keep: np.ndarray) -> np.ndarray:
        """CoDet's choice: per document, the kept words ranked ``skip_top + 1 ..
        skip_top + top_terms`` by IDF (ties by hash)."""
        idx = np.flatnonzero(keep)
        doc = np.repeat(np.arange(len(sets)), sets.sizes())[idx]
        order = np.lexsort((sets.hashes[idx], -idf[idx], doc))
        d = doc[order]
        rank = np.arange(d.shape[0]) - np.searchsorted(d, d, side="left")
        chosen = (rank >= self.skip_top) & (rank < self.skip_top + self.top_terms)
        out = np.zeros(keep.shape, dtype=bool)
        out[idx[order][chosen]] = True
        return out

    def signatures(self, sets: HashedSets) -> tuple[np.ndarray, np.ndarray]:
        """``(n, lexicons)`` signatures (INVALID below ``min_terms``) and term counts."""
        n, m = len(sets), self.lexicons
        sig = np.zeros((n, m), dtype=np.uint64)
        terms = np.zeros((n, m), dtype=np.int64)
        idf = self._df.idf(sets.hashes)
        base = self._in_band(idf) if self.selection == "lexicon" else np.ones(sets.hashes.shape, bool)
        for j in range(m):
            keep = base & self._kept_by_copy(sets.hashes, j)
            if self.selection == "codet":
                keep = self._codet(sets, idf, keep)
            sig[:, j], terms[:, j] = sha1_signatures(sets.hashes, sets.offsets, keep, self.min_terms)
        return sig, terms

    # -- Method ------------------------------------------------------------------------
    def add(self, texts: Sequence[str]) -> np.ndarray:
        sets, _ = word_shingles(texts, 1)
        if self.stats is not None:
            if self._df is None:
                self._df = DocumentFrequencies.load(self.stats)
            sig, terms = self.signatures(sets)
            self._sigs.append(sig)
            self._terms.append(terms)
        else:
            if self._df is None:
                self._df = DocumentFrequencies()
            self._df.update(sets)
            self._sets.append(sets)
        self.n_docs_ += len(texts)
        return sets.sizes() > 0

    def finalize(self) -> None:
        """Sign the kept documents (input statistics); join the batches."""
        if self.stats is None:
            if self._df is None:
                self._df = DocumentFrequencies()
            for sets in self._sets:
                sig, terms = self.signatures(sets)
                self._sigs.append(sig)
                self._terms.append(terms)
        m = self.lexicons
        self.signatures_ = np.concatenate(self._sigs) if self._sigs else np.zeros((0, m), np.uint64)
        self.terms_ = np.concatenate(self._terms) if self._terms else np.zeros((0, m), np.int64)
        self.lexicon_idf_ = self.idf_bounds() if self._df is not None else None
        self._sets, self._sigs, self._terms = [], [], []

    def matches_needed(self) -> int:
        """Signatures a pair must share at the current threshold."""
        return max(self.min_matches, math.ceil(self.threshold * self.lexicons - 1e-9))

    def candidate_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        sig = self.signatures_
        n, m = sig.shape
        needed = self.matches_needed()
        if needed > m or n < 2:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        keys = sig.copy()
        invalid = keys == INVALID
        if invalid.any():
            # invalid signatures get keys of their own (a mix of document and lexicon) so
            # they share no bucket; the count check below drops any freak collision
            d, j = np.nonzero(invalid)
            keys[d, j] = _mix(d.astype(np.uint64) * np.uint64(m) + j.astype(np.uint64) + np.uint64(0x5EED))
        docs = np.flatnonzero(~invalid.all(axis=1))
        a, b = lsh.candidate_pairs(keys[docs], needed)
        a, b = docs[a], docs[b]
        ok = self._matches(a, b) >= needed
        return a[ok], b[ok]

    def _matches(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        sa, sb = self.signatures_[a], self.signatures_[b]
        return np.count_nonzero((sa == sb) & (sa != INVALID), axis=1)

    def score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        out = np.empty(a.shape[0], dtype=np.float64)
        chunk = max(1, (1 << 22) // self.lexicons)
        for lo in range(0, a.shape[0], chunk):
            hi = lo + chunk
            out[lo:hi] = self._matches(a[lo:hi], b[lo:hi]) / self.lexicons
        return out
