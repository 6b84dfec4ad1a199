"""The evaluation harness behind ``neardup eval``: labeled data in, the papers' measures out.

A labeled dataset is read through the same input stage as ``dedup`` (so HTML pages are
extracted the same way), the method sketches every document, and **every** pair is
scored with the method's own similarity (the signature estimate for signature
methods), so numbers compare with the papers.  Separately, the method's candidate
generation (LSH, supershingles) is run at the reported threshold and its recall of the
true pairs is reported: the share of duplicates a real ``dedup`` run could find.

Thresholds are chosen honestly when asked: ``tune`` picks the Max-F1 threshold on a
development set and reports the dataset at it; ``splits`` is the split-half protocol of
Hajishirzi et al.: a random half of the clusters is the development half, the rest is
held out, repeated with new halves (mean and spread over the repetitions).  Without
either, Max F1 on the dataset itself is reported, as the papers do.  A method that
learns (:attr:`Method.learns`, e.g. ANDD with a trained model) is trained on the development side too, and
:func:`~neardup.evaluate.curves.learning_curve` trains it on growing random subsets of the development half.
The labeled data are read by :mod:`neardup.evaluate.labeled`.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import UserError
from ..cluster import CLUSTERINGS
from ..methods import get_method
from ..methods.base import Collection, Method
from ..relations import DEFAULT_MIN_COVERAGE, Coverage
from .labeled import LabeledSet
from .summary import evaluate_scores, operating_threshold

#: Above this many documents, scoring every pair is refused (it grows quadratically).
MAX_ALL_PAIRS_DOCS = 8000

REPORT_KEYS = (
    "max_f1", "threshold", "precision", "recall", "f1", "auroc", "mcc", "pearson",
    "b3_precision", "b3_recall", "b3_f1", "candidate_recall",
    "copy_precision", "copy_recall", "copy_f1", "copy_b3_f1",
)


def sketch_all(data: LabeledSet, m: Method, batch: int = 2000) -> Collection:
    """The sketches of every document of ``data`` by ``m``."""
    out = Collection(m)
    for lo in range(0, len(data), batch):
        out.add(data.texts[lo : lo + batch])
    out.finalize()
    return out


def scored_pairs(data: LabeledSet, c: Collection) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(i, j, score, label)`` for every pair (or the labeled pairs) of ``data``."""
    if data.pairs is not None:
        i, j, y = data.pairs
    else:
        if len(data) > MAX_ALL_PAIRS_DOCS:
            raise UserError(
                f"{data.name}: {len(data):,} documents are too many to score every pair "
                f"(limit {MAX_ALL_PAIRS_DOCS:,}); give labeled pairs with --pairs"
            )
        i, j = np.triu_indices(len(data), k=1)
        y = (data.cluster[i] == data.cluster[j]) & (data.cluster[i] >= 0)
    return i, j, c.score(i, j), y


def true_clusters(data: LabeledSet) -> np.ndarray:
    """Cluster per document; for pair-labeled data, the components of the positive pairs."""
    if data.pairs is None:
        return data.cluster
    from ..cluster import cluster_labels

    i, j, y = data.pairs
    return cluster_labels(len(data), i[y], j[y])


def proposed_pairs(c: Collection, i: np.ndarray, j: np.ndarray, threshold: float) -> np.ndarray:
    """Which pairs ``(i, j)`` (rows of ``c``) the method's index proposes at ``threshold`` (its candidates,
    what ``dedup`` verifies); none at a ``nan`` threshold."""
    if not np.isfinite(threshold):
        return np.zeros(i.shape, dtype=bool)
    at = copy.copy(c.method)  # the same method (and what it learned) at another threshold
    at.threshold = float(min(max(threshold, 1e-6), 1.0))
    a, b, _ = at.candidate_pairs(c.finalize())
    n = len(c)
    return np.isin(np.minimum(i, j) * n + np.maximum(i, j), np.minimum(a, b) * n + np.maximum(a, b))


@dataclass
class Scored:
    """A dataset scored by one method: everything needed to report at any threshold."""

    data: LabeledSet
    method: Collection | None
    i: np.ndarray
    j: np.ndarray
    scores: np.ndarray
    labels: np.ndarray
    clusters: np.ndarray
    seconds: float
    #: Index in ``method`` of each document (a subset's documents are renumbered).
    doc_index: np.ndarray | None = None
    #: The passages every pair shares (``None``: relations off), and a document's min coverage.
    coverage: Coverage | None = None
    min_coverage: float = DEFAULT_MIN_COVERAGE

    def subset(self, docs: np.ndarray) -> "Scored":
        """The pairs among the documents where the boolean ``docs`` is true, reindexed."""
        keep = docs[self.i] & docs[self.j]
        new_index = np.cumsum(docs) - 1
        ids = [rid for rid, k in zip(self.data.ids, docs) if k]
        sub = LabeledSet(self.data.name, ids, [], self.data.cluster[docs], self.data.stats)
        return Scored(
            sub, self.method, new_index[self.i[keep]], new_index[self.j[keep]], self.scores[keep],
            self.labels[keep], self.clusters[docs], self.seconds, self.method_index()[docs],
            None if self.coverage is None else self.coverage.within(docs), self.min_coverage,
        )

    def method_index(self) -> np.ndarray:
        """Index in ``method`` of each document."""
        return np.arange(len(self.data.ids)) if self.doc_index is None else self.doc_index

    def report(self, threshold: float | None = None, candidates: bool = True, objective: str = "pair",
               clustering: str = CLUSTERINGS[0]) -> dict[str, Any]:
        """The measures at ``threshold`` (chosen by ``objective`` when None), with the index's recall.

        The pair measures score every pair, as the papers do; B-cubed is measured on the clusters
        ``dedup --no-relations`` would make (``clustering``) and the ``copy_`` measures are what
        ``dedup`` lists and clusters at the threshold with its relations (:meth:`copy_measures`;
        NaN with relations off): both of the pairs the method's index proposes there
        (:func:`proposed_pairs`; every pair with ``candidates`` False, or without a method).
        """
        n = len(self.data.ids)
        if threshold is None:
            threshold = operating_threshold(self.scores, self.labels, self.i, self.j, self.clusters, objective,
                                            clustering)
        proposed = None
        if candidates and self.method is not None:
            index = self.method_index()
            proposed = proposed_pairs(self.method, index[self.i], index[self.j], threshold)
        out = evaluate_scores(self.scores, self.labels, self.i, self.j, n, self.clusters, threshold,
                              objective, clustering, proposed)
        out.update(self.copy_measures(threshold, clustering, proposed))
        out["candidate_recall"] = float("nan")  # the share of the true pairs the index proposes
        if proposed is not None and np.isfinite(threshold) and np.any(self.labels):
            out["candidate_recall"] = float(proposed[self.labels].mean())
        return out

    def copy_measures(self, threshold: float, clustering: str, proposed: np.ndarray | None = None) -> dict[str, float]:
        """Pair P/R/F1 of the copies ``dedup`` lists at ``threshold`` (pairs its index proposes --
        ``proposed``, when given -- scoring at least that, whose relation is ``duplicate``,
        ``contains`` or ``contained``: not ``shares``) and B-cubed F1 of the clusters it makes of
        them -- the outcome a user gets, by ``dedup``'s own :func:`~neardup.relations.copy_edges`
        and clustering; NaN with relations off."""
        keys = ("copy_precision", "copy_recall", "copy_f1", "copy_b3_f1")
        if self.coverage is None or not np.isfinite(threshold):
            return dict.fromkeys(keys, float("nan"))
        from ..cluster import labels_by
        from ..relations import copy_edges
        from .cluster_measures import b3
        from .measures import flagged, prf

        keep = flagged(self.scores, threshold)
        if proposed is not None:
            keep &= proposed
        a = np.minimum(self.i[keep], self.j[keep])
        b = np.maximum(self.i[keep], self.j[keep])
        _, copy, weight = copy_edges(a, b, self.coverage, self.min_coverage)
        tp = int(np.count_nonzero(copy & self.labels[keep]))
        pair = prf(tp, int(np.count_nonzero(copy)) - tp, int(np.count_nonzero(self.labels)) - tp)
        labels = labels_by(clustering, len(self.data.ids), a[copy], b[copy], weight)
        return dict(zip(keys, (pair.precision, pair.recall, pair.f1, b3(labels, self.clusters).f1)))


def trained(method: str, params: dict[str, Any], data: LabeledSet, docs: np.ndarray | None = None) -> Method:
    """A new ``method``; one that learns is first trained on ``data`` (its documents ``docs``), on its
    :func:`true_clusters` (for labeled pairs, the stories their positive pairs make)."""
    m = get_method(method, **params)
    if m.learns:
        docs = np.arange(len(data)) if docs is None else np.asarray(docs)
        m.fit([data.texts[d] for d in docs.tolist()], true_clusters(data)[docs])
    return m


def score_dataset(data: LabeledSet, m: Method, coverage: Coverage | None = None,
                  min_coverage: float = DEFAULT_MIN_COVERAGE) -> Scored:
    """Sketch ``data`` with the method ``m`` and score every pair (``coverage``: the passages
    the pairs share, for the relation-aware ``copy_`` measures; see
    :func:`~neardup.evaluate.copies.aligned_coverage`)."""
    start = time.perf_counter()
    c = sketch_all(data, m)
    i, j, s, y = scored_pairs(data, c)
    return Scored(data, c, i, j, s, y, true_clusters(data), time.perf_counter() - start, None, coverage,
                  min_coverage)


def cluster_folds(cluster: np.ndarray, folds: int, seed: int) -> np.ndarray:
    """Fold number of each document; all documents of a cluster share a fold."""
    rng = np.random.default_rng(seed)
    keys = np.where(cluster >= 0, cluster, cluster.max(initial=0) + 1 + np.arange(cluster.shape[0]))
    unique = np.unique(keys)
    fold_of = dict(zip(unique.tolist(), rng.permutation(unique.shape[0]) % folds))
    return np.array([fold_of[k] for k in keys.tolist()], dtype=np.int64)


def half_splits(cluster: np.ndarray, splits: int, seed: int) -> list[np.ndarray]:
    """Development masks of ``splits`` random halves of the clusters (seeds ``seed``, ``seed + 1``, ...).

    Fewer than two clusters of two or more documents is a :class:`UserError`: one half would hold no
    near-duplicate pair, so every split would tune on nothing or report F1 0 on nothing.
    """
    stories = int(np.count_nonzero(np.bincount(cluster[cluster >= 0]) > 1))
    if stories < 2:
        raise UserError(f"split halves (--folds, --learning-curve) need at least two stories of two or more "
                        f"documents, one for each half; the data has {stories}")
    return [cluster_folds(cluster, 2, seed + r) == 0 for r in range(splits)]


def _header(scored: Scored, name: str) -> dict[str, Any]:
    return {
        "method": name,
        "params": scored.method.method.applied_params() if scored.method else {},
        "dataset": scored.data.name,
        "documents": len(scored.data.ids),
        "rejected": scored.data.stats.counts()["rejected"],
        "pairs": int(scored.scores.shape[0]),
        "positives": int(np.count_nonzero(scored.labels)),
        "seconds": round(scored.seconds, 3),
    }


def mean_and_spread(runs: list[dict[str, Any]], keys: tuple[str, ...]) -> dict[str, float]:
    """Mean and standard deviation over ``runs`` of each key (NaN runs ignored)."""
    out = {}
    for key in keys:
        values = np.array([r[key] for r in runs], dtype=np.float64)
        finite = np.isfinite(values).any()
        out[key] = float(np.nanmean(values)) if finite else float("nan")
        out[key + "_std"] = float(np.nanstd(values)) if finite else float("nan")
    return out


def held_out(scored: Scored, dev: np.ndarray, objective: str = "pair", threshold: float | None = None,
             clustering: str = CLUSTERINGS[0]) -> dict[str, Any]:
    """The held-out half (``~dev``) at the threshold chosen by ``objective`` on the development half
    ``dev`` (or at the given ``threshold``)."""
    tuned = scored.subset(dev).report(threshold, candidates=False, objective=objective, clustering=clustering)
    out = scored.subset(~dev).report(tuned["threshold"], clustering=clustering)
    out["dev_max_f1"] = tuned["max_f1"]
    return out


def evaluate(
    data: LabeledSet,
    method: str,
    params: dict[str, Any],
    tune: LabeledSet | None = None,
    splits: int | None = None,
    split_seed: int = 0,
    objective: str = "pair",
    threshold: float | None = None,
    clustering: str = CLUSTERINGS[0],
    coverage: Coverage | None = None,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
) -> tuple[dict[str, Any], Scored]:
    """One method on one dataset: a JSON-ready report (see the module docstring).

    The threshold is chosen by ``objective`` (``pair``: Max F1; ``bcubed``: best B-cubed
    F1 of the clusters ``dedup --no-relations`` makes, by ``clustering``), or fixed by
    ``threshold``.  With ``coverage`` (the passages ``data``'s pairs share) the report also
    has the ``copy_`` measures (:mod:`neardup.evaluate.copies`): what ``dedup``, relations on at ``min_coverage``, gives at
    that threshold.

    Also returns the scored pairs, for plots (of the first split's model, for a method
    that learns).
    """
    if tune is not None:
        m = trained(method, params, tune)
        dev = score_dataset(tune, m).report(threshold, False, objective, clustering)
        scored = score_dataset(data, m, coverage, min_coverage)
        report = _header(scored, method)
        report.update(scored.report(dev["threshold"], clustering=clustering))
        report["tuned_on"] = tune.name
        report["tune_max_f1"] = dev["max_f1"]
        return _how(report, objective, clustering, threshold), scored
    if not splits:
        scored = score_dataset(data, get_method(method, **params), coverage, min_coverage)
        report = {**_header(scored, method), **scored.report(threshold, objective=objective, clustering=clustering)}
        return _how(report, objective, clustering, threshold), scored
    masks = half_splits(true_clusters(data), splits, split_seed)  # by story, also for labeled pairs
    if get_method(method, **params).learns:  # one model per development half
        every = [score_dataset(data, trained(method, params, data, np.flatnonzero(dev)), coverage, min_coverage)
                 for dev in masks]
    else:  # one scoring serves every split
        every = [score_dataset(data, get_method(method, **params), coverage, min_coverage)] * splits
    runs = [held_out(scored, dev, objective, threshold, clustering) for scored, dev in zip(every, masks)]
    report = _header(every[0], method)
    report.update(mean_and_spread(runs, REPORT_KEYS + ("dev_max_f1",)))
    report.update({"splits": splits, "split_seed": split_seed, "per_split": runs})
    report.update(recommended(runs))
    return _how(report, objective, clustering, threshold), every[0]


def recommended(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The threshold to use after split-half runs: the median of the thresholds the splits chose
    (the lower middle one for an even count), so it is one that *was* evaluated -- on that
    split's held-out half -- unlike their mean; with the range of the chosen thresholds."""
    thresholds = np.array([r["threshold"] for r in runs], dtype=np.float64)
    order = np.argsort(thresholds, kind="stable")
    k = int(order[(len(runs) - 1) // 2])
    return {"recommended_threshold": float(thresholds[k]), "recommended_split": k,
            "threshold_range": [float(thresholds.min()), float(thresholds.max())]}


def _how(report: dict[str, Any], objective: str, clustering: str, threshold: float | None) -> dict[str, Any]:
    """``report`` with how its threshold was set and its clusters made."""
    report.update({"objective": objective, "clustering": clustering, "fixed_threshold": threshold})
    return report
