"""The engine seam without Spark: the codec that moves sketches as table rows, engine choice."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.engines import get_engine
from neardup.engines.codec import SketchLayout
from neardup.errors import UserError
from neardup.methods import get_method
from neardup.methods.base import Sketches

TEXTS = ["the cat sat on the mat and looked at the birds in the garden", "", "one two",
         "a b c d e f g h i j k l m n o p", "the cat sat on the mat and looked at the dogs in the garden"]


@pytest.mark.parametrize("name, params", [("ffp", {}), ("minhash", {}), ("minhash", {"exact": True}),
                                          ("spotsigs", {})])
def test_codec_round_trip_any_rows_any_order(name, params):
    method = get_method(name, **params)
    sk = method.finish([method.sketch(method.prepare(TEXTS))])
    layout = SketchLayout.probe(method)
    assert layout == SketchLayout.of(sk)
    frame = layout.encode(np.arange(10, 15), sk)
    assert frame["row"].tolist() == list(range(10, 15))
    order = np.array([3, 0, 4, 1])
    back = layout.decode(frame.iloc[order].reset_index(drop=True))
    want = sk.take(order)
    assert np.array_equal(back.usable, want.usable)
    for k in want.columns:
        assert back.columns[k].dtype == want.columns[k].dtype and np.array_equal(back.columns[k], want.columns[k])
        assert back.columns[k].flags.writeable
    for k in want.lists:
        assert np.array_equal(back.lists[k], want.lists[k])
    if want.offsets is not None:
        assert np.array_equal(back.offsets, want.offsets)
    a, b = np.array([0, 0]), np.array([2, 3])
    assert method.score(back, a, b).tobytes() == method.score(want, a, b).tobytes()


def test_codec_empty_frame():
    method = get_method("minhash")
    layout = SketchLayout.probe(method)
    empty = layout.decode(layout.encode(np.zeros(0, np.int64), Sketches.concat(
        [method.finish([method.sketch(method.prepare(["x y z w v"]))])]).take(np.zeros(0, np.int64))))
    assert len(empty) == 0 and empty.columns["signatures"].shape == (0, 128)


def test_engine_choice():
    assert get_engine("local").name == "local"
    with pytest.raises(UserError, match="unknown engine"):
        get_engine("ray")
    with pytest.raises(UserError, match="sc://"):
        get_engine("spark", connect="http://x")
    with pytest.raises(UserError, match="not both"):
        get_engine("spark", master="local[2]", connect="sc://x")


@pytest.mark.parametrize("params", [{}, {"method": "minhash", "threshold": 0.5, "shingle_size": 3},
                                    {"method": "minhash", "threshold": 0.5, "exact": True}, {"method": "andd"},
                                    {"method": "andd", "raw": False, "shingle_size": 3, "similarity": "jaccard",
                                     "model": "tfidf"}, {"method": "simhash", "threshold": 0.8},
                                    {"method": "simhash", "weighting": "tfidf", "threshold": 0.8},
                                    {"method": "imatch", "selection": "codet", "top_terms": 5}, {"method": "wsample"},
                                    {"method": "minhash", "threshold": 0.5, "max_df": 5},
                                    {"method": "spotsigs", "antecedents": "top:5"}])
def test_local_engine_spills_past_its_budget_with_the_same_result(params, tmp_path):
    """Sketches past the memory budget go to memory-mapped files; pairs and clusters do not change.
    The features kept until the collection's statistics are known (ANDD's k-grams, the lists of simhash,
    I-Match, wsample, MinHash with max_df, SpotSigs with top:N) spill too (the statistics stay in memory)."""
    from pathlib import Path

    from neardup.engines.local import LocalEngine
    from neardup.io.readers import read_inputs
    from neardup.pipeline import Deduplicator

    sample = str(Path(__file__).resolve().parent.parent / "examples" / "sample.jsonl")
    want = Deduplicator(batch_bytes=20_000, **params).run(read_inputs([sample]))
    got = Deduplicator(batch_bytes=20_000, engine=LocalEngine(memory_budget=1, spill_dir=str(tmp_path)),
                       **params).run(read_inputs([sample]))
    assert want.a.shape[0] > (5 if params.get("method") == "imatch" else 10)  # I-Match finds 8 here
    assert np.array_equal(got.a, want.a) and np.array_equal(got.b, want.b)
    assert got.scores.tobytes() == want.scores.tobytes()
    assert [g.tolist() for g in got.groups] == [g.tolist() for g in want.groups]
    assert got.stats.notes["MB of sketches spilled to disk (memory-mapped)"] >= 0
    assert "MB of sketches spilled to disk (memory-mapped)" in got.stats.notes
    assert not list(tmp_path.iterdir())  # the spill files are removed


def test_spark_driver_memory_from_the_machine():
    from neardup.engines.spark_guard import machine_driver_memory

    assert machine_driver_memory(24 << 30) == "6g"  # a quarter
    assert machine_driver_memory(2 << 30) == "1g" and machine_driver_memory(1 << 40) == "32g"  # 1 to 32 GB
    assert machine_driver_memory().endswith("g")


def test_spark_conf_options():
    from neardup.cli_options import spark_conf

    assert spark_conf(["spark.executor.memory=8g", " a.b = c=d "]) == {"spark.executor.memory": "8g", "a.b": "c=d"}
    with pytest.raises(UserError, match="KEY=VALUE"):
        spark_conf(["spark.executor.memory"])


def test_spark_failures_become_one_line():
    """What a Spark failure ends the run with (issue 32): the cause and the setting to change;
    anything else (a bug) untouched."""
    pytest.importorskip("pyspark")
    from py4j.protocol import Py4JError

    from neardup.engines.spark_guard import guarded
    from neardup.errors import EngineError

    def ended(exc: BaseException) -> BaseException:
        with pytest.raises(BaseException) as got:
            with guarded(None, "3g"):
                raise exc
        return got.value

    oom = ended(Py4JError("An error occurred: java.lang.OutOfMemoryError: Java heap space"))
    assert isinstance(oom, EngineError) and "out of memory (spark.driver.memory=3g)" in str(oom)
    assert "--spark-driver-memory" in str(oom) and "--spark-partitions" in str(oom)
    lost = ended(ConnectionRefusedError(111, "Connection refused"))
    assert isinstance(lost, EngineError) and "lost the connection to the Spark driver" in str(lost)
    assert isinstance(ended(KeyError("x")), KeyError)


def test_spark_engine_collects_nothing_through_the_driver_jvm():
    """Issue 32: results come back as Parquet read by pyarrow (a stream where they are large), never
    through the driver's JVM heap -- its collect of 5,000 documents' passages ran it out of memory.
    Only one-row aggregates (``first()``) are fetched."""
    import ast
    from pathlib import Path

    import neardup.engines as engines

    found = []
    for path in sorted(Path(engines.__file__).parent.glob("spark*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr in ("toPandas", "collect", "toLocalIterator", "take",
                                                                  "head", "tail", "collectAsList"):
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
    assert found == []


@pytest.mark.parametrize("extra", [[], ["--engine", "spark", "--unique", "UNIQUE"]])
def test_part_files_need_spark_without_unique(tmp_path, capsys, extra):
    """``--no-coalesce`` (part files written by the executors) is refused where each table is one file
    anyway: the local engine, or Spark with ``--unique``; before anything is read or written."""
    from pathlib import Path

    from neardup.cli import main

    sample = Path(__file__).resolve().parent.parent / "examples" / "sample.jsonl"
    extra = [str(tmp_path / "u.jsonl") if e == "UNIQUE" else e for e in extra]
    assert main(["dedup", str(sample), "-o", str(tmp_path / "o"), "--quiet", "--no-coalesce", *extra]) == 2
    assert "--no-coalesce needs --engine spark and no --unique" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_a_table_is_one_file_up_to_the_threshold_unless_told(tmp_path, monkeypatch):
    from neardup.engines import spark_output

    part = tmp_path / "part-00000.jsonl"
    part.write_bytes(b"x" * 10)
    monkeypatch.setattr(spark_output, "COALESCE_BYTES", 15)
    assert spark_output._coalesced(None, [part]) and not spark_output._coalesced(None, [part, part])
    assert spark_output._coalesced(True, [part, part]) and not spark_output._coalesced(False, [part])


@pytest.mark.parametrize("rows", [0, 3, 12])
def test_parquet_parts_joined_are_the_local_file(tmp_path, monkeypatch, rows):
    """Parts as Spark writes them (its metadata; lists of ``element``) joined into the local writer's
    bytes, row groups of :data:`ROW_GROUP_ROWS` across the parts' boundaries (5 here, as 2**20 is)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from neardup.engines import spark_output
    from neardup.io.writers import write_rows

    monkeypatch.setattr(spark_output, "ROW_GROUP_ROWS", 5)
    table = [{"cluster": i, "ids": [f"d{i}", f"e{i}"], "representative": f"d{i}"} for i in range(rows)]
    spark_like = pa.schema([("cluster", pa.int64()), ("ids", pa.list_(pa.field("element", pa.string()))),
                            ("representative", pa.string())], metadata={"org.apache.spark.version": "4"})
    parts = []
    for i, lo in enumerate(range(0, rows, 4)):
        parts.append(tmp_path / f"part-{i:05d}.parquet")
        pq.write_table(pa.Table.from_pylist(table[lo:lo + 4], schema=spark_like), parts[-1])
    spark_output._join_parquet(parts, tmp_path / "joined.parquet")
    if rows:
        pq.write_table(pa.Table.from_pylist(table), tmp_path / "local.parquet", row_group_size=5)
    else:
        write_rows(tmp_path / "local.parquet", [], "parquet")
    assert (tmp_path / "joined.parquet").read_bytes() == (tmp_path / "local.parquet").read_bytes()


def test_py4j_reports_go_to_a_quiet_runs_spark_log_not_stderr(tmp_path, capsys):
    """A quiet Spark run that fails ends with one line: py4j's own traceback of a command it could not
    send to an ending JVM (logged on the root logger by whichever thread met it first) goes to Spark's log."""
    import logging
    import sys

    from neardup.engines.spark_guard import BridgeReports

    log = tmp_path / "spark.log"
    root = logging.getLogger()
    handler = logging.StreamHandler(sys.stderr)
    root.addHandler(handler)
    BridgeReports.into(str(log))
    try:
        for path, msg in (("/env/site-packages/py4j/java_gateway.py", "Exception while sending command."),
                          ("/env/site-packages/neardup/run.py", "a record of anything else")):
            root.handle(root.makeRecord("root", logging.ERROR, path, 1, msg, (), None))
    finally:
        root.removeHandler(handler)
        root.removeFilter(BridgeReports._installed)
        BridgeReports._installed = None
    err = capsys.readouterr().err
    assert "Exception while sending" not in err and "a record of anything else" in err
    assert log.read_text() == "Exception while sending command.\n"
