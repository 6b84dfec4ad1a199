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
  supershingles): the keys made with the sketches, exploded as ``(band, key, row)`` and grouped by
  ``(band, key)``; every pair of a bucket
  is a candidate, as in :func:`neardup.index.banding.candidate_pairs`: the rows sorted by
  key within hash partitions and each bucket's pairs made from its run of rows
  (:func:`group_pairs`), a giant bucket's handed on a million at a time, never held;
* :func:`set_join_candidates` -- exact set joins (ffp, spotsigs): prefix filtering with a
  global feature order by ``(document frequency, hash)``; a document's prefix (the rarest
  ``|A| - o + 1`` features, ``o`` the overlap a partner at least as long needs) is joined
  with the features of the documents at least as long; features in one document only
  are dropped first (they pair nothing).  Complete: a pair at or above the threshold
  shares a prefix feature of its shorter member;
* :func:`verify` -- the candidates as stored, in blocks of their first row, each task reading
  its candidates' sketches from the stored sketches (:class:`~.shards.RowGroups`; no sketch
  is shuffled), scored by the method's ``score`` (the local engine's kernel: bit-equal
  scores), kept at the threshold;
* connected components and clusters of the verified pairs: :mod:`.spark_components`.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np
import pandas as pd
from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from ..index.hamming import choose_blocks, hamming_distances, table_keys
from ..methods.base import CandidatePlan, Method, Sketches
from .codec import SketchLayout, probe_sketches
from .shards import ROW_GROUP_ROWS, RowGroups, read_stored, stored
from .spark_batches import complete_runs, each_batch, one_thread
from .spark_records import Sketching

#: Pairs a pair-making task hands to Spark at once.
FLUSH_PAIRS = 1 << 20
#: Candidate pairs a verification task scores at once (it reads their rows' sketches for them).
VERIFY_CHUNK = 1 << 16
#: The candidate keys' columns: this and the slot's number (:func:`key_columns`).
KEY = "key"


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

    counted = docs.select("text").mapInPandas(each_batch(fn), "table int, key long, count long")
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


def sketch(docs: DataFrame, method: Method, layout: SketchLayout, stats: object = None,
           keys_of: Callable[[Sketches], np.ndarray] | None = None) -> DataFrame:
    """``(row, text)`` -> one encoded sketch row per document and ``good`` (see the module docstring):
    :func:`sketcher`'s work on each Arrow batch, its columns :func:`sketch_columns`."""
    made = sketcher(method, layout, stats, keys_of)
    return docs.mapInPandas(each_batch(lambda frame: made(frame["text"].tolist(), frame["row"].to_numpy(np.int64))),
                            f"row long, {sketch_columns(layout, key_columns(method, keys_of))}")


def spread(rows: DataFrame, seed: int | None, partitions: int) -> DataFrame:
    """``rows`` (with a column ``row``) shuffled over ``partitions`` by a hash of ``seed`` and scrambled
    inside each (tests of order independence); as they are without a seed."""
    if seed is None:
        return rows
    return rows.repartition(partitions, F.xxhash64(F.col("row"), F.lit(seed))).sortWithinPartitions(F.rand(seed))


def sketcher(method: Method, layout: SketchLayout, stats: object = None,
             keys_of: Callable[[Sketches], np.ndarray] | None = None
             ) -> Callable[[list[str], np.ndarray | None], pd.DataFrame]:
    """The sketch stage's work on one batch of texts (and their rows, or ``None``: the columns
    without ``row``): the encoded sketches (:class:`~.codec.SketchLayout`), ``good`` and the keys.

    ``stats``: the collection's statistics, for a corpus-dependent method (applied to each
    batch: ``apply_statistics`` works row by row); otherwise ``finish`` of one batch is
    the batch's part of the collection's sketches -- which is what lets a reading task sketch
    its own documents before any row is numbered (:mod:`.spark_records`).  ``keys_of``: the
    candidate keys of a ``keys`` or ``hamming`` plan (:func:`candidate_keys`) made here too,
    from the sketches in hand, one column of longs a slot (:func:`key_columns`; any value for a
    document that may not pair, which ``pairable`` tells): the candidates stage then explodes them
    in Spark instead of sending every sketch through Python once more.  Flat columns, not an
    array: no array object made per document, and each is a plain column to Arrow and Parquet.
    """

    def fn(texts: list[str], rows: np.ndarray | None) -> pd.DataFrame:
        one_thread()
        part = method.sketch(method.prepare(texts))
        sk = method.finish([part]) if stats is None else method.apply_statistics(part, stats)
        out = layout.encode(rows, sk)
        out["good"] = part.usable.astype(bool)
        if keys_of is not None:
            out["pairable"] = method.pairable(sk).astype(bool)
            keys = np.ascontiguousarray(keys_of(sk)).view(np.int64)
            for slot in range(keys.shape[1]):
                out[f"{KEY}{slot}"] = keys[:, slot]
        return out

    return fn


def early_sketching(method: Method) -> Sketching | None:
    """The sketch stage's work handed to the reading tasks (:mod:`.spark_records`), when a document's
    sketch and keys need nothing of the whole collection: no statistics (``corpus_dependent``), no
    table keys chosen for the number of documents (a ``hamming`` plan without ``blocks``); else ``None``."""
    plan = method.candidate_plan()
    if method.corpus_dependent or (plan.kind == "hamming" and not plan.blocks):
        return None
    layout = SketchLayout.probe(method)
    keys_of = None if plan.kind == "set_join" else candidate_keys(method, plan, 0)  # no count asked for
    return Sketching(sketcher(method, layout, None, keys_of), sketch_columns(layout, key_columns(method, keys_of)))


def sketch_columns(layout: SketchLayout, keys: list[str]) -> str:
    """Spark DDL of :func:`sketcher`'s columns but ``row`` (``keys``: :func:`key_columns`, made with
    ``pairable``)."""
    made = ", pairable boolean" + "".join(f", {k} long" for k in keys) if keys else ""
    return layout.schema().split(", ", 1)[1] + ", good boolean" + made


def key_columns(method: Method, keys_of: Callable[[Sketches], np.ndarray] | None) -> list[str]:
    """The columns of a document's candidate keys made with its sketch (:func:`sketcher`), ``key0``,
    ``key1``, ...: one a slot of ``keys_of``'s (a method's keys have as many slots for every
    document: its probe document's); none without ``keys_of``."""
    if keys_of is None:
        return []
    return [f"{KEY}{slot}" for slot in range(keys_of(probe_sketches(method)).shape[1])]


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


def key_candidates(sketches: DataFrame, min_shared: int) -> DataFrame:
    """Pairs ``(a, b)``, ``a < b``, of pairable documents (:meth:`~neardup.methods.base.Method.pairable`)
    sharing ``min_shared`` keys at one slot: the keys the sketch stage made (:func:`sketch` with
    ``keys_of``; :func:`key_columns`), exploded as ``(band, key, row)``."""
    keys = [c for c in sketches.columns if c.startswith(KEY) and c[len(KEY):].isdigit()]
    keyed = sketches.where(F.col("pairable")).select(F.posexplode(F.array(*keys)).alias("band", "key"), "row")
    # the 64-bit key first: group_pairs partitions and sorts by its first key alone (the band, 18
    # values or so, would put a band's every document in one run)
    pairs = in_blocks(group_pairs(keyed, ["key", "band"], "row"))
    if min_shared <= 1:
        return pairs.drop("n").distinct().drop("block")
    return pairs.groupBy("block", "a", "b").agg(F.sum("n").alias("n")).where(F.col("n") >= min_shared).select("a", "b")


def in_blocks(pairs: DataFrame) -> DataFrame:
    """``pairs`` with the ``block`` of their first row (:data:`~.shards.ROW_GROUP_ROWS` rows a block),
    hash-partitioned by it: one shuffle, after which a grouping by ``block, a, b`` (the distinct pairs)
    needs no other, and the stored result's part files each hold the candidates of a few blocks of
    first rows -- what :func:`verify` reads them by, so it needs no shuffle of its own."""
    return pairs.withColumn("block", (F.col("a") / ROW_GROUP_ROWS).cast("long")).repartition("block")


def group_pairs(keyed: DataFrame, keys: list[str], item: str) -> DataFrame:
    """``(a, b, n)``, ``a < b``, for every two items of a group of equal ``keys``: ``n`` the groups that made
    the pair among those a task hands on together (sum ``n`` over the rows of a pair for its groups).

    One shuffle: the rows hash-partitioned by the first key and sorted by it alone inside each
    partition (one 64-bit column: Spark's radix sort, not a comparison sort of several columns;
    docs/scale.md, fifteenth part), the rows whose first key no other row has dropped there (in
    the JVM); a task reads its sorted rows
    whole runs of the first key at a time (:func:`complete_runs`), orders each frame by ``keys`` and
    ``item`` (numpy), and pairs each row with the next ``d`` rows of its group, ``d = 1,
    2, ...`` while any group is that long -- a numpy pass per distance, not a Python loop
    per group, so the many groups of one item cost nothing but their shuffle.  A giant
    group's pairs are all made (the local index makes them all) by one task, handed to
    Spark :data:`FLUSH_PAIRS` at a time: the task holds the group's items, never its
    pairs.  Each handful is counted first (one row per distinct pair): a method with many keys a
    document (ANDD) makes a near-duplicate pair in many groups, and the JVM's shuffle and aggregation
    of every copy cost more than the rest of the stage (measured in docs/scale.md, thirteenth part).  (Before:
    ``collect_list`` per group, the groups cut into blocks joined with themselves -- three more
    shuffles, and twice the stage's time.)
    """
    # a group of one item pairs nothing: counted in the JVM over the sorted rows (no more shuffle or
    # sort) and dropped there, most rows never cross into Python (two thirds of MinHash's band keys)
    first = keys[0]
    ordered = (keyed.repartition(first).sortWithinPartitions(first)
               .withColumn("_items", F.count(F.lit(1)).over(Window.partitionBy(first))).where(F.col("_items") > 1)
               .drop("_items"))

    def pairs(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        out_a: list[np.ndarray] = []
        out_b: list[np.ndarray] = []
        pending = 0
        for frame in complete_runs(frames, [first]):
            columns = [frame[k].to_numpy() for k in keys]
            items = frame[item].to_numpy(np.int64)
            order = np.lexsort((items, *columns[::-1]))
            items = items[order]
            same = np.ones(len(frame) - 1, dtype=bool)  # row i and row i + 1 are in one group
            for column in columns:
                column = column[order]
                same &= column[1:] == column[:-1]
            within, d = same, 1  # within[i]: row i and row i + d are in one group
            while within.any():
                i = np.flatnonzero(within)
                out_a.append(items[i])
                out_b.append(items[i + d])
                pending += i.shape[0]
                if pending >= FLUSH_PAIRS:
                    yield _counted(np.concatenate(out_a), np.concatenate(out_b))
                    out_a, out_b, pending = [], [], 0
                within, d = within[:-1] & same[d:], d + 1
        if pending:
            yield _counted(np.concatenate(out_a), np.concatenate(out_b))

    return ordered.mapInPandas(pairs, "a long, b long, n long")


def _counted(a: np.ndarray, b: np.ndarray) -> pd.DataFrame:
    """The distinct pairs ``(a, b)`` with ``n``, how many times each is given."""
    order = np.lexsort((b, a))
    a, b = a[order], b[order]
    first = np.flatnonzero(np.r_[True, (a[1:] != a[:-1]) | (b[1:] != b[:-1])])
    return pd.DataFrame({"a": a[first], "b": b[first], "n": np.diff(np.r_[first, a.shape[0]])})


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

    feats = sketches.mapInPandas(each_batch(features_fn), "row long, h long, size long, plen long")
    if features_path is not None:
        feats = stored(feats, features_path)
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
    return in_blocks(cand.select(F.least("a", "b").alias("a"), F.greatest("a", "b").alias("b"))).distinct().drop("block")


# ---------------------------------------------------------------------------- verify


def verify(candidates: DataFrame, by_row: RowGroups, method: Method, layout: SketchLayout,
           threshold: float, within: CandidatePlan | None = None) -> DataFrame:
    """``(a, b, score)`` of the candidates scoring at or above ``threshold``; with ``within`` (a
    ``hamming`` plan) only those whose fingerprints are within its radius (a shared table key
    is only a candidate: the local search's pairs are those within the radius).

    No sketch crosses a shuffle, nor do the candidates again: stored by the candidates stage in blocks
    of their first row (:func:`in_blocks`), each task's candidates have the ``a`` of a few blocks,
    and each task reads the sketches of its candidates' rows from the stored sketches
    (``by_row``: sorted by row in small row groups), :data:`VERIFY_CHUNK` candidates at a time
    in ``b`` order -- so a chunk's ``b`` rows are few row groups and its ``a`` rows those of
    the task's blocks.  Joining both sketches to every candidate shuffled all the sketches
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

    return candidates.mapInPandas(fn, "a long, b long, score double")
