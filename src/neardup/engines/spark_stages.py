"""The stages of ``dedup`` as Spark stages over DataFrames (imported only by the Spark engine).

Every stage is a DataFrame in, a DataFrame out; the work inside a partition is the
method's own compiled stage (``sketch``, ``keys``, ``score``) or the local clustering,
called from ``mapInPandas`` / ``applyInPandas`` on Arrow batches, so the numbers are the
local engine's to the bit.  Rows are the documents' global numbers in input order; no
stage depends on how rows are partitioned or in which order partitions come.

* :func:`statistics` -- a corpus-dependent method's statistics
  (:meth:`~neardup.methods.base.Method.corpus_statistics`): each batch's count tables
  (``Sketches.stats.tables()``) as ``(table, key, count)`` rows, summed by key: the
  collection's, as the local engine's merge of every batch's gives them;
* :func:`sketch` -- ``(row, text)`` -> the method's sketches, one encoded row per document
  (:class:`~neardup.engines.codec.SketchLayout`), finished under the collection's
  statistics when the method needs them (``apply_statistics``), and ``good``: whether the
  document has any feature before that (the local engine's usable rows);
* :func:`key_candidates` -- methods whose candidates share keys (MinHash bands,
  supershingles): ``(band, key, row)`` grouped by ``(band, key)``; every pair of a bucket
  is a candidate, as in :func:`neardup.index.banding.candidate_pairs`, but a bucket is cut
  deterministically into blocks of :data:`BLOCK` rows (by row number) and each pair of
  blocks is one task, so a giant bucket never becomes one task's quadratic list;
* :func:`set_join_candidates` -- exact set joins (ffp, spotsigs): prefix filtering with a
  global feature order by ``(document frequency, hash)``; a document's prefix (the rarest
  ``|A| - o + 1`` features, ``o`` the overlap a partner at least as long needs) is joined
  with the features of the documents at least as long; features in one document only
  are dropped first (they pair nothing).  Complete: a pair at or above the threshold
  shares a prefix feature of its shorter member;
* :func:`verify` -- the candidates range-partitioned by their first row, each task reading
  its candidates' sketches from the stored sketches (:class:`~.shards.RowGroups`; no sketch
  is shuffled), scored by the method's ``score`` (the local engine's kernel: bit-equal
  scores), kept at the threshold;
* :func:`connected_components` -- large-star / small-star (Kiveris et al. 2014) in the
  DataFrame API: star edges, no extra Java packages;
* :func:`clusters` -- the local clustering (:func:`neardup.cluster.clusters_from_pairs`)
  of each component's pairs, in ``(a, b)`` order: label propagation, leader and
  components never cross a component, so per component they give the local answer.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from ..cluster import clusters_from_pairs
from ..index.hamming import choose_blocks, hamming_distances, table_keys
from ..methods.base import CandidatePlan, Method, Sketches
from .codec import SketchLayout
from .shards import RowGroups, read_stored, stored

#: Rows per block of a bucket: a task makes at most BLOCK**2 candidate pairs.
BLOCK = 1024
#: Pairs a pair-making task hands to Spark at once.
FLUSH_PAIRS = 1 << 20
#: Candidate pairs a verification task scores at once (it reads their rows' sketches for them).
VERIFY_CHUNK = 1 << 16
#: Rounds of large-star + small-star at most (each at least halves the components' depth).
MAX_STAR_ROUNDS = 64


def one_thread() -> None:
    """Compiled kernels in a Spark task use one thread: a task is one core's work."""
    import numba

    numba.set_num_threads(1)


def _batches(fn: Callable[[pd.DataFrame], pd.DataFrame | None]) -> Callable[[Iterator[pd.DataFrame]], Iterator[pd.DataFrame]]:
    """A ``mapInPandas`` function applying ``fn`` to each non-empty Arrow batch."""

    def run(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        one_thread()
        for frame in frames:
            if len(frame):
                out = fn(frame)
                if out is not None and len(out):
                    yield out

    return run


# ---------------------------------------------------------------------------- sketch


def statistics(docs: DataFrame, count: Callable[[list[str]], Any], names: list[str]) -> DataFrame:
    """``(table, key, count)``: the count tables ``names`` of each batch's statistic (``count`` of its
    texts: an object with ``tables()``), summed (``table`` is the position in ``names``; keys
    are the unsigned hashes' bits as longs)."""

    def fn(frame: pd.DataFrame) -> pd.DataFrame:
        tables = count(frame["text"].tolist()).tables()
        parts = [pd.DataFrame({"table": np.full(tables[t].keys.shape[0], i, np.int32),
                               "key": tables[t].keys.view(np.int64), "count": tables[t].counts.astype(np.int64)})
                 for i, t in enumerate(names)]
        return pd.concat(parts, ignore_index=True)

    counted = docs.select("text").mapInPandas(_batches(fn), "table int, key long, count long")
    return counted.groupBy("table", "key").agg(F.sum("count").alias("count"))


def summed_statistics(docs: DataFrame, count: Callable[[list[str]], Any], template: Any, n: int, path: str) -> Any:
    """The statistic ``count`` makes of texts (an object with ``tables()`` / ``from_tables()``, like
    ``template``), over the ``n`` documents ``docs``: each batch's tables counted by the executors
    and summed key by key (:func:`statistics`), read here from ``path`` (pyarrow, not the JVM) --
    the statistic the local engine's merge of every batch's gives."""
    from ..stats.df import DocumentFrequencies

    names = list(template.tables())
    stored(statistics(docs, count, names), path)
    got = read_stored(path, ["table", "key", "count"])
    table, keys, counts = (got[c].to_numpy() for c in ("table", "key", "count"))
    tables = {name: DocumentFrequencies.from_counts(keys[table == i].view(np.uint64), counts[table == i], n)
              for i, name in enumerate(names)}
    return template.from_tables(tables)


def sketch(docs: DataFrame, method: Method, layout: SketchLayout, stats: object = None) -> DataFrame:
    """``(row, text)`` -> one encoded sketch row per document and ``good`` (see the module docstring).

    ``stats``: the collection's statistics, for a corpus-dependent method (applied to each
    batch: ``apply_statistics`` works row by row); otherwise ``finish`` of one batch is
    the batch's part of the collection's sketches.
    """

    def fn(frame: pd.DataFrame) -> pd.DataFrame:
        part = method.sketch(method.prepare(frame["text"].tolist()))
        sk = method.finish([part]) if stats is None else method.apply_statistics(part, stats)
        out = layout.encode(frame["row"].to_numpy(np.int64), sk)
        out["good"] = part.usable.astype(bool)
        return out

    return docs.mapInPandas(_batches(fn), f"{layout.schema()}, good boolean")


# ---------------------------------------------------------------------------- candidates


def candidate_keys(method: Method, plan: CandidatePlan, n_docs: int) -> Callable[[Sketches], np.ndarray]:
    """The ``(n, slots)`` keys of a ``keys`` plan (:meth:`Method.keys`) or of a ``hamming`` plan (the
    permuted tables' keys of the fingerprints: every pair within the radius shares one;
    blocks as given, else chosen for ``n_docs``)."""
    if plan.kind == "hamming":
        blocks = plan.blocks or choose_blocks(plan.bits, plan.radius, n_docs)
        return lambda sk: table_keys(sk.columns[plan.column], plan.radius, blocks, method.seed)

    def keys(sk: Sketches) -> np.ndarray:
        found = method.keys(sk)
        assert found is not None, f"method {method.name} declares a keys plan but has no keys"
        return found[0]

    return keys


def key_candidates(sketches: DataFrame, layout: SketchLayout, keys_of: Callable[[Sketches], np.ndarray],
                   min_shared: int, block: int = BLOCK) -> DataFrame:
    """Pairs ``(a, b)``, ``a < b``, of usable documents sharing ``min_shared`` keys (``keys_of``) at one slot."""

    def keys_fn(frame: pd.DataFrame) -> pd.DataFrame:
        sk = layout.decode(frame)
        keys = keys_of(sk)
        ok = sk.usable
        rows, keys = frame["row"].to_numpy(np.int64)[ok], keys[ok]
        bands = keys.shape[1]
        return pd.DataFrame({"band": np.tile(np.arange(bands, dtype=np.int32), rows.shape[0]),
                             "key": np.ascontiguousarray(keys).view(np.int64).ravel(),
                             "row": np.repeat(rows, bands)})

    keyed = sketches.mapInPandas(_batches(keys_fn), "band int, key long, row long")
    pairs = group_pairs(keyed, ["band", "key"], "row", block)
    if min_shared <= 1:
        return pairs.distinct()
    return pairs.groupBy("a", "b").count().where(F.col("count") >= min_shared).select("a", "b")


def group_pairs(keyed: DataFrame, keys: list[str], item: str, block: int = BLOCK) -> DataFrame:
    """``(a, b)``, ``a < b``, for every two items of a group of equal ``keys`` (once per group).

    A group is cut into blocks of ``block`` items by item order, and each pair of blocks is
    one task: a giant group's pairs are all made (the local index makes them all), but no
    task makes more than ``block**2`` of them.  Groups of one item cost one aggregation row.
    """
    groups = (keyed.groupBy(*keys).agg(F.count("*").alias("_size"), F.collect_list(item).alias("_items"))
              .where(F.col("_size") >= 2))
    members = groups.select(*keys, F.posexplode(F.array_sort("_items")).alias("_pos", "_item"))
    blocks = (members.withColumn("_block", F.floor(F.col("_pos") / block))
              .groupBy(*keys, "_block").agg(F.collect_list("_item").alias("_items")))
    x, y = blocks.alias("x"), blocks.alias("y")
    same_group = F.col("x._block") <= F.col("y._block")
    for k in keys:
        same_group = same_group & (F.col(f"x.{k}") == F.col(f"y.{k}"))
    tasks = x.join(y, same_group).select(F.col("x._items").alias("rows_x"), F.col("y._items").alias("rows_y"),
                                         (F.col("x._block") == F.col("y._block")).alias("same"))
    return tasks.mapInPandas(_block_pairs, "a long, b long")


def _block_pairs(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    """Every pair within a block (``same``) or across two blocks of one bucket, ``a < b``."""
    out_a: list[np.ndarray] = []
    out_b: list[np.ndarray] = []
    pending = 0
    for frame in frames:
        for xs, ys, same in zip(frame["rows_x"], frame["rows_y"], frame["same"]):
            xs = np.asarray(xs, dtype=np.int64)
            if same:
                i, j = np.triu_indices(xs.shape[0], 1)
                a, b = xs[i], xs[j]
            else:
                ys = np.asarray(ys, dtype=np.int64)
                a, b = np.repeat(xs, ys.shape[0]), np.tile(ys, xs.shape[0])
            out_a.append(np.minimum(a, b))
            out_b.append(np.maximum(a, b))
            pending += a.shape[0]
            if pending >= FLUSH_PAIRS:
                yield pd.DataFrame({"a": np.concatenate(out_a), "b": np.concatenate(out_b)})
                out_a, out_b, pending = [], [], 0
    if pending:
        yield pd.DataFrame({"a": np.concatenate(out_a), "b": np.concatenate(out_b)})


def prefix_lengths(sizes: np.ndarray, tau: float, measure: str) -> np.ndarray:
    """How many of a set's rarest features a partner at least as long must share one of.

    The same bound as :mod:`neardup.index.inverted` (never overestimating the overlap
    needed, so the join stays complete).
    """
    la = sizes.astype(np.float64)
    x = 2.0 * tau * la / (1.0 + tau) if measure == "jaccard" else tau * la
    need = np.maximum(np.ceil(x - 1e-9 * (1.0 + x)).astype(np.int64), 1)
    return np.where(sizes > 0, sizes - need + 1, 0)


def set_join_candidates(sketches: DataFrame, layout: SketchLayout, measure: str, tau: float,
                        features_path: str | None = None) -> DataFrame:
    """Pairs ``(a, b)``, ``a < b``, that may reach ``tau`` (see the module docstring).

    ``features_path``: where to keep the exploded features (read twice) as Parquet.
    """

    def features_fn(frame: pd.DataFrame) -> pd.DataFrame:
        sk = layout.decode(frame)
        sizes = sk.list_sizes()
        sizes = np.where(sk.usable, sizes, 0)
        keep = np.repeat(sk.usable, sk.list_sizes())
        rows = frame["row"].to_numpy(np.int64)
        return pd.DataFrame({"row": np.repeat(rows, sizes), "h": sk.lists["hashes"][keep].view(np.int64),
                             "size": np.repeat(sizes, sizes), "plen": np.repeat(prefix_lengths(sizes, tau, measure), sizes)})

    feats = sketches.mapInPandas(_batches(features_fn), "row long, h long, size long, plen long")
    if features_path is not None:
        feats.write.mode("overwrite").parquet(features_path)
        feats = feats.sparkSession.read.parquet(features_path)
    df = feats.groupBy("h").agg(F.count("*").alias("df")).where(F.col("df") >= 2)
    shared = feats.join(df, "h")
    # every feature of one document only ranks first (df 1), so a shared feature's position
    # in the document's global order is the number of those plus its rank among the shared
    ranked = (shared.withColumn("pos", F.row_number().over(Window.partitionBy("row").orderBy("df", "h")) - 1)
              .withColumn("n", F.count("*").over(Window.partitionBy("row"))))
    prefix = ranked.where(F.col("size") - F.col("n") + F.col("pos") < F.col("plen")).select(
        "h", F.col("row").alias("a"), F.col("size").alias("la"))
    full = shared.select("h", F.col("row").alias("b"), F.col("size").alias("lb"))
    cand = prefix.join(full, "h").where((F.col("lb") > F.col("la"))
                                        | ((F.col("lb") == F.col("la")) & (F.col("b") > F.col("a"))))
    if measure == "jaccard":  # Jaccard <= |A| / |B|
        cand = cand.where(F.col("lb") * tau <= F.col("la") + 1e-6)
    return cand.select(F.least("a", "b").alias("a"), F.greatest("a", "b").alias("b")).distinct()


# ---------------------------------------------------------------------------- verify


def verify(candidates: DataFrame, by_row: RowGroups, method: Method, layout: SketchLayout,
           threshold: float, within: CandidatePlan | None = None) -> DataFrame:
    """``(a, b, score)`` of the candidates scoring at or above ``threshold``; with ``within`` (a
    ``hamming`` plan) only those whose fingerprints are within its radius (a shared table key
    is only a candidate: the local search's pairs are those within the radius).

    No sketch crosses a shuffle: the candidates (16 bytes each) are range-partitioned by ``a``,
    and each task reads the sketches of its candidates' rows from the stored sketches
    (``by_row``: sorted by row in small row groups), :data:`VERIFY_CHUNK` candidates at a time
    in ``b`` order -- so a chunk's ``b`` rows are few row groups and its ``a`` rows those of
    the task's range.  Joining both sketches to every candidate shuffled all the sketches
    twice and one per candidate: most of the run's shuffle.
    """
    fields = ["row", *layout.fields()]

    def fn(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        one_thread()
        got = [(f["a"].to_numpy(np.int64), f["b"].to_numpy(np.int64)) for f in frames]
        if not got:
            return
        a, b = np.concatenate([x for x, _ in got]), np.concatenate([y for _, y in got])
        order = np.lexsort((a, b))
        a, b = a[order], b[order]
        for start in range(0, a.shape[0], VERIFY_CHUNK):
            ca, cb = a[start:start + VERIFY_CHUNK], b[start:start + VERIFY_CHUNK]
            rows = np.unique(np.concatenate([ca, cb]))
            sk = layout.decode(by_row.read(rows, fields).to_pandas())
            ia, ib = np.searchsorted(rows, ca), np.searchsorted(rows, cb)
            scores = method.score(sk, ia, ib)
            keep = scores >= threshold
            if within is not None:
                keep &= hamming_distances(sk.columns[within.column], ia, ib) <= within.radius
            if keep.any():
                yield pd.DataFrame({"a": ca[keep], "b": cb[keep], "score": scores[keep]})

    return candidates.repartitionByRange("a").mapInPandas(fn, "a long, b long, score double")


# ---------------------------------------------------------------------------- clusters


def connected_components(edges: DataFrame) -> DataFrame:
    """``(row, comp)`` of every row in ``edges`` (columns ``a``, ``b``): comp = smallest row of its component.

    Large-star links every neighbour larger than a node to the node's smallest
    neighbour; small-star links each node's smaller neighbours to the smallest of them.
    The rounds stop when the edges form stars around the smallest row of each component
    (every node has one edge, to a node with none of its own): an exact test, one job.
    Each round is a few group-bys and joins, checkpointed.
    """
    edges_now = edges.select(F.col("a").alias("u"), F.col("b").alias("v"))
    for _ in range(MAX_STAR_ROUNDS):
        both = edges_now.unionByName(edges_now.select(F.col("v").alias("u"), F.col("u").alias("v")))
        low = both.groupBy("u").agg(F.min("v").alias("m")).withColumn("m", F.least("m", "u"))
        large = (both.join(low, "u").where(F.col("v") > F.col("u"))
                 .select(F.col("v").alias("u"), F.col("m").alias("v")).distinct())
        low = large.groupBy("u").agg(F.min("v").alias("m"))
        edges_now = (large.join(low, "u").where(F.col("v") != F.col("m"))
                     .select(F.col("v").alias("u"), F.col("m").alias("v"))
                     .unionByName(low.select("u", F.col("m").alias("v"))).distinct()).localCheckpoint()
        if _stars(edges_now):
            break
    else:
        raise RuntimeError(f"connected components did not settle in {MAX_STAR_ROUNDS} rounds")
    return (edges_now.select(F.col("u").alias("row"), F.col("v").alias("comp"))
            .unionByName(edges_now.select(F.col("v").alias("row"), F.col("v").alias("comp")).distinct()))


def _stars(edges: DataFrame) -> bool:
    """Whether the edges ``u -> v`` (``u > v``) are stars: one edge per ``u``, no edge out of any ``v``."""
    two_out = edges.groupBy("u").count().where(F.col("count") > 1).select("u")
    centre_out = edges.join(edges.select(F.col("v").alias("u")).distinct(), "u").select("u")
    return two_out.unionByName(centre_out).isEmpty()


def clusters(pairs: DataFrame, components: DataFrame, clustering: str, groups: int) -> DataFrame:
    """``(first, members)`` of every cluster of two or more rows (members sorted).

    Components are dealt into ``groups`` groups by a hash of their id, and each group's
    pairs are clustered at once: whole components that share no pair cluster as they
    would alone, and one call per group instead of per component keeps Python's
    per-call cost off a million small components.
    """
    by_comp = pairs.join(components.select(F.col("row").alias("a"), "comp"), "a").withColumn(
        "group", F.pmod(F.xxhash64("comp"), F.lit(groups)))

    def fn(frame: pd.DataFrame) -> pd.DataFrame:
        one_thread()
        frame = frame.sort_values(["a", "b"], kind="stable")
        a, b = frame["a"].to_numpy(np.int64), frame["b"].to_numpy(np.int64)
        nodes = np.unique(np.concatenate([a, b]))
        found = clusters_from_pairs(nodes.shape[0], np.searchsorted(nodes, a), np.searchsorted(nodes, b),
                                    frame["score"].to_numpy(np.float64), clustering)
        return pd.DataFrame({"first": [int(nodes[g[0]]) for g in found], "members": [nodes[g] for g in found]})

    return by_comp.groupBy("group").applyInPandas(fn, "first long, members array<long>")
