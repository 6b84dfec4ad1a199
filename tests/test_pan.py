"""PAN text-alignment measures on hand-made cases."""

from __future__ import annotations

import math

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
