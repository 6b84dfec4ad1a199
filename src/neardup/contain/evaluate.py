"""Containment quality against simulated ground truth: P/R/F1 with direction.

What counts as a true containment ``x ⊇ y`` (``x`` contains ``y``), from the truth
records (:class:`~.truth.Truth`):

* ``x`` and ``y`` are versions of one story (same cluster) and ``x`` is a full version
  (original or rewrite).  This covers the recorded pairs (a trim or a split page and
  the version it was cut from), the same part in any other full version of the story
  (a rewrite differs by about 2% of words), and near-duplicates, which contain each
  other both ways;
* everything else is false, in particular a part "containing" a full version (the
  direction must be right) and any pair across stories, **except** pairs of two parts
  of one story (two trims, a trim and a page), which overlap in ways the records do
  not say: they are left out (neither right nor wrong) and counted as ``unjudged``.

Reported: precision, recall, F1 over the directed pairs, the counts, and the recall of
the recorded pairs alone (the trims and split pages, the hardest containments).
:func:`threshold_sweep` gives F1 at every score threshold of one run made with a low
threshold, to choose ETL on a development corpus.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

import numpy as np
import orjson

from ..errors import UserError
from ..evaluate.measures import prf
from ..evaluate.truth import Truth


def _labels(truth: Truth, container: list[str], contained: list[str], ids: list[str] | None):
    pos, cluster, part = truth.index(ids)
    x = np.array([pos.get(c, -1) for c in container], dtype=np.int64)
    y = np.array([pos.get(c, -1) for c in contained], dtype=np.int64)
    known = (x >= 0) & (y >= 0)
    same = known & (cluster[np.maximum(x, 0)] == cluster[np.maximum(y, 0)]) & (cluster[np.maximum(x, 0)] >= 0)
    positive = same & ~part[np.maximum(x, 0)]
    unjudged = same & part[np.maximum(x, 0)] & part[np.maximum(y, 0)]
    sizes = np.bincount(cluster[cluster >= 0])
    fulls = np.bincount(cluster[(cluster >= 0) & ~part], minlength=sizes.shape[0])
    n_true = int((fulls * (sizes - 1)).sum())
    return positive, unjudged, n_true


def evaluate_containments(pred: Iterable[tuple[str, str]], truth: Truth, ids: list[str] | None = None) -> dict[str, Any]:
    """P/R/F1 of directed pairs ``(container, contained)`` (duplicates ignored).

    ``ids``: the documents of the run (default: all documents of the truth).  A truth
    with clusters (the simulator's) judges pairs by cluster and trim; a truth of recorded
    containment pairs only judges by exactly those pairs.
    """
    pairs = sorted(set(pred))
    container = [p[0] for p in pairs]
    contained = [p[1] for p in pairs]
    if truth.cluster:  # a simulator's truth: containment follows from clusters and trims
        positive, unjudged, n_true = _labels(truth, container, contained, ids)
    else:  # only recorded pairs (e.g. reuse-dev): exactly those are true, every other pair is false
        keep_ids = set(ids) if ids is not None else None
        listed = {tuple(r) for r in truth.containments if keep_ids is None or (r[0] in keep_ids and r[1] in keep_ids)}
        positive = np.array([p in listed for p in pairs], dtype=bool)
        unjudged = np.zeros(len(pairs), dtype=bool)
        n_true = len(listed)
    tp = int(positive.sum())
    fp = int((~positive & ~unjudged).sum())
    scores = prf(tp, fp, n_true - tp)
    keep = set(ids) if ids is not None else None
    recorded = [r for r in truth.containments if keep is None or (r[0] in keep and r[1] in keep)]
    found = set(pairs)
    rec_hit = sum(r in found for r in recorded)
    return {"precision": scores.precision, "recall": scores.recall, "f1": scores.f1, "predicted": len(pairs),
            "true": n_true, "tp": tp, "fp": fp, "fn": n_true - tp, "unjudged": int(unjudged.sum()),
            "recorded": len(recorded), "recorded_recall": rec_hit / len(recorded) if recorded else 0.0}


def threshold_sweep(pred: Iterable[tuple[str, str, float]], truth: Truth, ids: list[str] | None = None) -> dict[str, Any]:
    """Best F1 over score thresholds of scored directed pairs, and the curve (ascending thresholds)."""
    best: dict[tuple[str, str], float] = {}
    for c, a, s in pred:
        if (c, a) not in best or s > best[(c, a)]:
            best[(c, a)] = s
    keys = list(best)
    positive, unjudged, n_true = _labels(truth, [k[0] for k in keys], [k[1] for k in keys], ids)
    score = np.array([best[k] for k in keys], dtype=np.float64)
    judged = ~unjudged
    score, positive = score[judged], positive[judged]
    order = np.argsort(-score, kind="stable")
    s, y = score[order], positive[order]
    tp = np.cumsum(y)
    fp = np.cumsum(~y)
    last = np.flatnonzero(np.r_[s[1:] != s[:-1], True]) if s.shape[0] else np.zeros(0, np.int64)
    f1 = 2 * tp[last] / (tp[last] + fp[last] + n_true) if last.shape[0] else np.zeros(0)
    k = int(np.argmax(f1)) if f1.shape[0] else -1
    if k < 0:
        return {"f1": 0.0, "threshold": float("nan")}
    i = last[k]
    return {"f1": float(f1[k]), "threshold": float(s[i]), "precision": float(tp[i] / (tp[i] + fp[i])),
            "recall": float(tp[i] / n_true) if n_true else 0.0}


def read_containments(path: str | Path) -> list[tuple[str, str, float]]:
    """``(container, contained, score)`` of a ``containments.jsonl``."""
    out = []
    for number, line in enumerate(Path(path).read_bytes().splitlines(), start=1):
        if line.strip():
            try:
                r = orjson.loads(line)
                out.append((str(r["container"]), str(r["contained"]), float(r["score"])))
            except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise UserError(f"{path}:{number}: not a containment record ({exc})") from None
    return out


def evaluate_containment_files(containments: str | Path, truth: str | Path) -> dict[str, Any]:
    """Evaluate a ``containments.jsonl`` against a ``truth.jsonl`` (the hook for ``neardup eval``)."""
    return evaluate_containments([(c, a) for c, a, _ in read_containments(containments)], Truth.read(truth))
