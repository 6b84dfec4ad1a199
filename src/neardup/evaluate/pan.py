"""Character-level measures of located text reuse: PAN text alignment (Potthast et al. 2010).

A *case* is one true copy: a character span in document ``a`` and one in ``b`` (a
simulator's ``partial`` record).  A *detection* is one reported passage of a pair (a span
in each document).  Both sides of a case or detection count, as in PAN, and a detection
*detects* a case when it overlaps the case on both sides (a passage of ``a`` matched to
the wrong place in ``b`` detects nothing; PAN's ``s ⊓ r`` is empty then):

* macro recall: over cases, the share of the case's characters that the detections
  detecting it cover, averaged;
* macro precision: over detections of pairs that have cases, the share of the
  detection's characters that the cases it detects cover, averaged (detections of other
  pairs -- a containment, a shared quote the truth does not list -- are counted apart,
  not judged: PAN's denominator counts them);
* granularity: over detected cases, how many detections detect each, averaged (1 is
  best: one copy, one passage);
* plagdet = F1 / log2(1 + granularity);
* located: cases with a detection whose spans overlap the case's with IoU >= 0.5 on both
  sides.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping

Span = tuple[int, int]


def _union_length(spans: list[Span]) -> int:
    total, end = 0, -1
    for lo, hi in sorted(spans):
        if hi > end:
            total += hi - max(lo, end)
            end = hi
    return total


def _covered(span: Span, by: list[Span]) -> int:
    lo, hi = span
    return _union_length([(max(lo, a), min(hi, b)) for a, b in by if min(hi, b) > max(lo, a)])


def _iou(x: Span, y: Span) -> float:
    inter = max(0, min(x[1], y[1]) - max(x[0], y[0]))
    union = max(x[1], y[1]) - min(x[0], y[0])
    return inter / union if union else 0.0


def _detects(detection: tuple[Span, Span], case: tuple[Span, Span]) -> bool:
    """PAN's "r detects s": the two overlap in document ``a`` and in document ``b``."""
    return all(min(d[1], c[1]) > max(d[0], c[0]) for d, c in zip(detection, case))


def pan_measures(cases: Iterable[Mapping[str, Any]], detections: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """PAN measures of ``detections`` (``partials.jsonl`` rows: ``a``, ``b``, ``spans`` with
    ``a_chars``/``b_chars``) against ``cases`` (``a``, ``b``, ``a_chars``, ``b_chars``)."""
    by_pair: dict[tuple[str, str], list[tuple[Span, Span]]] = {}
    for d in detections:
        for s in d["spans"]:
            a_span, b_span = (s["a_chars"][0], s["a_chars"][1]), (s["b_chars"][0], s["b_chars"][1])
            by_pair.setdefault((d["a"], d["b"]), []).append((a_span, b_span))
            by_pair.setdefault((d["b"], d["a"]), []).append((b_span, a_span))
    listed: list[tuple[str, str, Span, Span]] = [(c["a"], c["b"], (c["a_chars"][0], c["a_chars"][1]),
                                                  (c["b_chars"][0], c["b_chars"][1])) for c in cases]
    case_pairs: dict[tuple[str, str], list[tuple[Span, Span]]] = {}
    for a, b, sa, sb in listed:
        case_pairs.setdefault((a, b), []).append((sa, sb))
    recall, located, gran = [], 0, []
    for a, b, sa, sb in listed:
        dets = [d for d in by_pair.get((a, b), []) if _detects(d, (sa, sb))]
        hit = _covered(sa, [d[0] for d in dets]) + _covered(sb, [d[1] for d in dets])
        recall.append(hit / max(sa[1] - sa[0] + sb[1] - sb[0], 1))
        if dets:
            gran.append(len(dets))
        located += any(_iou(d[0], sa) >= 0.5 and _iou(d[1], sb) >= 0.5 for d in dets)
    precision, unjudged = [], 0
    seen: set[tuple[str, str]] = set()
    for (a, b), dets in by_pair.items():
        if (b, a) in seen:  # each pair once
            continue
        seen.add((a, b))
        truth = case_pairs.get((a, b), []) + [(y, x) for x, y in case_pairs.get((b, a), [])]  # copies either way
        if not truth:
            unjudged += len(dets)
            continue
        for da, db in dets:
            detected = [t for t in truth if _detects((da, db), t)]
            inside = _covered(da, [t[0] for t in detected]) + _covered(db, [t[1] for t in detected])
            precision.append(inside / max(da[1] - da[0] + db[1] - db[0], 1))
    r = sum(recall) / len(recall) if recall else math.nan
    p = sum(precision) / len(precision) if precision else math.nan
    g = sum(gran) / len(gran) if gran else 1.0
    f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return {"cases": len(listed), "located": located, "macro_precision": p, "macro_recall": r,
            "granularity": g, "plagdet": f1 / math.log2(1 + g), "unjudged_detections": unjudged}
