"""The rows of ``dedup``'s tables: a pair and a cluster as found, and as written (``pairs``, ``clusters``).

Apart from the pipeline so that every writer of these tables makes its rows with the same two
functions -- the driver's (:class:`neardup.run.DedupTask`) and the Spark executors'
(:mod:`neardup.engines.spark_output`), whose part files must hold the local engine's bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np


@dataclass
class Pair:
    """A pair the method found: ids in input order, the method's similarity and, unless relations
    are off, the relation, the share of each document inside the shared passages and the
    longest shared passage in words."""

    a: str
    b: str
    score: float
    relation: str | None = None
    coverage_a: float | None = None
    coverage_b: float | None = None
    longest: int | None = None


@dataclass
class Removed:
    """A clustered document a deduplicated set leaves out: the kept one that covers it, and how far."""

    id: str
    kept: str
    coverage: float


@dataclass
class Cluster:
    """A group of two or more copies, the representative (kept) and the members it is safe to drop."""

    cluster: int
    ids: list[str]
    representative: str
    removed: list[Removed] = field(default_factory=list)


def pairs_of(a: list[str], b: list[str], scores: list[float], relations: list[str] | None = None,
             cov_a: np.ndarray | None = None, cov_b: np.ndarray | None = None,
             longest: np.ndarray | None = None) -> list[Pair]:
    """The :class:`Pair` of each ``(a[i], b[i])`` with its score and, given ``relations`` (names), its
    coverages (rounded to 4 places) and longest passage: a batch of the ``pairs`` table."""
    if relations is None or cov_a is None or cov_b is None or longest is None:
        return [Pair(x, y, s) for x, y, s in zip(a, b, scores)]
    ca, cb, lg = np.round(cov_a, 4).tolist(), np.round(cov_b, 4).tolist(), longest.tolist()
    return [Pair(x, y, s, q, u, v, w) for x, y, s, q, u, v, w in zip(a, b, scores, relations, ca, cb, lg)]


def removed_of(members: list[str], kept: Sequence[str | None], coverage: np.ndarray) -> list[Removed]:
    """The members of a cluster a deduplicated set drops (``kept[i]``: the kept document covering
    member ``i``, ``None`` for a kept one) with their ``coverage`` by it, rounded to 4 places."""
    cov = np.round(coverage, 4).tolist()
    return [Removed(i, k, c) for i, k, c in zip(members, kept, cov) if k is not None]


def pair_row(p: Pair) -> dict[str, Any]:
    """A ``pairs`` row: ids, score and, with relations, the relation, coverages and longest passage."""
    row: dict[str, Any] = {"a": p.a, "b": p.b, "score": round(p.score, 6)}
    if p.relation is not None:
        row.update(relation=p.relation, coverage_a=p.coverage_a, coverage_b=p.coverage_b, longest=p.longest)
    return row


def cluster_row(c: Cluster, typed: bool) -> dict[str, Any]:
    """A ``clusters`` row; with relations (``typed``), the members a deduplicated set drops, each with
    the kept document covering it and how far."""
    row: dict[str, Any] = {"cluster": c.cluster, "ids": c.ids, "representative": c.representative}
    if typed:
        row["removed"] = [{"id": r.id, "kept": r.kept, "coverage": r.coverage} for r in c.removed]
    return row
