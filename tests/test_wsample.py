"""Weighted sampling of phrases (alonso2013): weights, rare phrases, sketches, detection."""

import numpy as np
import pytest

from neardup import Deduplicator
from neardup.features.sets import HashedSets
from neardup.features.shingles import word_shingles
from neardup.methods import get_method
from neardup.methods.base import Collection
from neardup.methods.wsample import WEIGHT_FUNCTIONS, phrase_weights, rare_cutoff
from neardup.sketch.icws import weighted_jaccard
from neardup.stats.build import CollectionStats, DocFeatures, doc_features

from conftest import shared_data


def run(texts, **params):
    m = Collection(get_method("wsample", **params))
    for lo in range(0, len(texts), 7):
        m.add(texts[lo : lo + 7])
    m.finalize()
    return m


def test_weight_functions_of_table_4():
    df = np.array([1.0, np.e, 10.0])
    n = 100.0
    want = {
        "uniform": [1, 1, 1], "df": [1, np.e, 10], "ln_df": [0, 1, np.log(10)],
        "df2": [1, np.e**2, 100], "df3": [1, np.e**3, 1000], "df4": [1, np.e**4, 10**4],
        "ln_df2": [0, 1, np.log(10) ** 2], "ln_df3": [0, 1, np.log(10) ** 3],
        "ln_df4": [0, 1, np.log(10) ** 4], "ln_df10": [0, 1, np.log(10) ** 10],
        "idf": [np.log(100), np.log(100 / np.e), np.log(10)],
    }
    assert set(want) == set(WEIGHT_FUNCTIONS)
    for name, values in want.items():
        assert np.allclose(WEIGHT_FUNCTIONS[name](df, n), values), name


def test_phrase_weight_is_first_word_df_times_phrase_idf_hand_checked():
    texts = ["the cat", "the dog", "a cat", "the cat"]
    stats = CollectionStats(phrase_size=2)
    feats = stats.update_texts(texts)
    # N = 4; df: the 3, a 1; phrases: "the cat" 2, "the dog" 1, "a cat" 1
    the_cat = int(word_shingles(["the cat"], 2)[0].hashes[0])
    a_cat = int(word_shingles(["a cat"], 2)[0].hashes[0])
    w = dict(zip(feats.phrases.hashes.tolist(), phrase_weights(feats, stats, "df2", "inverse").tolist()))
    assert w[the_cat] == pytest.approx(3**2 * 4 / 2) and w[a_cat] == pytest.approx(1 * 4 / 1)
    w = dict(zip(feats.phrases.hashes.tolist(), phrase_weights(feats, stats, "df", "log").tolist()))
    assert w[the_cat] == pytest.approx(3 * np.log(2)) and w[a_cat] == pytest.approx(np.log(4))
    w = dict(zip(feats.phrases.hashes.tolist(), phrase_weights(feats, stats, "ln_df", "none").tolist()))
    assert w[the_cat] == pytest.approx(np.log(3)) and w[a_cat] == 0.0  # first word in 1 document
    # rare cutoff: phrases in more documents than the cutoff weigh 0
    w = dict(zip(feats.phrases.hashes.tolist(), phrase_weights(feats, stats, "df2", "inverse", 1.0).tolist()))
    assert w[the_cat] == 0.0 and w[a_cat] == pytest.approx(4.0)


def stats_with_phrase_dfs(dfs, n_docs):
    """Statistics over ``n_docs`` documents where phrase ``i`` is in ``dfs[i]`` of them."""
    rows = [[i + 1 for i, df in enumerate(dfs) if d < df] or [10**9 + d] for d in range(n_docs)]
    offsets = np.zeros(n_docs + 1, np.int64)
    np.cumsum([len(r) for r in rows], out=offsets[1:])
    phrases = HashedSets(np.concatenate([np.array(r, np.uint64) for r in rows]), offsets)
    stats = CollectionStats(phrase_size=7)
    stats.update(DocFeatures(HashedSets(np.zeros(0, np.uint64), np.zeros(n_docs + 1, np.int64)), phrases,
                             phrases.hashes.copy()))
    return stats


def test_rare_cutoff_ranks_the_common_phrases():
    # 10 common phrases (df > 42): 43, 50, 60, ..., 130; and some uncommon ones
    dfs = [3, 10, 42] + [43] + list(range(50, 140, 10))
    stats = stats_with_phrase_dfs(dfs, 200)
    keys, common = stats.common_phrases(42)
    assert sorted(common.tolist()) == [43] + list(range(50, 140, 10))
    assert rare_cutoff(stats, 50, 42) == 80.0  # the 5th of 10
    assert rare_cutoff(stats, 1, 42) == 43.0  # ceil(0.1) = 1st
    assert rare_cutoff(stats, 0, 42) == 42.0  # every common phrase weighs 0
    assert rare_cutoff(stats, 99, 42) == 130.0
    assert rare_cutoff(stats, 100, 42) == float("inf") and rare_cutoff(stats, None, 42) == float("inf")
    assert rare_cutoff(stats_with_phrase_dfs([3, 4], 10), 50, 42) == float("inf")  # nothing common


def test_boilerplate_phrases_above_the_cutoff_do_not_count():
    boiler = "click here to subscribe to our daily newsletter today and every day"
    docs = [f"{boiler} story{i} alpha beta gamma delta epsilon zeta eta" for i in range(60)]
    docs += ["the minister said on tuesday that the talks had failed again", boiler]
    m = run(docs, rare=0, common_df=42, exact=True)
    # the boilerplate is in 61 documents: common, weight 0; pairs sharing only it score 0
    assert m.score(np.array([0, 0]), np.array([1, 61])).tolist() == [0.0, 0.0]
    assert m.sketches_.columns["sizes"][61] == 0  # nothing of positive weight left
    a, b = m.candidate_pairs()
    assert not np.isin(61, a) and not np.isin(61, b)
    m = run(docs, rare=100, common_df=42, exact=True)
    assert m.score(np.array([0]), np.array([61]))[0] > 0


def test_estimate_matches_exact_weighted_jaccard_and_identical_documents_score_one(articles):
    texts = [a["text"] for a in articles]
    edited = [t.replace(" the ", " a ", 3) for t in texts]
    docs = texts + edited + texts[:1]
    est = run(docs, num_samples=512)
    ex = run(docs, num_samples=512, exact=True)
    n = len(texts)
    a, b = np.arange(n), np.arange(n) + n
    s_est, s_ex = est.score(a, b), ex.score(a, b)
    assert np.all(np.abs(s_est - s_ex) <= 4 * np.sqrt(s_ex * (1 - s_ex) / 512) + 0.01)
    assert est.score(np.array([0]), np.array([2 * n])).tolist() == [1.0]
    # the exact score is the weighted Jaccard of the phrase weights
    feats = doc_features(docs, 7)
    stats = CollectionStats(7)
    stats.update(feats)
    w = phrase_weights(feats, stats, "df2", "inverse", rare_cutoff(stats, 50, 42))
    want = weighted_jaccard(feats.phrases.hashes, feats.phrases.offsets, w, a, b)
    assert np.allclose(s_ex, want)


def test_deterministic_per_seed_and_parameters_checked(articles):
    texts = [a["text"] for a in articles]
    one, two, other = (run(texts, **seed).sketches_.columns["signatures"] for seed in ({}, {}, {"seed": 2}))
    assert np.array_equal(one, two)
    assert not np.array_equal(one, other)
    for bad in [dict(weight="cubic"), dict(phrase_idf="x"), dict(rare=120), dict(phrase_size=0),
                dict(supershingles=999), dict(stats="/no/such.npz")]:
        with pytest.raises(ValueError):
            get_method("wsample", **bad)


def test_statistics_file_equals_counting_the_input(tmp_path, articles):
    texts = [a["text"] for a in articles] * 2
    stats = CollectionStats(7)
    stats.update_texts(texts)
    stats.save(tmp_path / "s.npz")
    own = run(texts)
    from_file = run(texts, stats=str(tmp_path / "s.npz"))
    assert np.array_equal(own.sketches_.columns["signatures"], from_file.sketches_.columns["signatures"])
    with pytest.raises(ValueError, match="counts 7-word phrases"):
        run(texts, stats=str(tmp_path / "s.npz"), phrase_size=5)
    approx = CollectionStats(7, approximate=True, width=1 << 16)
    approx.update_texts(texts)
    approx.save(tmp_path / "a.npz")
    close = run(texts, stats=str(tmp_path / "a.npz"))
    # on this tiny corpus the sketch counts exactly, so the samples are the same
    assert np.mean(close.sketches_.columns["signatures"] == own.sketches_.columns["signatures"]) > 0.99


@pytest.mark.parametrize("weight", ["df2", "uniform", "ln_df", "idf"])
def test_deduplicator_finds_planted_near_duplicates(corpus, weight):
    docs, truth = corpus
    result = Deduplicator(method="wsample", weight=weight).run(docs)
    found = {(p.a, p.b) for p in result.pairs}
    assert found <= truth
    assert len(found) >= 0.9 * len(truth)


@pytest.mark.slow
def test_goldset_quality_gate():
    """On the GoldSet half, weighted sampling separates same-story pages (whole-page text)."""
    from neardup.evaluate.harness import evaluate
    from neardup.evaluate.labeled import load_labeled

    data = load_labeled(shared_data("goldset-dev"))
    report, _ = evaluate(data, "wsample", {"rare": 100.0, "phrase_idf": "log"})
    assert report["max_f1"] > 0.8 and report["auroc"] > 0.95
