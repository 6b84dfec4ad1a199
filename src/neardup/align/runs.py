"""Which seed matches of a document pair can be copied text, before they are chained
(:func:`~.seeds.chain_pairs`): a kernel of the passages stage, in a module of its own.

Where one word position of a document is in several matches with the other document (a phrase
the other holds twice, a formula that every sentence of a wire item repeats), only the matches
of the longest run -- consecutive matches on one diagonal -- are kept, and none when every one is
a lone seed.  Linear in the pair's matches: runs are walked along the groups of one ``pa``.
And where a match's seed first occurs in ``a`` (:func:`first_in_a`), so that a phrase both
documents print twice is evidence once.
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
def _on_diagonal(pa, pb, j, step):
    """The match ``step`` (1 or -1) words from ``j`` in both documents, or -1: it is in the
    group of matches right after (before) j's."""
    m = pa.shape[0]
    k = j
    while 0 <= k + step < m and pa[k + step] == pa[j]:  # past j's group
        k += step
    k += step
    while 0 <= k < m and pa[k] == pa[j] + step and (pb[k] - pb[j] - step) * step < 0:
        k += step
    return k if 0 <= k < m and pa[k] == pa[j] + step and pb[k] == pb[j] + step else -1


@njit(cache=True)
def _mark_run(pa, pb, i, length, visited):
    """Sets ``length`` of every match of ``i``'s run -- consecutive matches on its diagonal,
    one word further in both documents -- to the run's seeds (1: a lone n-word phrase)."""
    visited[0] = i
    c = 1
    for step in (1, -1):
        j = _on_diagonal(pa, pb, i, step)
        while j >= 0:
            visited[c] = j
            c += 1
            j = _on_diagonal(pa, pb, j, step)
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
    for i in range(m):
        twice[i] = count[pb[i]] > 1 or (i > 0 and pa[i] == pa[i - 1]) or (i + 1 < m and pa[i + 1] == pa[i])
    keep = _longest_runs(pa, pb, twice, best, count) if twice.any() else np.zeros(0, dtype=np.bool_)
    for i in range(m):
        best[pb[i]] = 0
        count[pb[i]] = 0
    return keep


@njit(cache=True)
def _longest_runs(pa, pb, twice, best, count):
    """:func:`kept_matches`' mask, given which matches share a position (``twice``) and the
    matches of each position of ``b`` (``count``); ``best`` gets each position's longest run."""
    m = pa.shape[0]
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
    return keep


@njit(cache=True)
def first_in_a(pa, pb, first):
    """Per match of one pair, the first position of ``a`` matched to its position of ``b``:
    the first place ``a`` holds the seed (matches of one ``b`` word are matches of one seed).
    ``first``: zeroed scratch over ``b``'s positions, left zeroed."""
    m = pa.shape[0]
    for i in range(m):
        if first[pb[i]] == 0 or pa[i] + 1 < first[pb[i]]:
            first[pb[i]] = pa[i] + 1
    out = np.empty(m, dtype=np.int64)
    for i in range(m):
        out[i] = first[pb[i]] - 1
    for i in range(m):
        first[pb[i]] = 0
    return out
