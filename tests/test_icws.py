"""ICWS (Ioffe 2010): collisions estimate the weighted Jaccard sum(min) / sum(max)."""

import numpy as np
import pytest

from neardup.features.sets import HashedSets
from neardup.sketch.compare import equal_share as estimate_weighted_jaccard
from neardup.sketch.icws import EMPTY, ICWSampler, weighted_jaccard


def weighted_sets(rows):
    """CSR (hashes sorted) and aligned weights from a list of {hash: weight} dicts."""
    hashes, weights, sizes = [], [], []
    for row in rows:
        keys = np.array(sorted(row), dtype=np.uint64)
        hashes.append(keys)
        weights.append(np.array([row[int(k)] for k in keys], dtype=np.float64))
        sizes.append(len(keys))
    offsets = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return HashedSets(np.concatenate(hashes), offsets), np.concatenate(weights)


def exact(a: dict, b: dict) -> float:
    keys = set(a) | set(b)
    lo = sum(min(a.get(k, 0.0), b.get(k, 0.0)) for k in keys)
    hi = sum(max(a.get(k, 0.0), b.get(k, 0.0)) for k in keys)
    return lo / hi


def random_pairs(rng, n_pairs, size=120, overlap=0.5, spread=3.0):
    """Pairs of weighted sets sharing part of their features, shared weights perturbed."""
    rows = []
    for _ in range(n_pairs):
        keys = [int(k) for k in rng.integers(1, 2**63, size=2 * size, dtype=np.uint64)]
        shared = int(overlap * size)
        scale = 10 ** rng.uniform(-spread, spread)
        wa = {k: float(rng.exponential()) * scale for k in keys[:size]}
        wb = {k: wa[k] * float(rng.uniform(0.3, 3.0)) for k in keys[size - shared : size]}
        wb.update({k: float(rng.exponential()) * scale for k in keys[size : 2 * size - shared]})
        rows += [wa, wb]
    return rows


@pytest.mark.parametrize("overlap", [0.2, 0.6, 0.9, 1.0])
def test_collision_rate_matches_exact_weighted_jaccard_within_binomial_bounds(overlap):
    rng = np.random.default_rng(int(overlap * 100))
    rows = random_pairs(rng, 200, overlap=overlap)
    sets, weights = weighted_sets(rows)
    m = 128
    sig, used = ICWSampler(m, seed=7).sketch(sets.hashes, sets.offsets, weights)
    assert (used > 0).all()
    a = np.arange(0, len(rows), 2)
    truth = np.array([exact(rows[i], rows[i + 1]) for i in a])
    hits = np.count_nonzero(sig[a] == sig[a + 1], axis=1)
    # total collisions: sum of independent Binomial(m, J_i)
    expected = m * truth.sum()
    sd = np.sqrt(m * (truth * (1 - truth)).sum())
    assert abs(hits.sum() - expected) <= 4 * sd + 1
    # and each pair's estimate spreads like a binomial share of m (no extra variance)
    err = hits / m - truth
    assert err.std() <= 1.3 * np.sqrt((truth * (1 - truth)).mean() / m) + 1e-9


def test_exact_weighted_jaccard_kernel_matches_definition():
    rng = np.random.default_rng(3)
    rows = random_pairs(rng, 30, size=20, overlap=0.4) + [{5: 1.0}, {6: 2.0}, {7: 0.0, 8: 1.0}, {7: 3.0, 8: 1.0}]
    sets, weights = weighted_sets(rows)
    a = np.arange(0, len(rows), 2)
    got = weighted_jaccard(sets.hashes, sets.offsets, weights, a, a + 1)
    want = [exact(rows[i], rows[i + 1]) for i in a]
    assert np.allclose(got, want)
    assert got[-2] == 0.0 and np.isclose(got[-1], 1.0 / 4.0)


def test_scaled_weights_give_the_ratio_and_single_features_min_over_max():
    rng = np.random.default_rng(5)
    rows = []
    for _ in range(300):
        base = {int(k): float(rng.exponential()) for k in rng.integers(1, 2**63, 50, dtype=np.uint64)}
        rows += [base, {k: 3.0 * w for k, w in base.items()}]  # J = 1/3 exactly
    sets, weights = weighted_sets(rows)
    sig, _ = ICWSampler(64, seed=1).sketch(sets.hashes, sets.offsets, weights)
    est = estimate_weighted_jaccard(sig[0::2], sig[1::2])
    assert abs(est.mean() - 1 / 3) < 4 * np.sqrt((1 / 3) * (2 / 3) / (64 * 300))
    # one feature with weights 1 and 4: collisions with probability 1/4
    single = [{99: 1.0}, {99: 4.0}]
    sets, weights = weighted_sets(single)
    sig, _ = ICWSampler(4000, seed=2).sketch(sets.hashes, sets.offsets, weights)
    rate = np.mean(sig[0] == sig[1])
    assert abs(rate - 0.25) < 4 * np.sqrt(0.25 * 0.75 / 4000)


def test_samples_are_consistent_deterministic_and_ignore_zero_weights():
    rows = [{1: 2.0, 2: 0.5, 3: 7.0}, {1: 2.0, 2: 0.5, 3: 7.0, 4: 0.0, 5: -1.0}, {}, {9: 0.0}]
    sets, weights = weighted_sets([r if r else {10**18: 0.0} for r in rows])
    sampler = ICWSampler(32, seed=11)
    sig, used = sampler.sketch(sets.hashes, sets.offsets, weights)
    assert np.array_equal(sig[0], sig[1])  # zero/negative weights do not count
    assert used.tolist() == [3, 3, 0, 0]
    assert (sig[2] == EMPTY).all() and (sig[3] == EMPTY).all()
    again, _ = ICWSampler(32, seed=11).sketch(sets.hashes, sets.offsets, weights)
    assert np.array_equal(sig, again)
    other, _ = ICWSampler(32, seed=12).sketch(sets.hashes, sets.offsets, weights)
    assert not np.array_equal(sig[0], other[0])


def test_sampler_checks_its_input():
    with pytest.raises(ValueError):
        ICWSampler(0)
    with pytest.raises(ValueError):
        ICWSampler(4).sketch(np.zeros(3, np.uint64), np.array([0, 3]), np.ones(2))
