"""Comparing fixed-size sample signatures: the share of positions that agree.

For MinHash the share of equal minima estimates the Jaccard resemblance; for consistent
weighted samples (ICWS) it estimates the weighted Jaccard.  One function serves both.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


def equal_share(sig_a: np.ndarray, sig_b: np.ndarray) -> np.ndarray:
    """Share of equal positions between rows of two signature arrays (row-wise)."""
    return np.count_nonzero(sig_a == sig_b, axis=-1) / sig_a.shape[-1]


@njit(parallel=True, nogil=True, cache=True)
def _pair_equal_share(signatures, a, b):
    m = signatures.shape[1]
    out = np.empty(a.shape[0], dtype=np.float64)
    for i in prange(a.shape[0]):
        x, y = a[i], b[i]
        same = 0
        for j in range(m):
            if signatures[x, j] == signatures[y, j]:
                same += 1
        out[i] = same / m
    return out


def pair_equal_share(signatures: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`equal_share` of rows ``a[i]`` and ``b[i]`` of ``signatures``, compiled, without copying rows.

    The same numbers as :func:`equal_share` (an exact count over the same divisor), in
    memory of one float per pair: gathering the rows of the pairs first takes a row per pair.
    """
    return _pair_equal_share(signatures, np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
