"""Clusters of near-duplicates: connected components of the detected pairs.

Near-duplication is not transitive, but a user who removes copies wants one
representative per group, so a cluster is the transitive closure of the pairs (as in
the papers' B-cubed evaluation).  The representative is the cluster's first document in
input order -- the copy a streaming deduplicator would have kept -- which also makes the
output independent of how pairs were found.
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


def cluster_labels(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Component label of each of ``n`` documents given the pairs ``(a[i], b[i])``.

    Labels count from 0 in order of each component's first document.  Union-find with
    path halving, compiled: scipy's ``connected_components`` gives the same partition
    but its import alone costs a command-line run 0.2 s.
    """
    if a.shape[0] and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n):
        raise ValueError(f"pair index outside 0..{n - 1}")
    return _union_find(n, np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))


def clusters_from_pairs(n: int, a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    """Clusters of two or more documents, each a sorted index array, ordered by first member."""
    if a.shape[0] == 0:
        return []
    labels = cluster_labels(n, a, b)
    # Only documents in a cluster are grouped: splitting off every singleton as an array
    # of its own cost 0.05 s at 20,000 documents.  Labels are numbered in order of first
    # member, so grouping the members by label already orders the clusters.
    members = np.flatnonzero(np.bincount(labels)[labels] > 1)
    if members.shape[0] == 0:
        return []
    order = members[np.argsort(labels[members], kind="stable")]
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    return np.split(order, cuts)
