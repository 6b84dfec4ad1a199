"""Clusters of near-duplicates: connected components of the detected pairs.

Near-duplication is not transitive, but a user who removes copies wants one
representative per group, so a cluster is the transitive closure of the pairs (as in
the papers' B-cubed evaluation).  The representative is the cluster's first document in
input order -- the copy a streaming deduplicator would have kept -- which also makes the
output independent of how pairs were found.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components


def cluster_labels(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Component label of each of ``n`` documents given the pairs ``(a[i], b[i])``."""
    graph = coo_matrix((np.ones(a.shape[0], dtype=np.int8), (a, b)), shape=(n, n))
    _, labels = connected_components(graph, directed=False)
    return labels


def clusters_from_pairs(n: int, a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    """Clusters of two or more documents, each a sorted index array, ordered by first member."""
    if a.shape[0] == 0:
        return []
    labels = cluster_labels(n, a, b)
    order = np.argsort(labels, kind="stable")
    sorted_labels = labels[order]
    cuts = np.flatnonzero(np.diff(sorted_labels)) + 1
    groups = [g for g in np.split(order, cuts) if g.shape[0] > 1]
    groups.sort(key=lambda g: int(g[0]))
    return groups
