"""Clusters of near-duplicates from the detected pairs: label propagation (default), leaders or components.

Near-duplication is not transitive, and a user who removes copies wants one
representative per group.  Three ways to get there (:data:`CLUSTERINGS`, the default first):

* ``leader``: documents in input order; a document joins the cluster of
  the earlier *representative* it is most similar to (ties: the earliest), and becomes a
  representative itself when it matches none.  Every member is a near-duplicate of the
  document kept for it -- what a streaming deduplicator does -- so a few bridging pairs
  between two stories cannot merge them (connected components over the same pairs
  chain GoldSet stories into one large cluster: docs/defaults.md).  Linear in the pairs.
* ``propagation`` (the default): weighted label propagation: every document starts in a cluster of
  its own; in input order, again and again until nothing changes (at most
  :data:`MAX_ROUNDS` rounds), each takes the cluster whose members among its pairs weigh
  most (summed scores; ties: the cluster of the earliest document).  A bridge of one or
  two pairs is outweighed by the pairs inside each story.  Linear in the pairs per round.
* ``components``: the transitive closure of the pairs (as in the papers' B-cubed
  evaluation).

Every way, the representative is the cluster's first document in input order, and the
result does not depend on how the pairs were found or listed.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(nogil=True, cache=True)
def _union_find(n, a, b):
    """Labels 0..k-1, in order of first member, of the components of the pairs."""
    parent = np.arange(n)
    for i in range(a.shape[0]):
        x, y = a[i], b[i]
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        while parent[y] != y:
            parent[y] = parent[parent[y]]
            y = parent[y]
        if x != y:
            if x < y:
                parent[y] = x
            else:
                parent[x] = y
    labels = np.empty(n, dtype=np.int64)
    count = 0
    for i in range(n):
        root = i
        while parent[root] != root:
            root = parent[root]
        if root == i:
            labels[i] = count
            count += 1
        else:
            labels[i] = labels[root]
    return labels


#: Clusterings by name (``--cluster``); the first is the default.
CLUSTERINGS = ("propagation", "leader", "components")
#: Rounds of label propagation at most (it settles in 3-6 on the GoldSet).
MAX_ROUNDS = 30


@njit(nogil=True, cache=True)
def _leaders(n, a, b, score):
    """Leader labels: pairs sorted by later document; labels in order of first member."""
    order = np.argsort(b * np.int64(n) + a, kind="mergesort")
    label = np.full(n, -1, dtype=np.int64)
    leader = np.zeros(n, dtype=np.bool_)
    count = 0
    p = 0
    m = order.shape[0]
    for d in range(n):
        best, best_score = -1, -1.0
        while p < m and b[order[p]] == d:
            k = order[p]
            if leader[a[k]] and score[k] > best_score:
                best, best_score = a[k], score[k]
            p += 1
        if best >= 0:
            label[d] = label[best]
        else:
            leader[d] = True
            label[d] = count
            count += 1
    return label


@njit(nogil=True, cache=True)
def _propagate(n, a, b, score, rounds):
    """Label propagation over the undirected weighted pairs; labels in order of first member."""
    degree = np.zeros(n + 1, dtype=np.int64)
    for k in range(a.shape[0]):
        degree[a[k] + 1] += 1
        degree[b[k] + 1] += 1
    start = np.cumsum(degree)
    fill = start[:-1].copy()
    other = np.empty(start[n], dtype=np.int64)
    weight = np.empty(start[n], dtype=np.float64)
    for k in range(a.shape[0]):
        other[fill[a[k]]] = b[k]
        weight[fill[a[k]]] = score[k]
        fill[a[k]] += 1
        other[fill[b[k]]] = a[k]
        weight[fill[b[k]]] = score[k]
        fill[b[k]] += 1
    label = np.arange(n)
    acc = np.zeros(n, dtype=np.float64)
    touched = np.empty(n, dtype=np.int64)
    for _ in range(rounds):
        changed = 0
        for d in range(n):
            if start[d] == start[d + 1]:
                continue
            m = 0
            for e in range(start[d], start[d + 1]):
                lab = label[other[e]]
                if acc[lab] == 0.0:
                    touched[m] = lab
                    m += 1
                acc[lab] += weight[e]
            best, best_w = label[d], acc[label[d]]
            for t in range(m):
                lab = touched[t]
                if acc[lab] > best_w or (acc[lab] == best_w and lab < best):
                    best, best_w = lab, acc[lab]
            for t in range(m):
                acc[touched[t]] = 0.0
            if best != label[d]:
                label[d] = best
                changed += 1
        if changed == 0:
            break
    first = np.full(n, -1, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    count = 0
    for d in range(n):
        if first[label[d]] < 0:
            first[label[d]] = count
            count += 1
        out[d] = first[label[d]]
    return out


def propagation_labels(n: int, a: np.ndarray, b: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Label-propagation cluster of each of ``n`` documents (see the module docstring)."""
    a, b = _checked(n, a, b)
    w = np.asarray(score, dtype=np.float64)
    w = np.where(w > 0, w, 1e-9)  # a pair always counts, however low its score
    return _propagate(n, a, b, w, MAX_ROUNDS)


def leader_labels(n: int, a: np.ndarray, b: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Leader-cluster label of each of ``n`` documents (see the module docstring).

    Pairs may come in any order and either orientation; labels count from 0 in order of
    each cluster's first document, like :func:`cluster_labels`.
    """
    a, b = _checked(n, a, b)
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return _leaders(n, lo, hi, np.asarray(score, dtype=np.float64))


def _checked(n: int, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    if a.shape[0] and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n):
        raise ValueError(f"pair index outside 0..{n - 1}")
    return a, b


def cluster_labels(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Component label of each of ``n`` documents given the pairs ``(a[i], b[i])``.

    Labels count from 0 in order of each component's first document.  Union-find with
    path halving, compiled: scipy's ``connected_components`` gives the same partition
    but its import alone is a large share of a command-line run (docs/costs.md).
    """
    return _union_find(n, *_checked(n, a, b))


def labels_by(method: str, n: int, a: np.ndarray, b: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Cluster labels of ``n`` documents by the clustering called ``method``."""
    if method == "propagation":
        return propagation_labels(n, a, b, score)
    if method == "leader":
        return leader_labels(n, a, b, score)
    if method == "components":
        return cluster_labels(n, a, b)
    raise ValueError(f"unknown clustering {method!r}; choose from {', '.join(CLUSTERINGS)}")


def clusters_from_pairs(n: int, a: np.ndarray, b: np.ndarray, score: np.ndarray | None = None,
                        method: str = "components") -> list[np.ndarray]:
    """Clusters of two or more documents, each a sorted index array, ordered by first member."""
    if a.shape[0] == 0:
        return []
    labels = labels_by(method, n, a, b, np.ones(a.shape[0]) if score is None else score)
    # Only documents in a cluster are grouped: splitting off every singleton as an array
    # of its own is costly on large inputs (docs/costs.md).  Labels are numbered in order of first
    # member, so grouping the members by label already orders the clusters.
    members = np.flatnonzero(np.bincount(labels)[labels] > 1)
    if members.shape[0] == 0:
        return []
    order = members[np.argsort(labels[members], kind="stable")]
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    return np.split(order, cuts)
