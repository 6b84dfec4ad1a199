"""MinHash estimator, LSH banding and supershingles: statistical behaviour."""

import numpy as np
import pytest

from neardup.features.sets import HashedSets
from neardup.index.banding import Banding, band_keys, candidate_pairs, choose_banding
from neardup.sketch.compare import equal_share as estimate_jaccard
from neardup.sketch.minhash import MinHasher


def pairs_with_jaccard(rng, n_pairs, size, jaccard):
    """``n_pairs`` pairs of random sets of ``size`` items with the given exact Jaccard."""
    shared = int(round(2 * size * jaccard / (1 + jaccard)))
    rows, truth = [], []
    for _ in range(n_pairs):
        items = rng.integers(0, 2**64 - 1, size=2 * size, dtype=np.uint64)
        a = items[:size]
        b = np.concatenate([items[:shared], items[size : 2 * size - shared]])
        rows += [np.unique(a), np.unique(b)]
        truth.append(len(np.intersect1d(a, b)) / len(np.union1d(a, b)))
    sizes = np.array([len(r) for r in rows])
    offsets = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return HashedSets(np.concatenate(rows), offsets), np.array(truth)


@pytest.mark.parametrize("jaccard", [0.1, 0.5, 0.8, 0.95])
def test_estimate_is_unbiased_with_binomial_spread(jaccard):
    rng = np.random.default_rng(11)
    sets, truth = pairs_with_jaccard(rng, 400, 300, jaccard)
    sig = MinHasher(128, seed=5).sketch(sets)
    est = estimate_jaccard(sig[0::2], sig[1::2])
    err = est - truth
    sd = np.sqrt(truth.mean() * (1 - truth.mean()) / 128)
    # the mean of 400 estimates is within 4 standard errors of the truth
    assert abs(err.mean()) < 4 * sd / np.sqrt(400)
    # and single estimates spread like a binomial share of 128 (within 25%)
    assert 0.75 * sd < err.std() < 1.25 * sd


def test_signatures_depend_only_on_seed():
    rng = np.random.default_rng(1)
    sets, _ = pairs_with_jaccard(rng, 5, 50, 0.5)
    assert np.array_equal(MinHasher(64, seed=3).sketch(sets), MinHasher(64, seed=3).sketch(sets))
    assert not np.array_equal(MinHasher(64, seed=3).sketch(sets), MinHasher(64, seed=4).sketch(sets))


def test_identical_sets_have_identical_signatures_and_empty_is_all_max():
    sets = HashedSets(np.array([5, 9, 5, 9], np.uint64), np.array([0, 2, 4, 4]))
    sig = MinHasher(32).sketch(sets)
    assert np.array_equal(sig[0], sig[1])
    assert (sig[2] == np.uint32(0xFFFFFFFF)).all()


def test_chosen_banding_weights_false_negatives():
    # equal weights reproduce datasketch's MinHashLSH(threshold=0.8, num_perm=128): b=9, r=13
    assert choose_banding(0.8, 128, fp_weight=0.5) == Banding(9, 13, 1)
    # neardup verifies candidates, so it trades candidates for recall: b=18, r=7
    assert choose_banding(0.8, 128) == Banding(18, 7, 1)
    low = choose_banding(0.5, 128)
    assert low.rows < 13 and low.bands * low.rows <= 128


@pytest.mark.parametrize("jaccard", [0.5, 0.7, 0.8, 0.9])
def test_lsh_candidate_rate_matches_theory(jaccard):
    rng = np.random.default_rng(int(jaccard * 100))
    n_pairs = 500
    sets, truth = pairs_with_jaccard(rng, n_pairs, 200, jaccard)
    sig = MinHasher(128, seed=2).sketch(sets)
    banding = choose_banding(0.8, 128)
    keys = band_keys(sig[:, : banding.bands * banding.rows], banding.bands, banding.rows, np.uint64(0))
    a, b = candidate_pairs(keys)
    found = set(zip(a.tolist(), b.tolist()))
    hit = np.array([(2 * i, 2 * i + 1) in found for i in range(n_pairs)])
    expected = float(np.mean(banding.candidate_probability(truth)))
    assert abs(hit.mean() - expected) < 4 * np.sqrt(expected * (1 - expected) / n_pairs) + 0.01
    if jaccard >= 0.9:
        assert hit.mean() > 0.99  # recall of true near-duplicates above the threshold


def test_supershingles_need_min_shared_groups():
    # 3 documents, 4 groups of 2 values: doc1 shares 1 group with doc0, doc2 shares 2
    sig = np.array(
        [[1, 1, 2, 2, 3, 3, 4, 4], [1, 1, 9, 9, 8, 8, 7, 7], [1, 1, 2, 2, 6, 6, 5, 5]], dtype=np.uint32
    )
    keys = band_keys(sig, 4, 2, np.uint64(0))
    a, b = candidate_pairs(keys, min_shared=2)
    assert list(zip(a.tolist(), b.tolist())) == [(0, 2)]
    a, b = candidate_pairs(keys, min_shared=1)
    assert list(zip(a.tolist(), b.tolist())) == [(0, 1), (0, 2), (1, 2)]


def test_supershingle_banding_uses_every_value_and_two_matches():
    banding = choose_banding(0.8, 128, min_shared=2, use_all=True)
    assert banding.rows == 128 // banding.bands and banding.min_shared == 2
    # probability of becoming a candidate rises steeply around the threshold
    assert banding.candidate_probability(0.85) > 0.99
    assert banding.candidate_probability(0.5) < 0.05


def test_fused_text_sketch_equals_sketch_of_shingle_sets(articles):
    from neardup.features.shingles import word_shingles
    from neardup.text.tokenize import encode_batch

    texts = [a["text"] for a in articles] + ["", "Ｒｅｕｔｅｒｓ 東京 SAID"]
    hasher = MinHasher(64, seed=9)
    sig, sizes = hasher.sketch_encoded(*encode_batch(texts), 3)
    sets, counts = word_shingles(texts, 3)
    assert np.array_equal(sig, hasher.sketch(sets))
    assert sizes.tolist() == counts.tolist()


@pytest.mark.parametrize("method, params, says", [
    ("minhash", dict(candidates="supershingles", supershingles=200), "between 1 and num_perm"),
    ("minhash", dict(candidates="supershingles", supershingles=0), "between 1 and num_perm"),
    ("minhash", dict(min_shared=0), "at least 1"),
    ("minhash", dict(candidates="supershingles", supershingles=6, min_shared=10), "no pair could be a candidate"),
    ("minhash", dict(bands=4, rows=32, min_shared=5), "no pair could be a candidate"),
    ("minhash", dict(bands=0, rows=32), "bands must be at least 1, got 0"),
    ("minhash", dict(bands=-1), "bands must be at least 1, got -1"),  # its range before the pair rule
    ("minhash", dict(rows=4), r"give both bands and rows \(bands x rows at most num_perm = 128\)"),
    ("minhash", dict(num_perm=0), "num_perm must be at least 1"),
    ("minhash", dict(supershingles=6), "add --candidates supershingles"),
    ("minhash", dict(candidates="supershingles", bands=4, rows=32), "leave them out"),
    ("wsample", dict(supershingles=6, min_shared=7), "no pair could be a candidate"),
    ("wsample", dict(supershingles=0), "between 1 and num_samples"),
])
def test_band_settings_that_cannot_work_are_refused(method, params, says):
    """A setting that made every pair a candidate, none, or fell back to the default in silence is an error."""
    from neardup.errors import UserError
    from neardup.methods import get_method

    with pytest.raises(UserError, match=says):
        get_method(method, **params)
