"""Word k-shingles (Broder): every run of k consecutive tokens, hashed to 64 bits.

A shingle's hash is XXH64 of its k token hashes (for k = 1, the token hash itself, so
word features can be looked up by :func:`~neardup.hashing.hash_str`); the features of a
document depend only on its normalized text and the seed.  A document with fewer than k tokens (but at
least one) yields a single shingle of all its tokens, so short texts still compare.
For scripts without spaces the tokens are characters, which makes these character
k-grams.

:func:`doc_shingles` is the per-document kernel; :func:`word_shingles` collects sorted
unique sets for a batch, and sketches that need no sets (MinHash) call the kernel
directly so shingles never leave the CPU cache.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numba import njit, prange

from ..errors import UserError
from ..hashing import xxh64_lanes
from ..text.normalize import char_classes
from ..text.tokenize import doc_tokens, encode_batch
from .sets import HashedSets, sort_unique_segments


@njit(cache=True)
def doc_shingles(buf, lo, hi, table, k, seed, out):
    """Hash the k-shingles of document ``buf[lo:hi]`` into ``out``; returns how many."""
    toks = np.empty(hi - lo, dtype=np.uint64)
    t = doc_tokens(buf, lo, hi, table, seed, toks)
    if t == 0:
        return 0
    if k == 1:
        out[:t] = toks[:t]
        return t
    m = t - k + 1 if t >= k else 1
    width = k if t >= k else t
    for i in range(m):
        out[i] = xxh64_lanes(toks, i, i + width, seed)
    return m


@njit(parallel=True, nogil=True, cache=True)
def _batch_shingles(buf, offsets, table, k, seed):
    n = offsets.shape[0] - 1
    out = np.empty(offsets[n], dtype=np.uint64)
    sizes = np.zeros(n, dtype=np.int64)
    for d in prange(n):
        sizes[d] = doc_shingles(buf, offsets[d], offsets[d + 1], table, k, seed, out[offsets[d] :])
    return out, sizes


def check_shingle_size(k: int) -> None:
    """Reject shingle sizes below one."""
    if k < 1:
        raise UserError(f"shingle_size must be at least 1, got {k}")


def word_shingles(texts: Sequence[str], k: int, seed: int = 0) -> tuple[HashedSets, np.ndarray]:
    """The sorted unique shingle sets of ``texts`` and each text's shingle count (with repeats)."""
    return encoded_word_shingles(*encode_batch(texts), k, seed)


def encoded_word_shingles(
    buf: np.ndarray, offsets: np.ndarray, k: int, seed: int = 0
) -> tuple[HashedSets, np.ndarray]:
    """:func:`word_shingles` of a batch already made by :func:`~neardup.text.tokenize.encode_batch`."""
    check_shingle_size(k)
    windows, sizes = _batch_shingles(buf, offsets, char_classes(), k, np.uint64(seed))
    hashes, set_offsets = sort_unique_segments(windows, offsets[:-1], sizes)
    return HashedSets(hashes, set_offsets), sizes


def word_shingle_counts(texts: Sequence[str], k: int, seed: int = 0) -> tuple[HashedSets, np.ndarray]:
    """Sorted unique k-shingle sets of ``texts`` and each feature's count in its text (TF)."""
    buf, offsets = encode_batch(texts)
    windows, sizes = _batch_shingles(buf, offsets, char_classes(), k, np.uint64(seed))
    idx = np.repeat(offsets[:-1] - np.r_[0, np.cumsum(sizes)[:-1]], sizes) + np.arange(int(sizes.sum()))
    values = windows[idx]
    doc = np.repeat(np.arange(len(texts), dtype=np.int64), sizes)
    order = np.lexsort((values, doc))
    values, doc = values[order], doc[order]
    first = np.ones(values.shape[0], dtype=bool)
    first[1:] = (values[1:] != values[:-1]) | (doc[1:] != doc[:-1])
    starts = np.flatnonzero(first)
    counts = np.diff(np.r_[starts, values.shape[0]])
    set_offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(np.bincount(doc[starts], minlength=len(texts)), out=set_offsets[1:])
    return HashedSets(values[starts], set_offsets), counts.astype(np.float64)
