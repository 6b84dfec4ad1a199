"""Echoes: copied text met a second time within one pair of documents (kernels of the passages
stage, :func:`~.seeds.chain_pairs`).

One document may hold a copied text twice -- a wire item that prints a sentence twice, a page
that repeats a paragraph, or a few names and figures of the copied paragraph said again in its
own text -- while the other holds it once.  The second meeting is an echo: it neither joins the
passage (:func:`~.seeds._chain_one` asks :func:`repeats`) nor counts in the pair's coverage
(:func:`drop_echoes`), so a text shared once counts once, whichever document comes first.  Both
look at the words the seeds match, not at a passage's span, which also holds the words an edit
changed and the holes a reordered piece skipped.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def repeats(seen, pos, members, some, n):
    """Whether every word of the ``n``-word seeds at ``pos[some]`` is a word the seeds at
    ``pos[members]`` match too (``seen``: zeroed scratch over word positions, left zeroed)."""
    _mark(seen, pos, members, n, 1)
    every = True
    prev = -1
    for i in some:
        for y in range(_first_new(pos[i], prev, n), pos[i] + n):
            if seen[y] != 1:
                every = False
                break
        if not every:
            break
        prev = pos[i]
    _mark(seen, pos, members, n, 0)
    return every


@njit(cache=True)
def _mark(seen, pos, some, n, value):
    """Marks ``value`` in ``seen`` the words of the ``n``-word seeds at ``pos[some]``."""
    prev = -1
    for i in some:
        seen[_first_new(pos[i], prev, n):pos[i] + n] = value
        prev = pos[i]


@njit(cache=True)
def _first_new(x, prev, n):
    """The first word of the seed at ``x`` that the seed at ``prev`` before it did not hold
    (a chain's seeds overlap: each adds one word)."""
    return max(x, prev + n) if x >= prev >= 0 else x


@njit(cache=True)
def _half_seen(seen, visit, pos, some, n):
    """Whether half of the distinct words of the seeds at ``pos[some]`` or more are marked in
    ``seen`` (``visit``: scratch, each word marked once counted, left zeroed)."""
    total = 0
    old = 0
    for i in some:
        for y in range(pos[i], pos[i] + n):
            if not visit[y]:
                visit[y] = 1
                total += 1
                if seen[y]:
                    old += 1
    _mark(visit, pos, some, n, 0)
    return 2 * old >= total


@njit(cache=True)
def _echo(passages, kept, larger, by, at, pos, i, col, n, seen, visit):
    """Whether half the words the seeds of passage ``i`` match in one document (``col`` 0: ``a``,
    2: ``b``) or more are matched there by the kept passages ``larger`` too; only those whose
    span overlaps ``i``'s are looked at (most pairs' passages overlap none)."""
    lo, hi = passages[i, col], passages[i, col + 1]
    near = [j for j in larger if kept[j] and passages[j, col] < hi and lo < passages[j, col + 1]]
    if not near:
        return False
    for j in near:
        _mark(seen, pos, by[at[j]:at[j + 1]], n, 1)
    half = _half_seen(seen, visit, pos, by[at[i]:at[i + 1]], n)
    for j in near:
        _mark(seen, pos, by[at[j]:at[j + 1]], n, 0)
    return half


@njit(cache=True)
def drop_echoes(passages, valid, by, at, pa, pb, n, seen_a, seen_b, visit_a, visit_b):
    """``valid`` without echoes: a passage half of whose matched words in one document are words
    a larger valid passage of the pair already matches there (``by[at[j]:at[j + 1]]``: the
    matches ``pa``, ``pb`` of passage ``j``).  It is not reported, so the copy stays one passage
    (granularity 1), and does not count in the coverage: the second meeting is as often a few
    names and figures of the copied paragraph repeated in the other document's own text (a
    same-topic article that ends with the paragraph) as a doubled paragraph, and counting it
    would make the first a copy; a doubled paragraph left out only makes its document look less
    covered.  Half, not all: a second print a copy editor touched still differs in a few words.
    The four scratch arrays over word positions are zeroed and left zeroed."""
    k = passages.shape[0]
    out = valid.copy()
    if np.count_nonzero(valid) < 2:
        return out
    rank = np.argsort(-passages[:, 4], kind="mergesort")  # larger first; of equals, the first
    for r in range(k):
        i = rank[r]
        if out[i] and (_echo(passages, out, rank[:r], by, at, pa, i, 0, n, seen_a, visit_a)
                       or _echo(passages, out, rank[:r], by, at, pb, i, 2, n, seen_b, visit_b)):
            out[i] = False
    return out
