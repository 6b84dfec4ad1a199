"""Candidate pairs without comparing all pairs: LSH banding and Broder's supershingles.

Both cut a signature into groups of ``rows`` consecutive values and hash each group to
one 64-bit key (for supershingles the key *is* the supershingle).  Two documents that
share the key of a group land in one bucket; a pair is a candidate when it shares at
least ``min_shared`` keys:

* LSH banding (Indyk-Motwani; the datasketch ``MinHashLSH`` scheme): ``min_shared = 1``,
  ``bands x rows`` chosen from the threshold to minimize the weighted probability mass of
  false positives below and false negatives above it;
* supershingles (Broder 1997; Fetterly et al. 2003 and Henzinger 2006 use 6
  supershingles of 14 min-values and call a pair similar when 2 of them match): all
  values in ``supershingles`` equal groups and ``min_shared = 2`` by default.

The probability that a pair of resemblance ``s`` becomes a candidate is
``P[Binomial(bands, s**rows) >= min_shared]``; :func:`choose_banding` minimizes the
weighted error of that curve around the threshold for either scheme.  Unlike
datasketch (equal weights: 9 x 13 at 0.8, which finds only 93% of pairs at 0.9 and 40%
at 0.8), neardup verifies every candidate, so a false positive costs one comparison
while a false negative is lost for good: false negatives weigh 0.99 (18 x 7 at 0.8:
99.999% at 0.9, 98.6% at 0.8; candidates cost little, 13% of pairs at 0.5 become one).  Bucketing sorts the keys
of each band and emits the pairs of every run of equal keys in compiled code.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb

import numpy as np
from numba import njit, prange

from ..errors import UserError
from ..hashing import xxh64_lanes


@dataclass(frozen=True)
class Banding:
    """``bands`` groups of ``rows`` signature values; candidates share ``min_shared`` keys."""

    bands: int
    rows: int
    min_shared: int = 1

    def candidate_probability(self, s: np.ndarray | float) -> np.ndarray:
        """Probability that a pair of resemblance ``s`` becomes a candidate."""
        p = np.asarray(s, dtype=np.float64)[..., None] ** self.rows
        k = np.arange(self.min_shared, self.bands + 1)
        coef = np.array([comb(self.bands, int(j)) for j in k], dtype=np.float64)
        return (coef * p**k * (1.0 - p) ** (self.bands - k)).sum(axis=-1)


#: Weight of false positives (below the threshold) against false negatives (above it).
FP_WEIGHT = 0.01


def _error_curves(bands: np.ndarray, rows: np.ndarray, min_shared: int, s: np.ndarray) -> np.ndarray:
    """Candidate probability of each (bands[i], rows[i]) at each resemblance ``s[j]``."""
    p = s[None, :] ** rows[:, None]
    if min_shared == 1:
        return 1.0 - (1.0 - p) ** bands[:, None]
    return np.stack([Banding(int(b), int(r), min_shared).candidate_probability(s) for b, r in zip(bands, rows)])


def banding_errors(
    bands: np.ndarray, rows: np.ndarray, min_shared: int, threshold: float, fp_weight: float = FP_WEIGHT
) -> np.ndarray:
    """Weighted false-positive mass below ``threshold`` plus false-negative mass above it."""
    lo = np.linspace(0.0, threshold, 257)
    hi = np.linspace(threshold, 1.0, 257)
    fp = np.trapezoid(_error_curves(bands, rows, min_shared, lo), lo, axis=1)
    fn = np.trapezoid(1.0 - _error_curves(bands, rows, min_shared, hi), hi, axis=1)
    return fp_weight * fp + (1.0 - fp_weight) * fn


@lru_cache(maxsize=256)  # a search over bands x rows (docs/costs.md): an online index asks for every batch
def choose_banding(
    threshold: float,
    num_perm: int,
    min_shared: int = 1,
    use_all: bool = False,
    fp_weight: float = FP_WEIGHT,
) -> Banding:
    """The banding with the least weighted error at ``threshold``.

    With ``use_all`` (supershingles) every value is used: ``rows = num_perm // bands``.
    Otherwise any ``bands * rows <= num_perm`` is allowed, as in datasketch.
    """
    if not 0.0 < threshold <= 1.0:
        raise UserError(f"threshold must be in (0, 1], got {threshold}")
    options = [
        (b, r)
        for b in range(max(1, min_shared), num_perm + 1)
        for r in ([num_perm // b] if use_all else range(1, num_perm // b + 1))
    ]
    bands, rows = (np.array(x, dtype=np.int64) for x in zip(*options))
    errors = banding_errors(bands, rows, min_shared, threshold, fp_weight)
    best = int(np.argmin(errors))  # the first minimum: fewest bands among equals
    return Banding(int(bands[best]), int(rows[best]), min_shared)


@njit(parallel=True, nogil=True, cache=True)
def band_keys(signatures, bands, rows, seed):
    """``(n, bands)`` keys: XXH64 of each group of ``rows`` values, seeded per band."""
    n = signatures.shape[0]
    keys = np.empty((n, bands), dtype=np.uint64)
    for d in prange(n):
        tmp = np.empty(rows, dtype=np.uint64)
        for j in range(bands):
            for r in range(rows):
                tmp[r] = np.uint64(signatures[d, j * rows + r])
            keys[d, j] = xxh64_lanes(tmp, 0, rows, seed + np.uint64(j))
    return keys


@njit(cache=True)
def _bucket_pairs(order, sorted_keys, n_docs):
    """Pair codes ``lo * n_docs + hi`` of every pair within each run of equal keys."""
    total = 0
    i = 0
    m = sorted_keys.shape[0]
    while i < m:
        j = i + 1
        while j < m and sorted_keys[j] == sorted_keys[i]:
            j += 1
        c = j - i
        total += c * (c - 1) // 2
        i = j
    out = np.empty(total, dtype=np.int64)
    pos = 0
    i = 0
    while i < m:
        j = i + 1
        while j < m and sorted_keys[j] == sorted_keys[i]:
            j += 1
        for x in range(i, j):
            for y in range(x + 1, j):
                a = order[x]
                b = order[y]
                if a > b:
                    a, b = b, a
                out[pos] = a * n_docs + b
                pos += 1
        i = j
    return out


def signature_keys(signatures: np.ndarray, banding: Banding, seed: int) -> np.ndarray:
    """``(n, bands)`` band keys of the rows of ``signatures`` (what a persistent index stores)."""
    sig = signatures[:, : banding.bands * banding.rows]
    return band_keys(sig, banding.bands, banding.rows, np.uint64(seed))


def banded_candidates(
    signatures: np.ndarray, banding: Banding, seed: int, usable: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Candidate pairs among the ``usable`` rows of ``signatures`` (indices into all rows)."""
    docs = np.flatnonzero(usable)
    sig = signatures if docs.shape[0] == signatures.shape[0] else signatures[docs]  # no copy when all are usable
    a, b = candidate_pairs(signature_keys(sig, banding, seed), banding.min_shared)
    return docs[a], docs[b]


def candidate_pairs(keys: np.ndarray, min_shared: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Index arrays ``(a, b)``, ``a < b``, sorted, of documents sharing ``min_shared`` keys."""
    n = keys.shape[0]
    codes = []
    for j in range(keys.shape[1]):
        order = np.argsort(keys[:, j])  # the order within a bucket does not matter: codes are made unique
        codes.append(_bucket_pairs(order, keys[order, j], n))
    if not codes:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    allcodes = np.concatenate(codes)
    if min_shared > 1:
        uniq, counts = np.unique(allcodes, return_counts=True)
        uniq = uniq[counts >= min_shared]
    else:
        uniq = np.unique(allcodes)
    return uniq // n, uniq % n
