"""Cluster measures: B-cubed and pair-counting precision/recall/F1 of a clustering, the threshold
whose clusters score best, and the pair/cluster conversions evaluation needs.

Conventions are those of :mod:`.measures` (a negative cluster id is a singleton; B-cubed
over no documents is ``nan``). Vectorized: contingency counts by ``np.unique``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..cluster import cluster_labels
from .measures import PRF, _as_ids, _negatives_to_singletons, flagged

__all__ = ["B3", "b3", "clustered_pairs", "bcubed_curve", "bcubed_candidates", "best_bcubed_threshold", "components_from_pairs", "all_pair_labels"]


class B3(NamedTuple):
    """B-cubed precision, recall and F1."""

    precision: float
    recall: float
    f1: float


def b3(pred_cluster: ArrayLike, true_cluster: ArrayLike) -> B3:
    """B-cubed precision, recall and F1 of a clustering of documents.

    For a document ``d`` with predicted cluster ``P`` and true cluster ``T``,
    precision is ``|P & T| / |P|`` and recall ``|P & T| / |T|``; both are
    averaged over documents and F1 is their harmonic mean. Computed from the
    contingency counts ``n_ij`` of (predicted, true) id pairs:
    ``precision = sum n_ij**2 / |P_i| / N``, ``recall = sum n_ij**2 / |T_j| / N``.

    Parameters
    ----------
    pred_cluster, true_cluster : array of int, shape (N,)
        One cluster id per document; ids are arbitrary integers. A negative
        id in either array makes that document a singleton.

    Returns
    -------
    B3
        ``(precision, recall, f1)``; all ``nan`` for zero documents, F1 0.0
        when precision and recall are both 0 (impossible for N > 0).
    """
    table = _contingency(pred_cluster, true_cluster)
    if table is None:
        return B3(math.nan, math.nan, math.nan)
    cells, n_ij, pi, ti = table
    n = pi.size
    n_t = int(ti.max()) + 1
    size_p = np.bincount(pi)[cells // n_t]
    size_t = np.bincount(ti)[cells % n_t]
    sq = n_ij.astype(np.float64) ** 2
    precision = float((sq / size_p).sum() / n)
    recall = float((sq / size_t).sum() / n)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return B3(precision, recall, f1)


def _contingency(pred_cluster: ArrayLike, true_cluster: ArrayLike):
    """The checked contingency table of two clusterings (``None`` for no documents): cells
    ``predicted * n_true + true`` of the (predicted, true) id pairs, their counts, and each
    document's predicted and true cluster as dense ids (negative ids made singletons)."""
    p = _as_ids(pred_cluster, "pred_cluster")
    t = _as_ids(true_cluster, "true_cluster")
    if p.shape != t.shape:
        raise ValueError(f"cluster arrays differ in length: {p.size} != {t.size}")
    if p.size == 0:
        return None
    _, pi = np.unique(_negatives_to_singletons(p), return_inverse=True)
    _, ti = np.unique(_negatives_to_singletons(t), return_inverse=True)
    pi, ti = pi.ravel(), ti.ravel()
    cells, n_ij = np.unique(pi * (int(ti.max()) + 1) + ti, return_counts=True)
    return cells, n_ij, pi, ti


def clustered_pairs(pred_cluster: ArrayLike, true_cluster: ArrayLike) -> PRF:
    """Pair-counting precision, recall and F1 of a clustering: over the document pairs put in one
    predicted cluster and those in one true cluster (every pair of a cluster, linked or not, so a
    bridge that merges two stories of sizes ``m`` and ``k`` costs ``m * k`` false pairs).
    Conventions as :func:`b3`; precision or recall is 1.0 when there is no pair to count."""
    table = _contingency(pred_cluster, true_cluster)
    if table is None:
        return PRF(math.nan, math.nan, math.nan)
    _, n_ij, pi, ti = table
    together, predicted, true = (float((c.astype(np.float64) * (c - 1) / 2).sum())
                                 for c in (n_ij, np.bincount(pi), np.bincount(ti)))
    precision = together / predicted if predicted else 1.0
    recall = together / true if true else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return PRF(precision, recall, f1)


#: Thresholds tried for the best B-cubed F1, per family (:func:`bcubed_candidates`); each is one clustering.
BCUBED_CANDIDATES = 64


def _bcubed_at(s, i, j, n, t, threshold: float, clustering: str, proposed: NDArray[np.bool_] | None = None) -> B3:
    """B-cubed of the clusters made by ``clustering`` of the pairs :func:`~.measures.flagged` at
    ``threshold`` (among the ``proposed`` ones -- the index's candidates -- when given)."""
    from ..cluster import labels_by

    keep = flagged(s, threshold)
    if proposed is not None:
        keep &= proposed
    return b3(labels_by(clustering, n, i[keep], j[keep], s[keep]), t)


def bcubed_curve(s, i, j, n: int, t, clustering: str, thresholds) -> np.ndarray:
    """B-cubed F1 of the clusters made at each of ``thresholds`` (for plots)."""
    return np.array([_bcubed_at(s, i, j, n, t, float(c), clustering).f1 for c in thresholds])


def bcubed_candidates(s: NDArray[np.float64], t: NDArray[np.int64]) -> NDArray[np.float64]:
    """The thresholds :func:`best_bcubed_threshold` tries: every distinct positive score when there are
    few, else :data:`BCUBED_CANDIDATES` of each of three families, each moved up to the lowest score at
    or above it (which flags the same pairs, so the threshold reported is one a pair has):

    * score quantiles over every pair that scores above 0;
    * score quantiles over the top pairs, as many as twice the pairs within the true clusters ``t``
      (where the best clusters are: a threshold flagging more has at least as many false pairs as true);
    * an even grid from the lowest positive score to the highest.

    Quantiles alone crowd where most pairs score (SimHash and cosine give almost every unrelated
    pair about 0.5) and missed the high range that separates stories.
    """
    distinct = np.unique(s[s > 0])
    if distinct.size <= 3 * BCUBED_CANDIDATES:
        return distinct
    levels = np.linspace(0.0, 1.0, BCUBED_CANDIDATES)
    sizes = np.bincount(t[t >= 0]).astype(np.float64)
    top = min(max(int((sizes * (sizes - 1)).sum()), 1), s.size)  # twice the true pairs
    families = (np.quantile(s[s > 0], levels), np.quantile(np.partition(s, s.size - top)[s.size - top:], levels),
                np.linspace(distinct[0], distinct[-1], BCUBED_CANDIDATES))
    at = np.searchsorted(distinct, np.concatenate(families), side="left")
    return np.unique(distinct[np.minimum(at, distinct.size - 1)])


def best_bcubed_threshold(s, i, j, n: int, t, clustering: str = "components") -> float:
    """The threshold, among :func:`bcubed_candidates`, whose clusters have the best B-cubed F1 (lowest on
    ties); ``nan`` when no pair scores above 0."""
    candidates = bcubed_candidates(s, np.asarray(t, dtype=np.int64))
    if candidates.size == 0:
        return math.nan
    f1 = [_bcubed_at(s, i, j, n, t, float(c), clustering).f1 for c in candidates]
    return float(candidates[int(np.argmax(f1))])


def components_from_pairs(n: int, a: ArrayLike, b: ArrayLike) -> NDArray[np.int64]:
    """Cluster ids = connected components of the graph with edges ``(a[k], b[k])``.

    Turns the pairs a detector flags into document clusters (transitively: if
    A~B and B~C then A, B, C are one story), which is what B-cubed compares.

    Parameters
    ----------
    n : int
        Number of documents; ids are ``0..n-1``.
    a, b : array of int, shape (m,)
        Document indices of each edge.

    Returns
    -------
    ndarray of int64, shape (n,)
        Component id per document, ``0..k-1``; unconnected documents get
        their own id.
    """
    a = np.asarray(a, dtype=np.int64).ravel()
    b = np.asarray(b, dtype=np.int64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"a and b differ in length: {a.size} != {b.size}")
    return cluster_labels(n, a, b)


def all_pair_labels(
    cluster: ArrayLike,
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.bool_]]:
    """All ``n*(n-1)/2`` pairs ``i < j`` and whether they share a cluster.

    A document with a negative cluster id is in no cluster and is never a
    positive, not even with another negative-id document.

    Returns
    -------
    i, j : ndarray of intp
        Pair indices in ``np.triu_indices(n, k=1)`` order (row-major).
    label : ndarray of bool
        ``cluster[i] == cluster[j] and cluster[i] >= 0``.
    """
    c = _as_ids(cluster, "cluster")
    i, j = np.triu_indices(c.size, k=1)
    ci = c[i]
    return i, j, (ci == c[j]) & (ci >= 0)
