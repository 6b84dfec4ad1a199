"""Every measure of one scored pair set in one JSON-ready dict (what ``eval`` reports)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .cluster_measures import _bcubed_at, best_bcubed_threshold
from .measures import _as_ids, _scores_labels, auroc, confusion_at, max_f1, mcc, pearson, prf

__all__ = ["evaluate_scores", "operating_threshold"]


def operating_threshold(scores: ArrayLike, labels: ArrayLike, i: ArrayLike, j: ArrayLike, true_cluster: ArrayLike,
                        objective: str = "pair", clustering: str = "components") -> float:
    """The threshold ``objective`` chooses on these pairs: ``pair``, that of Max F1; ``bcubed``, that
    of the best B-cubed F1 of the clusters ``clustering`` makes (over every pair, whatever the index
    would propose: its candidates change with the threshold). ``nan`` when no pair scores above 0."""
    s, y = _scores_labels(scores, labels)
    if objective == "pair":
        return max_f1(s, y).threshold
    if objective == "bcubed":
        t = _as_ids(true_cluster, "true_cluster")
        return best_bcubed_threshold(s, np.asarray(i, np.int64), np.asarray(j, np.int64), t.size, t, clustering)
    raise ValueError(f"objective must be pair or bcubed, got {objective!r}")


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
    proposed: ArrayLike | None = None,
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
    proposed : array of bool, shape (m,), optional
        The pairs the method's index proposes at the threshold (its candidates):
        B-cubed clusters only those, as ``dedup`` does; ``None``: every pair.

    Returns
    -------
    dict
        ``pairs``, ``positives`` (ints); ``max_f1``, ``threshold``,
        ``precision``, ``recall``, ``f1``, ``mcc`` and ``b3_precision``,
        ``b3_recall``, ``b3_f1`` at the threshold (B-cubed clusters are made
        from the ``proposed`` pairs scoring >= threshold by ``clustering``);
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
    thr = float(threshold) if threshold is not None else operating_threshold(s, y, i, j, t, objective, clustering)
    conf = confusion_at(s, y, thr)  # nan threshold (no pairs) predicts nothing
    pr = prf(conf.tp, conf.fp, conf.fn)
    bc = _bcubed_at(s, i, j, n, t, thr, clustering, None if proposed is None else np.asarray(proposed, bool))
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
