"""Hashed feature sets of a batch of documents, stored as one CSR structure.

Every set-based method turns a document into a set of 64-bit feature hashes (word
shingles, spot signatures, phrases).  :class:`HashedSets` holds those sets for many
documents in two flat arrays -- ``hashes`` (each document's values sorted and unique)
and ``offsets`` -- so that sketches, document frequencies and exact Jaccard all run as
compiled loops over contiguous memory instead of Python objects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange


@dataclass(frozen=True)
class HashedSets:
    """Sorted unique ``uint64`` feature hashes of ``len(offsets) - 1`` documents."""

    hashes: np.ndarray
    offsets: np.ndarray

    def __len__(self) -> int:
        return self.offsets.shape[0] - 1

    def sizes(self) -> np.ndarray:
        """Number of distinct features of each document."""
        return np.diff(self.offsets)

    def row(self, i: int) -> np.ndarray:
        """The feature hashes of document ``i``."""
        return self.hashes[self.offsets[i] : self.offsets[i + 1]]

    def subset(self, keep: np.ndarray) -> "HashedSets":
        """The same documents with only the features where the boolean ``keep`` is true."""
        kept_before = np.zeros(keep.shape[0] + 1, dtype=np.int64)  # features kept before each position
        np.cumsum(keep, out=kept_before[1:])
        return HashedSets(self.hashes[keep], kept_before[self.offsets])

    @staticmethod
    def concat(parts: list["HashedSets"]) -> "HashedSets":
        """One structure holding the documents of ``parts`` in order."""
        if not parts:
            return HashedSets(np.zeros(0, np.uint64), np.zeros(1, np.int64))
        sizes = np.concatenate([p.sizes() for p in parts])
        offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        return HashedSets(np.concatenate([p.hashes for p in parts]), offsets)


def pieces(offsets: np.ndarray, limit: int) -> list[tuple[int, int]]:
    """Consecutive document ranges ``(lo, hi)`` of the CSR ``offsets`` of at most ``limit`` entries each
    (a document with more is a range alone)."""
    n, lo, out = offsets.shape[0] - 1, 0, []
    while lo < n:
        hi = int(np.searchsorted(offsets, offsets[lo] + limit, side="right")) - 1
        hi = min(max(hi, lo + 1), n)
        out.append((lo, hi))
        lo = hi
    return out


@njit(parallel=True, nogil=True, cache=True)
def sort_unique_segments(values, starts, counts):
    """Sort and deduplicate each segment ``values[starts[d] : starts[d] + counts[d]]``.

    Works in place on ``values`` (a scratch array) and returns a compact CSR
    ``(hashes, offsets)``.
    """
    n = counts.shape[0]
    kept = np.zeros(n, dtype=np.int64)
    for d in prange(n):
        lo = starts[d]
        c = counts[d]
        if c == 0:
            continue
        seg = values[lo : lo + c]
        seg.sort()
        u = 1
        for i in range(1, c):
            if seg[i] != seg[u - 1]:
                seg[u] = seg[i]
                u += 1
        kept[d] = u
    offsets = np.zeros(n + 1, dtype=np.int64)
    for d in range(n):
        offsets[d + 1] = offsets[d] + kept[d]
    out = np.empty(offsets[n], dtype=np.uint64)
    for d in prange(n):
        out[offsets[d] : offsets[d + 1]] = values[starts[d] : starts[d] + kept[d]]
    return out, offsets


@njit(inline="always", cache=True)
def next_shared(values, p, pe, q, qe):
    """Positions of the next value the sorted unique runs ``values[p:pe]`` and ``values[q:qe]``
    share, or ``(pe, qe)`` when none is left: the step of every sorted-merge join::

        p, q = next_shared(values, p, pe, q, qe)
        while p < pe:
            ...  # values[p] == values[q]
            p, q = next_shared(values, p + 1, pe, q + 1, qe)
    """
    while p < pe and q < qe:
        if values[p] == values[q]:
            return p, q
        if values[p] < values[q]:
            p += 1
        else:
            q += 1
    return pe, qe


@njit(inline="always", cache=True)
def sorted_overlap(values, pa, pe, qa, qe):
    """Size of the intersection of the sorted unique runs ``values[pa:pe]`` and ``values[qa:qe]``."""
    inter = 0
    p, q = next_shared(values, pa, pe, qa, qe)
    while p < pe:
        inter += 1
        p, q = next_shared(values, p + 1, pe, q + 1, qe)
    return inter


@njit(parallel=True, nogil=True, cache=True)
def exact_jaccard(hashes, offsets, a, b):
    """Exact Jaccard of the sets of documents ``a[i]`` and ``b[i]`` (sorted merge)."""
    out = np.empty(a.shape[0], dtype=np.float64)
    for i in prange(a.shape[0]):
        p, pe = offsets[a[i]], offsets[a[i] + 1]
        q, qe = offsets[b[i]], offsets[b[i] + 1]
        inter = sorted_overlap(hashes, p, pe, q, qe)
        union = (pe - p) + (qe - q) - inter
        out[i] = inter / union if union > 0 else 0.0
    return out


def ranked_within_documents(sets: HashedSets, weights: np.ndarray, keep: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each document's features (those where ``keep`` is true) by ``weights``, highest first,
    ties by hash: positions into ``sets.hashes`` in that order, and each one's rank in its document.

    What I-Match's CoDet selection and CoDet's baselines rank by (IDF).
    """
    idx = np.arange(sets.hashes.shape[0]) if keep is None else np.flatnonzero(keep)
    doc = np.repeat(np.arange(len(sets)), sets.sizes())[idx]
    order = np.lexsort((sets.hashes[idx], -weights[idx], doc))
    d = doc[order]
    rank = np.arange(d.shape[0]) - np.searchsorted(d, d, side="left")
    return idx[order], rank


def document_frequencies(sets: HashedSets) -> tuple[np.ndarray, np.ndarray]:
    """Distinct feature hashes and the number of documents each occurs in."""
    return np.unique(sets.hashes, return_counts=True)
