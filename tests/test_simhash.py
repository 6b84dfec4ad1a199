"""SimHash fingerprints, Manku's permuted tables against brute force, and the method."""

import numpy as np
import pytest

from neardup import Deduplicator
from neardup.features.sets import HashedSets
from neardup.index.hamming import block_masks, choose_blocks, hamming_distances, hamming_pairs, popcount64
from neardup.methods import get_method
from neardup.methods.base import Collection
from neardup.sketch.simhash import SimHasher, max_distance, similarity


def one_set(values):
    values = np.unique(np.asarray(values, dtype=np.uint64))
    return HashedSets(values, np.array([0, values.shape[0]]))


def test_popcount_and_distance_by_hand():
    from numba import njit

    count = njit(lambda x: popcount64(x))
    assert [count(np.uint64(v)) for v in (0, 1, 0b1011, 2**64 - 1)] == [0, 1, 3, 64]
    fp = np.array([[0b1011, 0], [0b0001, 2**63]], dtype=np.uint64)
    assert hamming_distances(fp, np.array([0]), np.array([1])).tolist() == [3]
    assert similarity(fp, np.array([0]), np.array([1])).tolist() == [1 - 3 / 128]


def test_threshold_to_radius():
    assert max_distance(61 / 64, 64) == 3  # Manku: k = 3 of 64 bits
    assert max_distance(0.95, 64) == 3
    assert max_distance(355 / 384, 384) == 29  # Henzinger: at least 355 of 384 bits agree
    assert max_distance(1.0, 64) == 0 and max_distance(0.0, 64) == 64
    # the radius is exactly where the similarity crosses the threshold
    for tau in np.linspace(0, 1, 101):
        k = max_distance(tau, 64)
        assert 1 - k / 64 >= tau and (k == 64 or 1 - (k + 1) / 64 < tau)


def test_single_feature_fingerprint_is_its_bits_and_weights_vote():
    h = SimHasher(128, seed=3)
    a = h.sketch(one_set([42]))
    assert a.shape == (1, 2)
    # a negative weight flips every bit, a zero weight leaves none set
    neg = h.sketch(one_set([42]), np.array([-1.0]))
    assert np.array_equal(neg, ~a)
    assert not h.sketch(one_set([42]), np.array([0.0])).any()
    # a heavy feature outvotes light ones
    sets = HashedSets(np.array([1, 2, 3, 42], np.uint64), np.array([0, 4]))
    assert np.array_equal(h.sketch(sets, np.array([0.1, 0.1, 0.1, 5.0])), a)


def test_near_identical_texts_are_close_and_different_texts_far(articles):
    texts = [a["text"] for a in articles]
    edited = [texts[0].replace("bridge", "span", 1), texts[0] + " Reporting by staff."]
    m = Collection(get_method("simhash", bits=384, weighting="uniform"))
    m.add(texts + edited)
    m.finalize()
    n = len(texts)
    near = m.score(np.array([0, 0]), np.array([n, n + 1]))
    i, j = np.triu_indices(n, 1)
    far = m.score(i, j)
    assert near.min() > 0.9
    assert far.max() < 0.75 and abs(far.mean() - 0.5) < 0.1  # unrelated: about half the bits


def brute_force_case(rng, n, words, max_flips):
    bits = 64 * words
    fp = rng.integers(0, 2**64 - 1, size=(n, words), dtype=np.uint64, endpoint=True)
    for i in range(0, n, 2):  # plant near copies with few flipped bits
        fp[i] = fp[rng.integers(n)]
        for f in rng.integers(0, bits, size=rng.integers(0, max_flips)):
            fp[i, f // 64] ^= np.uint64(1) << np.uint64(f % 64)
    fp[1] = fp[3]  # an exact duplicate
    return fp


@pytest.mark.slow
@pytest.mark.parametrize(("words", "k"), [(1, 0), (1, 1), (1, 3), (1, 7), (6, 0), (6, 10), (6, 29)])
def test_permuted_tables_find_every_pair_within_k(words, k):
    rng = np.random.default_rng(100 * words + k)
    fp = brute_force_case(rng, 400, words, 3 * k + 2)
    i, j = np.triu_indices(400, 1)
    want = hamming_distances(fp, i, j) <= k
    assert want.sum() > 10
    for blocks in {None, k + 1, k + 2}:
        a, b = hamming_pairs(fp, k, blocks)
        assert np.array_equal(a, i[want]) and np.array_equal(b, j[want])  # exact, no repeats


def test_a_wide_radius_compares_every_pair_once_with_the_tables_answer():
    """A radius of 158 bits of 384 (andd's learned cosine threshold) leaves the best tables keys of
    a few bits, so every pair is compared once instead: the same pairs as the tables and by brute force."""
    import neardup.index.hamming as hamming

    n, k = 300, 158
    assert n * (n - 1) / 2 <= hamming._best_blocks(384, k, n)[1]  # the all-pairs path is taken
    fp = brute_force_case(np.random.default_rng(9), n, 6, 200)
    i, j = np.triu_indices(n, 1)
    want = hamming_distances(fp, i, j) <= k
    assert 10 < want.sum() < want.shape[0]
    a, b = hamming_pairs(fp, k)
    assert np.array_equal(a, i[want]) and np.array_equal(b, j[want])
    ta, tb = hamming_pairs(fp, k, k + 1)  # the tables, asked for
    assert np.array_equal(ta, a) and np.array_equal(tb, b)


def test_key_collisions_neither_lose_nor_repeat_pairs(monkeypatch):
    # every key equal: each table compares all pairs, and only a pair's first table emits it
    import neardup.index.hamming as hamming

    fp = brute_force_case(np.random.default_rng(5), 120, 1, 8)
    i, j = np.triu_indices(120, 1)
    want = hamming_distances(fp, i, j) <= 4
    monkeypatch.setattr(hamming, "_table_keys", lambda fp, mask, seed: np.zeros(fp.shape[0], np.uint64))
    a, b = hamming_pairs(fp, 4, 6)
    assert np.array_equal(a, i[want]) and np.array_equal(b, j[want])


def test_block_layout_and_choice():
    masks = block_masks(64, 6)
    assert np.bitwise_or.reduce(masks[:, 0]) == np.uint64(2**64 - 1)
    assert sum(bin(int(m)).count("1") for m in masks[:, 0]) == 64  # disjoint
    assert choose_blocks(64, 3, 2**34) > choose_blocks(64, 3, 1000)  # more keys for more documents
    assert choose_blocks(64, 3, 1000) > 3
    a, b = hamming_pairs(np.zeros((4, 1), np.uint64), 64)  # radius covers everything
    assert len(a) == 6


def test_fingerprints_deterministic_per_seed(articles):
    texts = [a["text"] for a in articles]
    fps = []
    for seed in (1, 1, 2):
        m = Collection(get_method("simhash", seed=seed, bits=384))
        m.add(texts)
        fps.append(m.finalize().columns["fingerprints"])
    assert fps[0].shape == (len(texts), 6)
    assert np.array_equal(fps[0], fps[1]) and not np.array_equal(fps[0], fps[2])


@pytest.mark.parametrize("params", [{}, {"bits": 384}, {"weighting": "tfidf"}, {"shingle_size": 2}])
def test_deduplicator_finds_planted_near_duplicates(corpus, params):
    # ~160-word articles; the originals carry a title the copies lack, and 1% of words
    # are edited: 0.75-0.85 of the bits agree within a story, below 0.68 across stories
    docs, truth = corpus
    result = Deduplicator(method="simhash", threshold=0.7, **params).run(docs)
    assert {(p.a, p.b) for p in result.pairs} == truth
    assert all(p.score >= 0.7 for p in result.pairs)


def test_default_threshold_is_mankus_three_bits(corpus):
    docs, truth = corpus
    m = get_method("simhash")
    assert m.max_distance() == 3 and m.bits == 64
    result = Deduplicator(method="simhash").run(docs)
    assert {(p.a, p.b) for p in result.pairs} <= truth


def test_candidates_are_the_pairs_above_threshold_and_empty_docs_score_zero(articles):
    texts = [a["text"] for a in articles] + ["", "!!!"]
    texts += [t.replace("the", "a", 2) for t in texts[:8]]
    m = Collection(get_method("simhash", threshold=0.7, bits=128))
    m.add(texts)
    m.finalize()
    i, j = np.triu_indices(len(texts), 1)
    s = m.score(i, j)
    a, b = m.candidate_pairs()
    keep = s >= 0.7
    assert np.array_equal(a, i[keep]) and np.array_equal(b, j[keep])
    assert s[(i == 8) & (j == 9)].tolist() == [0.0]
    with pytest.raises(ValueError):
        get_method("simhash", bits=100)
    with pytest.raises(ValueError):
        get_method("simhash", weighting="bm25")
