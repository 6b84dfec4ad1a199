"""Comparing fixed-size sample signatures: the share of positions that agree.

For MinHash the share of equal minima estimates the Jaccard resemblance; for consistent
weighted samples (ICWS) it estimates the weighted Jaccard.  One function serves both.
"""

from __future__ import annotations

import numpy as np

_CHUNK = 1 << 20


def equal_share(sig_a: np.ndarray, sig_b: np.ndarray) -> np.ndarray:
    """Share of equal positions between rows of two signature arrays (row-wise)."""
    return np.count_nonzero(sig_a == sig_b, axis=-1) / sig_a.shape[-1]


def pair_equal_share(signatures: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """:func:`equal_share` of rows ``a[i]`` and ``b[i]`` of ``signatures``, in bounded memory."""
    out = np.empty(a.shape[0], dtype=np.float64)
    for lo in range(0, a.shape[0], _CHUNK):
        hi = lo + _CHUNK
        out[lo:hi] = equal_share(signatures[a[lo:hi]], signatures[b[lo:hi]])
    return out
