"""Tests for neardup.evaluate.measures against hand-computed values."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from neardup.evaluate.cluster_measures import all_pair_labels, b3, clustered_pairs, components_from_pairs
from neardup.evaluate.measures import (
    auroc,
    confusion_at,
    max_f1,
    mcc,
    pearson,
    prf,
    threshold_sweep,
)
from neardup.evaluate.summary import evaluate_scores

approx = pytest.approx

# Running example: five pairs, a tie at 0.8 between a positive and a negative.
#   score  0.9  0.8  0.8  0.3  0.1
#   label   1    1    0    0    1      -> 3 positives, 2 negatives
S5 = np.array([0.9, 0.8, 0.8, 0.3, 0.1])
Y5 = np.array([True, True, False, False, True])


# ------------------------------------------------------------ confusion_at


def test_confusion_at_hand():
    # t=0.8: predicted {0.9, 0.8, 0.8} -> tp=2 (0.9, 0.8+), fp=1 (0.8-),
    #        fn=1 (0.1+), tn=1 (0.3-)
    assert confusion_at(S5, Y5, 0.8) == (2, 1, 1, 1)
    # t=0.85: predicted {0.9} -> tp=1, fp=0, fn=2, tn=2
    assert confusion_at(S5, Y5, 0.85) == (1, 0, 2, 2)
    # t=0: everything predicted -> tp=3, fp=2, fn=0, tn=0
    assert confusion_at(S5, Y5, 0.0) == (3, 2, 0, 0)
    # t=1: nothing predicted -> tp=0, fp=0, fn=3, tn=2
    assert confusion_at(S5, Y5, 1.0) == (0, 0, 3, 2)
    c = confusion_at(S5, Y5, 0.8)
    assert all(type(v) is int for v in c)
    assert (c.tp, c.fp, c.fn, c.tn) == (2, 1, 1, 1)


def test_confusion_at_accepts_01_labels_and_validates():
    assert confusion_at(S5, [1, 1, 0, 0, 1], 0.8) == (2, 1, 1, 1)
    with pytest.raises(ValueError):
        confusion_at(S5, [1, 1, 0, 0], 0.8)  # length mismatch
    with pytest.raises(ValueError):
        confusion_at(S5, [1, 2, 0, 0, 1], 0.8)  # not boolean
    with pytest.raises(ValueError):
        confusion_at([0.1, np.nan], [True, False], 0.5)  # NaN score


# --------------------------------------------------------------------- prf


def test_prf_hand():
    # tp=2 fp=1 fn=1: p = 2/3, r = 2/3, f1 = 2*2/(4+1+1) = 2/3
    assert prf(2, 1, 1) == approx((2 / 3, 2 / 3, 2 / 3))
    # tp=1 fp=0 fn=2: p = 1/1 = 1, r = 1/3, f1 = 2/(2+0+2) = 0.5
    assert prf(1, 0, 2) == approx((1.0, 1 / 3, 0.5))
    # tp=3 fp=2 fn=0: p = 3/5, r = 1, f1 = 6/8 = 0.75
    assert prf(3, 2, 0) == approx((0.6, 1.0, 0.75))


def test_prf_zero_division_is_zero():
    # nothing predicted (tp+fp=0): precision 0/0 -> 0.0 (sklearn zero_division=0)
    assert prf(0, 0, 3) == (0.0, 0.0, 0.0)
    # no positives at all (tp+fn=0): recall 0/0 -> 0.0; precision 0/2 = 0
    assert prf(0, 2, 0) == (0.0, 0.0, 0.0)
    # everything zero
    assert prf(0, 0, 0) == (0.0, 0.0, 0.0)
    assert all(type(v) is float for v in prf(0, 0, 0))


# --------------------------------------------------------------------- mcc


def test_mcc_hand():
    # tp=2 fp=1 fn=1 tn=1: (2*1 - 1*1) / sqrt(3*3*2*2) = 1/6
    assert mcc(2, 1, 1, 1) == approx(1 / 6)
    # perfect tp=3 fp=0 fn=0 tn=2: (3*2 - 0) / sqrt(3*3*2*2) = 6/6 = 1
    assert mcc(3, 0, 0, 2) == approx(1.0)
    # worst tp=0 fp=2 fn=3 tn=0: (0 - 2*3) / sqrt(2*3*2*3) = -6/6 = -1
    assert mcc(0, 2, 3, 0) == approx(-1.0)
    # tp=1 fp=0 fn=2 tn=2: (1*2 - 0) / sqrt(1*3*2*4) = 2/sqrt(24)
    assert mcc(1, 0, 2, 2) == approx(2 / math.sqrt(24))
    assert type(mcc(2, 1, 1, 1)) is float


def test_mcc_zero_marginal_and_no_overflow():
    assert mcc(0, 0, 3, 2) == 0.0  # nothing predicted: tp+fp = 0
    assert mcc(0, 2, 0, 3) == 0.0  # no positives: tp+fn = 0
    assert mcc(3, 2, 0, 0) == 0.0  # everything predicted: tn+fn = 0
    # 250000**4 ~ 3.9e21 overflows int64; must still be exactly +-1
    assert mcc(250_000, 0, 0, 250_000) == approx(1.0)
    assert mcc(0, 250_000, 250_000, 0) == approx(-1.0)


# --------------------------------------------------------- threshold_sweep


def test_threshold_sweep_hand_with_tie():
    # P = 3 positives, N = 2 negatives. Distinct scores 0.9, 0.8, 0.3, 0.1;
    # the tied pair at 0.8 (one +, one -) is never split, so 4 thresholds.
    # t=0.9: tp1 fp0 fn2 tn2  p=1    r=1/3 f1=2/4=1/2   mcc=(2-0)/sqrt(1*3*2*4)
    # t=0.8: tp2 fp1 fn1 tn1  p=2/3  r=2/3 f1=4/6=2/3   mcc=(2-1)/sqrt(3*3*2*2)=1/6
    # t=0.3: tp2 fp2 fn1 tn0  p=1/2  r=2/3 f1=4/7       mcc=(0-2)/sqrt(4*3*2*1)
    # t=0.1: tp3 fp2 fn0 tn0  p=3/5  r=1   f1=6/8=3/4   mcc: tn+fn=0 -> 0
    sw = threshold_sweep(S5, Y5)
    np.testing.assert_array_equal(sw.thresholds, [0.9, 0.8, 0.3, 0.1])
    np.testing.assert_allclose(sw.precision, [1, 2 / 3, 1 / 2, 3 / 5])
    np.testing.assert_allclose(sw.recall, [1 / 3, 2 / 3, 2 / 3, 1])
    np.testing.assert_allclose(sw.f1, [1 / 2, 2 / 3, 4 / 7, 3 / 4])
    np.testing.assert_allclose(
        sw.mcc, [2 / math.sqrt(24), 1 / 6, -2 / math.sqrt(24), 0.0], atol=1e-15
    )
    # tuple unpacking order is (thresholds, precision, recall, f1, mcc)
    t, p, r, f, m = sw
    assert t is sw.thresholds and m is sw.mcc


def test_threshold_sweep_tie_order_does_not_matter():
    # the same tie listed negative-first must give the same curve
    order = [0, 2, 1, 3, 4]
    a = threshold_sweep(S5, Y5)
    b = threshold_sweep(S5[order], Y5[order])
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_threshold_sweep_all_negative():
    # no positives: p = 0/k = 0, r = 0/0 -> 0, f1 = 0, mcc: tp+fn = 0 -> 0
    sw = threshold_sweep([0.5, 0.4, 0.4], [False, False, False])
    np.testing.assert_array_equal(sw.thresholds, [0.5, 0.4])
    np.testing.assert_array_equal(sw.precision, [0.0, 0.0])
    np.testing.assert_array_equal(sw.recall, [0.0, 0.0])
    np.testing.assert_array_equal(sw.f1, [0.0, 0.0])
    np.testing.assert_array_equal(sw.mcc, [0.0, 0.0])


def test_threshold_sweep_empty():
    sw = threshold_sweep([], [])
    assert all(x.size == 0 for x in sw)


def test_threshold_sweep_matches_confusion_at_random():
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 25, size=2000) / 24.0  # many ties
    labels = rng.random(2000) < 0.3 + 0.5 * scores  # informative but noisy
    sw = threshold_sweep(scores, labels)
    np.testing.assert_array_equal(sw.thresholds, np.unique(scores[scores > 0])[::-1])  # 0 is no threshold
    for k, t in enumerate(sw.thresholds):
        c = confusion_at(scores, labels, t)
        p, r, f = prf(c.tp, c.fp, c.fn)
        assert sw.precision[k] == approx(p)
        assert sw.recall[k] == approx(r)
        assert sw.f1[k] == approx(f)
        assert sw.mcc[k] == approx(mcc(*c))
        # independent recount by direct comparison
        pred = scores >= t
        assert c.tp == int((pred & labels).sum())
        assert c.fp == int((pred & ~labels).sum())


# ------------------------------------------------------------------ max_f1


def test_max_f1_hand():
    # from the sweep above, best F1 = 3/4 at t=0.1 with p=3/5, r=1
    best = max_f1(S5, Y5)
    assert best == approx((0.75, 0.1, 0.6, 1.0))
    assert all(type(v) is float for v in best)


def test_max_f1_tie_picks_highest_threshold():
    # scores 0.9 0.8 0.7 0.6, labels 1 0 0 1 (P=2)
    # t=0.9: tp1 fp0 fn1 -> 2/(2+0+1) = 2/3
    # t=0.8: tp1 fp1 fn1 -> 2/4 = 1/2
    # t=0.7: tp1 fp2 fn1 -> 2/5
    # t=0.6: tp2 fp2 fn0 -> 4/6 = 2/3   (ties with t=0.9)
    best = max_f1([0.9, 0.8, 0.7, 0.6], [1, 0, 0, 1])
    assert best == approx((2 / 3, 0.9, 1.0, 0.5))
    # same data shuffled: still the highest threshold
    best = max_f1([0.6, 0.7, 0.9, 0.8], [1, 0, 1, 0])
    assert best.threshold == 0.9


def test_max_f1_perfect_worst_and_no_positives():
    # perfect: 0.9+ 0.8+ 0.2- 0.1-: t=0.8 gives tp2 fp0 fn0 -> F1 1
    assert max_f1([0.9, 0.8, 0.2, 0.1], [1, 1, 0, 0]) == approx((1.0, 0.8, 1.0, 1.0))
    # worst: 0.9- 0.8- 0.2+ 0.1+:
    #   t=0.9,0.8: tp0 -> 0; t=0.2: tp1 fp2 fn1 -> 2/5; t=0.1: tp2 fp2 -> 4/6
    assert max_f1([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1]) == approx((2 / 3, 0.1, 0.5, 1.0))
    # no positives: all F1 0, highest threshold 0.5 chosen
    assert max_f1([0.5, 0.4, 0.4], [0, 0, 0]) == (0.0, 0.5, 0.0, 0.0)
    f, t, p, r = max_f1([], [])
    assert (f, p, r) == (0.0, 0.0, 0.0) and math.isnan(t)


def test_a_pair_scoring_zero_is_never_found():
    # what dedup lists: a pair sharing nothing (score 0) at no threshold, not even 0
    scores, labels = [0.0, 0.0, 0.0, 0.5], [1, 1, 0, 0]
    assert confusion_at(scores, labels, 0.0) == (0, 1, 2, 1)
    np.testing.assert_array_equal(threshold_sweep(scores, labels).thresholds, [0.5])
    # a method that finds nothing has no threshold and no recall (was F1 0.8 at 0, recall 1)
    f, t, p, r = max_f1([0.0, 0.0, 0.0], [1, 1, 0])
    assert (f, p, r) == (0.0, 0.0, 0.0) and math.isnan(t)


# ------------------------------------------------------------------- auroc


def test_auroc_hand_with_tie():
    # positives {0.9, 0.8, 0.1}, negatives {0.8, 0.3}; 3*2 = 6 pairs:
    # 0.9>0.8:1  0.9>0.3:1  0.8=0.8:1/2  0.8>0.3:1  0.1<0.8:0  0.1<0.3:0
    # -> 3.5 / 6 = 7/12
    assert auroc(S5, Y5) == approx(7 / 12)
    # all tied: every comparison 1/2
    assert auroc([0.5, 0.5, 0.5], [1, 0, 1]) == approx(0.5)


def test_auroc_perfect_worst_and_missing_class():
    assert auroc([0.9, 0.8, 0.2, 0.1], [1, 1, 0, 0]) == 1.0
    assert auroc([0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1]) == 0.0
    assert math.isnan(auroc([0.5, 0.4, 0.4], [0, 0, 0]))
    assert math.isnan(auroc([0.5, 0.4], [1, 1]))
    assert math.isnan(auroc([], []))


def test_auroc_matches_brute_force_random():
    rng = np.random.default_rng(1)
    scores = np.round(rng.random(400), 1)  # 11 values -> many ties
    labels = rng.random(400) < 0.4
    pos, neg = scores[labels], scores[~labels]
    # brute force: count every (positive, negative) pair, ties as 1/2
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    expected = wins / (pos.size * neg.size)
    assert auroc(scores, labels) == approx(expected, abs=1e-12)
    assert type(auroc(scores, labels)) is float


# ----------------------------------------------------------------- pearson


def test_pearson_hand():
    # x = 1 2 3 4, y = 0 0 1 1; means 2.5, 0.5
    # dx = -1.5 -0.5 0.5 1.5, dy = -0.5 -0.5 0.5 0.5
    # sum dx*dy = 0.75+0.25+0.25+0.75 = 2; sum dx^2 = 5; sum dy^2 = 1
    # r = 2 / sqrt(5)
    assert pearson([1, 2, 3, 4], [0, 0, 1, 1]) == approx(2 / math.sqrt(5))
    # reversed labels flip the sign
    assert pearson([1, 2, 3, 4], [1, 1, 0, 0]) == approx(-2 / math.sqrt(5))
    # perfect linear relation
    assert pearson([0.0, 1.0, 0.0], [0, 1, 0]) == approx(1.0)


def test_pearson_constant_is_nan():
    assert math.isnan(pearson([0.3, 0.3, 0.3], [0, 1, 0]))  # constant scores
    assert math.isnan(pearson([0.1, 0.1, 0.1], [0, 1, 0]))  # 0.1 not exact in binary
    assert math.isnan(pearson([0.1, 0.5, 0.9], [0, 0, 0]))  # constant labels
    assert math.isnan(pearson([0.1], [1]))


# ---------------------------------------------------------------------- b3


def test_b3_hand():
    # true: X={0,1,2} Y={3,4};  pred: A={0,1} B={2,3,4}
    # precision per doc |pred & true| / |pred|: 1, 1, 1/3, 2/3, 2/3 -> 11/3 / 5
    # recall per doc |pred & true| / |true|:   2/3, 2/3, 1/3, 1, 1 -> 11/3 / 5
    res = b3([0, 0, 1, 1, 1], [0, 0, 0, 1, 1])
    assert res == approx((11 / 15, 11 / 15, 11 / 15))


def test_b3_singletons_and_one_cluster():
    true = [0, 0, 0, 1, 1]
    # all singletons: precision 1 each; recall 1/3,1/3,1/3,1/2,1/2 -> 2/5
    # F1 = 2*1*0.4/1.4 = 4/7
    assert b3([0, 1, 2, 3, 4], true) == approx((1.0, 0.4, 4 / 7))
    # one big cluster: recall 1; precision 3/5 x3, 2/5 x2 -> (9/5+4/5)/5 = 13/25
    # F1 = 2*(13/25)/(38/25) = 13/19
    assert b3([7, 7, 7, 7, 7], true) == approx((13 / 25, 1.0, 13 / 19))
    # both all singletons: perfect
    assert b3([0, 1, 2], [5, 6, 7]) == (1.0, 1.0, 1.0)


def test_b3_perfect_any_labels():
    # same partition under different (and large / unsorted) ids
    assert b3([5, 5, 9, 10**12], [0, 0, 1, 2]) == approx((1.0, 1.0, 1.0))


def test_b3_negative_ids_are_singletons():
    # true [-1,-1,0,0] means {0},{1},{2,3}; pred {0,1},{2,3}
    # precision: 1/2, 1/2, 1, 1 -> 3/4; recall: 1,1,1,1 -> 1; F1 = 1.5/1.75 = 6/7
    # (if -1 were a cluster, precision would be 1)
    assert b3([0, 0, 1, 1], [-1, -1, 0, 0]) == approx((0.75, 1.0, 6 / 7))
    # negative ids in the prediction too: all singletons vs true {0,1}
    # precision 1; recall 1/2, 1/2 -> 1/2; F1 = 1/1.5 = 2/3
    assert b3([-1, -1], [3, 3]) == approx((1.0, 0.5, 2 / 3))


def test_clustered_pairs_count_every_pair_of_a_cluster():
    # true X={0,1,2} Y={3,4}: 3 + 1 pairs; pred A={0,1} B={2,3,4}: 1 + 3 pairs, together (0,1) and (3,4)
    assert clustered_pairs([0, 0, 1, 1, 1], [0, 0, 0, 1, 1]) == approx((2 / 4, 2 / 4, 0.5))
    # a merge of two stories of 3 and 2: 6 false pairs of 10
    assert clustered_pairs([7, 7, 7, 7, 7], [0, 0, 0, 1, 1]) == approx((4 / 10, 1.0, 2 * 0.4 / 1.4))
    # negative ids are singletons; no predicted pair at all: precision 1, recall 0
    assert clustered_pairs([-1, -1, -2], [3, 3, 3]) == approx((1.0, 0.0, 0.0))
    assert all(math.isnan(v) for v in clustered_pairs([], []))


def test_b3_empty_and_validation():
    assert all(math.isnan(v) for v in b3([], []))
    with pytest.raises(ValueError):
        b3([0, 1], [0])
    with pytest.raises(ValueError):
        b3([0.5, 1.0], [0, 1])


# ---------------------------------------------------- components_from_pairs


def test_components_from_pairs():
    # edges 0-1, 2-1, 3-5 over 6 docs -> {0,1,2} {3,5} {4}
    comp = components_from_pairs(6, [0, 2, 3], [1, 1, 5])
    assert comp.shape == (6,)
    assert comp[0] == comp[1] == comp[2]
    assert comp[3] == comp[5]
    assert len({comp[0], comp[3], comp[4]}) == 3
    assert len(np.unique(comp)) == 3
    # no edges: every document alone
    assert len(np.unique(components_from_pairs(4, [], []))) == 4
    # duplicate edges and self-loops are harmless
    comp = components_from_pairs(3, [0, 0, 1, 2], [1, 1, 0, 2])
    assert comp[0] == comp[1] != comp[2]
    with pytest.raises(ValueError):
        components_from_pairs(3, [0], [3])


# --------------------------------------------------------- all_pair_labels


def test_all_pair_labels_hand():
    # docs 0,1 in cluster 0; docs 2,3 in no cluster (-1)
    i, j, lab = all_pair_labels([0, 0, -1, -1])
    np.testing.assert_array_equal(i, [0, 0, 0, 1, 1, 2])
    np.testing.assert_array_equal(j, [1, 2, 3, 2, 3, 3])
    # only (0,1) is positive; (2,3) share id -1 but are in no cluster
    np.testing.assert_array_equal(lab, [True, False, False, False, False, False])
    i, j, lab = all_pair_labels([4, 7, 4])  # pairs (0,1) (0,2) (1,2)
    np.testing.assert_array_equal(lab, [False, True, False])
    i, j, lab = all_pair_labels([3])
    assert i.size == j.size == lab.size == 0


# --------------------------------------------------------- evaluate_scores

# Five documents: {0,1} are a story, 2 alone, 3 and 4 in no cluster (-1).
TRUE5 = np.array([0, 0, 1, -1, -1])
# triu order: (0,1) (0,2) (0,3) (0,4) (1,2) (1,3) (1,4) (2,3) (2,4) (3,4)
SCORES10 = np.array([0.9, 0.1, 0.2, 0.1, 0.3, 0.2, 0.1, 0.4, 0.3, 0.8])
KEYS = {"pairs", "positives", "max_f1", "threshold", "precision", "recall", "f1",
        "auroc", "mcc", "pearson", "b3_precision", "b3_recall", "b3_f1"}


def _eval(threshold=None):
    i, j, lab = all_pair_labels(TRUE5)
    return evaluate_scores(SCORES10, lab, i, j, 5, TRUE5, threshold=threshold)


def test_evaluate_scores_max_f1_threshold():
    res = _eval()
    assert set(res) == KEYS
    assert res["pairs"] == 10 and res["positives"] == 1  # only (0,1)
    # t=0.9 predicts only (0,1): tp1 fp0 fn0 tn9 -> F1 1
    assert res["max_f1"] == 1.0 and res["threshold"] == 0.9
    assert (res["precision"], res["recall"], res["f1"]) == (1.0, 1.0, 1.0)
    # mcc = (1*9 - 0) / sqrt(1*1*9*9) = 1
    assert res["mcc"] == approx(1.0)
    assert res["auroc"] == 1.0  # the one positive outscores all 9 negatives
    # pearson: sum x = 3.4, mean 0.34; sum x^2 = 1.90; y one-hot at 0.9, mean 0.1
    # sxy = 0.9 - 10*0.34*0.1 = 0.56; sxx = 1.90 - 10*0.34^2 = 0.744; syy = 1 - 0.1 = 0.9
    assert res["pearson"] == approx(0.56 / math.sqrt(0.744 * 0.9))
    # components at 0.9: {0,1},{2},{3},{4} = truth -> B3 perfect
    assert (res["b3_precision"], res["b3_recall"], res["b3_f1"]) == approx((1, 1, 1))


def test_evaluate_scores_given_threshold():
    res = _eval(threshold=0.8)
    # predicted (0,1)+ and (3,4)-: tp1 fp1 fn0 tn8
    assert res["threshold"] == 0.8 and res["max_f1"] == 1.0  # max_f1 always reported
    # p = 1/2, r = 1, f1 = 2/(2+1) = 2/3; mcc = (8 - 0)/sqrt(2*1*9*8) = 8/12
    assert (res["precision"], res["recall"], res["f1"]) == approx((0.5, 1.0, 2 / 3))
    assert res["mcc"] == approx(2 / 3)
    # clusters {0,1},{2},{3,4} vs truth {0,1},{2},{3},{4} (-1 -> singletons)
    # precision 1,1,1,1/2,1/2 -> 4/5; recall 1; F1 = 1.6/1.8 = 8/9
    assert (res["b3_precision"], res["b3_recall"], res["b3_f1"]) == approx((0.8, 1.0, 8 / 9))

    res = _eval(threshold=0.35)
    # predicted (0,1)+ (3,4)- (2,3)-: tp1 fp2 fn0 tn7
    # p = 1/3, r = 1, f1 = 2/4; mcc = 7/sqrt(3*1*9*7)
    assert (res["precision"], res["recall"], res["f1"]) == approx((1 / 3, 1.0, 0.5))
    assert res["mcc"] == approx(7 / math.sqrt(189))
    # clusters {0,1},{2,3,4}: precision 1,1,1/3,1/3,1/3 -> 3/5; recall 1; F1 = 1.2/1.6
    assert (res["b3_precision"], res["b3_recall"], res["b3_f1"]) == approx((0.6, 1.0, 0.75))


def test_evaluate_scores_types_json_and_no_positives():
    res = _eval(threshold=0.8)
    assert type(res["pairs"]) is int and type(res["positives"]) is int
    assert all(type(res[k]) is float for k in KEYS - {"pairs", "positives"})
    json.loads(json.dumps(res))

    # no true clusters at all: recall/F1 0, auroc and pearson nan
    true = np.array([-1, -1, -1])
    i, j, lab = all_pair_labels(true)
    res = evaluate_scores([0.9, 0.5, 0.1], lab, i, j, 3, true)
    assert res["positives"] == 0
    assert res["max_f1"] == 0.0 and res["threshold"] == 0.9
    assert (res["precision"], res["recall"], res["f1"], res["mcc"]) == (0.0, 0.0, 0.0, 0.0)
    assert math.isnan(res["auroc"]) and math.isnan(res["pearson"])
    # pair (0,1) merges docs 0 and 1 against all-singleton truth:
    # precision 1/2, 1/2, 1 -> 2/3; recall 1; F1 = (4/3)/(5/3) = 4/5
    assert (res["b3_precision"], res["b3_recall"], res["b3_f1"]) == approx((2 / 3, 1.0, 0.8))
    json.dumps(res)  # nan is allowed by the json module


# ---------------------------------------------------------------- scale


def test_500k_pairs_runs():
    rng = np.random.default_rng(2)
    n = 1000
    true = rng.integers(-1, 200, size=n)  # ~0.5% of documents in no cluster
    i, j, lab = all_pair_labels(true)
    assert i.size == n * (n - 1) // 2 == 499_500
    # noisy but informative scores, rounded to create ties
    scores = np.round(np.clip(0.4 * lab + rng.normal(0.3, 0.15, i.size), 0, 1), 3)
    res = evaluate_scores(scores, lab, i, j, n, true)
    assert res["pairs"] == 499_500 and res["positives"] == int(lab.sum())
    assert 0.5 < res["auroc"] <= 1.0
    assert 0.0 < res["max_f1"] <= 1.0 and res["f1"] == res["max_f1"]
    assert res["threshold"] in set(np.unique(scores).tolist())
    sw = threshold_sweep(scores, lab)
    assert sw.f1.max() == res["max_f1"]
    # the reported operating point agrees with a direct recount
    c = confusion_at(scores, lab, res["threshold"])
    assert prf(c.tp, c.fp, c.fn) == approx((res["precision"], res["recall"], res["f1"]))
    json.dumps(res)


def test_weighted_sweep_equals_the_sweep_of_repeated_pairs():
    rng = np.random.default_rng(5)
    s = rng.choice([0.1, 0.3, 0.5, 0.7, 0.9], 60)  # many ties
    y = rng.random(60) < 0.4
    w = rng.integers(1, 4, 60)
    got = max_f1(s, y, w)
    want = max_f1(np.repeat(s, w), np.repeat(y, w))
    assert got == pytest.approx(want)
    assert max_f1(s, y, np.ones(60)) == pytest.approx(max_f1(s, y))
    with pytest.raises(ValueError, match="weights and scores differ"):
        max_f1(s, y, w[:-1])
