"""MinHash sketches (Broder 1997): ``num_perm`` minimum hash values per feature set.

For a random permutation the probability that two sets have the same minimum equals
their Jaccard resemblance, so the share of equal positions in two signatures estimates
it.  Permutation ``i`` is simulated by the multiply-shift hash
``h_i(x) = (a_i * x + b_i) mod 2^64 >> 32`` of the feature's 64-bit XXH64 value, with
odd ``a_i`` and ``b_i`` drawn from the seed; values are 32-bit, as in datasketch, so a
signature is ``4 * num_perm`` bytes.  Computing it is one compiled loop per document,
run on all cores; :meth:`MinHasher.sketch_encoded` fuses tokenizing, shingling and
hashing into that loop so no shingle array is ever built for the batch.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..errors import UserError
from ..features.sets import HashedSets
from ..features.shingles import check_shingle_size, doc_shingles
from ..text.normalize import char_classes

EMPTY = np.uint32(0xFFFFFFFF)


@njit(inline="always", cache=True)
def _min_values(values, lo, hi, a, b, out):
    """Write the ``len(a)`` minimum permuted values of ``values[lo:hi]`` into ``out``.

    One permutation at a time over all the values: its multiplier and offset stay in
    registers and the running minimum in a vector, 20% faster than updating a row of
    ``len(a)`` minimums per value (which loads and stores the row for every value).
    """
    shift = np.uint64(32)
    for i in range(a.shape[0]):
        ai = a[i]
        bi = b[i]
        best = np.uint64(EMPTY)
        for j in range(lo, hi):
            best = min(best, (ai * values[j] + bi) >> shift)
        out[i] = np.uint32(best)


@njit(parallel=True, nogil=True, cache=True)
def _minhash(hashes, offsets, a, b):
    n = offsets.shape[0] - 1
    out = np.empty((n, a.shape[0]), dtype=np.uint32)
    for d in prange(n):
        _min_values(hashes, offsets[d], offsets[d + 1], a, b, out[d])
    return out


@njit(parallel=True, nogil=True, cache=True)
def _minhash_texts(buf, offsets, table, k, seed, a, b):
    n = offsets.shape[0] - 1
    out = np.empty((n, a.shape[0]), dtype=np.uint32)
    sizes = np.zeros(n, dtype=np.int64)
    for d in prange(n):
        scratch = np.empty(offsets[d + 1] - offsets[d], dtype=np.uint64)
        m = doc_shingles(buf, offsets[d], offsets[d + 1], table, k, seed, scratch)
        _min_values(scratch, 0, m, a, b, out[d])
        sizes[d] = m
    return out, sizes


class MinHasher:
    """Computes MinHash signatures with ``num_perm`` permutations drawn from ``seed``."""

    def __init__(self, num_perm: int = 128, seed: int = 1) -> None:
        if num_perm < 1:
            raise UserError(f"num_perm must be at least 1, got {num_perm}")
        self.num_perm = num_perm
        self.seed = seed
        rng = np.random.Generator(np.random.PCG64(seed))
        self._a = rng.integers(0, 2**63, size=num_perm, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        self._b = rng.integers(0, 2**63, size=num_perm, dtype=np.uint64)

    def sketch(self, sets: HashedSets) -> np.ndarray:
        """The ``(len(sets), num_perm)`` ``uint32`` signatures; an empty set is all EMPTY."""
        return _minhash(sets.hashes, sets.offsets, self._a, self._b)

    def sketch_encoded(self, buf: np.ndarray, offsets: np.ndarray, shingle_size: int) -> tuple[np.ndarray, np.ndarray]:
        """Signatures of the word shingle sets of a batch and each text's shingle count.

        ``buf, offsets`` is the batch as :func:`~neardup.text.tokenize.encode_batch` makes
        it (the kernel lower-cases ``buf`` in place).  Equal to
        ``sketch(word_shingles(texts, shingle_size)[0])``, in one pass.
        """
        check_shingle_size(shingle_size)
        return _minhash_texts(buf, offsets, char_classes(), shingle_size, np.uint64(0), self._a, self._b)
