"""Evaluation measures for near-duplicate detection, vectorized with numpy.

Two views of the same result are measured, as the near-duplicate papers do:

* **Pairs.** Every candidate pair of documents has a similarity ``score``
  (float) and a ground-truth ``label`` (bool, True = the pair is a true
  near-duplicate). A pair is *predicted positive* at threshold ``t`` when
  ``score >= t`` and ``score > 0`` (:func:`flagged`): a pair scoring 0 shares nothing, and
  ``dedup`` lists it at no threshold, not even 0. Pair measures: precision, recall, F1, Max-F1 over all
  thresholds, MCC, AUROC and Pearson r.
* **Clusters** (:mod:`.cluster_measures`). Documents are grouped into clusters from the
  pairs predicted positive and compared with the true clusters by B-cubed
  precision, recall and F1, which weighs every *document* equally instead of
  every pair (a cluster of 100 copies otherwise dominates with 4,950 pairs).

Conventions (chosen once, used everywhere):

* Zero denominators in precision/recall/F1 give 0.0, as scikit-learn does
  with ``zero_division=0``; MCC is 0.0 when a marginal of the confusion
  matrix is zero. Measures that are undefined rather than merely degenerate
  (AUROC with one class absent, Pearson r with a constant input, B-cubed over
  no documents) are ``nan``.
* F1 is computed as ``2tp / (2tp + fp + fn)``: numerator and denominator are
  exact integers in float64 and IEEE division is correctly rounded, so equal
  F1 values compare exactly equal and ties between thresholds are real ties.
* A negative cluster id (e.g. -1) means "in no cluster": such a document is
  never a positive with any other document and counts as a singleton in
  B-cubed.
* Scalar results are plain Python ``int``/``float`` (JSON-serializable);
  ``threshold_sweep`` returns numpy arrays.

Nothing here loops over pairs in Python: 500,000 pairs (1,000 documents)
take a few tens of milliseconds.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "Confusion",
    "PRF",
    "Sweep",
    "MaxF1",
    "confusion_at",
    "flagged",
    "prf",
    "mcc",
    "threshold_sweep",
    "max_f1",
    "auroc",
    "pearson",
]


class Confusion(NamedTuple):
    """Pair confusion counts at one threshold."""

    tp: int
    fp: int
    fn: int
    tn: int


class PRF(NamedTuple):
    """Precision, recall and F1."""

    precision: float
    recall: float
    f1: float


class Sweep(NamedTuple):
    """Measures at every distinct score, thresholds in decreasing order."""

    thresholds: NDArray[np.float64]
    precision: NDArray[np.float64]
    recall: NDArray[np.float64]
    f1: NDArray[np.float64]
    mcc: NDArray[np.float64]


class MaxF1(NamedTuple):
    """The best F1 over all thresholds and where it is reached."""

    f1: float
    threshold: float
    precision: float
    recall: float


# --------------------------------------------------------------- validation


def _as_scores(scores: ArrayLike) -> NDArray[np.float64]:
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 1:
        raise ValueError(f"scores must be 1-D, got shape {s.shape}")
    if np.isnan(s).any():
        raise ValueError("scores contain NaN")
    return s


def _as_labels(labels: ArrayLike) -> NDArray[np.bool_]:
    y = np.asarray(labels)
    if y.ndim != 1:
        raise ValueError(f"labels must be 1-D, got shape {y.shape}")
    if y.dtype != np.bool_:
        if y.size and not np.isin(y, (0, 1)).all():
            raise ValueError("labels must be boolean or 0/1")
        y = y.astype(np.bool_)
    return y


def _scores_labels(
    scores: ArrayLike, labels: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    s, y = _as_scores(scores), _as_labels(labels)
    if s.shape != y.shape:
        raise ValueError(f"scores and labels differ in length: {s.size} != {y.size}")
    return s, y


def _as_ids(cluster: ArrayLike, name: str) -> NDArray[np.int64]:
    c = np.asarray(cluster)
    if c.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {c.shape}")
    if c.size and not np.issubdtype(c.dtype, np.integer):
        raise ValueError(f"{name} must hold integer cluster ids, got {c.dtype}")
    return c.astype(np.int64, copy=False)


def _negatives_to_singletons(c: NDArray[np.int64]) -> NDArray[np.int64]:
    """Give every document with a negative id a fresh id of its own."""
    neg = c < 0
    if not neg.any():
        return c
    out = c.copy()
    out[neg] = c.max(initial=-1) + 1 + np.arange(int(neg.sum()), dtype=np.int64)
    return out


# --------------------------------------------- shared vectorized arithmetic


def _prf_arrays(tp, fp, fn):
    """Precision, recall, F1 elementwise; 0.0 where a denominator is zero."""
    tp, fp, fn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn))
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
        recall = np.where(tp + fn > 0, tp / (tp + fn), 0.0)
        f1 = np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), 0.0)
    return precision, recall, f1


def _mcc_arrays(tp, fp, fn, tn):
    """MCC elementwise in float64 (int64 products overflow near 55k pairs)."""
    tp, fp, fn, tn = (np.asarray(x, dtype=np.float64) for x in (tp, fp, fn, tn))
    den = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(den > 0, (tp * tn - fp * fn) / np.sqrt(den), 0.0)
    return np.clip(r, -1.0, 1.0)


# ------------------------------------------------------------ pair measures


def flagged(scores: NDArray[np.float64], threshold: float) -> NDArray[np.bool_]:
    """The pairs predicted positive at ``threshold``: ``score >= threshold`` and ``score > 0``.

    A pair scoring 0 shares nothing the method sees (no candidate, no match), so ``dedup``
    never lists it; counting it at ``threshold <= 0`` would credit a method that finds
    nothing with recall 1. A ``nan`` threshold flags nothing.
    """
    return (scores >= threshold) & (scores > 0)


def confusion_at(scores: ArrayLike, labels: ArrayLike, threshold: float) -> Confusion:
    """Confusion counts of the pairs :func:`flagged` at ``threshold`` predicted positive.

    Parameters
    ----------
    scores : array of float, shape (m,)
        Similarity of each pair.
    labels : array of bool, shape (m,)
        True where the pair is a true near-duplicate.
    threshold : float
        Pairs scoring at least this (and more than 0) are predicted near-duplicates.

    Returns
    -------
    Confusion
        ``(tp, fp, fn, tn)`` as Python ints.
    """
    s, y = _scores_labels(scores, labels)
    pred = flagged(s, threshold)
    tp = int(np.count_nonzero(pred & y))
    fp = int(np.count_nonzero(pred)) - tp
    fn = int(np.count_nonzero(y)) - tp
    return Confusion(tp, fp, fn, s.size - tp - fp - fn)


def prf(tp: int, fp: int, fn: int) -> PRF:
    """Precision, recall and F1 from confusion counts.

    Zero denominators give 0.0 (scikit-learn's ``zero_division=0``): nothing
    predicted means precision 0.0, no true positives means recall 0.0, and F1
    ``= 2tp / (2tp + fp + fn)`` is 0.0 whenever ``tp == 0``. Reporting 0.0
    rather than 1.0 keeps a detector that predicts nothing from scoring well.

    Returns
    -------
    PRF
        ``(precision, recall, f1)`` as Python floats.
    """
    p, r, f = _prf_arrays(tp, fp, fn)
    return PRF(float(p), float(r), float(f))


def mcc(tp: int, fp: int, fn: int, tn: int) -> float:
    """Matthews correlation coefficient of a confusion matrix.

    ``(tp*tn - fp*fn) / sqrt((tp+fp)(tp+fn)(tn+fp)(tn+fn))``, in [-1, 1].
    Unlike F1 it uses the true negatives, so it rewards a detector for not
    flagging the (many) unrelated pairs. 0.0 when any marginal is zero (the
    scikit-learn convention: no correlation can be measured).
    """
    return float(_mcc_arrays(tp, fp, fn, tn))


def threshold_sweep(scores: ArrayLike, labels: ArrayLike, weights: ArrayLike | None = None) -> Sweep:
    """Precision, recall, F1 and MCC at every distinct positive score used as threshold.

    Sorts once by decreasing score and takes cumulative sums of the labels, so
    the whole curve costs O(m log m). The threshold ``t`` predicts
    ``score >= t``; the counts for ``t`` are read at the *last* pair scoring
    ``t`` so that tied pairs always fall on the same side of a threshold.
    ``weights``: how many pairs each pair stands for (a sample's pairs weighted
    back to the population); default 1 each. Pairs scoring 0 (or less) are never
    predicted positive (:func:`flagged`): they count as negatives at every threshold
    and give none of their own.

    Returns
    -------
    Sweep
        Arrays ``(thresholds, precision, recall, f1, mcc)``, one entry per
        distinct positive score, thresholds strictly decreasing. Input without a
        positive score gives empty arrays.
    """
    s, y = _scores_labels(scores, labels)
    w = np.ones(s.size, dtype=np.int64) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != s.shape:
        raise ValueError(f"weights and scores differ in length: {w.size} != {s.size}")
    order = np.argsort(-s, kind="stable")
    s_sorted = s[order]
    tps = np.cumsum(w[order] * y[order])
    counted = np.cumsum(w[order])
    # last index of each run of equal scores (the final pair ends the last run)
    run_end = np.ones(s.size, dtype=np.bool_)
    run_end[:-1] = s_sorted[1:] != s_sorted[:-1]
    last = np.flatnonzero(run_end & (s_sorted > 0))
    tp = tps[last]
    fp = counted[last] - tp
    n_pos = tps[-1] if s.size else 0
    fn = n_pos - tp
    tn = ((counted[-1] if s.size else 0) - n_pos) - fp
    precision, recall, f1 = _prf_arrays(tp, fp, fn)
    return Sweep(s_sorted[last], precision, recall, f1, _mcc_arrays(tp, fp, fn, tn))


def max_f1(scores: ArrayLike, labels: ArrayLike, weights: ArrayLike | None = None) -> MaxF1:
    """The best F1 over all thresholds ``score >= t`` (the papers' Max-F1); ``weights`` as
    in :func:`threshold_sweep`.

    Among thresholds with equal F1 the *highest* is chosen, so the result is
    deterministic and the chosen operating point flags the fewest pairs. With
    no positives every F1 is 0.0 and the highest score is returned. Input
    without a positive score (a method that finds nothing) gives
    ``(0.0, nan, 0.0, 0.0)``: there is no threshold at which it finds a pair.

    Returns
    -------
    MaxF1
        ``(f1, threshold, precision, recall)`` as Python floats.
    """
    sw = threshold_sweep(scores, labels, weights)
    if sw.thresholds.size == 0:
        return MaxF1(0.0, math.nan, 0.0, 0.0)
    k = int(np.argmax(sw.f1))  # first maximum = highest threshold
    return MaxF1(float(sw.f1[k]), float(sw.thresholds[k]),
                 float(sw.precision[k]), float(sw.recall[k]))


def auroc(scores: ArrayLike, labels: ArrayLike) -> float:
    """Area under the ROC curve: P(score of a positive > score of a negative).

    Computed as the Mann-Whitney U statistic from average ranks, so a tie
    between a positive and a negative counts 1/2. Threshold-free: it says how
    well the score orders pairs regardless of where the cut is placed.
    ``nan`` when either class is absent.
    """
    s, y = _scores_labels(scores, labels)
    n_pos = int(np.count_nonzero(y))
    n_neg = s.size - n_pos
    if n_pos == 0 or n_neg == 0:
        return math.nan
    from scipy.stats import rankdata  # lazily: scipy.stats is a large import (docs/costs.md)

    ranks = rankdata(s)  # average ranks, 1-based
    u = float(ranks[y].sum()) - n_pos * (n_pos + 1) / 2
    return u / (n_pos * n_neg)


def pearson(scores: ArrayLike, labels: ArrayLike) -> float:
    """Pearson r between the score and the 0/1 label (point-biserial r).

    Measures how linearly the score tracks the ground truth, as reported by
    the papers that regress similarity on human judgments. ``nan`` when the
    scores or the labels are constant (including fewer than two pairs).
    """
    s, y = _scores_labels(scores, labels)
    if s.size < 2 or s.min() == s.max() or y.all() or not y.any():
        return math.nan
    dx = s - s.mean()
    yf = y.astype(np.float64)
    dy = yf - yf.mean()
    r = float(dx @ dy) / math.sqrt(float(dx @ dx) * float(dy @ dy))
    return max(-1.0, min(1.0, r))
