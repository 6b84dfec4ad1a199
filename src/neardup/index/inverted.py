"""Exact set-similarity join: every pair of sets at or above a threshold, without all pairs.

This is the SpotSigs deduplication algorithm (Theobald et al. 2008, section 4) in the
form later papers call prefix filtering, and it also serves full fingerprinting:

* **global order** -- features are ranked by document frequency, rarest first (SpotSigs
  walks a document's signatures "in ascending order of DF"); each set is sorted by rank;
* **inverted index** -- for each feature, the documents holding it, sorted by set
  length.  This is SpotSigs' *partitioning by length* at full resolution: a document
  only ever reads the slice of a posting list whose lengths can still reach the
  threshold (the ``|A| / |B| >= tau`` bound), so short and long documents never meet;
* **early pruning** -- a document ``A`` probes only its first ``p`` (rarest) features:
  a partner ``B`` with ``|B| >= |A|`` that shares none of them shares at most
  ``|A| - p`` features, too few to reach the threshold (SpotSigs' ``delta`` break).
  A partner met for the first time at ``A``'s ``i``-th feature misses ``i`` of ``A``'s
  features, which tightens its allowed length further (SpotSigs' in-list break);
* **verification** -- each surviving pair is checked by a sorted merge of the two sets,
  and only pairs at or above the threshold are returned, with their similarity.

Each pair is found from its shorter member (ties: the smaller index), so it is checked
once.  Two measures:

* ``"jaccard"``: ``|A∩B| / |A∪B|``; needs ``|A∩B| >= tau (|A| + |B|) / (1 + tau)``;
* ``"containment"``: the larger of the two one-sided containments,
  ``|A∩B| / min(|A|, |B|)``; needs ``|A∩B| >= tau |A|`` for the shorter ``A``, with no
  upper bound on ``|B|``.

The result is exact: every pair with similarity at or above the threshold and at least
one shared feature.  Work runs in compiled code, documents in parallel, in two passes
(count, then fill) so the output is allocated once and its order does not depend on
threads.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from ..errors import UserError
from ..features.sets import HashedSets, sorted_overlap

MEASURES = ("jaccard", "containment")
_JACCARD, _CONTAINMENT = 0, 1
_EPS = 1e-9


@njit(inline="always", cache=True)
def _similarity(inter, la, lb, measure):
    if measure == _JACCARD:
        union = la + lb - inter
        return inter / union if union > 0 else 0.0
    small = min(la, lb)
    return inter / small if small > 0 else 0.0


@njit(parallel=True, nogil=True, cache=True)
def _pair_similarity(values, offsets, a, b, measure):
    out = np.empty(a.shape[0], dtype=np.float64)
    for i in prange(a.shape[0]):
        pa, pe = offsets[a[i]], offsets[a[i] + 1]
        qa, qe = offsets[b[i]], offsets[b[i] + 1]
        out[i] = _similarity(sorted_overlap(values, pa, pe, qa, qe), pe - pa, qe - qa, measure)
    return out


def set_similarity(sets: HashedSets, a: np.ndarray, b: np.ndarray, measure: str = "jaccard") -> np.ndarray:
    """Exact ``measure`` (see the module docstring) of the sets of ``a[i]`` and ``b[i]``."""
    return _pair_similarity(sets.hashes, sets.offsets, a, b, _measure_code(measure))


def _measure_code(measure: str) -> int:
    if measure not in MEASURES:
        raise UserError(f"measure must be one of {', '.join(MEASURES)}, got {measure!r}")
    return MEASURES.index(measure)


@njit(inline="always", cache=True)
def _min_overlap(la, tau, measure):
    """Fewest shared features a partner at least as long as ``A`` needs (never overestimated)."""
    x = 2.0 * tau * la / (1.0 + tau) if measure == _JACCARD else tau * la
    o = np.int64(np.ceil(x - _EPS * (1.0 + x)))
    return max(o, np.int64(1))


@njit(inline="always", cache=True)
def _max_partner(la, missed, tau, measure):
    """Longest partner that can still qualify after missing ``missed`` of ``A``'s features."""
    if measure == _CONTAINMENT:
        return np.int64(1) << np.int64(62)
    x = (1.0 + tau) * (la - missed) / tau - la
    return np.int64(np.floor(x + _EPS * (1.0 + x)))


@njit(cache=True)
def _probe(a, ranks, offsets, sizes, post_docs, post_keys, post_off, n, tau, measure, stamp, out_b, out_s, pos):
    """Pairs of ``a`` with longer documents at or above ``tau``; written at ``pos`` when given."""
    la = sizes[a]
    if la == 0:
        return 0
    prefix = la - _min_overlap(la, tau, measure) + 1
    key = la * n + a
    base = offsets[a]
    found = 0
    write = out_b.shape[0] > 0
    for i in range(prefix):
        r = ranks[base + i]
        lo, hi = post_off[r], post_off[r + 1]
        start = lo + np.searchsorted(post_keys[lo:hi], key, side="right")
        longest = _max_partner(la, i, tau, measure)
        for e in range(start, hi):
            b = post_docs[e]
            lb = sizes[b]
            if lb > longest:
                break
            if stamp[b] == a:
                continue
            stamp[b] = a
            inter = sorted_overlap(ranks, base, base + la, offsets[b], offsets[b] + lb)
            sim = _similarity(inter, la, lb, measure)
            if sim >= tau:
                if write:
                    out_b[pos + found] = b
                    out_s[pos + found] = sim
                found += 1
    return found


@njit(parallel=True, nogil=True, cache=True)
def _join(
    ranks, offsets, sizes, post_docs, post_keys, post_off, tau, measure, chunks, counts, out_b, out_s, starts
):
    """One pass over all documents, ``chunks`` of them in parallel (count, or fill at ``starts``)."""
    n = sizes.shape[0]
    step = (n + chunks - 1) // chunks
    for c in prange(chunks):
        stamp = np.full(n, -1, dtype=np.int64)
        for a in range(c * step, min(n, (c + 1) * step)):
            pos = starts[a] if out_b.shape[0] > 0 else 0
            counts[a] = _probe(
                a, ranks, offsets, sizes, post_docs, post_keys, post_off, n, tau, measure, stamp,
                out_b, out_s, pos,
            )


@njit(nogil=True, cache=True)
def _fill_postings(by_length, ranks, offsets, post_off):
    """Posting lists: the documents of each rank, in the order of ``by_length``."""
    post_docs = np.empty(post_off[-1], dtype=np.int64)
    cursor = post_off[:-1].copy()
    for d in by_length:
        for j in range(offsets[d], offsets[d + 1]):
            r = ranks[j]
            post_docs[cursor[r]] = d
            cursor[r] += 1
    return post_docs


@njit(parallel=True, nogil=True, cache=True)
def _sort_segments(values, offsets):
    for d in prange(offsets.shape[0] - 1):
        values[offsets[d] : offsets[d + 1]].sort()


class InvertedIndex:
    """Sets ranked rarest-first plus posting lists sorted by set length (see module docstring)."""

    def __init__(self, sets: HashedSets) -> None:
        n = len(sets)
        self.n = n
        self.sizes = sets.sizes().astype(np.int64)
        self.offsets = sets.offsets.astype(np.int64)
        values, inverse, df = np.unique(sets.hashes, return_inverse=True, return_counts=True)
        by_rank = np.argsort(df, kind="stable")  # rarest first, ties by hash (values are sorted)
        rank = np.empty(values.shape[0], dtype=np.int64)
        rank[by_rank] = np.arange(values.shape[0])
        self.ranks = rank[inverse.ravel()]
        _sort_segments(self.ranks, self.offsets)
        self.post_off = np.zeros(values.shape[0] + 1, dtype=np.int64)
        np.cumsum(df[by_rank], out=self.post_off[1:])
        by_length = np.lexsort((np.arange(n), self.sizes))
        self.post_docs = _fill_postings(by_length, self.ranks, self.offsets, self.post_off)
        self.post_keys = self.sizes[self.post_docs] * max(n, 1) + self.post_docs

    def pairs(self, threshold: float, measure: str = "jaccard") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(a, b, similarity)``, ``a < b`` sorted, of every pair at or above ``threshold``.

        A threshold of 0 returns the pairs sharing at least one feature.
        """
        code = _measure_code(measure)
        tau = float(min(max(threshold, 1e-9), 1.0))
        n = self.n
        counts = np.zeros(n, dtype=np.int64)
        if n < 2:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64)
        chunks = min(n, 8 * numba.get_num_threads())
        no_b, no_s = np.zeros(0, np.int64), np.zeros(0, np.float64)
        args = (
            self.ranks, self.offsets, self.sizes, self.post_docs, self.post_keys, self.post_off, tau, code, chunks
        )
        _join(*args, counts, no_b, no_s, counts)
        starts = np.zeros(n, dtype=np.int64)
        np.cumsum(counts[:-1], out=starts[1:])
        total = int(counts.sum())
        out_b = np.empty(total, dtype=np.int64)
        out_s = np.empty(total, dtype=np.float64)
        if total:
            _join(*args, np.zeros(n, np.int64), out_b, out_s, starts)
        out_a = np.repeat(np.arange(n, dtype=np.int64), counts)
        lo, hi = np.minimum(out_a, out_b), np.maximum(out_a, out_b)
        order = np.lexsort((hi, lo))
        return lo[order], hi[order], out_s[order]


def similar_pairs(
    sets: HashedSets, threshold: float, measure: str = "jaccard"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of ``sets`` with ``measure`` at or above ``threshold`` (exact; see module)."""
    return InvertedIndex(sets).pairs(threshold, measure)
