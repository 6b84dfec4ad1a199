"""Word k-shingles (Broder): every run of k consecutive tokens, hashed to 64 bits.

A shingle's hash is XXH64 of its k token hashes, so the features of a document depend
only on its normalized text and the seed.  A document with fewer than k tokens (but at
least one) yields a single shingle of all its tokens, so short texts still compare.
For scripts without spaces the tokens are characters, which makes these character
k-grams.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numba import njit, prange

from ..hashing import xxh64_lanes
from ..text.normalize import char_classes
from ..text.tokenize import encode_batch, token_hashes
from .sets import HashedSets, sort_unique_segments


@njit(parallel=True, cache=True)
def _shingle_windows(tokens, positions, counts, k, seed):
    """Hash the k-token windows of each document in place of its tokens."""
    n = counts.shape[0]
    out = np.empty(tokens.shape[0], dtype=np.uint64)
    sizes = np.zeros(n, dtype=np.int64)
    for d in prange(n):
        t = counts[d]
        if t == 0:
            continue
        lo = positions[d]
        m = t - k + 1 if t >= k else 1
        width = k if t >= k else t
        for i in range(m):
            out[lo + i] = xxh64_lanes(tokens, lo + i, lo + i + width, seed)
        sizes[d] = m
    return out, sizes


def word_shingles(texts: Sequence[str], k: int, seed: int = 0) -> tuple[HashedSets, np.ndarray]:
    """The shingle sets of ``texts`` and each text's token count."""
    if k < 1:
        raise ValueError(f"shingle size must be at least 1, got {k}")
    buf, offsets = encode_batch(texts)
    useed = np.uint64(seed)
    tokens, counts = token_hashes(buf, offsets, char_classes(), useed)
    windows, sizes = _shingle_windows(tokens, offsets[:-1], counts, k, useed)
    hashes, set_offsets = sort_unique_segments(windows, offsets[:-1], sizes)
    return HashedSets(hashes, set_offsets), counts
