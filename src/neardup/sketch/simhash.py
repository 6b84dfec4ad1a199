"""SimHash fingerprints (Charikar 2002): a weighted vote of feature hashes, one sign per bit.

Each feature is hashed to f bits; every bit adds the feature's weight to a counter when
set and subtracts it when clear; the fingerprint keeps the counters' signs (positive ->
1).  Two fingerprints differ in a share of bits that grows with the angle between the
weighted feature vectors, so ``1 - hamming / f`` is a similarity (Manku et al. 2007 use
f = 64 and call pages near-duplicates within k = 3 bits; Henzinger 2006 uses 384 bits,
near-duplicates when at least 355 agree).

Feature ``x`` gets its f bits from ``f / 64`` words ``splitmix64(x + word * seed)``-style
mixes of its 64-bit XXH64 value (one stream per 64-bit word of the fingerprint), so the
fingerprint depends only on the features, their weights and the seed.  Fingerprints are
``(n, f / 64)`` ``uint64`` arrays; the vote is one compiled loop per document, run on all
cores.  A document without features (or whose features all weigh 0) gets all zeros.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..features.sets import HashedSets
from ..index.hamming import check_bits, hamming_distances

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(inline="always", cache=True)
def _mix(x):
    """SplitMix64's finalizer: a bijective 64-bit mix."""
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


@njit(parallel=True, nogil=True, cache=True)
def _simhash(hashes, weights, offsets, words, salts):
    n = offsets.shape[0] - 1
    out = np.zeros((n, words), dtype=np.uint64)
    for d in prange(n):
        acc = np.zeros(64 * words, dtype=np.float64)
        for j in range(offsets[d], offsets[d + 1]):
            w = weights[j]
            if w == 0.0:
                continue
            for v in range(words):
                bits = _mix(hashes[j] + salts[v])
                for b in range(64):
                    if (bits >> np.uint64(b)) & np.uint64(1):
                        acc[64 * v + b] += w
                    else:
                        acc[64 * v + b] -= w
        for v in range(words):
            word = np.uint64(0)
            for b in range(64):
                if acc[64 * v + b] > 0.0:
                    word |= np.uint64(1) << np.uint64(b)
            out[d, v] = word
    return out


class SimHasher:
    """Computes ``bits``-bit SimHash fingerprints (a multiple of 64) with hashes drawn from ``seed``."""

    def __init__(self, bits: int = 64, seed: int = 1) -> None:
        check_bits(bits)
        self.bits = bits
        self.seed = seed
        self._salts = (np.arange(1, bits // 64 + 1, dtype=np.uint64) * _GOLDEN) ^ _mix(np.uint64(seed))

    def sketch(self, sets: HashedSets, weights: np.ndarray | None = None) -> np.ndarray:
        """``(len(sets), bits / 64)`` fingerprints; ``weights`` align with ``sets.hashes`` (default 1)."""
        if weights is None:
            weights = np.ones(sets.hashes.shape[0], dtype=np.float64)
        weights = np.asarray(weights, dtype=np.float64)
        if weights.shape != sets.hashes.shape:
            raise ValueError("weights must have one value per feature hash")
        return _simhash(sets.hashes, weights, sets.offsets, self.bits // 64, self._salts)


def similarity(fingerprints: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``1 - hamming / f`` of fingerprints ``a[i]`` and ``b[i]``."""
    bits = 64 * fingerprints.shape[1]
    return 1.0 - hamming_distances(fingerprints, a, b) / bits


def max_distance(threshold: float, bits: int) -> int:
    """Largest Hamming distance whose similarity ``1 - d / bits`` is at or above ``threshold``.

    Computed with the same arithmetic as :func:`similarity`, so a pair passes the
    threshold exactly when its distance is at most this; -1 when none does.
    """
    d = np.arange(bits + 1)
    ok = np.flatnonzero(1.0 - d / bits >= threshold)
    return int(ok[-1]) if ok.shape[0] else -1
