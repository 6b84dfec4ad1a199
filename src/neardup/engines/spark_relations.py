"""``dedup``'s relations on the Spark executors: each pair typed, the copies clustered, what a
deduplicated set may drop -- the local functions in tasks, nothing per pair or per document on the
driver (issue 32).  Imported only by :mod:`.spark_output`, which writes the tables.

* **coverage** -- the aligner's seed pairs run through the chain kernel
  (:meth:`~.spark_align.SparkAligner.chained_rows`), each document pair's passages whole in one task; each task's passages
  become :class:`~neardup.relations.Coverage` rows there (:meth:`~neardup.relations.Coverage.from_chains`):
  ``(a, b, cov_a, cov_b, longest, new_a, new_b)`` per pair sharing a valid passage.  No passage
  leaves the task (the local path collects every chain to the driver);
* **relations** -- the method's pairs left-joined with the coverage; per batch,
  :func:`~neardup.relations.copy_edges` of the batch's pairs against the batch's coverage rows (a
  pair's relation depends on its own row only): its relation, coverages, longest passage, whether
  it is a copy and its edge weight;
* **clusters** -- the copies' connected components (:func:`~.spark_components.connected_components`),
  dealt into groups; per group the local clustering (:func:`~.spark_components.cluster_group`) and
  :func:`~neardup.relations.removals` of the group's coverage rows inside one component (the
  coverage rows of a cluster's members always are): clusters and removals never cross a
  component, and rows renumbered in order keep every order the two use (input order, first
  members, ranks), so each group's answer is the local one's;
* **counts** -- pairs per relation (five rows), the coverage rows, the removed documents and the
  smallest coverage of one by its kept document: aggregates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ..relations import RELATIONS, Coverage, aligned_counts, copy_edges, removals
from .shards import read_stored, stored
from .spark_components import (PAIRS_PER_GROUP, cluster_group, connected_components, group_count, grouped,
                               stored_in_order)
from .spark_batches import each_batch, one_thread

if TYPE_CHECKING:
    from .base import Relating
    from .spark_align import SparkAligner

#: :class:`~neardup.relations.Coverage`'s columns, one row per pair sharing a valid passage.
COVERAGE = "a long, b long, cov_a double, cov_b double, longest long, new_a long, new_b long"
#: The method's pairs typed (``weight``: a copy's edge weight, 0 for the others).
TYPED = "a long, b long, score double, relation long, cov_a double, cov_b double, longest long, copy boolean, weight double"
#: A cluster with what a deduplicated set drops: per member the kept document covering it (-1: kept) and how far.
CLUSTERS = "first long, members array<long>, representative long, kept array<long>, coverage array<double>"
_COLUMNS = ("a", "b", "cov_a", "cov_b", "longest", "new_a", "new_b")


def related(pairs: DataFrame, relating: "Relating", work: str) -> tuple[DataFrame, int, DataFrame | None, dict[str, Any]]:
    """The method's ``pairs`` ``(a, b, score)`` typed by ``relating``'s aligner: the listed ones
    (:data:`TYPED`, stored), how many, the clusters (:data:`CLUSTERS`, stored in order:
    :func:`~.spark_components.stored_in_order`; ``None``: no copy) and the
    summary's entries of the relations (``duplicates_removable`` ... ``aligned``), from aggregates."""
    spark = pairs.sparkSession
    aligner: SparkAligner = relating.aligner
    coverage = aligned_coverage(spark, aligner, work)
    typed = stored(typed_pairs(pairs, coverage, relating.min_coverage), f"{work}/typed")
    per_relation = dict.fromkeys(range(len(RELATIONS)), 0)
    stored(typed.groupBy("relation").count(), f"{work}/relation_counts")  # five rows at most, read by pyarrow
    counted = read_stored(f"{work}/relation_counts", ["relation", "count"])
    per_relation.update(zip(counted["relation"].to_pylist(), counted["count"].to_pylist()))
    codes = [RELATIONS.index(name) for name in relating.listed]
    n_copies = sum(per_relation[k] for k in range(3))
    clusters = None
    if n_copies:
        copies = typed.where("copy").select("a", "b", F.col("weight").alias("score"))
        components = stored(connected_components(copies, n_copies <= PAIRS_PER_GROUP), f"{work}/copy_components")
        clusters = stored_in_order(relation_clusters(copies, coverage, components, relating.cluster,
                                                     relating.unique_coverage, group_count(spark, n_copies)),
                                   False, f"{work}/clusters")
    removable, smallest = 0, None
    if clusters is not None:
        kept = clusters.select(F.explode(F.arrays_zip("kept", "coverage")).alias("m")).where("m.kept >= 0")
        got = kept.agg(F.count(F.lit(1)), F.min("m.coverage")).first()
        assert got is not None  # an aggregate without grouping: one row
        removable, smallest = int(got[0]), (round(float(got[1]), 4) if got[0] else None)
    summary = {"duplicates_removable": removable, "smallest_removed_coverage": smallest,
               "relations": {name: per_relation[k] for k, name in enumerate(RELATIONS)},
               "relations_listed": list(relating.listed), "aligned": aligned_counts(coverage.count(), aligner.counts)}
    return typed.where(F.col("relation").isin(codes)), sum(per_relation[k] for k in codes), clusters, summary


def aligned_coverage(spark: Any, aligner: "SparkAligner", work: str) -> DataFrame:
    """Stages 0-2 of ``aligner``, then the chain kernel with each task's passages as
    :class:`~neardup.relations.Coverage` rows (:data:`COVERAGE`), stored; ``aligner.counts`` as
    its local run leaves them."""
    if not aligner.begin():
        return spark.createDataFrame([], COVERAGE)

    def rows(out: np.ndarray, cov: np.ndarray) -> pd.DataFrame:
        c = Coverage.from_chains([(out, cov)])
        return pd.DataFrame({name: getattr(c, name) for name in _COLUMNS})

    coverage, _ = aligner.chained_rows(spark, rows, COVERAGE)
    return stored(coverage, f"{work}/coverage")


def _coverage_of(frame: pd.DataFrame) -> Coverage:
    """The :class:`~neardup.relations.Coverage` of ``frame``'s rows (:data:`COVERAGE`'s columns), sorted by ``(a, b)``."""
    order = np.lexsort((frame["b"].to_numpy(np.int64), frame["a"].to_numpy(np.int64)))
    ints, floats = ("a", "b", "longest", "new_a", "new_b"), ("cov_a", "cov_b")
    cols = {c: frame[c].to_numpy(np.int64)[order] for c in ints} | {c: frame[c].to_numpy(np.float64)[order] for c in floats}
    return Coverage(**cols)


def typed_pairs(pairs: DataFrame, coverage: DataFrame, min_coverage: float) -> DataFrame:
    """Each of the method's ``pairs`` with its relation, coverages, longest passage, whether it is a
    copy and its weight (:func:`~neardup.relations.copy_edges` per batch): :data:`TYPED`."""

    def fn(frame: pd.DataFrame) -> pd.DataFrame:
        shared = frame["cov_a"].notna().to_numpy()
        a, b = frame["a"].to_numpy(np.int64), frame["b"].to_numpy(np.int64)
        related, copy, weight = copy_edges(a, b, _coverage_of(frame[shared]), min_coverage)
        weights = np.zeros(a.shape[0])
        weights[copy] = weight
        return pd.DataFrame({"a": a, "b": b, "score": frame["score"].to_numpy(np.float64),
                             "relation": related.relation, "cov_a": related.cov_a, "cov_b": related.cov_b,
                             "longest": related.longest, "copy": copy, "weight": weights})

    return pairs.join(coverage, ["a", "b"], "left").mapInPandas(each_batch(fn), TYPED)


def relation_clusters(copies: DataFrame, coverage: DataFrame, components: DataFrame, clustering: str,
                      unique_coverage: float, groups: int) -> DataFrame:
    """The clusters of the ``copies`` (``a``, ``b``, ``score``: their weights) by ``clustering``, each with its
    representative and, per member, the kept document covering it at least ``unique_coverage`` and how far
    (:func:`~neardup.relations.removals` of the ``coverage`` rows inside a component): :data:`CLUSTERS`."""
    ends = components.select(F.col("row").alias("b"), F.col("comp").alias("comp_b"))
    inside = grouped(coverage.join(ends, "b"), components, groups).where(F.col("comp") == F.col("comp_b"))

    def fn(edges: pd.DataFrame, shared: pd.DataFrame) -> pd.DataFrame:
        one_thread()
        nodes, found = cluster_group(edges, clustering)
        local = shared.assign(a=np.searchsorted(nodes, shared["a"].to_numpy(np.int64)),
                              b=np.searchsorted(nodes, shared["b"].to_numpy(np.int64)))
        kept_for, kept_cov, reps = removals(nodes.shape[0], found, _coverage_of(local), unique_coverage)
        kept = np.where(kept_for >= 0, nodes[np.maximum(kept_for, 0)], -1)
        return pd.DataFrame({"first": [int(nodes[g[0]]) for g in found], "members": [nodes[g] for g in found],
                             "representative": nodes[reps], "kept": [kept[g] for g in found],
                             "coverage": [kept_cov[g] for g in found]})

    return (grouped(copies, components, groups).groupBy("group")
            .cogroup(inside.groupBy("group")).applyInPandas(fn, CLUSTERS))
