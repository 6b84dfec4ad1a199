"""Issue 32: the Spark verification reads its candidates' sketches from the stored sketches, shuffling none.

:class:`~neardup.engines.shards.RowGroups` (pyarrow only, no Spark) reads given rows from Parquet
part files by their row groups' ranges, whatever the ranges (disjoint, overlapping, unknown);
the verification stage's plan moves only the candidates between tasks.  That its pairs and
scores are the local engine's, for every method, is checked in ``test_spark.py``.
"""

from __future__ import annotations

import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from neardup.engines.shards import RowGroups


def _part(folder, name: str, rows: np.ndarray, group_rows: int, statistics: bool = True) -> None:
    table = pa.table({"row": rows.astype(np.int64), "payload": [f"doc {r}".encode() for r in rows.tolist()]})
    pq.write_table(table, folder / name, row_group_size=group_rows, write_statistics=statistics)


def test_row_groups_read_the_rows_asked_for_in_order(tmp_path):
    rng = np.random.default_rng(3)
    rows = rng.permutation(500)
    # two parts of disjoint ranges, two of overlapping ones, one without statistics
    _part(tmp_path, "part-00000.parquet", np.arange(500, 600), 16)
    _part(tmp_path, "part-00001.parquet", np.arange(600, 700), 16)
    _part(tmp_path, "part-00002.parquet", np.sort(rows[:250]), 16)
    _part(tmp_path, "part-00003.parquet", np.sort(rows[250:400]), 16)
    _part(tmp_path, "part-00004.parquet", np.sort(rows[400:]), 16, statistics=False)
    (tmp_path / "_SUCCESS").write_bytes(b"")
    index = RowGroups.of(str(tmp_path))
    assert index.file.shape[0] == 7 + 7 + 16 + 10 + 7
    first = index.file == 0
    assert index.low[first].tolist() == list(range(500, 600, 16))
    assert index.high[first].tolist() == [min(r + 15, 599) for r in range(500, 600, 16)]
    blind = index.file == 4
    assert (index.low[blind] == np.iinfo(np.int64).min).all() and (index.high[blind] == np.iinfo(np.int64).max).all()
    for size in (1, 7, 60, 700):
        want = np.sort(rng.choice(700, size, replace=False))
        got = index.read(want, ["row", "payload"])
        assert got.column("row").to_numpy().tolist() == want.tolist()
        assert got.column("payload").to_pylist() == [f"doc {r}".encode() for r in want.tolist()]
    with pytest.raises(AssertionError):
        index.read(np.array([3, 700]), ["row"])


def test_row_groups_of_disjoint_ranges_read_only_the_groups_that_hold_the_rows(tmp_path, monkeypatch):
    _part(tmp_path, "part-00000.parquet", np.arange(0, 100), 10)
    _part(tmp_path, "part-00001.parquet", np.arange(100, 200), 10)
    index = RowGroups.of(str(tmp_path))
    asked: list[list[int]] = []
    real = pq.ParquetFile.read_row_groups

    def spy(self, groups, *args, **kwargs):
        asked.append(list(groups))
        return real(self, groups, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "read_row_groups", spy)
    index.read(np.array([5, 9, 150]), ["row"])
    assert asked == [[0], [5]]


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("java") is None, reason="the Spark engine needs Java 17+")
def test_verification_shuffles_nothing(tmp_path, spark_stopped_at_end):
    """The sketches are stored in row groups of at most ROW_GROUP_ROWS rows each; the plan of the
    verification stage has no exchange (main before issue 32's tenth part: the candidates' range
    partitioning by ``a``, a sampling job and a shuffle): the candidates stage stores them in blocks
    of their first row, with one exchange that also makes them distinct."""
    pytest.importorskip("pyspark")
    from neardup.engines import spark_stages as st
    from neardup.engines.codec import SketchLayout
    from neardup.engines.shards import ROW_GROUP_ROWS, stored, stored_by_row
    from neardup.engines.spark import SparkEngine
    from neardup.methods import get_method

    spark = SparkEngine(master="local[2]", partitions=2).session()
    method = get_method("minhash")
    layout = SketchLayout.probe(method)
    texts = ["the council approved the budget for the schools of the northern villages on tuesday",
             "the council approved the budget for the schools of the northern villages on monday",
             "heavy rain closed several roads in the north of the region and forecasters expect storms"]
    texts += [f"filler story number {i} about nothing in particular at all today" for i in range(3 * ROW_GROUP_ROWS)]
    docs = spark.createDataFrame([(i, t) for i, t in enumerate(texts)], "row long, text string")
    _, index = stored_by_row(st.sketch(docs, method, layout), str(tmp_path / "sketches"))
    assert index.file.shape[0] >= 3 and (index.high - index.low < ROW_GROUP_ROWS).all()
    cands = stored(spark.createDataFrame([(0, 1), (0, 2), (1, 2)], "a long, b long"), str(tmp_path / "candidates"))
    verified = st.verify(cands, index, method, layout, -np.inf)
    plan = verified._jdf.queryExecution().executedPlan().toString()
    exchanges = [line for line in plan.splitlines() if "Exchange" in line]
    assert not exchanges, plan
    blocked = st.in_blocks(spark.createDataFrame([(0, 1), (0, 1), (1, 2)], "a long, b long")).distinct()
    plan = blocked._jdf.queryExecution().executedPlan().toString()
    exchanges = [line for line in plan.splitlines() if "Exchange" in line]
    assert len(exchanges) == 1 and "hashpartitioning(block#" in exchanges[0], plan
    assert sorted(tuple(r) for r in blocked.drop("block").collect()) == [(0, 1), (1, 2)]
    scores = {(r["a"], r["b"]): r["score"] for r in verified.collect()}
    assert set(scores) == {(0, 1), (0, 2), (1, 2)} and scores[(0, 1)] > 0.5 > scores[(0, 2)]


def test_stage_files_are_written_without_dictionaries(tmp_path, spark_stopped_at_end):
    """A stage's Parquet (hashes, sketches, rows: nearly all distinct) has no dictionary-encoded column
    chunk (Parquet's default tries one for every column chunk, which cost the 200,000-document job a
    quarter of the JVM's CPU); a user's output keeps the writer's defaults."""
    pytest.importorskip("pyspark")
    import glob

    from pyspark.sql import functions as F

    from neardup.engines.shards import stored, stored_by_row
    from neardup.engines.spark import SparkEngine

    spark = SparkEngine(master="local[2]", partitions=2).session()
    frame = spark.range(5000).select(F.col("id").alias("row"), F.xxhash64("id").alias("h"),
                                     F.lit("the same text").alias("text"))
    stored(frame, str(tmp_path / "stored"))
    stored_by_row(frame, str(tmp_path / "by_row"))
    frame.write.parquet(str(tmp_path / "plain"))

    def encodings(folder: str) -> set[str]:
        found: set[str] = set()
        for name in glob.glob(f"{tmp_path}/{folder}/*.parquet"):
            meta = pq.ParquetFile(name).metadata
            for g in range(meta.num_row_groups):
                for c in range(meta.num_columns):
                    found.update(meta.row_group(g).column(c).encodings)
        return found

    assert encodings("stored") and not any("DICTIONARY" in e for e in encodings("stored") | encodings("by_row"))
    assert any("DICTIONARY" in e for e in encodings("plain"))
