"""ANDD: learned k-gram weights (neardup.learn.andd) and the andd method (neardup.methods.andd)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import approx_fprime

from neardup.learn.andd import (
    FEATURES, ANDDModel, build_problem, collection_idf, entry_weights, feature_matrix, featurize, fit,
    loss_and_grad, pair_cosines, sample_pair_pairs, sparse_cosine,
)
from neardup.methods.andd import ANDDMethod, bits_to_cosine, cosine_radius


def _random_docs(n, words=40, vocab=3000, seed=0):
    rng = np.random.default_rng(seed)
    return [" ".join(f"w{x}" for x in rng.integers(0, vocab, words)) for _ in range(n)]


def _clustered(seed=0):
    """12 clusters of 3 near-duplicates (a few words replaced) plus 8 singletons."""
    rng = np.random.default_rng(seed)
    texts, cluster = [], []
    for c, base in enumerate(_random_docs(12, 60, seed=seed)):
        toks = base.split()
        for _ in range(3):
            t = list(toks)
            for p in rng.integers(0, len(t), 4):
                t[p] = f"x{rng.integers(0, 10**6)}"
            texts.append(" ".join(t))
            cluster.append(c)
    texts += _random_docs(8, 60, seed=seed + 1)
    cluster += [-1] * 8
    return texts, np.array(cluster)


def test_featurize_counts_positions_and_lengths():
    st = featurize(["bb a bb ccc", "a"], k=1)
    assert st.sets.sizes().tolist() == [3, 1]
    row = dict(zip(st.sets.row(0).tolist(), zip(st.tf[:3], st.loc[:3], st.length[:3])))
    one = featurize(["bb"]).sets.hashes[0]
    assert row[int(one)] == (2.0, 0.0, 2.0)  # twice, first at 0 of 4, two bytes
    three = featurize(["ccc"]).sets.hashes[0]
    assert row[int(three)] == (1.0, 0.75, 3.0)
    st2 = featurize(["a b c d"], k=2)
    assert st2.sets.sizes().tolist() == [3] and sorted(st2.length.tolist()) == [3.0, 3.0, 3.0]


def test_sparse_cosine_matches_dense():
    texts = ["a b b c", "b c d d d", "e f", ""]
    st = featurize(texts)
    v = np.random.default_rng(1).random(st.sets.hashes.shape[0])
    keys = np.unique(st.sets.hashes)
    dense = np.zeros((4, keys.shape[0]))
    for d in range(4):
        lo, hi = st.sets.offsets[d], st.sets.offsets[d + 1]
        dense[d, np.searchsorted(keys, st.sets.hashes[lo:hi])] = v[lo:hi]
    a, b = np.array([0, 0, 1, 0, 2]), np.array([1, 2, 2, 3, 2])
    got = sparse_cosine(st.sets.hashes, st.sets.offsets, v, a, b)
    norms = np.linalg.norm(dense, axis=1)
    want = [dense[x] @ dense[y] / (norms[x] * norms[y]) if norms[x] * norms[y] else 0.0 for x, y in zip(a, b)]
    np.testing.assert_allclose(got, want, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_matches_finite_differences(seed):
    texts, cluster = _clustered(seed)
    st = featurize(texts)
    prob = build_problem(st, collection_idf(st.sets), cluster, 300, seed, gamma=5.0)
    rng = np.random.default_rng(seed)
    w = rng.normal(size=len(FEATURES)) * 0.5
    w[FEATURES.index("tfidf")] = 1.0  # most weights positive: the clip is smooth almost everywhere
    loss, grad = loss_and_grad(w, prob)
    num = approx_fprime(w, lambda x: loss_and_grad(x, prob)[0], 1e-7)
    assert np.isfinite(loss)
    np.testing.assert_allclose(grad, num, rtol=1e-4, atol=1e-6)
    assert np.linalg.norm(grad) > 1e-4  # not trivially zero


def test_pair_cosines_are_the_weighted_cosines():
    texts, cluster = _clustered(0)
    st = featurize(texts)
    idf = collection_idf(st.sets)
    prob = build_problem(st, idf, cluster, 100, 0)
    w = np.array([0.1, 0.2, 0.3, 0.4, -0.2, 0.1])
    cos, v, _ = pair_cosines(prob, w)
    want = sparse_cosine(st.sets.hashes, st.sets.offsets, entry_weights(feature_matrix(st, idf), w), prob.a, prob.b)
    np.testing.assert_allclose(cos, want, atol=1e-12)


def test_sampled_pairs_are_balanced_and_labeled_right():
    cluster = np.array([0, 0, 0, 1, 1, -1, -1, 2])
    pa, pb, na, nb = sample_pair_pairs(cluster, 500, seed=3)
    assert pa.shape == pb.shape == na.shape == nb.shape == (500,)
    assert np.all(pa < pb) and np.all(na < nb)
    assert np.all(cluster[pa] == cluster[pb]) and np.all(cluster[pa] >= 0)
    keys = np.where(cluster >= 0, cluster, 100 + np.arange(8))
    assert np.all(keys[na] != keys[nb])
    # near-duplicate pairs uniform over the 3 + 1 pairs: cluster 0 gets about 3/4
    assert 0.65 < np.mean(cluster[pa] == 0) < 0.85
    assert sample_pair_pairs(np.array([0, 1, 2]), 10, 0)[0].shape == (0,)


def _length_separates(seed=0):
    """Duplicates share long (10-letter) words; short words are random. tf, df and loc carry nothing."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    short_pool = ["".join(rng.choice(letters, 3)) for _ in range(300)]
    texts, cluster = [], []
    for c in range(10):
        longs = ["".join(rng.choice(letters, 10)) for _ in range(30)]
        for _ in range(6):  # df of a long word = 6 = expected df of a short word (60 * 30 / 300)
            toks = longs + list(rng.choice(short_pool, 30, replace=False))
            rng.shuffle(toks)
            texts.append(" ".join(toks))
            cluster.append(c)
    return texts, np.array(cluster)


def test_fit_learns_the_separating_feature():
    texts, cluster = _length_separates()
    model = fit(texts, cluster, k=1, seed=0, n_pairs=3000)
    w = dict(zip(FEATURES, model.weights))
    assert model.info["loss_end"] < 0.5 * model.info["loss_start"]
    # the length weight is the largest one and outweighs every feature that varies here (idf is
    # nearly the same for every word, so it acts as a second bias)
    assert w["len"] == max(w.values())
    assert all(w["len"] > 1.5 * abs(w[f]) for f in ("tf", "tfidf", "loc"))
    # in the learned vectors long words carry (almost) all the weight
    st = featurize(texts)
    v = entry_weights(feature_matrix(st, collection_idf(st.sets)), model.weights)
    long_w, short_w = v[st.length == 10].mean(), v[st.length == 3].mean()
    assert long_w > 5 * short_w
    # and near-duplicates now score far above non-duplicates
    m = ANDDMethod.from_model(model, threshold=0.5, raw=True)
    m.add(texts)
    m.finalize()
    i, j = np.triu_indices(len(texts), 1)
    s = m.score(i, j)
    same = cluster[i] == cluster[j]
    assert s[same].min() > s[~same].max()
    base = ANDDMethod(threshold=0.5, raw=True, model="tfidf")
    base.add(texts)
    base.finalize()
    sb = base.score(i, j)
    assert sb[same].mean() < 0.7 < s[same].mean()  # TF-IDF alone sees only half the words shared


def test_fit_is_deterministic():
    texts, cluster = _clustered(1)
    w1 = fit(texts, cluster, seed=4, n_pairs=500).weights
    w2 = fit(texts, cluster, seed=4, n_pairs=500).weights
    np.testing.assert_array_equal(w1, w2)
    s1 = sample_pair_pairs(cluster, 200, 4)
    s2 = sample_pair_pairs(cluster, 200, 5)
    assert not all(np.array_equal(x, y) for x, y in zip(s1, s2))


def test_model_save_load(tmp_path):
    model = ANDDModel(np.array([0.5, -0.1, 0.2, 0.3, -0.4, 0.6]), 2, FEATURES, {"seed": 3})
    path = tmp_path / "m.json"
    model.save(path)
    back = ANDDModel.load(path)
    np.testing.assert_array_equal(back.weights, model.weights)
    assert back.k == 2 and back.info == {"seed": 3}
    m = ANDDMethod(model=str(path), shingle_size=2)
    assert m.get_params()["model"] == str(path)
    with pytest.raises(ValueError, match="k = 2"):
        ANDDMethod(model=str(path), shingle_size=1)
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="not a neardup ANDD model"):
        ANDDModel.load(tmp_path / "bad.json")


def test_cosine_radius_and_mapping():
    assert bits_to_cosine(np.array([0]), 384)[0] == 1.0
    k = cosine_radius(0.9, 384)
    assert bits_to_cosine(np.array([k]), 384)[0] >= 0.9 > bits_to_cosine(np.array([k + 1]), 384)[0]
    assert cosine_radius(0.9, 384, slack=3.0) > k


@pytest.mark.parametrize("raw", [False, True])
def test_method_finds_planted_near_duplicates(raw):
    rng = np.random.default_rng(7)
    docs = _random_docs(200, 120, vocab=20000, seed=7)
    planted = []
    for src in (3, 50, 120):
        toks = docs[src].split()
        for p in rng.integers(0, len(toks), 3):
            toks[p] = "edited"
        docs.append(" ".join(toks))
        planted.append((src, len(docs) - 1))
    docs.append("")
    m = ANDDMethod(threshold=0.8, raw=raw, model="tfidf")  # the mechanics, on TF-IDF weights
    usable = m.add(docs[:100])
    assert usable.all()
    assert not m.add(docs[100:])[-1]
    m.finalize()
    a, b = m.candidate_pairs()
    assert sorted(zip(a.tolist(), b.tolist())) == planted
    s = m.score(np.array([3, 0, 0]), np.array([200, 1, len(docs) - 1]))
    assert s[0] >= 0.8 and s[1] < 0.5 and s[2] == 0.0
    assert np.all((m.score(a, b) >= 0) & (m.score(a, b) <= 1))


def test_through_the_deduplicator_once_registered(monkeypatch):
    """Until ``andd`` is in the registry, register it for this test only."""
    import neardup
    from neardup.methods import REGISTRY

    monkeypatch.setitem(REGISTRY, "andd", ANDDMethod)
    docs = _random_docs(60, 120, vocab=20000, seed=11)
    docs.append(docs[10].replace(docs[10].split()[7], "changed", 1))
    result = neardup.Deduplicator(method="andd", threshold=0.8).run([(f"d{n}", t) for n, t in enumerate(docs)])
    assert [(p.a, p.b) for p in result.pairs] == [("d10", "d60")]


def test_train_command(tmp_path):
    import argparse
    import json

    from neardup.learn.cli import register

    texts, cluster = _clustered(2)
    path = tmp_path / "train.jsonl"
    path.write_text("".join(
        json.dumps({"id": f"d{n}", "text": t, **({"cluster": f"c{c}"} if c >= 0 else {})}) + "\n"
        for n, (t, c) in enumerate(zip(texts, cluster))
    ))
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command", required=True))
    out = tmp_path / "model.json"
    args = parser.parse_args(["train", str(path), "-o", str(out), "--n-pairs", "300", "--quiet"])
    assert args.func(args) == 0
    model = ANDDModel.load(out)
    np.testing.assert_array_equal(model.weights, fit(texts, cluster, seed=0, n_pairs=300).weights)


def test_shipped_default_model_loads_and_differs_from_tfidf():
    shipped = ANDDMethod()
    assert shipped.model == "default" and shipped._model.k == 1
    assert not np.allclose(shipped._model.weights, ANDDMethod(model="tfidf")._model.weights)
    with pytest.raises(ValueError, match="shipped ANDD model is for k = 1"):
        ANDDMethod(shingle_size=2)
