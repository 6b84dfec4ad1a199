"""Clusterings of the detected pairs: propagation and leader resist chaining, components do not."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from neardup import Deduplicator
from neardup.cluster import CLUSTERINGS, cluster_labels, labels_by, leader_labels, propagation_labels
from neardup.pipeline import cluster_warnings


def _two_stories_and_a_bridge():
    """Documents 0-4 and 5-9 all pair within their story (0.9); one bridge 4-5 (0.3)."""
    pairs = [(i, j, 0.9) for s in (range(5), range(5, 10)) for i, j in itertools.combinations(s, 2)]
    pairs.append((4, 5, 0.3))
    a, b, s = (np.array(x) for x in zip(*pairs))
    return a, b, s.astype(float)


@pytest.mark.slow
def test_a_bridge_merges_components_but_not_propagation_or_leader():
    a, b, s = _two_stories_and_a_bridge()
    assert cluster_labels(10, a, b).tolist() == [0] * 10
    story = [0] * 5 + [1] * 5
    assert propagation_labels(10, a, b, s).tolist() == story
    assert leader_labels(10, a, b, s).tolist() == story


def test_leader_members_are_near_duplicates_of_their_representative():
    # a chain 0-1, 1-2, 2-3: 1 joins 0; 2 matches only 1, who is not a representative
    a, b, s = np.array([0, 1, 2]), np.array([1, 2, 3]), np.full(3, 0.9)
    assert leader_labels(4, a, b, s).tolist() == [0, 0, 1, 1]
    # a document joins the representative it is most similar to
    assert leader_labels(3, np.array([0, 1]), np.array([2, 2]), np.array([0.5, 0.7])).tolist() == [0, 1, 1]


@pytest.mark.parametrize("method", CLUSTERINGS)
def test_labels_do_not_depend_on_pair_order_or_orientation(method):
    a, b, s = _two_stories_and_a_bridge()
    rng = np.random.default_rng(3)
    base = labels_by(method, 10, a, b, s)
    for _ in range(5):
        p = rng.permutation(a.shape[0])
        flip = rng.random(a.shape[0]) < 0.5
        x, y = np.where(flip, b, a)[p], np.where(flip, a, b)[p]
        assert labels_by(method, 10, x, y, s[p]).tolist() == base.tolist()


def test_unknown_clustering_is_a_user_error():
    with pytest.raises(ValueError, match="unknown clustering"):
        Deduplicator(cluster="louvain")


@pytest.mark.slow
def test_a_cluster_holding_most_of_the_input_is_a_warning():
    docs = [(f"d{i}", "the same story told again " * 20 + f"copy {i}") for i in range(60)]
    docs += [(f"u{i}", f"unrelated words number {i} " + " ".join(f"w{i}x{k}" for k in range(40))) for i in range(10)]
    result = Deduplicator(method="minhash", threshold=0.5, shingle_size=3).run(docs)
    summary = result.summary()
    assert summary["largest_cluster"] == 60
    assert summary["warnings"] and "60 of 70" in summary["warnings"][0]
    assert "--cluster propagation" not in summary["warnings"][0]  # the default: it made this cluster
    quiet = Deduplicator(method="minhash", threshold=0.5, shingle_size=3).run(docs[55:])
    assert quiet.summary()["warnings"] == []


@pytest.mark.parametrize("clustering", CLUSTERINGS)
def test_the_large_cluster_warning_never_advises_the_clustering_in_effect(clustering):
    [warning] = cluster_warnings(100, 60, clustering)
    assert "60 of 100" in warning and "raise --threshold" in warning
    assert f"--cluster {clustering}" not in warning and f"or {clustering}" not in warning
    assert cluster_warnings(100, 20, clustering) == cluster_warnings(49, 40, clustering) == []
