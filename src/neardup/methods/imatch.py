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
from typing import Callable, Sequence

import numpy as np

from ..errors import UserError
from ..file_cache import by_file_version
from ..features.sets import HashedSets, ranked_within_documents
from ..features.shingles import word_shingles
from ..index import banding as lsh
from ..stats.build import check_stats_path
from ..stats.df import DocumentFrequencies
from .base import CandidatePlan, Candidates, Method, Sketches, sets_of

SELECTIONS = ("lexicon", "codet")
IDF_SCALES = ("nidf", "percentile", "idf")
INVALID = np.uint64(0)

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@by_file_version(maxsize=4)
def load_df(path: str) -> DocumentFrequencies:
    """The statistics file ``path``, read once per process while it is unchanged (every batch is signed with it)."""
    return DocumentFrequencies.load(path)


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
        super().__init__(threshold, seed)
        self.check_choices(selection=selection, idf_scale=idf_scale)
        if idf_min > idf_max:
            raise UserError(f"idf_min ({idf_min}) exceeds idf_max ({idf_max})")
        if idf_scale != "idf" and not 0.0 <= idf_min <= idf_max <= 1.0:
            raise UserError(f"idf_min and idf_max must be within [0, 1] on idf_scale {idf_scale}, got {idf_min} and {idf_max}")
        if not 0.0 <= lexicon_drop < 1.0:
            raise UserError(f"lexicon_drop must be in [0, 1), got {lexicon_drop}")
        for knob, value, least in (("min_terms", min_terms, 1), ("top_terms", top_terms, 1), ("skip_top", skip_top, 0)):
            if value < least:
                raise UserError(f"{knob} must be at least {least}, got {value}")
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

    def decision_threshold(self) -> float:
        """The threshold given, else ``min_matches / lexicons``."""
        return self.min_matches / self.lexicons if self.threshold is None else self.threshold

    # -- the lexicon -------------------------------------------------------------------
    def lexicon_keys(self) -> np.ndarray:
        """One random key per lexicon, drawn from ``seed`` (which terms each copy drops)."""
        rng = np.random.Generator(np.random.PCG64(self.seed))
        return rng.integers(0, 2**64 - 1, size=self.lexicons, dtype=np.uint64, endpoint=True)

    def idf_bounds(self, df: DocumentFrequencies) -> tuple[float, float]:
        """The lexicon's band as absolute IDF ``(low, high)``, inclusive, in the statistics ``df``."""
        log_n = math.log(max(df.n_docs, 1))
        if self.idf_scale == "idf":
            return (self.idf_min, self.idf_max)
        if self.idf_scale == "nidf":
            return (self.idf_min * log_n, self.idf_max * log_n)
        df.compact()
        idf = np.log(max(df.n_docs, 1) / np.maximum(df.counts, 1))
        if not idf.shape[0]:
            return (0.0, 0.0)
        lo, hi = np.quantile(idf, [self.idf_min, self.idf_max])
        return (float(lo), float(hi))

    def lexicon_mask(self, df: DocumentFrequencies, hashes: np.ndarray, lexicon: int = 0) -> np.ndarray:
        """Which of ``hashes`` are in lexicon ``lexicon`` (0: the full one) under the statistics ``df``."""
        idf = df.idf(hashes)
        keep = self._in_band(idf, self.idf_bounds(df)) if self.selection == "lexicon" else np.ones(hashes.shape, bool)
        return keep & self._kept_by_copy(hashes, lexicon, self.lexicon_keys())

    @staticmethod
    def _in_band(idf: np.ndarray, bounds: tuple[float, float]) -> np.ndarray:
        lo, hi = bounds
        tol = 1e-9 * max(1.0, abs(hi))
        return (idf >= lo - tol) & (idf <= hi + tol)

    def _kept_by_copy(self, hashes: np.ndarray, lexicon: int, keys: np.ndarray) -> np.ndarray:
        if lexicon == 0 or self.lexicon_drop == 0.0:
            return np.ones(hashes.shape, dtype=bool)
        u = (_mix(hashes ^ keys[lexicon]) >> np.uint64(11)).astype(np.float64) * 2.0**-53
        return u >= self.lexicon_drop

    def _codet(self, sets: HashedSets, idf: np.ndarray, keep: np.ndarray) -> np.ndarray:
        """CoDet's choice: per document, the kept words ranked ``skip_top + 1 ..
        skip_top + top_terms`` by IDF (ties by hash)."""
        ranked, rank = ranked_within_documents(sets, idf, keep)
        chosen = (rank >= self.skip_top) & (rank < self.skip_top + self.top_terms)
        out = np.zeros(keep.shape, dtype=bool)
        out[ranked[chosen]] = True
        return out

    def signatures(self, sets: HashedSets, df: DocumentFrequencies,
                   bounds: tuple[float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(n, lexicons)`` signatures (INVALID below ``min_terms``) and term counts, under the statistics
        ``df`` (``bounds``: its :meth:`idf_bounds`, when known)."""
        n, m = len(sets), self.lexicons
        sig = np.zeros((n, m), dtype=np.uint64)
        terms = np.zeros((n, m), dtype=np.int64)
        idf = df.idf(sets.hashes)
        bounds = self.idf_bounds(df) if bounds is None else bounds
        keys = self.lexicon_keys()
        base = self._in_band(idf, bounds) if self.selection == "lexicon" else np.ones(sets.hashes.shape, bool)
        for j in range(m):
            keep = base & self._kept_by_copy(sets.hashes, j, keys)
            if self.selection == "codet":
                keep = self._codet(sets, idf, keep)
            sig[:, j], terms[:, j] = sha1_signatures(sets.hashes, sets.offsets, keep, self.min_terms)
        return sig, terms

    # -- stages ------------------------------------------------------------------------
    def sketch(self, texts: Sequence[str]) -> Sketches:
        """The batch's word sets and their document frequencies; with ``stats`` its signatures
        at once (the statistics are fixed)."""
        sets, _ = word_shingles(texts, 1)
        if self.stats is not None:
            return self._signed(sets, load_df(self.stats))
        return Sketches(sets.sizes() > 0, {}, {"hashes": sets.hashes}, sets.offsets, DocumentFrequencies.of(sets))

    def _signed(self, sets: HashedSets, df: DocumentFrequencies, bounds: tuple[float, float] | None = None) -> Sketches:
        bounds = self.idf_bounds(df) if bounds is None else bounds
        sig, terms = self.signatures(sets, df, bounds)
        info = {"lexicon_idf": list(bounds)}
        return Sketches(sets.sizes() > 0, {"signatures": sig, "terms": terms}, info=info)

    def finish(self, parts: Sequence[Sketches]) -> Sketches:
        """Sign the documents under the input's statistics, a piece at a time
        (:meth:`~neardup.methods.base.Method.apply_in_pieces`; only the signatures are joined), or
        join the signed batches (``stats``)."""
        if self.stats is not None and parts:
            return Sketches.concat(parts)
        if self.stats is not None:
            return self._signed(HashedSets.concat([]), load_df(self.stats))
        return self.apply_in_pieces(parts, DocumentFrequencies.merged([p.stats for p in parts]))

    def statistics_applier(self, stats: DocumentFrequencies) -> Callable[[Sketches], Sketches]:
        """The rows of a piece signed under the collection's document frequencies ``stats`` (the
        lexicon's IDF band found once)."""
        bounds = self.idf_bounds(stats)

        def signed(sk: Sketches) -> Sketches:
            out = self._signed(sets_of(sk) if sk.offsets is not None else HashedSets.concat([]), stats, bounds)
            out.usable = sk.usable
            return out

        return signed

    def matches_needed(self) -> int:
        """Signatures a pair must share at the current threshold."""
        return max(self.min_matches, math.ceil(self.decision_threshold() * self.lexicons - 1e-9))

    def corpus_statistics(self) -> str | None:
        """Without a statistics file: the words' IDF over the whole input (the lexicons' cut)."""
        if self.stats is not None:
            return None
        return "its lexicons are cut by the words' IDF in the whole collection (give --stats FILE for fixed ones)"

    def candidate_plan(self) -> CandidatePlan:
        """Signatures as keys; a pair shares :meth:`matches_needed` of them."""
        return CandidatePlan("keys", min_shared=self.matches_needed())

    def keys(self, sk: Sketches) -> tuple[np.ndarray, int]:
        """The signatures, an invalid one replaced by a key of its own (a mix of row and lexicon)."""
        keys = sk.columns["signatures"].copy()
        m = keys.shape[1]
        invalid = keys == INVALID
        if invalid.any():
            d, j = np.nonzero(invalid)
            keys[d, j] = _mix(d.astype(np.uint64) * np.uint64(m) + j.astype(np.uint64) + np.uint64(0x5EED))
        return keys, self.matches_needed()

    def candidate_pairs(self, sk: Sketches) -> Candidates:
        sig = sk.columns["signatures"]
        n, m = sig.shape
        keys, needed = self.keys(sk)
        if needed > m or n < 2:
            return Candidates(np.zeros(0, np.int64), np.zeros(0, np.int64))
        # invalid signatures have keys of their own, so they share no bucket; the count
        # check below drops any freak collision
        docs = np.flatnonzero(~(sig == INVALID).all(axis=1))
        a, b = lsh.candidate_pairs(keys[docs], needed)
        a, b = docs[a], docs[b]
        ok = self._matches(sig, a, b) >= needed
        return Candidates(a[ok], b[ok])

    @staticmethod
    def _matches(sig: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        sa, sb = sig[a], sig[b]
        return np.count_nonzero((sa == sb) & (sa != INVALID), axis=1)

    def score(self, sk: Sketches, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        sig = sk.columns["signatures"]
        out = np.empty(a.shape[0], dtype=np.float64)
        chunk = max(1, (1 << 22) // self.lexicons)
        for lo in range(0, a.shape[0], chunk):
            hi = lo + chunk
            out[lo:hi] = self._matches(sig, a[lo:hi], b[lo:hi]) / self.lexicons
        return out
