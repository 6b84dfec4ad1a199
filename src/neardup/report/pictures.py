"""The report's histograms, binned here with numpy and drawn in the page as SVG by its script.

A picture is a small JSON object: bin ``edges``, one row of ``counts`` per group (same-story
and different-story pairs, or one per relation), and the thresholds to ``mark``.  Only the
counts are embedded, never the points, so a picture of 100,000 pairs is as small as one of
a hundred.  The pictures:

* of an evaluation (``eval --output``): each method's scores of same-story and
  different-story pairs, its default and chosen thresholds marked -- where a threshold can
  go, what ``scores.png`` shows, without matplotlib;
* of a ``dedup`` run: the listed pairs' scores by relation (its threshold marked), and the
  aligned passages' coverage of each pair by relation: the larger of ``coverage_a`` and
  ``coverage_b`` (a copy, or only a shared passage) and the smaller (a duplicate, or a
  containment), the relations' ``min_coverage`` marked.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

#: Bins of every histogram.
BINS = 50


def histogram(values: np.ndarray, groups: Mapping[str, np.ndarray], title: str, x: str,
              marks: Mapping[str, float | None] | None = None, bins: int = BINS) -> dict[str, Any]:
    """A picture of ``values`` binned on ``[0, max(1, largest value)]``, one row of counts per group
    (``{name: boolean mask}``; an empty group is left out), with ``marks`` (``{name: value}``; a
    missing or non-finite one is left out)."""
    top = max(1.0, float(values.max(initial=1.0)))
    edges = np.linspace(0.0, top, bins + 1)
    counts = {name: np.histogram(values[mask], bins=edges)[0].tolist()
              for name, mask in groups.items() if mask.any()}
    shown = {k: float(v) for k, v in (marks or {}).items() if v is not None and np.isfinite(v)}
    return {"title": title, "x": x, "edges": [round(float(e), 6) for e in edges], "counts": counts,
            "marks": shown}


def eval_pictures(reports: Sequence[dict[str, Any]], scored: Mapping[str, Any],
                  marks: Mapping[str, Mapping[str, float | None]]) -> list[dict[str, Any]]:
    """Per method of an evaluation, the scores of its same-story and different-story pairs (all the
    labeled pairs: those ``eval``'s measures count), its ``marks`` drawn."""
    pictures = []
    for report in reports:
        name = report["method"]
        scores, labels = scored[name].scores, scored[name].labels
        pictures.append(histogram(
            scores, {"same story": labels, "different stories": ~labels},
            f"{name} on {report['dataset']}: scores of {report['pairs']:,} pairs", "score",
            {f"{kind} threshold": value for kind, value in marks[name].items()}))
    return pictures


def dedup_pictures(pairs: Sequence[Mapping[str, Any]], parameters: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The scores of a ``dedup`` run's listed ``pairs`` by relation, and their coverage by relation
    (when the pairs have it: not with ``--no-relations``)."""
    if not pairs:
        return []
    scores = np.array([p["score"] for p in pairs], dtype=np.float64)
    relation = np.array([p.get("relation") or "" for p in pairs])
    typed = bool(relation.any())  # not with --no-relations: one group, named as what it is
    by = ({name or "untyped": relation == name for name in sorted(np.unique(relation).tolist(), key=_relation_order)}
          if typed else {"pairs": np.ones(len(pairs), bool)})
    threshold = parameters.get("threshold")
    pictures = [histogram(scores, by, f"scores of the {len(pairs):,} pairs listed" + (", by relation" if typed else ""),
                          "score", {"threshold": threshold if isinstance(threshold, (int, float)) else None})]
    if all(isinstance(p.get("coverage_a"), (int, float)) and isinstance(p.get("coverage_b"), (int, float))
           for p in pairs):
        cov = np.array([(p["coverage_a"], p["coverage_b"]) for p in pairs], dtype=np.float64)
        least = parameters.get("min_coverage")
        mark = {"min_coverage": least if isinstance(least, (int, float)) else None}
        pictures.append(histogram(cov.max(axis=1), by, "the larger coverage of each pair (a copy, or only a "
                                  "shared passage), by relation", "share of the document's words in aligned passages",
                                  mark))
        pictures.append(histogram(cov.min(axis=1), by, "the smaller coverage of each pair (a duplicate, or a "
                                  "containment), by relation", "share of the document's words in aligned passages",
                                  mark))
    return pictures


def _relation_order(name: str) -> tuple[int, str]:
    """Relations in the order dedup prints them, any other after."""
    order = ("duplicate", "contains", "contained", "shares")
    return (order.index(name), name) if name in order else (len(order), name)
