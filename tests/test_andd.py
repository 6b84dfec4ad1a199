"""ANDD: learned k-gram weights (neardup.learn.andd, .training) and the andd method (neardup.methods.andd)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import approx_fprime

from neardup.learn.andd import FEATURES, ANDDModel, QueryFrequencies, feature_matrix, featurize, sparse_cosine, weigh
from neardup.learn.pairs import f1_pairs, sample_pair_pairs
from neardup.learn.training import (
    build_problem, fit, loss_and_grad, pair_similarities,
)
from neardup.methods.andd import ANDDMethod, bits_to_cosine, cosine_radius, jaccard_banding
from neardup.methods.base import Collection, Sketches
from neardup.sketch.icws import weighted_jaccard

EXACT = {"cosine": sparse_cosine, "jaccard": weighted_jaccard}


def _random_docs(n, words=40, vocab=3000, seed=0):
    rng = np.random.default_rng(seed)
    return [" ".join(f"w{x}" for x in rng.integers(0, vocab, words)) for _ in range(n)]


def _clustered(seed=0, k=1):
    """12 clusters of 3 near-duplicates (a few words replaced or inserted) plus 8 singletons.

    Each text has a title line and some capitalized words, so every feature but qf varies.
    """
    rng = np.random.default_rng(seed)
    texts, cluster = [], []

    def styled(toks):
        toks = [t.capitalize() if rng.random() < 0.2 else t for t in toks]
        return " ".join(toks[:6]) + "\n\n" + " ".join(toks[6:])

    for c, base in enumerate(_random_docs(12, 60, seed=seed)):
        toks = base.split()
        for _ in range(3):
            t = list(toks)
            for p in rng.integers(0, len(t), 4):
                t[p] = f"x{rng.integers(0, 10**6)}"
            t.insert(int(rng.integers(0, len(t))), "inserted")
            texts.append(styled(t))
            cluster.append(c)
    texts += [styled(t.split()) for t in _random_docs(8, 60, seed=seed + 1)]
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


def _entries(st, doc):
    """{k-gram text: (inhead, caps, tf)} of one document (k-gram hashes looked up by featurizing them)."""
    lo, hi = st.sets.offsets[doc], st.sets.offsets[doc + 1]
    row = {int(st.sets.hashes[e]): (st.inhead[e], st.caps[e], st.tf[e]) for e in range(lo, hi)}
    return row


def _gram(text, k):
    return int(featurize([text], k).sets.hashes[0])


def test_inhead_and_caps_are_read_from_the_original_text():
    text = "Big News Today\n\nThe big dog said: the Dog ran. news"
    st = featurize([text, "  \n ÉCOLE Über alles\nnext école", "  "], k=1)
    row = _entries(st, 0)
    assert row[_gram("big", 1)] == (1.0, 0.5, 2.0)  # "Big" in the title, "big" later
    assert row[_gram("news", 1)] == (1.0, 0.5, 2.0)
    assert row[_gram("the", 1)] == (0.0, 0.5, 2.0)  # "The", "the"
    assert row[_gram("dog", 1)] == (0.0, 0.5, 2.0)
    assert row[_gram("said", 1)] == (0.0, 0.0, 1.0)
    # non-ASCII case survives case folding; the head is the first line with a word
    row = _entries(st, 1)
    assert row[_gram("école", 1)] == (1.0, 0.5, 2.0)
    assert row[_gram("über", 1)] == (1.0, 1.0, 1.0)
    assert row[_gram("next", 1)] == (0.0, 0.0, 1.0)
    assert st.sets.sizes()[2] == 0
    # k-grams: in the head only when all their words are; caps from their first word
    row = _entries(featurize([text], k=2), 0)
    assert row[_gram("news today", 2)] == (1.0, 1.0, 1.0)
    assert row[_gram("today the", 2)] == (0.0, 1.0, 1.0)  # crosses the line break
    assert row[_gram("the big", 2)] == (0.0, 1.0, 1.0)
    assert row[_gram("the dog", 2)] == (0.0, 0.0, 1.0)
    # a plain ASCII text and the same text with one accented word give the same flags
    a = featurize(["Alpha Beta gamma\ndelta"], k=1)
    b = featurize(["Alpha Beta gamma\ndelta Ça"], k=1)
    assert _entries(a, 0)[_gram("beta", 1)] == _entries(b, 0)[_gram("beta", 1)] == (1.0, 1.0, 1.0)
    assert _entries(b, 0)[_gram("ça", 1)] == (0.0, 1.0, 1.0)


def test_word_idf_and_query_frequency_features(tmp_path):
    texts = ["a b c", "a b d", "a e f", "g h"]
    qf_path = tmp_path / "qf.tsv"
    qf_path.write_text("b\t3\nA B\t1\n\nzzz\t7\n")  # a: 1, b: 3 + 1
    qf = QueryFrequencies.load(qf_path)
    col = {f: FEATURES.index(f) for f in FEATURES}
    st = featurize(texts, k=2)
    x = feature_matrix(st, qf)
    idf = {w: np.log(4 / df) for w, df in dict(a=3, b=2, c=1, d=1, e=1, f=1, g=1, h=1).items()}
    qfv = {"a": np.log(2.0), "b": np.log(5.0)}
    for d, text in enumerate(texts):
        words = text.split()
        for u, v in zip(words, words[1:]):
            e = st.sets.offsets[d] + np.searchsorted(st.sets.row(d), np.uint64(_gram(f"{u} {v}", 2)))
            assert x[e, col["df_avg"]] == pytest.approx((idf[u] + idf[v]) / 2)
            assert x[e, col["df_med"]] == pytest.approx((idf[u] + idf[v]) / 2)
            assert x[e, col["qf"]] == pytest.approx((qfv.get(u, 0.0) + qfv.get(v, 0.0)) / 2)
    st3 = featurize(["a b e", "a b c d"], k=3)
    x3 = feature_matrix(st3)
    e = np.searchsorted(st3.sets.row(0), np.uint64(_gram("a b e", 3)))
    assert x3[e, col["df_med"]] == 0.0 and x3[e, col["df_avg"]] == pytest.approx(np.log(2.0) / 3)  # idf 0, 0, ln 2
    # k = 1: the word IDFs would repeat idf, so they are 0 (the paper uses them for k > 1 only)
    x1 = feature_matrix(featurize(texts, k=1), qf)
    assert not x1[:, [col["df_avg"], col["df_med"]]].any()
    assert sorted(np.unique(x1[:, col["qf"]]).round(6).tolist()) == [0.0, round(np.log(2.0), 6), round(np.log(5.0), 6)]
    assert not feature_matrix(st)[:, col["qf"]].any()  # no query log: 0
    (tmp_path / "bad.tsv").write_text("b 3\n")
    with pytest.raises(ValueError, match="bad.tsv:1"):
        QueryFrequencies.load(tmp_path / "bad.tsv")


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


@pytest.mark.parametrize("objective", ["preference", "f1"])
@pytest.mark.parametrize("similarity", ["cosine", "jaccard"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gradient_matches_finite_differences(seed, similarity, objective):
    texts, cluster = _clustered(seed, k=1)
    st = featurize(texts, k=1 + seed % 2)  # k = 2 too: the word-IDF features
    prob, _, _ = build_problem(st, cluster, 300, seed, similarity, gamma=5.0, objective=objective, l2=0.05)
    x = prob.x
    varying = ("idf", "loc", "len", "inhead", "caps") + (("df_avg", "df_med") if st.k > 1 else ("tf",))
    assert all(np.ptp(x[:, FEATURES.index(f)]) > 0 for f in varying)
    rng = np.random.default_rng(seed)
    w = rng.normal(size=len(FEATURES)) * 0.3
    if objective == "preference":
        w[FEATURES.index("tfidf")] = 1.0  # most weights positive: the clip is smooth almost everywhere
        theta = w
    else:
        theta = np.r_[w, np.median(pair_similarities(prob, w))]  # a threshold where pairs are on both sides
    loss, grad = loss_and_grad(theta, prob)
    # away from ties of min(v_p, v_q): shared k-grams either have equal features (the tie
    # then holds for every w, where the half-half subgradient is the derivative) or differ
    v = weigh(x, w, prob.form)
    same_x = np.all(x[prob.ip] == x[prob.iq], axis=1)
    assert np.all(same_x | (np.abs(v[prob.ip] - v[prob.iq]) > 1e-6))
    num = approx_fprime(theta, lambda u: loss_and_grad(u, prob)[0], 1e-7)
    assert np.isfinite(loss)
    np.testing.assert_allclose(grad, num, rtol=1e-4, atol=1e-6)
    assert np.linalg.norm(grad) > 1e-4  # not trivially zero


@pytest.mark.slow
@pytest.mark.parametrize("similarity", ["cosine", "jaccard"])
def test_pair_similarities_are_the_exact_similarities(similarity):
    texts, cluster = _clustered(0)
    st = featurize(texts)
    prob, _, _ = build_problem(st, cluster, 100, 0, similarity)
    w = np.random.default_rng(2).normal(size=len(FEATURES))
    want = EXACT[similarity](st.sets.hashes, st.sets.offsets, weigh(feature_matrix(st), w), prob.a, prob.b)
    np.testing.assert_allclose(pair_similarities(prob, w), want, atol=1e-12)
    assert want.max() > 0.3


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


def _long_and_short(seed=0, pool=300, longs=30, per_text=30, shorts=30):
    """10 clusters of 6 texts: ``per_text`` of the cluster's ``longs`` long (10-letter) words
    and ``shorts`` random short words from a ``pool`` shared by all."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    short_pool = ["".join(rng.choice(letters, 3)) for _ in range(pool)]
    texts, cluster = [], []
    for c in range(10):
        long_words = ["".join(rng.choice(letters, 10)) for _ in range(longs)]
        for _ in range(6):
            toks = list(rng.choice(long_words, per_text, replace=False)) + list(rng.choice(short_pool, shorts, replace=False))
            rng.shuffle(toks)
            texts.append(" ".join(toks))
            cluster.append(c)
    return texts, np.array(cluster)


def _length_separates(seed=0):
    """Duplicates share long words; short words are random. tf, df and loc carry nothing:
    df of a long word = 6 = expected df of a short word (60 * 30 / 300)."""
    return _long_and_short(seed)


@pytest.mark.slow
@pytest.mark.parametrize("similarity", ["cosine", "jaccard"])
def test_fit_learns_the_separating_feature(similarity):
    texts, cluster = _length_separates()
    model = fit(texts, cluster, k=1, similarity=similarity, seed=0, n_pairs=3000, objective="preference")
    assert model.similarity == similarity and model.form == "linear"
    w = dict(zip(FEATURES, model.weights))
    assert model.info["loss_end"] < 0.5 * model.info["loss_start"]
    # the length weight is the largest one and outweighs every feature that varies here (idf is
    # nearly the same for every word, so it acts as a second bias)
    assert w["len"] == max(w.values())
    assert all(w["len"] > 1.5 * abs(w[f]) for f in ("tf", "tfidf", "loc", "caps"))
    # in the learned vectors long words carry (almost) all the weight
    st = featurize(texts)
    v = model.weigh(feature_matrix(st))
    long_w, short_w = v[st.length == 10].mean(), v[st.length == 3].mean()
    assert long_w > 5 * short_w
    # and near-duplicates now score far above non-duplicates
    m = Collection(ANDDMethod.from_model(model, threshold=0.5, raw=True))
    m.add(texts)
    m.finalize()
    i, j = np.triu_indices(len(texts), 1)
    s = m.score(i, j)
    same = cluster[i] == cluster[j]
    assert s[same].min() > s[~same].max()
    base = Collection(ANDDMethod(threshold=0.5, raw=True, model="tfidf", similarity=similarity))
    base.add(texts)
    base.finalize()
    sb = base.score(i, j)
    assert sb[same].mean() < 0.7 < s[same].mean()  # TF-IDF alone sees only half the words shared


def _binary_overlaps(seed=0):
    """Near-duplicates share some of their cluster's long words; every text draws most of its
    words from one small pool of short words, so binary weights rank some unrelated pairs
    above near-duplicates (long words are also rarer: len and idf both tell them apart)."""
    return _long_and_short(seed, pool=60, longs=20, per_text=12, shorts=40)


def test_f1_objective_learns_what_separates():
    texts, cluster = _binary_overlaps()
    st = featurize(texts)
    i, j = np.triu_indices(len(texts), 1)
    same = cluster[i] == cluster[j]
    binary = sparse_cosine(st.sets.hashes, st.sets.offsets, np.ones(st.tf.shape[0]), i, j)
    assert binary[same].min() < binary[~same].max()  # binary weights do not separate
    model = fit(texts, cluster, k=1, seed=0)
    assert model.form == "exp" and model.info["objective"] == "f1"
    assert model.info["loss_end"] < 0.5 * model.info["loss_start"]
    v = model.weigh(feature_matrix(st))
    assert v[st.length == 10].mean() > 3 * v[st.length == 3].mean()
    learned = sparse_cosine(st.sets.hashes, st.sets.offsets, v, i, j)
    assert learned[same].min() > learned[~same].max()
    # a strong pull toward binary weights keeps them (almost) binary
    assert np.abs(fit(texts, cluster, k=1, seed=0, l2=1000.0).weights).max() < 0.01


def test_f1_pairs_all_or_sampled_and_weighted_to_the_totals():
    cluster = np.array([0, 0, 0, 1, 1, -1, -1, 2])
    a, b, y, wt = f1_pairs(cluster, 100, seed=0)  # 28 pairs: all of them
    assert a.shape == (28,) and np.all(a < b) and np.all(wt == 1.0)
    np.testing.assert_array_equal(y, (cluster[a] == cluster[b]) & (cluster[a] >= 0))
    big = np.repeat(np.arange(40), 5)  # 200 documents: 400 near-duplicate and 19,500 other pairs
    a, b, y, wt = f1_pairs(big, 300, seed=1)
    assert np.unique(a * 200 + b).shape == a.shape and a.shape[0] <= 600
    np.testing.assert_array_equal(y, big[a] == big[b])
    assert wt[y > 0].sum() == pytest.approx(400) and wt[y == 0].sum() == pytest.approx(19500)


def test_exp_model_save_load_and_weighing(tmp_path):
    texts, cluster = _clustered(3)
    model = fit(texts, cluster, seed=1)
    model.save(tmp_path / "m.json")
    back = ANDDModel.load(tmp_path / "m.json")
    assert back.form == "exp" and back.info == model.info
    x = feature_matrix(featurize(texts))
    np.testing.assert_allclose(back.weigh(x), model.weigh(x), rtol=1e-12)
    np.testing.assert_allclose(back.weigh(x), np.exp(((x - model.center) / model.scale) @ model.weights), rtol=1e-12)
    assert np.all(model.scale > 0)


def test_fit_is_deterministic():
    texts, cluster = _clustered(1)
    w1 = fit(texts, cluster, seed=4, n_pairs=500).weights
    w2 = fit(texts, cluster, seed=4, n_pairs=500).weights
    np.testing.assert_array_equal(w1, w2)
    s1 = sample_pair_pairs(cluster, 200, 4)
    s2 = sample_pair_pairs(cluster, 200, 5)
    assert not all(np.array_equal(x, y) for x, y in zip(s1, s2))


def test_fit_hook_trains_the_method_and_uses_the_model():
    texts, cluster = _length_separates()
    m = ANDDMethod(threshold=0.5, similarity="jaccard", shingle_size=1, raw=True, seed=3)
    assert m.learns
    assert m.fit(texts[:30], cluster[:30]) is m  # five of the ten clusters
    want = fit(texts[:30], cluster[:30], k=1, similarity="jaccard", seed=3)
    np.testing.assert_array_equal(m.weighting().weights, want.weights)
    np.testing.assert_array_equal(m.model_.weights, want.weights)
    assert want.info["objective"] == "f1" and want.form == "exp"  # neardup's objective by default
    c = Collection(m)
    c.add(texts[30:])
    c.finalize()
    i, j = np.triu_indices(30, 1)
    s = c.score(i, j)
    same = cluster[30:][i] == cluster[30:][j]
    assert s[same].min() > s[~same].max()  # learned on the other clusters
    with pytest.raises(ValueError, match="near-duplicate"):
        ANDDMethod(shingle_size=3).fit(texts[:3], np.arange(3))  # k = 3: no shipped model needed either


def test_model_save_load(tmp_path):
    model = ANDDModel(np.linspace(-0.5, 0.5, len(FEATURES)), 2, "jaccard", {"seed": 3})
    path = tmp_path / "m.json"
    model.save(path)
    back = ANDDModel.load(path)
    np.testing.assert_array_equal(back.weights, model.weights)
    assert back.k == 2 and back.similarity == "jaccard" and back.info == {"seed": 3}
    m = ANDDMethod(model=str(path), shingle_size=2, similarity="jaccard")
    assert m.get_params()["model"] == str(path)
    with pytest.warns(UserWarning, match="weighs query frequencies"):  # its qf weight is not 0
        assert m.weighting().k == 2
    with pytest.raises(ValueError, match="k = 2 and jaccard, not k = 1 and jaccard"):
        ANDDMethod(model=str(path), shingle_size=1, similarity="jaccard").weighting()
    with pytest.raises(ValueError, match="not k = 2 and cosine"):
        ANDDMethod(model=str(path), shingle_size=2).weighting()
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="not a neardup ANDD model"):
        ANDDModel.load(tmp_path / "bad.json")


def test_v1_model_files_load_with_the_new_features_at_zero(tmp_path):
    import json

    v1 = {"format": "neardup-andd-v1", "k": 1, "features": ["bias", "tf", "idf", "tfidf", "loc", "len"],
          "weights": [-0.6, 0.1, -0.1, 0.05, -0.4, 0.6], "info": {"seed": 0}}
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(v1))
    model = ANDDModel.load(path)
    assert model.similarity == "cosine" and model.k == 1
    assert dict(zip(FEATURES, model.weights)) == {**dict(zip(v1["features"], v1["weights"])),
                                                  "inhead": 0, "caps": 0, "df_avg": 0, "df_med": 0, "qf": 0}
    assert model.form == "linear"
    v2 = {**v1, "format": "neardup-andd-v2", "features": list(FEATURES), "weights": list(np.linspace(0, 1, len(FEATURES)))}
    path.write_text(json.dumps(v2))
    assert ANDDModel.load(path).form == "linear"  # v2 files are linear
    path.write_text(json.dumps({**v1, "features": v1["features"][:5] + ["color"]}))
    with pytest.raises(ValueError, match="not a neardup ANDD model.*color"):
        ANDDModel.load(path)


def test_cosine_radius_and_mapping():
    assert bits_to_cosine(np.array([0]), 384)[0] == 1.0
    k = cosine_radius(0.9, 384)
    assert bits_to_cosine(np.array([k]), 384)[0] >= 0.9 > bits_to_cosine(np.array([k + 1]), 384)[0]
    assert cosine_radius(0.9, 384, slack=3.0) > k


def test_icws_estimate_matches_the_exact_weighted_jaccard():
    texts, _ = _clustered(4)
    m = Collection(ANDDMethod(model="tfidf", similarity="jaccard", num_samples=80))
    m.add(texts)
    sk = m.finalize()
    assert sk.columns["signatures"].shape == (len(texts), 80)
    i, j = np.triu_indices(len(texts), 1)
    est = m.method.clone(raw=False).score(sk, i, j)  # the ICWS estimate (raw, the default, scores exactly)
    exact = weighted_jaccard(sk.lists["hashes"], sk.offsets, sk.lists["weights"], i, j)
    assert exact.max() > 0.7 and exact.min() < 0.05
    # each estimate is a Binomial(80, J) share, independent enough across pairs of distinct documents
    sd = np.sqrt(exact * (1 - exact) / 80)
    assert abs((est - exact).sum()) <= 4 * np.sqrt((sd**2).sum()) * 3  # pairs share documents: some slack
    assert np.mean(np.abs(est - exact) <= 3 * sd + 1 / 80) > 0.99
    # widened bands for raw propose more candidates, never fewer
    assert jaccard_banding(0.8, 80, slack=3.0).candidate_probability(0.7) > jaccard_banding(0.8, 80).candidate_probability(0.7)


@pytest.mark.parametrize("similarity", ["cosine", "jaccard"])
@pytest.mark.parametrize("raw", [False, True])
def test_method_finds_planted_near_duplicates(raw, similarity):
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
    # the mechanics, on TF-IDF weights
    m = Collection(ANDDMethod(threshold=0.8, raw=raw, model="tfidf", similarity=similarity))
    usable = m.add(docs[:100])
    assert usable.all()
    assert not m.add(docs[100:])[-1]
    m.finalize()
    a, b = m.candidate_pairs()
    if not raw and similarity == "jaccard":  # band candidates are verified by the pipeline
        keep = m.score(a, b) >= 0.8
        a, b = a[keep], b[keep]
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


@pytest.mark.parametrize("similarity", ["cosine", "jaccard"])
def test_train_command(tmp_path, similarity):
    import json

    from neardup.cli import build_parser

    texts, cluster = _clustered(2)
    path = tmp_path / "train.jsonl"
    path.write_text("".join(
        json.dumps({"id": f"d{n}", "text": t, **({"cluster": f"c{c}"} if c >= 0 else {})}) + "\n"
        for n, (t, c) in enumerate(zip(texts, cluster))
    ))
    parser = build_parser("train")
    out = tmp_path / "model.json"
    args = parser.parse_args(["train", str(path), "-o", str(out), "--n-pairs", "300", "--quiet", "--similarity", similarity])
    assert args.func(args) == 0
    model = ANDDModel.load(out)
    assert model.similarity == similarity
    np.testing.assert_array_equal(model.weights, fit(texts, cluster, similarity=similarity, seed=0, n_pairs=300).weights)
    defaults = parser.parse_args(["train", str(path), "-o", str(out)])
    assert defaults.n_pairs is None and defaults.objective == "f1"  # None: the objective's own default


@pytest.mark.parametrize("k", [1, 3])
def test_shipped_default_models_load_with_their_thresholds(k):
    m = ANDDMethod(shingle_size=k)
    assert m.threshold is None  # not known before the model is
    shipped = m.weighting()
    assert (shipped.k, shipped.similarity, shipped.form) == (k, "cosine", "exp")
    assert shipped.info["objective"] == "f1" and np.any(shipped.weights != 0)
    assert 0.05 < m.decision_threshold() == shipped.info["threshold"] < 0.9
    assert m.threshold is None  # the parameter stays as given: the model decides
    assert ANDDMethod(**m.get_params()).decision_threshold() == m.decision_threshold()  # reproduced by the params
    given = ANDDMethod(shingle_size=k, threshold=0.7)
    given.weighting()
    assert given.threshold == given.decision_threshold() == 0.7  # a threshold given is kept
    with pytest.raises(ValueError, match="shipped ANDD models are for k = 1 and cosine, k = 3 and cosine"):
        ANDDMethod(shingle_size=2).weighting()


def test_a_run_records_the_threshold_it_applied():
    """With no threshold given, a run's recorded parameters (summary.json, eval reports) show the
    model's threshold the run applied, not ``None`` (what ``get_params()["threshold"]`` used to show)."""
    import neardup

    docs = _random_docs(20, 120, vocab=20000, seed=12)
    result = neardup.Deduplicator(method="andd").run([(f"d{n}", t) for n, t in enumerate(docs)])
    assert result.params["threshold"] == ANDDMethod().decision_threshold() == ANDDMethod().weighting().info["threshold"]


def test_a_model_without_a_learned_threshold_gets_the_fallback(tmp_path):
    m = ANDDMethod(model="binary")
    m.weighting()
    assert m.decision_threshold() == 0.5
    texts, cluster = _clustered(0)
    learned = ANDDMethod(raw=True)
    learned.fit(texts, cluster)  # a model fit in place brings its own threshold
    c = Collection(learned)
    c.add(texts)
    c.finalize()
    assert learned.decision_threshold() == learned.weighting().info["threshold"]
    assert learned.weighting() is learned.model_


def test_only_the_default_model_learns_and_binary_is_set_cosine(tmp_path):
    texts = ["a b c d e f", "a b c d x y z", "q r s"]
    m = Collection(ANDDMethod(model="binary", raw=True))
    assert not m.method.learns and ANDDMethod(model="default").learns and not ANDDMethod(model="tfidf").learns
    ANDDModel.fixed("tfidf").save(tmp_path / "m.json")
    assert not ANDDMethod(model=str(tmp_path / "m.json")).learns  # a user's model is evaluated as given
    m.add(texts)
    m.finalize()
    # 4 shared words of 6 and 7 distinct ones
    assert m.score(np.array([0, 0]), np.array([1, 2])) == pytest.approx([4 / np.sqrt(6 * 7), 0.0])


def _sketched(method, texts, batch):
    return [method.sketch(method.prepare(texts[i : i + batch])) for i in range(0, len(texts), batch)]


@pytest.mark.parametrize("raw", [False, True])
def test_finish_never_holds_a_feature_matrix_of_the_collection(raw, monkeypatch):
    """The collection's statistics are applied a piece at a time: what finish allocates at its peak is
    the finished sketches (raw: 16 bytes an entry) and one piece's features, far below the
    ``(entries, features)`` float64 matrix of the whole collection (before: that matrix and more)."""
    import tracemalloc

    import neardup.methods.andd as andd_method

    monkeypatch.setattr(andd_method, "PIECE_ENTRIES", 4096)
    texts = _random_docs(400, words=500, vocab=20_000, seed=5)
    method = ANDDMethod(raw=raw, model="default")
    parts = _sketched(method, texts, 50)
    entries = sum(p.features.sets.hashes.shape[0] for p in parts)
    assert entries > 150_000
    method.weighting()  # the model read before measuring
    tracemalloc.start()
    try:
        sk = method.finish(parts)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    matrix = entries * len(FEATURES) * 8
    kept = 16 * entries if raw else 0
    assert peak - kept < matrix / 4, (peak, kept, matrix)
    assert sk.usable.all() and sk.columns["signatures"].shape == (400, 6)


@pytest.mark.parametrize("k, similarity, model", [(1, "cosine", "default"), (3, "jaccard", "tfidf"), (1, "jaccard", "binary")])
def test_rows_do_not_depend_on_the_pieces_or_the_batches(k, similarity, model, monkeypatch):
    """Pieces of any size, one batch or many, ``finish`` or each batch under the collection's statistics
    (how Spark runs it): the same bits, weights and samples, bit for bit."""
    import neardup.methods.andd as andd_method

    texts, _ = _clustered(2)
    texts = texts + ["", "   ", "solo"]
    method = ANDDMethod(raw=True, model=model, shingle_size=k, similarity=similarity)
    whole = method.finish(_sketched(method, texts, len(texts)))
    batches = _sketched(method, texts, 7)
    stats = batches[0].stats
    for p in batches[1:]:
        stats = stats.merge(p.stats)
    for limit in (1, 13, 1000):
        monkeypatch.setattr(andd_method, "PIECE_ENTRIES", limit)
        spark_like = [method.apply_statistics(p, stats) for p in batches]
        for got in (method.finish(batches), Sketches.concat(spark_like)):
            assert got.usable.tobytes() == whole.usable.tobytes()
            assert got.columns["signatures"].tobytes() == whole.columns["signatures"].tobytes()
            assert got.lists["weights"].tobytes() == whole.lists["weights"].tobytes()
            assert got.lists["hashes"].tobytes() == whole.lists["hashes"].tobytes()
            assert got.offsets.tobytes() == whole.offsets.tobytes()


@pytest.mark.parametrize("k", [1, 2])
def test_entry_weights_are_the_weighed_feature_matrix_and_gram_stats_split_and_join(k):
    texts, cluster = _clustered(3)
    st = featurize(texts, k)
    x = feature_matrix(st)
    for model in (fit(texts, cluster, seed=1, n_pairs=500), ANDDModel.fixed("tfidf", k),
                  fit(texts, cluster, seed=1, n_pairs=500, objective="preference")):
        np.testing.assert_allclose(model.weigh_entries(st), model.weigh(x), rtol=1e-12, atol=1e-300)
    # rows and arrays give the documents back: split anywhere, joined again, the same features
    parts = [st.rows(0, 5), st.rows(5, 5), st.rows(5, len(st.sets))]
    joined = type(st).concat(parts)
    assert joined.k == k
    for name, values in st.arrays().items():
        assert joined.arrays()[name].tobytes() == values.tobytes(), name
    assert feature_matrix(parts[2]).shape[0] == st.sets.hashes.shape[0] - st.sets.offsets[5]
    assert st.nbytes < 40 * st.sets.hashes.shape[0] + 16 * len(st.sets) + 16 * k * st.sets.hashes.shape[0]
