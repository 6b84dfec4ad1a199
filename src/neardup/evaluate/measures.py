"""Evaluation measures for near-duplicate detection, vectorized with numpy.

Two views of the same result are measured, as the near-duplicate papers do:

* **Pairs.** Every candidate pair of documents has a similarity ``score``
  (float) and a ground-truth ``label`` (bool, True = the pair is a true
  near-duplicate). A pair is *predicted positive* at threshold ``t`` when
  ``score >= t``. Pair measures: precision, recall, F1, Max-F1 over all
  thresholds, MCC, AUROC and Pearson r.
* **Clusters.** Documents are grouped into the connected components of the
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

from ..cluster import cluster_labels

__all__ = [
    "Confusion",
    "PRF",
    "Sweep",
    "MaxF1",
    "B3",
    "confusion_at",
    "prf",
    "mcc",
    "threshold_sweep",
    "max_f1",
    "auroc",
    "pearson",
    "b3",
    "components_from_pairs",
    "all_pair_labels",
    "evaluate_scores",
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


class B3(NamedTuple):
    """B-cubed precision, recall and F1."""

    precision: float
    recall: float
    f1: float


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


def confusion_at(scores: ArrayLike, labels: ArrayLike, threshold: float) -> Confusion:
    """Confusion counts of the pairs with ``score >= threshold`` predicted positive.

    Parameters
    ----------
    scores : array of float, shape (m,)
        Similarity of each pair.
    labels : array of bool, shape (m,)
        True where the pair is a true near-duplicate.
    threshold : float
        Pairs scoring at least this are predicted near-duplicates.

    Returns
    -------
    Confusion
        ``(tp, fp, fn, tn)`` as Python ints.
    """
    s, y = _scores_labels(scores, labels)
    pred = s >= threshold
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
    """Precision, recall, F1 and MCC at every distinct score used as threshold.

    Sorts once by decreasing score and takes cumulative sums of the labels, so
    the whole curve costs O(m log m). The threshold ``t`` predicts
    ``score >= t``; the counts for ``t`` are read at the *last* pair scoring
    ``t`` so that tied pairs always fall on the same side of a threshold.
    ``weights``: how many pairs each pair stands for (a sample's pairs weighted
    back to the population); default 1 each.

    Returns
    -------
    Sweep
        Arrays ``(thresholds, precision, recall, f1, mcc)``, one entry per
        distinct score, thresholds strictly decreasing. Empty input gives
        empty arrays.
    """
    s, y = _scores_labels(scores, labels)
    w = np.ones(s.size, dtype=np.int64) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != s.shape:
        raise ValueError(f"weights and scores differ in length: {w.size} != {s.size}")
    order = np.argsort(-s, kind="stable")
    s_sorted = s[order]
    tps = np.cumsum(w[order] * y[order])
    flagged = np.cumsum(w[order])
    # last index of each run of equal scores (the final pair ends the last run)
    run_end = np.ones(s.size, dtype=np.bool_)
    run_end[:-1] = s_sorted[1:] != s_sorted[:-1]
    last = np.flatnonzero(run_end)
    tp = tps[last]
    fp = flagged[last] - tp
    n_pos = tps[-1] if s.size else 0
    fn = n_pos - tp
    tn = ((flagged[-1] if s.size else 0) - n_pos) - fp
    precision, recall, f1 = _prf_arrays(tp, fp, fn)
    return Sweep(s_sorted[last], precision, recall, f1, _mcc_arrays(tp, fp, fn, tn))


def max_f1(scores: ArrayLike, labels: ArrayLike, weights: ArrayLike | None = None) -> MaxF1:
    """The best F1 over all thresholds ``score >= t`` (the papers' Max-F1); ``weights`` as
    in :func:`threshold_sweep`.

    Among thresholds with equal F1 the *highest* is chosen, so the result is
    deterministic and the chosen operating point flags the fewest pairs. With
    no positives every F1 is 0.0 and the highest score is returned. Empty
    input gives ``(0.0, nan, 0.0, 0.0)``.

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
    from scipy.stats import rankdata  # lazily: scipy.stats costs 0.4 s of start-up for every command

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


# --------------------------------------------------------- cluster measures


def b3(pred_cluster: ArrayLike, true_cluster: ArrayLike) -> B3:
    """B-cubed precision, recall and F1 of a clustering of documents.

    For a document ``d`` with predicted cluster ``P`` and true cluster ``T``,
    precision is ``|P & T| / |P|`` and recall ``|P & T| / |T|``; both are
    averaged over documents and F1 is their harmonic mean. Computed from the
    contingency counts ``n_ij`` of (predicted, true) id pairs:
    ``precision = sum n_ij**2 / |P_i| / N``, ``recall = sum n_ij**2 / |T_j| / N``.

    Parameters
    ----------
    pred_cluster, true_cluster : array of int, shape (N,)
        One cluster id per document; ids are arbitrary integers. A negative
        id in either array makes that document a singleton.

    Returns
    -------
    B3
        ``(precision, recall, f1)``; all ``nan`` for zero documents, F1 0.0
        when precision and recall are both 0 (impossible for N > 0).
    """
    p = _as_ids(pred_cluster, "pred_cluster")
    t = _as_ids(true_cluster, "true_cluster")
    if p.shape != t.shape:
        raise ValueError(f"cluster arrays differ in length: {p.size} != {t.size}")
    n = p.size
    if n == 0:
        return B3(math.nan, math.nan, math.nan)
    _, pi = np.unique(_negatives_to_singletons(p), return_inverse=True)
    _, ti = np.unique(_negatives_to_singletons(t), return_inverse=True)
    pi, ti = pi.ravel(), ti.ravel()
    n_t = int(ti.max()) + 1
    cells, n_ij = np.unique(pi * n_t + ti, return_counts=True)
    size_p = np.bincount(pi)[cells // n_t]
    size_t = np.bincount(ti)[cells % n_t]
    sq = n_ij.astype(np.float64) ** 2
    precision = float((sq / size_p).sum() / n)
    recall = float((sq / size_t).sum() / n)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return B3(precision, recall, f1)


#: Candidate thresholds tried for the best B-cubed F1 (score quantiles; each is one clustering).
BCUBED_CANDIDATES = 64


def _bcubed_at(s, i, j, n, t, threshold: float, clustering: str) -> B3:
    from ..cluster import labels_by

    keep = s >= threshold
    return b3(labels_by(clustering, n, i[keep], j[keep], s[keep]), t)


def bcubed_curve(s, i, j, n: int, t, clustering: str, thresholds) -> np.ndarray:
    """B-cubed F1 of the clusters made at each of ``thresholds`` (for plots)."""
    return np.array([_bcubed_at(s, i, j, n, t, float(c), clustering).f1 for c in thresholds])


def best_bcubed_threshold(s, i, j, n: int, t, clustering: str = "components") -> float:
    """The threshold, among score quantiles, whose clusters have the best B-cubed F1 (lowest on ties)."""
    positive = s[s > 0]
    if positive.size == 0:
        return math.nan
    candidates = np.unique(np.quantile(positive, np.linspace(0.0, 1.0, BCUBED_CANDIDATES)))
    f1 = [_bcubed_at(s, i, j, n, t, float(c), clustering).f1 for c in candidates]
    return float(candidates[int(np.argmax(f1))])


def components_from_pairs(n: int, a: ArrayLike, b: ArrayLike) -> NDArray[np.int64]:
    """Cluster ids = connected components of the graph with edges ``(a[k], b[k])``.

    Turns the pairs a detector flags into document clusters (transitively: if
    A~B and B~C then A, B, C are one story), which is what B-cubed compares.

    Parameters
    ----------
    n : int
        Number of documents; ids are ``0..n-1``.
    a, b : array of int, shape (m,)
        Document indices of each edge.

    Returns
    -------
    ndarray of int64, shape (n,)
        Component id per document, ``0..k-1``; unconnected documents get
        their own id.
    """
    a = np.asarray(a, dtype=np.int64).ravel()
    b = np.asarray(b, dtype=np.int64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"a and b differ in length: {a.size} != {b.size}")
    return cluster_labels(n, a, b)


def all_pair_labels(
    cluster: ArrayLike,
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.bool_]]:
    """All ``n*(n-1)/2`` pairs ``i < j`` and whether they share a cluster.

    A document with a negative cluster id is in no cluster and is never a
    positive, not even with another negative-id document.

    Returns
    -------
    i, j : ndarray of intp
        Pair indices in ``np.triu_indices(n, k=1)`` order (row-major).
    label : ndarray of bool
        ``cluster[i] == cluster[j] and cluster[i] >= 0``.
    """
    c = _as_ids(cluster, "cluster")
    i, j = np.triu_indices(c.size, k=1)
    ci = c[i]
    return i, j, (ci == c[j]) & (ci >= 0)


# ----------------------------------------------------------------- summary


def evaluate_scores(
    scores: ArrayLike,
    labels: ArrayLike,
    i: ArrayLike,
    j: ArrayLike,
    n: int,
    true_cluster: ArrayLike,
    threshold: float | None = None,
    objective: str = "pair",
    clustering: str = "components",
) -> dict[str, int | float]:
    """Every measure for one scored pair set, as a JSON-ready dict.

    Parameters
    ----------
    scores, labels : arrays of shape (m,)
        Score and truth of each pair.
    i, j : arrays of int, shape (m,)
        The two documents of each pair.
    n : int
        Number of documents.
    true_cluster : array of int, shape (n,)
        True cluster id per document; negative ids become singletons.
    threshold : float, optional
        Operating point for the threshold measures. ``None`` chooses it by
        ``objective``: ``pair`` the Max-F1 threshold, ``bcubed`` the threshold of
        best B-cubed F1 (over the score quantiles). ``max_f1`` is reported either way.
    clustering : str
        How the pairs above the threshold become clusters for B-cubed
        (:data:`neardup.cluster.CLUSTERINGS`; ``dedup`` uses the first).

    Returns
    -------
    dict
        ``pairs``, ``positives`` (ints); ``max_f1``, ``threshold``,
        ``precision``, ``recall``, ``f1``, ``mcc`` and ``b3_precision``,
        ``b3_recall``, ``b3_f1`` at the threshold (B-cubed clusters are made
        from the pairs scoring >= threshold by ``clustering``);
        ``auroc`` and ``pearson`` (threshold-free). Floats may be ``nan``.
    """
    s, y = _scores_labels(scores, labels)
    i = np.asarray(i, dtype=np.int64).ravel()
    j = np.asarray(j, dtype=np.int64).ravel()
    if i.shape != s.shape or j.shape != s.shape:
        raise ValueError("i and j must have one entry per score")
    t = _as_ids(true_cluster, "true_cluster")
    if t.size != n:
        raise ValueError(f"true_cluster has {t.size} entries, expected n={n}")

    best = max_f1(s, y)
    if threshold is not None:
        thr = float(threshold)
    elif objective == "bcubed":
        thr = best_bcubed_threshold(s, i, j, n, t, clustering)
    elif objective == "pair":
        thr = best.threshold
    else:
        raise ValueError(f"objective must be pair or bcubed, got {objective!r}")
    conf = confusion_at(s, y, thr)  # nan threshold (no pairs) predicts nothing
    pr = prf(conf.tp, conf.fp, conf.fn)
    bc = _bcubed_at(s, i, j, n, t, thr, clustering)
    return {
        "pairs": int(s.size),
        "positives": int(np.count_nonzero(y)),
        "max_f1": best.f1,
        "threshold": thr,
        "precision": pr.precision,
        "recall": pr.recall,
        "f1": pr.f1,
        "auroc": auroc(s, y),
        "mcc": mcc(*conf),
        "pearson": pearson(s, y),
        "b3_precision": bc.precision,
        "b3_recall": bc.recall,
        "b3_f1": bc.f1,
    }
