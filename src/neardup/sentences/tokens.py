"""Token-level features of sentences: token hashes, word k-gram sets, set fingerprints.

Sentence methods compare sentences (or documents made of them) as sets of hashed
features.  Tokens are the one tokenizer's (:mod:`neardup.text.tokenize`), hashed with
XXH64 (seed 0); a k-gram's hash is XXH64 of its k token hashes, exactly as
:func:`neardup.features.shingles.word_shingles` computes a document's shingles, and a
sequence shorter than k (but not empty) yields one gram of all its tokens.  All work
runs in compiled kernels over CSR arrays (``values``, ``offsets``).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numba import njit, prange

from ..errors import UserError
from ..features.sets import HashedSets, sort_unique_segments
from ..features.spots import TokenBatch
from ..hashing import xxh64_lanes


def sentence_tokens(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """CSR ``(hashes, offsets)`` of the tokens of each text, in text order."""
    batch = TokenBatch.from_texts(texts).compact()
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(batch.counts, out=offsets[1:])
    return batch.hashes, offsets


@njit(parallel=True, nogil=True, cache=True)
def _grams(words, offsets, k, every):
    """Hashes of the k-grams at positions 0, every, 2*every, ... of each sequence."""
    n = offsets.shape[0] - 1
    out = np.empty(words.shape[0] + n, dtype=np.uint64)
    sizes = np.zeros(n, dtype=np.int64)
    for d in prange(n):
        lo, hi = offsets[d], offsets[d + 1]
        t = hi - lo
        if t == 0:
            continue
        width = k if t >= k else t
        m = 0
        for i in range(0, t - width + 1, every):
            out[lo + d + m] = xxh64_lanes(words, lo + i, lo + i + width, np.uint64(0))
            m += 1
        sizes[d] = m
    return out, offsets[:-1] + np.arange(n), sizes


def gram_sets(words: np.ndarray, offsets: np.ndarray, k: int, every: int = 1) -> HashedSets:
    """Sorted unique k-gram hash sets of CSR token sequences (every ``every``-th gram by position)."""
    if k < 1 or every < 1:
        raise UserError(f"gram size and step must be at least 1, got {k} and {every}")
    values, starts, sizes = _grams(words, offsets, k, every)
    return HashedSets(*sort_unique_segments(values, starts, sizes))


def distinct(words: np.ndarray, offsets: np.ndarray) -> HashedSets:
    """The distinct values of each CSR segment."""
    return HashedSets(*sort_unique_segments(words.copy(), offsets[:-1], np.diff(offsets)))


@njit(cache=True)
def _fingerprints(values, offsets):
    out = np.zeros(offsets.shape[0] - 1, dtype=np.uint64)
    for d in range(out.shape[0]):
        if offsets[d + 1] > offsets[d]:
            out[d] = xxh64_lanes(values, offsets[d], offsets[d + 1], np.uint64(0)) | np.uint64(1)
    return out


def set_fingerprints(sets: HashedSets) -> np.ndarray:
    """XXH64 of each (sorted) set, never 0; 0 for an empty set."""
    return _fingerprints(sets.hashes, sets.offsets)
