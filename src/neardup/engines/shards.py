"""Parquet between the Spark stages: the driver's text shards and each stage's stored output.

The driver writes the input stage's texts as shards of ``(row, text)`` (rows numbered as the
local engine numbers them); each stage's result is written and read back, so a later stage
starts from Parquet (passim's habit), not from a recomputation.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Sequence

import numpy as np

#: Rows (documents) per input shard the driver writes.
SHARD_ROWS = 200_000


def stored(frame: Any, path: str) -> Any:
    """``frame`` written as Parquet at ``path`` and read back: a stage boundary (computed once)."""
    frame.write.mode("overwrite").parquet(path)
    return frame.sparkSession.read.parquet(path)


class DocumentShards:
    """Texts written as Parquet shards of ``(row, text)`` under ``path``, batch by batch.

    Rows are numbered from 0 in the order added (the local engine's numbering).  ``path`` is
    a local folder or any URI pyarrow writes (``s3://``, ``gs://``, ``hdfs://``).  A job that
    gets its batches one call at a time (the aligner's ``add``) writes through this;
    :func:`write_documents` takes an iterable.
    """

    def __init__(self, path: str) -> None:
        import pyarrow as pa
        from pyarrow import fs as pafs

        self.filesystem, self.root = pafs.FileSystem.from_uri(path if "://" in path else os.path.abspath(path))
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
