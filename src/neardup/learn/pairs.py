"""Which document pairs ANDD's training looks at: uniform samples of near-duplicate and
non-duplicate pairs (the paper's pair-pairs) and, for the ``f1`` objective, every pair or
a sample weighted back to the totals.  Vectorized; deterministic given ``seed``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["sample_pair_pairs", "unique_pairs", "f1_pairs"]


def sample_pair_pairs(cluster: np.ndarray, n_pairs: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``n_pairs`` (near-duplicate pair, non-duplicate pair) samples, each drawn uniformly.

    Documents with a negative cluster are singletons.  Returns ``(pa, pb, na, nb)``,
    ``pa < pb`` and ``na < nb``; empty when either kind of pair does not exist.
    """
    rng = np.random.default_rng(seed)
    cluster = np.asarray(cluster)
    n = cluster.shape[0]
    keys = np.where(cluster >= 0, cluster, cluster.max(initial=0) + 1 + np.arange(n))
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    bounds = np.r_[0, np.flatnonzero(sk[1:] != sk[:-1]) + 1, n]
    sizes = np.diff(bounds)
    pos_per = sizes * (sizes - 1) // 2
    total_pos = int(pos_per.sum())
    total_neg = n * (n - 1) // 2 - total_pos
    empty = np.zeros(0, np.int64)
    if total_pos == 0 or total_neg == 0 or n_pairs <= 0:
        return empty, empty, empty, empty
    # near-duplicate pairs: a cluster with weight = its number of pairs, then two members
    c = rng.choice(sizes.shape[0], size=n_pairs, p=pos_per / total_pos)
    x = rng.integers(0, sizes[c])
    y = rng.integers(0, sizes[c] - 1)
    y = y + (y >= x)
    pa, pb = order[bounds[c] + x], order[bounds[c] + y]
    # non-duplicate pairs: rejection sampling of uniform pairs from different clusters
    na_, nb_ = [], []
    need = n_pairs
    while need > 0:
        u = rng.integers(0, n, size=2 * need + 16)
        v = rng.integers(0, n, size=2 * need + 16)
        keep = keys[u] != keys[v]
        na_.append(u[keep][:need])
        nb_.append(v[keep][:need])
        need -= int(min(keep.sum(), need))
    na, nb = np.concatenate(na_), np.concatenate(nb_)
    return (np.minimum(pa, pb), np.maximum(pa, pb), np.minimum(na, nb), np.maximum(na, nb))



def unique_pairs(n: int, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct pairs among ``(a, b)`` (a < b) and the index of each input pair among them."""
    uniq, inverse = np.unique(a * n + b, return_inverse=True)
    return uniq // n, uniq % n, inverse



def _pair_totals(cluster: np.ndarray) -> tuple[int, int]:
    """Near-duplicate and non-duplicate pairs among documents labeled ``cluster`` (negative: singleton)."""
    n = cluster.shape[0]
    sizes = np.bincount(cluster[cluster >= 0]) if (cluster >= 0).any() else np.zeros(0, np.int64)
    pos = int((sizes * (sizes - 1) // 2).sum())
    return pos, n * (n - 1) // 2 - pos



def f1_pairs(cluster: np.ndarray, n_pairs: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Distinct pairs ``(a, b)`` for the ``f1`` objective, their labels and weights.

    Every pair when there are at most ``2 n_pairs``; else ``n_pairs`` near-duplicate and
    ``n_pairs`` non-duplicate pairs drawn uniformly, each weighted by its kind's total over
    the number drawn (so the weighted counts estimate the whole collection's).
    """
    n = cluster.shape[0]
    total_pos, total_neg = _pair_totals(cluster)
    if total_pos + total_neg <= 2 * n_pairs:
        a, b = np.triu_indices(n, 1)
        labels = ((cluster[a] == cluster[b]) & (cluster[a] >= 0)).astype(np.float64)
        return a.astype(np.int64), b.astype(np.int64), labels, np.ones(a.shape[0])
    pa, pb, na, nb = sample_pair_pairs(cluster, n_pairs, seed)
    a, b, inverse = unique_pairs(n, np.r_[pa, na], np.r_[pb, nb])
    drawn = np.r_[np.full(pa.shape[0], total_pos / max(pa.shape[0], 1)), np.full(na.shape[0], total_neg / max(na.shape[0], 1))]
    weight = np.bincount(inverse, weights=drawn, minlength=a.shape[0])
    labels = np.zeros(a.shape[0])
    labels[inverse[: pa.shape[0]]] = 1.0
    return a, b, labels, weight
