"""``dedup``'s outputs written by the Spark executors: the pairs and clusters with their ids, as part
files under the output folder or as the local writer's single file, and the summary's counts as
aggregates -- the driver holds no per-document or per-pair array (issue 32).

* **pairs** -- the verified pairs ``(a, b, score)`` joined twice with the ``(row, id)`` the input
  stage stored, sorted globally by ``(a, b)``; each row then made in a task by the local writer's
  own function (:func:`~neardup.io.dedup_rows.pair_row`, then orjson for JSONL) and written by
  Spark: a global sort writes part files whose name order is the sort order, so the parts read one
  after another are the local file.  The sort comes before the rows are made: a range partitioning
  samples by computing what it sorts, and the rows' Python would run twice;
* **clusters** -- numbered by their first member's rank: the clusters are stored sorted by first
  member (:func:`~.spark_components.stored_in_order`), so a cluster's number is the rows of the
  part files before its own (their footers' counts: a few numbers per file come to the driver)
  plus its row index in its file; the members joined with their ids in member order, sorted by
  number, the row made by :func:`~neardup.io.dedup_rows.cluster_row` (the representative is the
  first member when relations are off) and written the same way;
* **one file or parts** -- the part files land in ``pairs/`` and ``clusters/``, renamed
  ``part-00000.jsonl`` (or ``.parquet``) ... in order (Spark's marker and checksum files removed).
  When :attr:`~.base.Destination.coalesce` asks for one file, or by default when a table's parts
  hold at most :data:`COALESCE_BYTES`, the driver joins them into ``pairs.jsonl`` by copying their
  bytes in order, :data:`COPY_BYTES` at a time: the local engine's file, byte for byte.  A Parquet
  table's single file is written by pyarrow from the parts a row group at a time (:func:`_join_parquet`):
  the local file too;
* **counts** -- clusters, documents in clusters and the largest cluster from the stored clusters'
  footers (each file's rows, largest running total of sizes and largest size), the unusable rows an
  aggregate (one row); the first unusable rows (as many as a summary names) are stored and read back,
  to name them in the account.  The two tables and the unusable rows are independent: their jobs run
  side by side (:func:`together`).

The output folder is the job's temporary one (:class:`~neardup.io.writers.OutputFolder`), placed
whole when the job ends well and removed when it fails: a failed Spark run leaves no part file.
On a cluster it must be a folder every executor reaches, as ``--spark-work`` must.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

import numpy as np

from .base import Destination, Written
from .shards import read_stored, stored, stored_files

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import Column, DataFrame

    from .base import Relating

#: A table whose part files hold at most this many bytes is written as one file unless told otherwise.
COALESCE_BYTES = 256 << 20
#: Bytes copied at a time when part files are joined into one.
COPY_BYTES = 1 << 20
#: Rows of a row group in a Parquet file pyarrow writes (the local writer's, ``pq.write_table``'s default).
ROW_GROUP_ROWS = 1 << 20
#: The columns of each table in the Parquet format, with their Spark types; then those relations add.
COLUMNS = {"pairs": [("a", "string"), ("b", "string"), ("score", "double")],
           "clusters": [("cluster", "long"), ("ids", "array<string>"), ("representative", "string")]}
TYPED_COLUMNS = {"pairs": [("relation", "string"), ("coverage_a", "double"), ("coverage_b", "double"),
                           ("longest", "long")],
                 "clusters": [("removed", "array<struct<id: string, kept: string, coverage: double>>")]}


def written(pairs: "DataFrame", n_pairs: int, clusters: "DataFrame | None", unusable: "DataFrame", ids_path: str,
            n: int, candidate_pairs: int, info: dict[str, Any], into: Destination, listed: int, work: str,
            relating: "Relating | None" = None) -> Written:
    """Write ``pairs`` ``(a, b, score)`` and ``clusters`` ``(first, members)`` (stored in order at
    ``work/clusters``: :func:`~.spark_components.stored_in_order`; ``None``: no pair) with the
    ids at ``ids_path`` (its ``row`` and ``id`` columns) into ``into``; count them and the ``unusable`` rows
    (naming the first ``listed``).  With ``relating``, the pairs are typed and the copies clustered first
    (:func:`~.spark_relations.related`: ``clusters`` is then ``None``).  The two tables and the unusable
    rows are independent: their jobs are submitted together (:func:`together`)."""
    from .spark_relations import CLUSTERS, related

    spark = pairs.sparkSession
    ids = spark.read.schema("row long, id string").parquet(ids_path)  # the schema given: no job reads a footer
    typed = None
    if relating is not None:
        pairs, n_pairs, clusters, typed = related(pairs, relating, work)
    if clusters is None:  # no pair (or no copy): an empty table, stored as the clusters are
        from .spark_components import CLUSTERED, stored_in_order

        clusters = stored_in_order(spark.createDataFrame([], CLUSTERED if typed is None else CLUSTERS), True,
                                   f"{work}/clusters")
    # no member removed anywhere: the local writer's Parquet column of empty lists holds nulls' lists
    empty = ("removed",) if typed is not None and not typed["duplicates_removable"] else ()
    made = clusters

    def cluster_table() -> tuple[int, int, int]:
        number, counts = _numbers(f"{work}/clusters")
        _write_table(_cluster_rows(made, ids, into.fmt, number, typed is not None), into, "clusters", empty)
        return counts

    _, (n_clusters, in_clusters, largest), (bad, named) = together(
        spark, lambda: _write_table(_pair_rows(pairs, ids, into.fmt, typed is not None), into, "pairs"),
        cluster_table, lambda: _unusable(unusable, listed, f"{work}/unusable"))
    return Written(n, bad, named, n_pairs, candidate_pairs, n_clusters, in_clusters, largest, info, typed)


def _unusable(unusable: "DataFrame", listed: int, path: str) -> tuple[int, np.ndarray]:
    """How many ``unusable`` rows there are, and the first ``listed`` of them (stored at ``path`` and
    read back; no job when there is none)."""
    from pyspark.sql import functions as F

    bad = unusable.agg(F.count(F.lit(1))).first()
    assert bad is not None  # an aggregate without grouping: one row
    named = np.zeros(0, np.int64)
    if bad[0] and listed:
        stored(unusable.orderBy("row").limit(listed), path)
        named = np.sort(read_stored(path, ["row"])["row"].to_numpy().astype(np.int64))
    return int(bad[0]), named


def together(spark: Any, *calls: Callable[[], Any]) -> list[Any]:
    """The answers of ``calls``, each run in a thread of its own (pyspark's, which carries the caller's
    job group and properties -- on Spark Connect, ``spark``'s tags -- to the jobs it submits), all
    waited for; the first error raised, once all have ended.  Independent Spark jobs so submitted run
    side by side: on a small master a job's tasks are few and short, and what it costs is the
    driver's time around them, which overlaps."""
    from pyspark import InheritableThread

    answers: list[Any] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            answers[i] = calls[i]()
        except BaseException as error:  # re-raised in the caller's thread below
            errors.append(error)

    threads = [InheritableThread(target=run, args=(i,), session=spark) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return answers


def _pair_rows(pairs: "DataFrame", ids: "DataFrame", fmt: str, typed: bool) -> "DataFrame":
    """The ``pairs`` table's rows (a ``line`` of JSON, or the Parquet columns) sorted by ``(a, b)``
    (made after the sort: see the module docstring); ``typed``: ``pairs`` holds the relations' columns
    (:data:`~.spark_relations.TYPED`)."""
    from pyspark.sql import functions as F

    named = (pairs.join(ids.select(F.col("row").alias("a"), F.col("id").alias("id_a")), "a")
             .join(ids.select(F.col("row").alias("b"), F.col("id").alias("id_b")), "b"))

    def fn(frames: Iterator["pd.DataFrame"]) -> Iterator["pd.DataFrame"]:
        from ..io.dedup_rows import pair_row, pairs_of
        from ..relations import RELATIONS

        for frame in frames:
            made = [frame["id_a"].tolist(), frame["id_b"].tolist(), frame["score"].tolist()]
            if typed:
                made += [[RELATIONS[k] for k in frame["relation"].tolist()], frame["cov_a"].to_numpy(np.float64),
                         frame["cov_b"].to_numpy(np.float64), frame["longest"].to_numpy(np.int64)]
            rows = [pair_row(p) for p in pairs_of(*made)]
            yield _frame(rows, fmt, "pairs", typed)

    return named.orderBy("a", "b").mapInPandas(fn, _schema(fmt, "pairs", typed))


def _cluster_rows(clusters: "DataFrame", ids: "DataFrame", fmt: str, number: "Column", typed: bool) -> "DataFrame":
    """The ``clusters`` table's rows with the ``number`` they sort by (the rank of the first member: the
    column ``number``, :func:`_numbers`); ``typed``: ``clusters`` holds the representative and each
    member's kept document and coverage (:data:`~.spark_relations.CLUSTERS`), the rows the removed
    members."""
    from pyspark.sql import functions as F

    clusters = clusters.withColumn("number", number)
    if typed:
        members = (clusters.select("number", "representative", F.posexplode(F.arrays_zip("members", "kept", "coverage")))
                   .select("number", "pos", F.col("col.members").alias("row"), F.col("col.kept").alias("kept"),
                           F.col("col.coverage").alias("coverage"),
                           (F.col("col.members") == F.col("representative")).alias("rep"))
                   .join(ids, "row")
                   .join(ids.select(F.col("row").alias("kept"), F.col("id").alias("kept_id")), "kept", "left"))
        fields = ["pos", "id", "kept_id", "coverage", "rep"]
    else:
        members = clusters.select("number", F.posexplode("members").alias("pos", "row")).join(ids, "row")
        fields = ["pos", "id"]
    # range partitions of the numbers: the grouping needs no other shuffle, nor the sort after it
    grouped = (members.repartitionByRange("number").groupBy("number")
               .agg(F.sort_array(F.collect_list(F.struct(*fields))).alias("m")))
    numbered = grouped.select("number", *[F.col(f"m.{c}").alias(c) for c in fields[1:]])

    def fn(frames: Iterator["pd.DataFrame"]) -> Iterator["pd.DataFrame"]:
        from ..io.dedup_rows import Cluster, cluster_row, removed_of

        for frame in frames:
            rows = []
            for i, number in enumerate(frame["number"].tolist()):
                names = frame["id"].iat[i].tolist()
                if not typed:
                    rows.append(cluster_row(Cluster(number, names, names[0]), typed=False))
                    continue
                representative = names[int(np.flatnonzero(frame["rep"].iat[i])[0])]
                removed = removed_of(names, frame["kept_id"].iat[i].tolist(), frame["coverage"].iat[i].astype(np.float64))
                rows.append(cluster_row(Cluster(number, names, representative, removed), typed=True))
            yield _frame(rows, fmt, "clusters", typed)

    return numbered.sortWithinPartitions("number").mapInPandas(fn, _schema(fmt, "clusters", typed))


def _numbers(path: str) -> tuple["Column", tuple[int, int, int]]:
    """Each cluster's number, the rank of its first member, as a column of the clusters stored at
    ``path`` in order (:func:`~.spark_components.stored_in_order`): the rows of the part files before
    its own plus its row index in it; and the clusters' count, the documents in them and the largest
    one's size: the files' rows, the sum of their largest running totals and their largest size.  All
    read from the footers (:func:`~.shards.stored_files`): no job."""
    from itertools import chain

    from pyspark.sql import functions as F

    files = stored_files(path, ["size", "through"])
    offsets = np.cumsum([0] + [rows for _, rows, _ in files])
    counts = (int(offsets[-1]), sum(through for _, _, (_, through) in files),
              max((size for _, _, (size, _) in files), default=0))
    if not files:  # no cluster: no row to number
        return F.lit(0).cast("long"), counts
    starts = F.create_map(*chain.from_iterable((F.lit(name), F.lit(int(o))) for (name, _, _), o in zip(files, offsets)))
    return (F.element_at(starts, F.col("_metadata.file_name")) + F.col("_metadata.row_index")).cast("long"), counts


def _columns(table: str, typed: bool) -> list[tuple[str, str]]:
    """The Parquet columns of ``table``, with the relations' when ``typed``."""
    return COLUMNS[table] + (TYPED_COLUMNS[table] if typed else [])


def _schema(fmt: str, table: str, typed: bool) -> str:
    if fmt == "jsonl":
        return "line string"
    return ", ".join(f"{name} {kind}" for name, kind in _columns(table, typed))


def _frame(rows: list[dict[str, Any]], fmt: str, table: str, typed: bool) -> "pd.DataFrame":
    """``rows`` as the table's columns: one JSON ``line`` each (the local writer's bytes, without the
    newline Spark's text writer adds), or the Parquet columns."""
    import orjson
    import pandas as pd

    if fmt == "jsonl":
        option = orjson.OPT_SERIALIZE_NUMPY
        return pd.DataFrame({"line": [orjson.dumps(r, option=option).decode() for r in rows]})
    return pd.DataFrame({c: [r[c] for r in rows] for c, _ in _columns(table, typed)})


def _write_table(rows: "DataFrame", into: Destination, name: str, empty: tuple[str, ...] = ()) -> None:
    """``rows`` (sorted: range partitions, each in order) written by the executors as part files in
    ``into.folder/name``; joined into ``name.<ext>`` when :func:`_coalesced` (``empty``: list columns
    empty in every row)."""
    ext = "jsonl" if into.fmt == "jsonl" else "parquet"
    folder = into.folder / name
    if into.fmt == "jsonl":
        rows.write.text(str(folder))
    else:
        rows.write.parquet(str(folder))
    parts = _renamed_parts(folder, ext)
    if _coalesced(into.coalesce, parts):
        target = into.folder / f"{name}.{ext}"
        if into.fmt == "jsonl":
            _join_lines(parts, target)
        else:
            _join_parquet(parts, target, empty)
        shutil.rmtree(folder)


def _renamed_parts(folder: Path, ext: str) -> list[Path]:
    """The part files Spark wrote in ``folder``, renamed ``part-00000.<ext>``... in name order (the
    partitions' order); every other file (``_SUCCESS``, checksums) removed."""
    names = sorted(p.name for p in folder.iterdir() if p.name.startswith("part-"))
    for other in folder.iterdir():
        if not other.name.startswith("part-"):
            other.unlink()
    parts = []
    for i, name in enumerate(names):
        part = folder / f"part-{i:05d}.{ext}"
        os.rename(folder / name, part)
        parts.append(part)
    return parts


def _coalesced(coalesce: bool | None, parts: list[Path]) -> bool:
    """One file: when asked, or (``None``) when the parts hold at most :data:`COALESCE_BYTES`."""
    if coalesce is not None:
        return coalesce
    return sum(p.stat().st_size for p in parts) <= COALESCE_BYTES


def _join_lines(parts: list[Path], target: Path) -> None:
    """The JSONL ``parts`` one after another into ``target``, :data:`COPY_BYTES` at a time."""
    with open(target, "wb") as out:
        for part in parts:
            with open(part, "rb") as fh:
                shutil.copyfileobj(fh, out, COPY_BYTES)


def _join_parquet(parts: list[Path], target: Path, empty: tuple[str, ...] = ()) -> None:
    """The Parquet ``parts`` into one file with the local writer's Arrow schema (no Spark metadata, lists
    of ``item`` as ``pa.table`` makes them; the list columns ``empty`` in every row as lists of nulls,
    which ``pa.table`` infers for them), in row groups of :data:`ROW_GROUP_ROWS` as it makes
    them: its file, byte for byte.  This process
    holds one row group's rows at a time (at most that many, whatever the table's size)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer, pending, rows = None, [], 0

    def flush(table: pa.Table) -> None:
        nonlocal writer
        table = table.cast(pa.schema([pa.field(f.name, pa.list_(f.type.value_type) if pa.types.is_list(f.type)
                                               else f.type) for f in table.schema])).combine_chunks()
        for name in empty:
            table = table.set_column(table.schema.get_field_index(name), name,
                                     pa.array([[]] * table.num_rows, pa.list_(pa.null())))
        if writer is None:
            writer = pq.ParquetWriter(target, table.schema)
        writer.write_table(table, row_group_size=ROW_GROUP_ROWS)

    try:
        for part in parts:
            for batch in pq.ParquetFile(part).iter_batches(batch_size=1 << 16):
                pending.append(batch)
                rows += batch.num_rows
                if rows >= ROW_GROUP_ROWS:
                    table = pa.Table.from_batches(pending)
                    flush(table.slice(0, ROW_GROUP_ROWS))
                    rest = table.slice(ROW_GROUP_ROWS)
                    pending, rows = rest.to_batches(), rest.num_rows
        if rows:
            flush(pa.Table.from_batches(pending))
    finally:
        if writer is not None:
            writer.close()
    if writer is None:  # no row: the local writer's file of no column
        pq.write_table(pa.table({}), target)
