"""Parquet between the Spark stages: the driver's text shards and each stage's stored output.

The driver writes the input stage's texts as shards of ``(row, text)`` (rows numbered as the
local engine numbers them); each stage's result is written and read back, so a later stage
starts from Parquet (passim's habit), not from a recomputation.  The driver reads a stage's
results from those files with pyarrow (:func:`read_stored`, :func:`sorted_parts`), never by
collecting them through Spark's driver JVM, whose heap would have to hold them all at once.
A result stored by row in small row groups (:func:`stored_by_row`) is also read by the
executors, a few rows at a time (:class:`RowGroups`): the verification reads the sketches of
its candidates' rows there instead of receiving them through a shuffle.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from .base import Found
    import pyarrow as pa

#: Rows (documents) per input shard the driver writes.
SHARD_ROWS = 200_000
#: Row groups of a result stored by row (:func:`stored_by_row`), what a task reads to get one row:
#: at most this many rows, and about this many bytes (the writer checks the size now and then).
ROW_GROUP_ROWS, ROW_GROUP_BYTES = 1024, 1 << 20


def stage_writer(frame: Any) -> Any:
    """The writer of a stage's own Parquet (not a user's output): replacing what is there, and without
    dictionary encoding -- a stage file's columns are hashes, sketches, row numbers and ids, nearly
    all distinct, which Parquet's writer tries to put in a dictionary page by page before it falls
    back, and its reader then decodes (measured in docs/scale.md, fifteenth part)."""
    return frame.write.mode("overwrite").option("parquet.enable.dictionary", "false")


def stored(frame: Any, path: str) -> Any:
    """``frame`` written as Parquet at ``path`` and read back: a stage boundary (computed once).

    Read back with ``frame``'s schema: Spark would otherwise run a job to read a footer
    for it, and every job costs a fixed time on a small master."""
    stage_writer(frame).parquet(path)
    return frame.sparkSession.read.schema(frame.schema).parquet(path)


def stored_by_row(frame: Any, path: str) -> tuple[Any, "RowGroups"]:
    """``frame`` (with a column ``row``) written as Parquet at ``path``, each part sorted by row in
    small row groups (:data:`ROW_GROUP_ROWS`, :data:`ROW_GROUP_BYTES`), read back; and the index of
    its row groups.

    Sorting inside each partition moves nothing between tasks; how narrow each row group's
    range of rows is depends on how the partitions split the rows (contiguous input shards:
    disjoint ranges), which changes what :meth:`RowGroups.read` reads, never what it returns.
    """
    (stage_writer(frame.sortWithinPartitions("row")).option("parquet.block.size", str(ROW_GROUP_BYTES))
     .option("parquet.block.row.count.limit", str(ROW_GROUP_ROWS)).parquet(path))
    return frame.sparkSession.read.schema(frame.schema).parquet(path), RowGroups.of(path)


@dataclass(frozen=True)
class RowGroups:
    """The row groups of Parquet part files under ``path`` and each one's lowest and highest ``row``
    (from the footers' statistics), to read given rows by reading only the row groups that
    may hold them.  Small (a few numbers per row group), so it travels inside a task's function."""

    path: str
    files: tuple[str, ...]
    file: np.ndarray
    group: np.ndarray
    low: np.ndarray
    high: np.ndarray

    @staticmethod
    def of(path: str) -> "RowGroups":
        """The index of the part files under ``path`` (their footers only are read).  A row group
        without statistics of ``row`` is taken to hold any row."""
        import pyarrow.parquet as pq

        filesystem, names = _parquet_files(path)
        file, group, low, high = [], [], [], []
        lowest, highest = np.iinfo(np.int64).min, np.iinfo(np.int64).max
        for f, name in enumerate(names):
            with filesystem.open_input_file(name) as fh:
                meta = pq.ParquetFile(fh).metadata
            column = meta.schema.names.index("row")
            for g in range(meta.num_row_groups):
                rg = meta.row_group(g)
                if rg.num_rows == 0:
                    continue
                st = rg.column(column).statistics
                known = st is not None and st.has_min_max
                file.append(f)
                group.append(g)
                low.append(st.min if known else lowest)
                high.append(st.max if known else highest)
        return RowGroups(path, tuple(names), np.asarray(file, np.int64), np.asarray(group, np.int64),
                         np.asarray(low, np.int64), np.asarray(high, np.int64))

    def read(self, rows: np.ndarray, columns: Sequence[str]) -> "pa.Table":
        """The ``columns`` (``row`` among them) of the stored rows ``rows`` (sorted, distinct, at
        least one), in that order: the row groups whose range holds one of them are read, their
        other rows dropped.  Every row asked for must be stored (an assertion: a missing one is
        a bug upstream)."""
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        wanted = pa.array(rows, pa.int64())
        hit = np.searchsorted(rows, self.low, "left") < np.searchsorted(rows, self.high, "right")
        filesystem, _ = filesystem_of(self.path)
        parts = []
        for f in np.unique(self.file[hit]).tolist():
            with filesystem.open_input_file(self.files[f]) as fh:
                table = pq.ParquetFile(fh).read_row_groups(self.group[hit & (self.file == f)].tolist(),
                                                           columns=list(columns))
            parts.append(table.filter(pc.is_in(table.column("row"), value_set=wanted)))
        assert parts, "rows asked for are not stored"
        got = pa.concat_tables(parts)
        got = got.take(pc.sort_indices(got.column("row")))
        assert np.array_equal(got.column("row").to_numpy(), rows), "rows asked for are not stored (or twice)"
        return got


def filesystem_of(path: str) -> tuple[Any, str]:
    """pyarrow's filesystem of ``path`` (a local folder or a URI) and the path in it."""
    from pyarrow import fs as pafs

    return pafs.FileSystem.from_uri(path if "://" in path else os.path.abspath(path))


def _parquet_files(path: str) -> tuple[Any, list[str]]:
    """The Parquet part files Spark wrote under ``path``, in name order: partition order."""
    from pyarrow import fs as pafs

    filesystem, root = filesystem_of(path)
    infos = filesystem.get_file_info(pafs.FileSelector(root))
    names = sorted(i.path for i in infos if i.type == pafs.FileType.File and i.base_name.startswith("part-")
                   and i.base_name.endswith(".parquet"))
    return filesystem, names


def stored_rows(path: str) -> int:
    """Rows of the Parquet a stage stored at ``path``, from its part files' footers (read here: no Spark job)."""
    import pyarrow.parquet as pq

    filesystem, names = _parquet_files(path)
    return sum(pq.ParquetFile(filesystem.open_input_file(name)).metadata.num_rows for name in names)


def stored_files(path: str, columns: Sequence[str]) -> list[tuple[str, int, tuple[int, ...]]]:
    """Each part file with rows of the Parquet a stage stored at ``path``, in name order: its name, its
    rows and the largest value of each of the integer ``columns`` in it, from the footer's statistics
    (read here: no Spark job).  Spark's writer keeps every row group's minimum and maximum; a file
    without them is an error, not a guess."""
    import pyarrow.parquet as pq

    filesystem, names = _parquet_files(path)
    found = []
    for name in names:
        with filesystem.open_input_file(name) as fh:
            meta = pq.ParquetFile(fh).metadata
        at = [meta.schema.names.index(c) for c in columns]
        groups = [meta.row_group(g) for g in range(meta.num_row_groups) if meta.row_group(g).num_rows]
        if not groups:
            continue
        stats = [[g.column(i).statistics for i in at] for g in groups]
        assert all(st is not None and st.has_min_max for row in stats for st in row), f"{name}: no statistics"
        found.append((name.rsplit("/", 1)[-1], meta.num_rows,
                      tuple(max(int(row[k].max) for row in stats) for k in range(len(columns)))))
    return found


def folder_bytes(path: str) -> int:
    """Bytes of the files under ``path`` (a local folder or a URI pyarrow reads)."""
    from pyarrow import fs as pafs

    filesystem, root = filesystem_of(path)
    infos = filesystem.get_file_info(pafs.FileSelector(root, recursive=True))
    return sum(i.size or 0 for i in infos if i.type == pafs.FileType.File)


def read_stored(path: str, columns: Sequence[str]) -> "pa.Table":
    """The ``columns`` of the Parquet a stage stored at ``path``, read by pyarrow in this process."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    filesystem, names = _parquet_files(path)
    tables = [pq.read_table(name, columns=list(columns), filesystem=filesystem) for name in names]
    return pa.concat_tables(tables) if tables else pa.table({c: pa.array([], pa.int64()) for c in columns})


def read_found(work: str, n: int, clustered: bool, unusable: Any, count: int, info: dict[str, Any]) -> "Found":
    """What the dedup stages stored under ``work`` read by this process (pyarrow): the pairs sorted by
    row, the clusters by first member (when ``clustered``), the usable of the ``n`` rows (``unusable``
    stored first) -- the arrays the driver's relations and the API take."""
    from .base import Found

    got = read_stored(f"{work}/pairs", ["a", "b", "score"])
    a, b = got["a"].to_numpy(), got["b"].to_numpy()
    order = np.lexsort((b, a))
    a, b, scores = a[order].astype(np.int64), b[order].astype(np.int64), got["score"].to_numpy()[order]
    groups: list[np.ndarray] = []
    if clustered:
        found = read_stored(f"{work}/clusters", ["first", "members"]).to_pandas().sort_values("first", kind="stable")
        groups = [np.asarray(m, dtype=np.int64) for m in found["members"]]
    usable = np.ones(n, dtype=bool)
    stored(unusable, f"{work}/unusable")
    usable[read_stored(f"{work}/unusable", ["row"])["row"].to_numpy()] = False
    return Found(usable, a, b, scores, count, groups, info)


def sorted_parts(frame: Any, keys: Sequence[str], path: str, batch_rows: int = 1 << 16) -> Iterator["pd.DataFrame"]:
    """``frame`` sorted by ``keys`` and written by the executors at ``path`` (now), to be read back
    here in order, ``batch_rows`` rows at a time: the driver holds one batch, whatever the
    result's size.

    A global sort (range partitions, each sorted) writes part files whose name order is the
    sort order, so reading them one after another is reading the sorted result."""
    stage_writer(frame.orderBy(*keys)).parquet(path)
    return _read_parts(path, batch_rows)


def _read_parts(path: str, batch_rows: int) -> Iterator["pd.DataFrame"]:
    import pyarrow.parquet as pq

    filesystem, names = _parquet_files(path)
    for name in names:
        with filesystem.open_input_file(name) as fh:
            for batch in pq.ParquetFile(fh).iter_batches(batch_size=batch_rows):
                if batch.num_rows:
                    yield batch.to_pandas()


class DocumentShards:
    """Texts written as Parquet shards of ``(row, text)`` under ``path``, batch by batch.

    Rows are numbered from 0 in the order added (the local engine's numbering).  ``path`` is
    a local folder or any URI pyarrow writes (``s3://``, ``gs://``, ``hdfs://``).  A job that
    gets its batches one call at a time (the aligner's ``add``) writes through this;
    :func:`write_documents` takes an iterable.
    """

    def __init__(self, path: str) -> None:
        import pyarrow as pa

        self.filesystem, self.root = filesystem_of(path)
        self.filesystem.create_dir(self.root, recursive=True)
        self.schema = pa.schema([("row", pa.int64()), ("text", pa.large_string())])
        self.writer: Any = None
        self.shard = self.in_shard = self.rows = 0

    def add(self, texts: Sequence[str]) -> None:
        """Write ``texts`` as the next rows."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not texts:
            return
        if self.writer is None or self.in_shard >= SHARD_ROWS:
            if self.writer is not None:
                self.writer.close()
            self.writer = pq.ParquetWriter(f"{self.root}/part-{self.shard:05d}.parquet", self.schema,
                                           filesystem=self.filesystem)
            self.shard, self.in_shard = self.shard + 1, 0
        rows = np.arange(self.rows, self.rows + len(texts), dtype=np.int64)
        self.writer.write_table(pa.table({"row": rows, "text": pa.array(list(texts), pa.large_string())},
                                         schema=self.schema))
        self.rows += len(texts)
        self.in_shard += len(texts)

    def close(self) -> int:
        """Finish the last shard (an empty one when nothing was added, so the folder reads as
        an empty table); returns the rows written."""
        import pyarrow.parquet as pq

        if self.writer is not None:
            self.writer.close()
            self.writer = None
        elif self.rows == 0 and self.shard == 0:
            pq.write_table(self.schema.empty_table(), f"{self.root}/part-00000.parquet", filesystem=self.filesystem)
            self.shard = 1
        return self.rows


def write_documents(batches: Iterable[Sequence[str]], path: str) -> int:
    """Write the text ``batches`` as Parquet shards of ``(row, text)`` under ``path``
    (:class:`DocumentShards`); returns the rows."""
    shards = DocumentShards(path)
    try:
        for texts in batches:
            shards.add(texts)
    finally:
        n = shards.close()
    return n
