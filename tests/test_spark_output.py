"""Issue 32, fourth part: the Spark executors write ``dedup``'s outputs (:mod:`neardup.engines.spark_output`).

The pairs and clusters are written by Spark under the output folder (relations off here; on:
``tests/test_spark_relations.py``): the single files are the local engine's byte for byte (JSONL
and Parquet), the part files concatenated
in part order are the same rows in the same order, the summary (counts from aggregates, the
account naming the documents without words) is the local one, a failed run leaves no folder and
the driver never receives a per-document or per-pair list.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from spark_launch import SPARK, session_fixture, small_corpus, summary_of

pytest.importorskip("pyspark")
pytestmark = [pytest.mark.spark, pytest.mark.slow,
              pytest.mark.skipif(shutil.which("java") is None, reason="the Spark engine needs Java 17+")]

from neardup.cli import main  # noqa: E402
from neardup.engines.spark import SparkEngine  # noqa: E402

#: Relations off (the executors write), a method whose pairs cluster into many clusters.
ARGS = ["--quiet", "--no-relations", "--method", "minhash", "--threshold", "0.6"]
spark = session_fixture(3)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """600 syndicated documents, and three without words (named in the account)."""
    return small_corpus(tmp_path_factory.mktemp("written"), wordless=3)


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_single_files_and_parts_are_the_local_output(spark, corpus, tmp_path, fmt):
    import pyarrow as pa
    import pyarrow.parquet as pq

    args = [str(corpus), *ARGS, "--format", fmt]
    assert main(["dedup", *args, "-o", str(tmp_path / "l")]) == 0
    assert main(["dedup", *args, "-o", str(tmp_path / "s"), *SPARK]) == 0  # small: one file each
    assert main(["dedup", *args, "-o", str(tmp_path / "p"), *SPARK, "--no-coalesce"]) == 0
    local = summary_of(tmp_path / "l")
    assert local["pairs"] > 300 and local["clusters"] > 50
    assert local["documents"]["rejected_by_reason"] == {"no words": 3}
    assert summary_of(tmp_path / "s") == local and summary_of(tmp_path / "p") == local
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == [f"clusters.{fmt}", f"pairs.{fmt}", "summary.json"]
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == ["clusters", "pairs", "summary.json"]
    for name in ("pairs", "clusters"):
        single = (tmp_path / "l" / f"{name}.{fmt}").read_bytes()
        assert (tmp_path / "s" / f"{name}.{fmt}").read_bytes() == single
        parts = sorted((tmp_path / "p" / name).iterdir())
        assert [p.name for p in parts] == [f"part-{i:05d}.{fmt}" for i in range(len(parts))] and len(parts) == 3
        if fmt == "jsonl":
            assert b"".join(p.read_bytes() for p in parts) == single
        else:
            rows = pa.concat_tables([pq.read_table(p) for p in parts]).to_pylist()
            assert rows == pq.read_table(tmp_path / "l" / f"{name}.{fmt}").to_pylist()


def test_no_pair_writes_empty_tables(spark, tmp_path):
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"id": str(i), "text": f"story {i} " + " ".join(f"w{i}x{j}" for j in range(40))})
                            + "\n" for i in range(5)))
    assert main(["dedup", str(docs), *ARGS, "-o", str(tmp_path / "l")]) == 0
    assert main(["dedup", str(docs), *ARGS, "-o", str(tmp_path / "s"), *SPARK]) == 0
    assert main(["dedup", str(docs), *ARGS, "-o", str(tmp_path / "p"), *SPARK, "--no-coalesce"]) == 0
    for name in ("pairs.jsonl", "clusters.jsonl"):
        assert (tmp_path / "s" / name).read_bytes() == (tmp_path / "l" / name).read_bytes() == b""
    assert b"".join(p.read_bytes() for p in (tmp_path / "p" / "pairs").iterdir()) == b""
    assert summary_of(tmp_path / "s") == summary_of(tmp_path / "l") == summary_of(tmp_path / "p")


@pytest.mark.parametrize("failing", ["_pair_rows", "_cluster_rows"])
def test_a_failed_run_leaves_the_previous_output(spark, corpus, tmp_path, monkeypatch, capsys, failing):
    """A task that fails while the executors write (the pairs, or the clusters once the pairs' part
    files are written) ends the run; the output folder is the previous run's, and no temporary
    folder is left beside it."""
    import neardup.engines.spark_output as out

    out_dir = tmp_path / "out"
    assert main(["dedup", str(corpus), *ARGS, "-o", str(out_dir)]) == 0
    before = {p.name: p.read_bytes() for p in out_dir.iterdir()}
    made = getattr(out, failing)

    def failing_rows(*args):
        rows = made(*args)

        def boom(frames):
            for _ in frames:
                raise RuntimeError("injected task failure")
            yield from ()

        return rows.mapInPandas(boom, rows.schema)

    monkeypatch.setattr(out, failing, failing_rows)
    assert main(["dedup", str(corpus), *ARGS, "-o", str(out_dir), *SPARK, "--no-coalesce"]) != 0
    assert "injected task failure" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in out_dir.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


@pytest.mark.parametrize("relations", [False, True])
def test_the_driver_receives_no_list_per_document_or_pair(spark, corpus, tmp_path, monkeypatch, relations):
    """What comes back to the driver's Python during a written run, relations off or on (the
    defaults: :mod:`neardup.engines.spark_relations`): aggregates and the few rows a summary names
    -- never the ids, the pairs, the coverages, the relations, the clusters, the kept documents or
    the usable rows.  Every Parquet read (pyarrow, :func:`~neardup.engines.shards.read_stored`) and
    every Spark collect is counted; the driver's readers of whole results are made to fail."""
    import neardup.engines.shards as shards
    import neardup.engines.spark as spark_engine
    import neardup.engines.spark_input as spark_input
    import neardup.engines.spark_output as out
    import neardup.engines.spark_relations as relations_stage
    from neardup.engines.spark_align import SparkAligner
    from neardup.engines.spark_input import SparkInput
    from neardup.pipeline import WrittenResult
    from neardup.run import dedup_files

    DataFrame = type(spark.range(1))  # the session's own class (pyspark's classic one overrides collect)
    rows_back: list[tuple[str, int]] = []
    read_stored, collect = shards.read_stored, DataFrame.collect

    def counted_read(path, columns):
        got = read_stored(path, columns)
        rows_back.append((path, got.num_rows))
        return got

    def counted_collect(self):
        got = collect(self)
        rows_back.append(("collect", len(got)))
        return got

    def refuse(*args, **kwargs):
        raise AssertionError("the driver read a whole result")

    for module in (shards, spark_input, out, relations_stage):
        monkeypatch.setattr(module, "read_stored", counted_read)
    monkeypatch.setattr(DataFrame, "collect", counted_collect)
    monkeypatch.setattr(DataFrame, "toPandas", refuse)
    monkeypatch.setattr(DataFrame, "toLocalIterator", refuse)
    monkeypatch.setattr(SparkInput, "ids", refuse)
    monkeypatch.setattr(spark_engine, "read_found", refuse)
    monkeypatch.setattr(SparkAligner, "_found", refuse)  # the passages or chains, a batch at a time
    engine = SparkEngine(master="local[2]", partitions=3)
    result, summary = dedup_files([str(corpus)], tmp_path / "s", engine=engine, relations=relations,
                                  method="minhash", threshold=0.6, coalesce=False)
    assert isinstance(result, WrittenResult) and summary["pairs"] > 300
    assert ("relations" in summary) == relations and (summary.get("duplicates_removable", 0) > 100)
    assert summary["documents"]["kept"] == 600 and rows_back
    biggest = max(n for _, n in rows_back)
    # partitions, units, reasons, relations, the 3 rows without words: not 600 nor 300
    assert biggest <= 10, rows_back


def test_the_write_stage_runs_few_jobs(spark, corpus, tmp_path, monkeypatch):
    """Issue 32 (a job costs a fixed time on a small master): writing the two tables and counting takes
    at most 12 Spark jobs (main before the tenth part: over 20 -- a job to read the ids' footer, the
    cluster places, their sizes, two aggregates), the clusters numbered and counted from the stored
    clusters' footers; the pairs' and the clusters' jobs are submitted together, from two threads."""
    import threading

    import neardup.engines.spark_output as out

    tracker = spark.sparkContext.statusTracker()
    made, jobs, threads = out.written, [], set()
    write_table = out._write_table

    def counted(*args, **kwargs):
        before = set(tracker.getJobIdsForGroup())
        try:
            return made(*args, **kwargs)
        finally:
            jobs.extend(set(tracker.getJobIdsForGroup()) - before)

    def recorded(*args, **kwargs):
        threads.add(threading.get_ident())
        return write_table(*args, **kwargs)

    monkeypatch.setattr(out, "written", counted)
    monkeypatch.setattr(out, "_write_table", recorded)
    args = [str(corpus), *ARGS]
    assert main(["dedup", *args, "-o", str(tmp_path / "l")]) == 0
    assert main(["dedup", *args, "-o", str(tmp_path / "s"), *SPARK]) == 0
    assert summary_of(tmp_path / "s") == summary_of(tmp_path / "l")
    for name in ("pairs.jsonl", "clusters.jsonl"):
        assert (tmp_path / "s" / name).read_bytes() == (tmp_path / "l" / name).read_bytes()
    assert 4 <= len(jobs) <= 12, sorted(jobs)
    assert len(threads) == 2 and threading.get_ident() not in threads


@pytest.mark.parametrize("relations", [False, True])
def test_many_pairs_cluster_by_components_in_order(spark, corpus, tmp_path, monkeypatch, relations):
    """Pairs too many for one task (the cut-off lowered to 50): the components, the groups and the
    clusters sorted over several part files, numbered by the files' offsets -- the local files;
    below the cut-off no component is stored."""
    import neardup.engines.spark_components as components
    import neardup.engines.spark_relations as relations_stage

    args = [str(corpus), "--quiet", "--method", "minhash", "--threshold", "0.6", "--format", "parquet"]
    if not relations:
        args.append("--no-relations")
    assert main(["dedup", *args, "-o", str(tmp_path / "l")]) == 0
    work = tmp_path / "work"
    spark_args = [*SPARK, "--spark-work", str(work)]  # kept after the run
    assert main(["dedup", *args, "-o", str(tmp_path / "one"), *spark_args]) == 0
    assert not (work / "components").exists()
    monkeypatch.setattr(components, "PAIRS_PER_GROUP", 50)
    monkeypatch.setattr(relations_stage, "PAIRS_PER_GROUP", 50)
    assert main(["dedup", *args, "-o", str(tmp_path / "many"), *spark_args]) == 0
    assert (work / ("copy_components" if relations else "components")).is_dir()
    assert len(list((work / "clusters").glob("part-*.parquet"))) >= 2
    for got in ("one", "many"):
        assert summary_of(tmp_path / got) == summary_of(tmp_path / "l")
        for name in ("pairs.parquet", "clusters.parquet"):
            assert (tmp_path / got / name).read_bytes() == (tmp_path / "l" / name).read_bytes(), (got, name)
