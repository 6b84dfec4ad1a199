"""PAN text-alignment measures on hand-made cases."""

from __future__ import annotations

import math
import random

import pytest

from neardup.evaluate.pan import pan_measures

CASE = {"a": "x", "b": "y", "a_chars": [100, 200], "b_chars": [0, 100]}


def det(*spans, a="x", b="y"):
    return {"a": a, "b": b, "spans": [{"a_chars": list(s[0]), "b_chars": list(s[1])} for s in spans]}


def test_an_exact_detection_scores_one():
    m = pan_measures([CASE], [det(((100, 200), (0, 100)))])
    assert (m["located"], m["macro_precision"], m["macro_recall"], m["granularity"], m["plagdet"]) == (1, 1, 1, 1, 1)


def test_a_detection_in_the_other_orientation_counts():
    m = pan_measures([CASE], [det(((0, 100), (100, 200)), a="y", b="x")])
    assert m["located"] == 1 and m["macro_recall"] == 1


def test_half_a_case_found_twice():
    m = pan_measures([CASE], [det(((100, 125), (0, 25)), ((125, 150), (25, 50)))])
    assert m["macro_recall"] == pytest.approx(0.5) and m["macro_precision"] == 1 and m["granularity"] == 2
    assert m["located"] == 0  # neither piece overlaps the case with IoU >= 0.5
    assert m["plagdet"] == pytest.approx((2 * 0.5 / 1.5) / math.log2(3))


def test_detections_beyond_a_case_lower_precision_and_other_pairs_are_not_judged():
    m = pan_measures([CASE], [det(((100, 300), (0, 100))), det(((0, 50), (0, 50)), a="p", b="q")])
    assert m["macro_precision"] == pytest.approx(200 / 300) and m["macro_recall"] == 1
    assert m["unjudged_detections"] == 1


def test_a_missed_case():
    m = pan_measures([CASE], [])
    assert m["located"] == 0 and m["macro_recall"] == 0 and math.isnan(m["macro_precision"])


def test_a_detection_overlapping_one_side_only_detects_nothing():
    # a's copied passage found, but matched to the wrong place in b: PAN's "r detects s" needs both sides
    m = pan_measures([CASE], [det(((100, 200), (500, 600)))])
    assert m["macro_recall"] == 0 and m["macro_precision"] == 0 and m["granularity"] == 1 and m["located"] == 0


def _reference(cases, detections):
    """PAN's macro measures written from the definitions (Potthast et al. 2010) with sets of characters:
    s and r are sets of (document, offset); r detects s when they overlap in both documents;
    rec = mean over s of |U_{r detects s} (s & r)| / |s|, prec = mean over r of |U_{s r detects} (s & r)| / |r|
    (over the detections of pairs that have cases), gran = mean over detected s of |{r detects s}|."""
    def chars(a, b, sa, sb):
        return {(a, i) for i in range(*sa)} | {(b, j) for j in range(*sb)}

    def item(a, b, sa, sb):
        return (a, b, sa, sb, chars(a, b, sa, sb), {(a, i) for i in range(*sa)}, {(b, j) for j in range(*sb)})

    S = [item(c["a"], c["b"], tuple(c["a_chars"]), tuple(c["b_chars"])) for c in cases]
    R = [item(d["a"], d["b"], tuple(s["a_chars"]), tuple(s["b_chars"])) for d in detections for s in d["spans"]]

    def detect(r, s):  # the same two documents, overlapping in each
        return r[4] & s[5] and r[4] & s[6] and {r[0], r[1]} == {s[0], s[1]}

    rec = [len(set().union(*[s[4] & r[4] for r in R if detect(r, s)])) / len(s[4]) for s in S]
    judged = [r for r in R if any({r[0], r[1]} == {s[0], s[1]} for s in S)]
    prec = [len(set().union(*[s[4] & r[4] for s in S if detect(r, s)])) / len(r[4]) for r in judged]
    gran = [n for n in (sum(bool(detect(r, s)) for r in R) for s in S) if n]
    return (sum(rec) / len(rec), sum(prec) / len(prec) if prec else math.nan, sum(gran) / len(gran) if gran else 1.0)


def test_matches_the_papers_definitions_on_random_cases():
    rng = random.Random(7)
    docs = ["x", "y", "z"]
    for _ in range(300):
        cases, detections = [], []
        for _ in range(rng.randint(1, 3)):
            a, b = rng.sample(docs, 2)
            lo, lo2 = rng.randrange(0, 40), rng.randrange(0, 40)
            cases.append({"a": a, "b": b, "a_chars": [lo, lo + rng.randint(1, 20)], "b_chars": [lo2, lo2 + rng.randint(1, 20)]})
        for _ in range(rng.randint(0, 4)):
            a, b = rng.sample(docs, 2)
            spans = []
            for _ in range(rng.randint(1, 2)):
                lo, lo2 = rng.randrange(0, 50), rng.randrange(0, 50)
                spans.append({"a_chars": [lo, lo + rng.randint(1, 20)], "b_chars": [lo2, lo2 + rng.randint(1, 20)]})
            detections.append({"a": a, "b": b, "spans": spans})
        m = pan_measures(cases, detections)
        rec, prec, gran = _reference(cases, detections)
        assert m["macro_recall"] == pytest.approx(rec)
        assert (math.isnan(prec) and math.isnan(m["macro_precision"])) or m["macro_precision"] == pytest.approx(prec)
        assert m["granularity"] == pytest.approx(gran)
