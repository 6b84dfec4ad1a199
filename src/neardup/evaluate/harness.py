"""The evaluation harness behind ``neardup eval``: labeled data in, the papers' measures out.

A labeled dataset is read through the same input stage as ``dedup`` (so HTML pages are
extracted the same way), the method sketches every document, and **every** pair is
scored with the method's own similarity (the signature estimate for signature
methods), so numbers compare with the papers.  Separately, the method's candidate
generation (LSH, supershingles) is run at the reported threshold and its recall of the
true pairs is reported: the share of duplicates a real ``dedup`` run could find.

Thresholds are chosen honestly when asked: ``tune`` picks the Max-F1 threshold on a
development set and reports the dataset at it; ``folds`` splits one dataset by cluster,
tunes on the other folds and reports each held-out fold (mean and spread).  Without
either, Max F1 on the dataset itself is reported, as the papers do.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from ..extract import DEFAULT_EXTRACTOR
from ..io.readers import read_input
from ..methods import get_method
from ..methods.base import Method
from ..pipeline import RunStats, documents
from .measures import evaluate_scores

#: Above this many documents, scoring every pair is refused (it grows quadratically).
MAX_ALL_PAIRS_DOCS = 8000

REPORT_KEYS = (
    "max_f1", "threshold", "precision", "recall", "f1", "auroc", "mcc", "pearson",
    "b3_precision", "b3_recall", "b3_f1", "candidate_recall",
)


@dataclass
class LabeledSet:
    """Documents with their cluster (``-1``: in no cluster) and optional labeled pairs."""

    name: str
    ids: list[str]
    texts: list[str]
    cluster: np.ndarray
    stats: RunStats
    pairs: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self.ids)


def _cluster_codes(names: list[str | None]) -> np.ndarray:
    """Integer codes of cluster names in order of first appearance; ``None`` -> -1."""
    codes: dict[str, int] = {}
    return np.array([-1 if c is None else codes.setdefault(c, len(codes)) for c in names], dtype=np.int64)


def read_truth_clusters(path: str | Path) -> dict[str, str]:
    """Map id -> cluster from a ground-truth JSONL (``{"type": "cluster", "cluster", "ids"}``)."""
    mapping: dict[str, str] = {}
    for number, line in enumerate(Path(path).read_bytes().splitlines(), start=1):
        if not line.strip():
            continue
        rec = orjson.loads(line)
        if rec.get("type", "cluster") == "cluster" and "ids" in rec:
            for rid in rec["ids"]:
                mapping[str(rid)] = str(rec["cluster"])
    return mapping


def load_labeled(
    path: str | Path,
    extract: str = DEFAULT_EXTRACTOR,
    truth: str | Path | None = None,
    pairs: str | Path | None = None,
    prefer_html: bool = False,
) -> LabeledSet:
    """Read a labeled dataset in any of the layouts ``neardup eval`` accepts.

    * a directory with one sub-folder per cluster (the GoldSet layout): the cluster of a
      page is its first path component; files at the top level are in no cluster;
    * JSONL or Parquet records with a ``cluster`` field (absent: in no cluster);
    * any input plus ``truth``: a ground-truth JSONL of clusters (as ``neardup synth``
      writes) naming the cluster of each id;
    * any input plus ``pairs``: a JSONL of labeled pairs ``{"a", "b", "label"}``.
    """
    stats = RunStats()
    by_truth = read_truth_clusters(truth) if truth else None
    is_dir = Path(path).is_dir()
    ids, texts, names = [], [], []
    for record, text in documents(read_input(path, prefer_html), extract, stats):
        ids.append(record.id)
        texts.append(text)
        if by_truth is not None:
            names.append(by_truth.get(record.id))
        elif is_dir:
            names.append(record.id.split("/")[0] if "/" in record.id else None)
        else:
            value = record.fields.get("cluster")
            names.append(None if value is None else str(value))
    stats.kept = len(ids)
    data = LabeledSet(Path(path).name, ids, texts, _cluster_codes(names), stats)
    if pairs:
        data.pairs = _read_labeled_pairs(pairs, {rid: n for n, rid in enumerate(ids)})
    return data


def _read_labeled_pairs(path: str | Path, index: dict[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a, b, y = [], [], []
    for number, line in enumerate(Path(path).read_bytes().splitlines(), start=1):
        if not line.strip():
            continue
        rec = orjson.loads(line)
        try:
            a.append(index[str(rec["a"])])
            b.append(index[str(rec["b"])])
        except KeyError as exc:
            raise ValueError(f"{path}:{number}: pair names unknown document {exc}") from None
        y.append(bool(rec["label"]))
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    return lo.astype(np.int64), hi.astype(np.int64), np.array(y, dtype=bool)


def sketch_all(data: LabeledSet, method: str, params: dict[str, Any], batch: int = 2000) -> Method:
    """A method with every document of ``data`` added and finalized."""
    m = get_method(method, **params)
    for lo in range(0, len(data), batch):
        m.add(data.texts[lo : lo + batch])
    m.finalize()
    return m


def scored_pairs(data: LabeledSet, m: Method) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(i, j, score, label)`` for every pair (or the labeled pairs) of ``data``."""
    if data.pairs is not None:
        i, j, y = data.pairs
    else:
        if len(data) > MAX_ALL_PAIRS_DOCS:
            raise ValueError(
                f"{data.name}: {len(data):,} documents are too many to score every pair "
                f"(limit {MAX_ALL_PAIRS_DOCS:,}); give labeled pairs with --pairs"
            )
        i, j = np.triu_indices(len(data), k=1)
        y = (data.cluster[i] == data.cluster[j]) & (data.cluster[i] >= 0)
    return i, j, m.score(i, j), y


def true_clusters(data: LabeledSet) -> np.ndarray:
    """Cluster per document; for pair-labeled data, the components of the positive pairs."""
    if data.pairs is None:
        return data.cluster
    from ..cluster import cluster_labels

    i, j, y = data.pairs
    return cluster_labels(len(data), i[y], j[y])


def candidate_recall(m: Method, i: np.ndarray, j: np.ndarray, y: np.ndarray, threshold: float) -> float:
    """Share of the true pairs that the method's index proposes at ``threshold``."""
    if not np.any(y) or not np.isfinite(threshold):
        return float("nan")
    saved = m.threshold
    m.threshold = float(min(max(threshold, 1e-6), 1.0))
    try:
        a, b = m.candidate_pairs()
    finally:
        m.threshold = saved
    n = len(m)
    found = np.isin(i[y] * n + j[y], a * n + b)
    return float(found.mean())


@dataclass
class Scored:
    """A dataset scored by one method: everything needed to report at any threshold."""

    data: LabeledSet
    method: Method | None
    i: np.ndarray
    j: np.ndarray
    scores: np.ndarray
    labels: np.ndarray
    clusters: np.ndarray
    seconds: float

    def subset(self, docs: np.ndarray) -> "Scored":
        """The pairs among the documents where the boolean ``docs`` is true, reindexed.

        The subset keeps no method (its index covers the whole dataset).
        """
        keep = docs[self.i] & docs[self.j]
        new_index = np.cumsum(docs) - 1
        ids = [rid for rid, k in zip(self.data.ids, docs) if k]
        sub = LabeledSet(self.data.name, ids, [], self.data.cluster[docs], self.data.stats)
        return Scored(
            sub, None, new_index[self.i[keep]], new_index[self.j[keep]], self.scores[keep],
            self.labels[keep], self.clusters[docs], self.seconds,
        )

    def report(self, threshold: float | None = None) -> dict[str, Any]:
        """The measures at ``threshold`` (Max-F1 threshold when None)."""
        out = evaluate_scores(
            self.scores, self.labels, self.i, self.j, len(self.data.ids), self.clusters, threshold
        )
        out["candidate_recall"] = (
            float("nan")
            if self.method is None
            else candidate_recall(self.method, self.i, self.j, self.labels, out["threshold"])
        )
        return out


def score_dataset(data: LabeledSet, method: str, params: dict[str, Any]) -> Scored:
    """Sketch ``data`` with ``method`` and score every pair."""
    start = time.perf_counter()
    m = sketch_all(data, method, params)
    i, j, s, y = scored_pairs(data, m)
    return Scored(data, m, i, j, s, y, true_clusters(data), time.perf_counter() - start)


def cluster_folds(cluster: np.ndarray, folds: int, seed: int) -> np.ndarray:
    """Fold number of each document; all documents of a cluster share a fold."""
    rng = np.random.default_rng(seed)
    keys = np.where(cluster >= 0, cluster, cluster.max(initial=0) + 1 + np.arange(cluster.shape[0]))
    unique = np.unique(keys)
    fold_of = dict(zip(unique.tolist(), rng.permutation(unique.shape[0]) % folds))
    return np.array([fold_of[k] for k in keys.tolist()], dtype=np.int64)


def _header(scored: Scored, name: str) -> dict[str, Any]:
    return {
        "method": name,
        "params": scored.method.get_params() if scored.method else {},
        "dataset": scored.data.name,
        "documents": len(scored.data.ids),
        "rejected": sum(scored.data.stats.reasons.values()),
        "pairs": int(scored.scores.shape[0]),
        "positives": int(np.count_nonzero(scored.labels)),
        "seconds": round(scored.seconds, 3),
    }


def evaluate(
    data: LabeledSet,
    method: str,
    params: dict[str, Any],
    tune: LabeledSet | None = None,
    folds: int | None = None,
    split_seed: int = 0,
) -> tuple[dict[str, Any], Scored]:
    """One method on one dataset: a JSON-ready report (see the module docstring).

    Also returns the scored pairs, for plots.
    """
    scored = score_dataset(data, method, params)
    report = _header(scored, method)
    if tune is not None:
        dev = score_dataset(tune, method, params).report()
        report.update(scored.report(dev["threshold"]))
        report["tuned_on"] = tune.name
        report["tune_max_f1"] = dev["max_f1"]
    elif folds:
        fold = cluster_folds(data.cluster, folds, split_seed)
        runs = []
        for k in range(folds):
            dev = scored.subset(fold != k).report()
            test = scored.subset(fold == k).report(dev["threshold"])
            runs.append(test)
        for key in REPORT_KEYS[:-1]:  # candidate recall is measured once, on the whole set
            values = np.array([r[key] for r in runs], dtype=np.float64)
            report[key] = float(np.nanmean(values)) if np.isfinite(values).any() else float("nan")
            report[key + "_std"] = float(np.nanstd(values)) if np.isfinite(values).any() else float("nan")
        report["candidate_recall"] = scored.report(report["threshold"])["candidate_recall"]
        report["folds"] = folds
        report["split_seed"] = split_seed
        report["per_fold"] = runs
    else:
        report.update(scored.report())
    return report, scored
