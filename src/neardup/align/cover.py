"""How much of each document of a pair its passages hold (:func:`~.seeds.chain_pairs`): kernels
of the passages stage, in a module of their own.

A document's coverage is the share of its words inside the pair's reported passages, less the
passages' holes: the words a reordered piece skipped to join a passage
(:func:`~.seeds._chain_one` records them, :func:`trim_holes` gives back what a later piece of the
passage holds), which the other document does not hold there.  Its longest run is
the most consecutive words it has outside them (text of its own, as ``contain`` bounds it).
A pair that covers little of both needs passages dense enough to be a copy (:func:`dense`).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _cover(lo, hi, words):
    """Words of ``[0, words)`` inside the union of intervals ``[lo, hi)``, and the longest run outside."""
    order = np.argsort(lo, kind="mergesort")
    total = 0
    end = 0
    longest = 0
    for i in order:
        longest = max(longest, lo[i] - end)
        if hi[i] > end:
            total += hi[i] - max(lo[i], end)
            end = hi[i]
    return total, max(longest, words - end)


@njit(cache=True)
def side_cover(passages, shown, holes, side, words):
    """:func:`_cover` of one side (0: ``a``, 1: ``b``) of the ``shown`` passages, less their holes
    (:func:`~.seeds._chain_one`)."""
    idx = np.flatnonzero(shown)
    rank = np.full(passages.shape[0], -1, dtype=np.int64)
    rank[idx] = np.arange(idx.shape[0])
    mine = (holes[:, 1] == side) & (rank[holes[:, 0]] >= 0)
    owner, hole_lo, hole_hi = rank[holes[mine, 0]], holes[mine, 2], holes[mine, 3]
    order = np.argsort(owner * (np.int64(1) << 32) + hole_lo, kind="mergesort")
    lo, hi = _holed(passages[idx, 2 * side], passages[idx, 2 * side + 1], owner[order], hole_lo[order],
                    hole_hi[order])
    return _cover(lo, hi, words)


@njit(cache=True)
def _holed(lo, hi, owner, hole_lo, hole_hi):
    """The intervals ``[lo[i], hi[i])`` less the holes of each (``owner``: the interval a hole
    ``[hole_lo, hole_hi)`` lies in, holes of one interval in order of ``hole_lo``) as pieces
    ``(lo, hi)``."""
    out_lo = np.empty(lo.shape[0] + owner.shape[0], dtype=np.int64)
    out_hi = np.empty_like(out_lo)
    k = 0
    h = 0
    for i in range(lo.shape[0]):
        cur = lo[i]
        while h < owner.shape[0] and owner[h] < i:
            h += 1
        while h < owner.shape[0] and owner[h] == i:
            if hole_lo[h] > cur:
                out_lo[k], out_hi[k] = cur, min(hole_lo[h], hi[i])
                k += 1
            cur = max(cur, hole_hi[h])
            h += 1
        if cur < hi[i]:
            out_lo[k], out_hi[k] = cur, hi[i]
            k += 1
    return out_lo[:k], out_hi[:k]


@njit(cache=True)
def trim_holes(holes, h, first, side, lo, hi):
    """Takes ``[lo, hi)`` (a piece joining the passage) out of the passage's holes on ``side``
    (rows ``first:h`` of ``holes``; a hole split in two adds a row): words a piece holds are
    covered.  Returns the new row count."""
    for t in range(first, h):
        if holes[t, 1] != side or hi <= holes[t, 2] or lo >= holes[t, 3]:
            continue
        if holes[t, 2] < lo and hi < holes[t, 3]:  # inside: split
            holes[h, 0], holes[h, 1], holes[h, 2], holes[h, 3] = holes[t, 0], side, hi, holes[t, 3]
            h += 1
            holes[t, 3] = lo
        elif holes[t, 2] < lo:
            holes[t, 3] = lo
        else:
            holes[t, 2] = min(max(holes[t, 2], hi), holes[t, 3])
    return h


@njit(cache=True)
def dense(passages, shown, min_words):
    """Whether the shown passages together hold ``min_words`` distinct matched words counted at
    their density on their shorter side (``m * m / shorter >= min_words``, summed over the passages)."""
    m, shorter = 0, 0
    for i in range(passages.shape[0]):
        p = passages[i]
        if shown[i]:
            m += p[5]
            shorter += min(p[1] - p[0], p[3] - p[2])
    return m * m >= min_words * shorter
