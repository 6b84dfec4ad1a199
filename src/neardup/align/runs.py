"""Which seed matches of a document pair can be copied text, before they are chained
(:func:`~.seeds.chain_pairs`): a kernel of the passages stage, in a module of its own.

Where one word position of a document is in several matches with the other document (a phrase
the other holds twice, a formula that every sentence of a wire item repeats), only the matches
of the longest run -- consecutive matches on one diagonal -- are kept, and none when every one is
a lone seed.  Linear in the pair's matches: runs are walked along the groups of one ``pa``.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _group_end(pa, i):
    """The end of the group of matches of ``pa[i - 1]`` (matches sorted by ``pa``, ``pb``)."""
    while i < pa.shape[0] and pa[i] == pa[i - 1]:
        i += 1
    return i


@njit(cache=True)
def _next_on_diagonal(pa, pb, j):
    """The match one word further than ``j`` in both documents, or -1: in the group right after j's."""
    lo = _group_end(pa, j + 1)
    k = lo
    while k < pa.shape[0] and pa[k] == pa[j] + 1 and pb[k] < pb[j] + 1:
        k += 1
    return k if k < pa.shape[0] and pa[k] == pa[j] + 1 and pb[k] == pb[j] + 1 else -1


@njit(cache=True)
def _prev_on_diagonal(pa, pb, j):
    """The match one word before ``j`` in both documents, or -1: in the group right before j's."""
    k = j
    while k > 0 and pa[k - 1] == pa[j]:
        k -= 1
    k -= 1
    while k >= 0 and pa[k] == pa[j] - 1 and pb[k] > pb[j] - 1:
        k -= 1
    return k if k >= 0 and pa[k] == pa[j] - 1 and pb[k] == pb[j] - 1 else -1


@njit(cache=True)
def _mark_run(pa, pb, i, length, visited):
    """Sets ``length`` of every match of ``i``'s run -- consecutive matches on its diagonal,
    one word further in both documents -- to the run's seeds (1: a lone n-word phrase)."""
    c = 0
    j = i
    while j >= 0:
        visited[c] = j
        c += 1
        j = _next_on_diagonal(pa, pb, j)
    j = _prev_on_diagonal(pa, pb, i)
    while j >= 0:
        visited[c] = j
        c += 1
        j = _prev_on_diagonal(pa, pb, j)
    for k in range(c):
        length[visited[k]] = c


@njit(cache=True)
def kept_matches(pa, pb, best, count):
    """The matches of one pair (sorted by ``pa``, then ``pb``) that can be copied text: where a
    seed of one document matches several places of the other, only the matches of the longest
    run (:func:`_mark_run`), and none when all are lone seeds.  A phrase met twice is copied
    where its run goes on, not where it recurs in the document's own text (the "a lawyer for X
    said" before the quoted sentence that names the lawyer), and a formula phrase that many
    sentences repeat ("mln in January and") says nothing of which one was copied: chained,
    such matches stretched a quoted sentence over the sentences around it, up to most of a
    short wire item.  ``best`` and ``count``: zeroed scratch arrays over ``b``'s positions,
    left zeroed.  An empty mask when every position is matched once: all are kept."""
    m = pa.shape[0]
    for i in range(m):
        count[pb[i]] += 1
    twice = np.zeros(m, dtype=np.bool_)  # matches of a position matched more than once
    any_twice = False
    for i in range(m):
        twice[i] = count[pb[i]] > 1 or (i > 0 and pa[i] == pa[i - 1]) or (i + 1 < m and pa[i + 1] == pa[i])
        any_twice |= twice[i]
    if not any_twice:
        for i in range(m):
            count[pb[i]] = 0
        return np.zeros(0, dtype=np.bool_)
    length = np.zeros(m, dtype=np.int64)
    visited = np.empty(m, dtype=np.int64)
    for i in range(m):
        if twice[i]:
            if length[i] == 0:  # each run walked once
                _mark_run(pa, pb, i, length, visited)
            best[pb[i]] = max(best[pb[i]], length[i])
    keep = np.ones(m, dtype=np.bool_)
    lo = 0
    while lo < m:  # the matches of one position of a are contiguous
        hi = _group_end(pa, lo + 1)
        if hi - lo > 1:
            top = 0
            for k in range(lo, hi):
                top = max(top, length[k])
            for k in range(lo, hi):
                keep[k] = length[k] == top and top >= 2
        lo = hi
    for i in range(m):  # of b: its best run, per position
        if count[pb[i]] > 1 and (length[i] != best[pb[i]] or best[pb[i]] < 2):
            keep[i] = False
    for i in range(m):
        best[pb[i]] = 0
        count[pb[i]] = 0
    return keep
