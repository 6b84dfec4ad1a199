"""Connected components and clusters of the verified pairs on Spark (imported only by the Spark engine).

* :func:`connected_components` -- each task's edges joined by the local union-find, then
  large-star / small-star (Kiveris et al. 2014) in the DataFrame API until the edges are
  stars: no extra Java packages;
* :func:`clusters` -- the local clustering (:func:`neardup.cluster.clusters_from_pairs`)
  of each component's pairs, in ``(a, b)`` order: label propagation, leader and
  components never cross a component, so per component they give the local answer;
* :func:`clustered` -- the two, or, when the pairs are few enough for one call
  (:data:`PAIRS_PER_GROUP`), the local clustering of all of them in one task: no components needed;
* :func:`stored_in_order` -- clusters stored sorted by first member, with their sizes: what the
  writer numbers and counts them by without a job of its own (:mod:`.spark_output`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StructField, StructType

from ..cluster import cluster_labels, clusters_from_pairs
from .shards import stage_writer, stored
from .spark_batches import one_thread

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: Pairs clustered in one call, about (components are dealt into groups of this size).
PAIRS_PER_GROUP = 500_000
#: The clusters' columns: the first member and the members, sorted.
CLUSTERED = "first long, members array<long>"
#: Rounds of large-star + small-star at most (each at least halves the components' depth).
MAX_STAR_ROUNDS = 64



def connected_components(edges: DataFrame, one_task: bool = False) -> DataFrame:
    """``(row, comp)`` of every row in ``edges`` (columns ``a``, ``b``): comp = smallest row of its component.

    ``one_task``: the edges are few enough for one task (the engine says when): they are read
    into one partition (no shuffle) and its union-find is the answer -- one Spark job, where the
    rounds below and their tests are a dozen.

    Otherwise, first each task's own edges are joined by the local union-find (:func:`_local_stars`):
    every node linked to the smallest node of its component among the task's edges --
    stars already, unless a component's edges fell into several tasks.  Then, until the
    edges form stars around the smallest row of each component (every node has one
    target, and no target has one of its own: an exact test, :func:`_stars`), rounds of
    large-star / small-star (Kiveris et al. 2014): large-star links every neighbour
    larger than a node to the node's smallest neighbour; small-star links each node's
    smaller neighbours to the smallest of them.  Each round is a few group-bys and joins,
    checkpointed.  Every Spark job costs a fixed time on a small master, and a component
    found whole in one task needs no round.
    """
    if one_task:
        return edges.select("a", "b").coalesce(1).mapInPandas(_components, "row long, comp long")
    edges_now = edges.select("a", "b").mapInPandas(_local_stars, "u long, v long").localCheckpoint()
    for _ in range(MAX_STAR_ROUNDS):
        if _stars(edges_now):
            break
        both = edges_now.unionByName(edges_now.select(F.col("v").alias("u"), F.col("u").alias("v")))
        low = both.groupBy("u").agg(F.min("v").alias("m")).withColumn("m", F.least("m", "u"))
        large = (both.join(low, "u").where(F.col("v") > F.col("u"))
                 .select(F.col("v").alias("u"), F.col("m").alias("v")).distinct())
        low = large.groupBy("u").agg(F.min("v").alias("m"))
        edges_now = (large.join(low, "u").where(F.col("v") != F.col("m"))
                     .select(F.col("v").alias("u"), F.col("m").alias("v"))
                     .unionByName(low.select("u", F.col("m").alias("v"))).distinct()).localCheckpoint()
    else:
        raise RuntimeError(f"connected components did not settle in {MAX_STAR_ROUNDS} rounds")
    return (edges_now.select(F.col("u").alias("row"), F.col("v").alias("comp"))
            .unionByName(edges_now.select(F.col("v").alias("row"), F.col("v").alias("comp"))).distinct())


def _local_stars(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """A task's edges ``(a, b)`` as ``u -> v``: each node but the smallest of its component (among
    these edges) to that smallest node."""
    for nodes, smallest in _smallest(frames):
        keep = nodes != smallest
        yield pd.DataFrame({"u": nodes[keep], "v": smallest[keep]})


def _components(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """``(row, comp)`` of every node of a task's edges ``(a, b)``: the components when the task has them all."""
    for nodes, smallest in _smallest(frames):
        yield pd.DataFrame({"row": nodes, "comp": smallest})


def _smallest(frames: Iterator[pd.DataFrame]) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """The nodes of a task's edges ``(a, b)`` and the smallest node of each one's component among these
    edges (:func:`neardup.cluster.cluster_labels`); nothing when the task has no edge."""
    one_thread()
    got = [(f["a"].to_numpy(np.int64), f["b"].to_numpy(np.int64)) for f in frames]
    if not got:
        return
    a, b = np.concatenate([x for x, _ in got]), np.concatenate([y for _, y in got])
    nodes = np.unique(np.concatenate([a, b]))
    labels = cluster_labels(nodes.shape[0], np.searchsorted(nodes, a), np.searchsorted(nodes, b))
    yield nodes, nodes[np.unique(labels, return_index=True)[1]][labels]  # labels count in node order


def _stars(edges: DataFrame) -> bool:
    """Whether the edges ``u -> v`` (``u > v``; the same edge may come twice) are stars: one target
    per ``u``, and no edge out of any target.  One group-by over both ends of every edge."""
    ends = (edges.select(F.col("u").alias("n"), F.col("v").alias("t"), F.lit(False).alias("target"))
            .unionByName(edges.select(F.col("v").alias("n"), F.lit(None).cast("long").alias("t"),
                                      F.lit(True).alias("target"))))
    bad = ends.groupBy("n").agg(F.min("t").alias("lo"), F.max("t").alias("hi"), F.max("target").alias("target"))
    return bad.where((F.col("lo") != F.col("hi")) | (F.col("lo").isNotNull() & F.col("target"))).isEmpty()


def group_count(spark: "SparkSession", pairs: int) -> int:
    """Groups of components for :func:`clusters`: the shuffle's partitions, or more so that a group holds
    about :data:`PAIRS_PER_GROUP` of the ``pairs``."""
    return max(int(str(spark.conf.get("spark.sql.shuffle.partitions"))), pairs // PAIRS_PER_GROUP + 1)


def grouped(pairs: DataFrame, components: DataFrame, groups: int) -> DataFrame:
    """``pairs`` (``a``, ``b``) with the ``group`` of their component: components are dealt into
    ``groups`` groups by a hash of their id (see :func:`clusters`)."""
    return pairs.join(components.select(F.col("row").alias("a"), "comp"), "a").withColumn(
        "group", F.pmod(F.xxhash64("comp"), F.lit(groups)))


def cluster_group(frame: pd.DataFrame, clustering: str) -> tuple[np.ndarray, list[np.ndarray]]:
    """The local clustering of a group's pairs (``a``, ``b``, ``score``), in ``(a, b)`` order: its rows
    (sorted) and its clusters as indices into them."""
    one_thread()
    frame = frame.sort_values(["a", "b"], kind="stable")
    a, b = frame["a"].to_numpy(np.int64), frame["b"].to_numpy(np.int64)
    nodes = np.unique(np.concatenate([a, b]))
    return nodes, clusters_from_pairs(nodes.shape[0], np.searchsorted(nodes, a), np.searchsorted(nodes, b),
                                      frame["score"].to_numpy(np.float64), clustering)


def clustered(pairs: DataFrame, n_pairs: int, clustering: str, components: str, path: str) -> DataFrame:
    """``(first, members)`` of every cluster of two or more rows of the ``n_pairs`` ``pairs``, stored at
    ``path`` in order (:func:`stored_in_order`): when they are at most :data:`PAIRS_PER_GROUP`, one
    group -- read into one partition (no shuffle) and clustered by one call, the local engine's own, in
    one Spark job where the components and the groups' shuffle are four; otherwise the
    :func:`connected_components` (stored at ``components``), then :func:`clusters`."""
    if n_pairs <= PAIRS_PER_GROUP:
        def whole(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
            got = [frame for frame in frames if len(frame)]
            if got:
                yield _clusters_of(pd.concat(got, ignore_index=True), clustering)

        return stored_in_order(pairs.select("a", "b", "score").coalesce(1).mapInPandas(whole, CLUSTERED), True, path)
    found = stored(connected_components(pairs), components)
    return stored_in_order(clusters(pairs, found, clustering, group_count(pairs.sparkSession, n_pairs)), False, path)


def stored_in_order(clusters: DataFrame, one_partition: bool, path: str) -> DataFrame:
    """``clusters`` (``first``, ``members``, ...) stored at ``path`` and read back, sorted by first member
    over the part files in name order (a global sort writes them so; ``one_partition``: the clusters
    are in one partition, sorted there without a shuffle), with each one's ``size`` and ``through``,
    the running total of the sizes in its part file (one file per task).  A cluster's rank is then
    its file's offset plus its row index there, and the counts are the footers': the writer reads
    them without a job (:func:`~.spark_output.written`)."""
    ordered = clusters.sortWithinPartitions("first") if one_partition else clusters.orderBy("first")
    schema = StructType([*clusters.schema.fields, StructField("size", LongType()), StructField("through", LongType())])

    def running(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        through = 0
        for frame in frames:
            sizes = frame["size"].to_numpy(np.int64)
            totals = through + np.cumsum(sizes)
            yield frame.assign(through=totals)
            through = int(totals[-1]) if len(frame) else through

    sized = ordered.withColumn("size", F.size("members").cast("long"))
    stage_writer(sized.mapInPandas(running, schema)).option("maxRecordsPerFile", 0).parquet(path)
    return clusters.sparkSession.read.schema(schema).parquet(path)


def _clusters_of(frame: pd.DataFrame, clustering: str) -> pd.DataFrame:
    """:data:`CLUSTERED` of a group's pairs (:func:`cluster_group`)."""
    nodes, found = cluster_group(frame, clustering)
    return pd.DataFrame({"first": [int(nodes[g[0]]) for g in found], "members": [nodes[g] for g in found]})


def clusters(pairs: DataFrame, components: DataFrame, clustering: str, groups: int) -> DataFrame:
    """``(first, members)`` of every cluster of two or more rows (members sorted).

    Components are dealt into ``groups`` groups by a hash of their id, and each group's
    pairs are clustered at once: whole components that share no pair cluster as they
    would alone, and one call per group instead of per component keeps Python's
    per-call cost off a million small components.
    """
    return (grouped(pairs, components, groups).groupBy("group")
            .applyInPandas(lambda frame: _clusters_of(frame, clustering), CLUSTERED))
