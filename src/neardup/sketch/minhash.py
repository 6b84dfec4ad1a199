"""MinHash sketches (Broder 1997): ``num_perm`` minimum hash values per feature set.

For a random permutation the probability that two sets have the same minimum equals
their Jaccard resemblance, so the share of equal positions in two signatures estimates
it.  Permutation ``i`` is simulated by the multiply-shift hash
``h_i(x) = (a_i * x + b_i) mod 2^64 >> 32`` of the feature's 64-bit XXH64 value, with
odd ``a_i`` and ``b_i`` drawn from the seed; values are 32-bit, as in datasketch, so a
signature is ``4 * num_perm`` bytes.  Computing it is one compiled loop per document,
run on all cores.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..features.sets import HashedSets

EMPTY = np.uint32(0xFFFFFFFF)


@njit(parallel=True, cache=True)
def _minhash(hashes, offsets, a, b):
    n = offsets.shape[0] - 1
    m = a.shape[0]
    out = np.empty((n, m), dtype=np.uint32)
    shift = np.uint64(32)
    for d in prange(n):
        row = np.full(m, np.uint64(0xFFFFFFFF))
        for j in range(offsets[d], offsets[d + 1]):
            x = hashes[j]
            for i in range(m):
                v = (a[i] * x + b[i]) >> shift
                if v < row[i]:
                    row[i] = v
        for i in range(m):
            out[d, i] = np.uint32(row[i])
    return out


class MinHasher:
    """Computes MinHash signatures with ``num_perm`` permutations drawn from ``seed``."""

    def __init__(self, num_perm: int = 128, seed: int = 1) -> None:
        if num_perm < 1:
            raise ValueError(f"num_perm must be at least 1, got {num_perm}")
        self.num_perm = num_perm
        self.seed = seed
        rng = np.random.Generator(np.random.PCG64(seed))
        self._a = rng.integers(0, 2**63, size=num_perm, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        self._b = rng.integers(0, 2**63, size=num_perm, dtype=np.uint64)

    def sketch(self, sets: HashedSets) -> np.ndarray:
        """The ``(len(sets), num_perm)`` ``uint32`` signatures; an empty set is all EMPTY."""
        return _minhash(sets.hashes, sets.offsets, self._a, self._b)


def estimate_jaccard(sig_a: np.ndarray, sig_b: np.ndarray) -> np.ndarray:
    """Share of equal positions between rows of two signature arrays (row-wise)."""
    return np.count_nonzero(sig_a == sig_b, axis=-1) / sig_a.shape[-1]
