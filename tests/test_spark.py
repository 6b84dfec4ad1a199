"""The Spark engine gives byte-identical outputs to the local engine (``--engine spark``).

Marked ``spark``; skipped where pyspark or Java is missing (``.ci/run`` installs the
extra).  One Spark session (local[2]) serves the test run.  The simulated corpus: 5,000
documents syndicated by ``neardup synth``'s simulator from 2,000 made-up articles
(seeded; no third-party data) -- the 8 shipped articles would make 8 clusters of ~600
documents and five million pairs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyspark")
pytestmark = [pytest.mark.spark, pytest.mark.slow,
              pytest.mark.skipif(shutil.which("java") is None, reason="the Spark engine needs Java 17+")]

from spark_launch import made_up_articles, session_fixture, summary_of  # noqa: E402

from neardup.cli import main  # noqa: E402
from neardup.engines.spark import SparkEngine  # noqa: E402
from neardup.io.readers import read_inputs  # noqa: E402
from neardup.pipeline import Deduplicator  # noqa: E402

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sample.jsonl"
SPARK = ["--engine", "spark", "--spark-master", "local[2]"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    from neardup.evaluate.synth import write_corpus

    out = tmp_path_factory.mktemp("synth")
    write_corpus(made_up_articles(2000, 5), out, 3, 5000)
    return out / "docs.jsonl"


spark = session_fixture(2)


def _engine(partitions: int, shuffle_seed: int | None = None) -> SparkEngine:
    return SparkEngine(master="local[2]", partitions=partitions, shuffle_seed=shuffle_seed)


def _same(local, other) -> None:
    assert other.ids == local.ids
    assert np.array_equal(other.a, local.a) and np.array_equal(other.b, local.b)
    assert other.scores.tobytes() == local.scores.tobytes()  # bit-equal floats
    assert [g.tolist() for g in other.groups] == [g.tolist() for g in local.groups]
    assert np.array_equal(other.usable, local.usable)
    assert other.candidate_pairs == local.candidate_pairs


def test_dedup_cli_sample_byte_identical(spark, tmp_path):
    assert main(["dedup", str(SAMPLE), "-o", str(tmp_path / "l"), "--quiet"]) == 0
    assert main(["dedup", str(SAMPLE), "-o", str(tmp_path / "s"), "--quiet", *SPARK, "--spark-partitions", "3"]) == 0
    for name in ("pairs.jsonl", "clusters.jsonl"):
        assert (tmp_path / "s" / name).read_bytes() == (tmp_path / "l" / name).read_bytes()
    # the summary's fields in the same order too (the aligner's counts were not)
    assert json.dumps(summary_of(tmp_path / "s")) == json.dumps(summary_of(tmp_path / "l"))


@pytest.mark.parametrize("params", [{}, {"method": "minhash", "threshold": 0.5, "shingle_size": 3},
                                    {"method": "spotsigs", "threshold": 0.4}])
def test_dedup_sample_methods(spark, params):
    local = Deduplicator(**params).run(read_inputs([str(SAMPLE)]))
    assert local.a.shape[0] > 10
    _same(local, Deduplicator(engine=_engine(3, shuffle_seed=1), **params).run(read_inputs([str(SAMPLE)])))


def test_dedup_corpus_two_partition_counts_any_order(spark, corpus):
    """ffp (the default) on 5,000 documents: 2 partitions in input order, 5 scrambled."""
    local = Deduplicator().run(read_inputs([str(corpus)]))
    assert local.a.shape[0] > 5000 and len(local.groups) > 500
    for engine in (_engine(2), _engine(5, shuffle_seed=7)):
        _same(local, Deduplicator(engine=engine).run(read_inputs([str(corpus)])))


def test_dedup_corpus_minhash_leader(spark, corpus, tmp_path):
    """MinHash LSH (keys, groupBy) and leader clustering, files through the CLI."""
    args = [str(corpus), "--quiet", "--method", "minhash", "--threshold", "0.6", "--cluster", "leader"]
    assert main(["dedup", *args, "-o", str(tmp_path / "l")]) == 0
    assert main(["dedup", *args, "-o", str(tmp_path / "s"), *SPARK, "--spark-partitions", "4"]) == 0
    for name in ("pairs.jsonl", "clusters.jsonl"):
        assert (tmp_path / "s" / name).read_bytes() == (tmp_path / "l" / name).read_bytes()
    assert summary_of(tmp_path / "s") == summary_of(tmp_path / "l")


@pytest.mark.parametrize("job, source, extra", [
    ("partial", "sample", []), ("partial", "corpus", []),  # --method align, the default
    ("partial", "sample", ["--method", "pdc"]), ("partial", "corpus", ["--method", "pdc"]),
    # the signatures that need the input's word statistics (summed over the executors' batches)
    ("partial", "sample", ["--method", "pdc", "--signature", "imatch"]),
    ("partial", "sample", ["--method", "pdc", "--signature", "spotsigs", "--antecedents", "300"]),
    ("contain", "sample", []), ("contain", "corpus", ["--window", "400"]),  # aligned coverage, the default
])
def test_partial_and_contain_byte_identical(spark, corpus, tmp_path, job, source, extra):
    args = [str(SAMPLE if source == "sample" else corpus), "--quiet", *extra]
    assert main([job, *args, "-o", str(tmp_path / "l")]) == 0
    assert main([job, *args, "-o", str(tmp_path / "s"), *SPARK, "--spark-partitions", "3"]) == 0
    name = "partials.jsonl" if job == "partial" else "containments.jsonl"
    local = (tmp_path / "l" / name).read_bytes()
    assert local.count(b"\n") > (50 if job == "partial" else 20)
    assert (tmp_path / "s" / name).read_bytes() == local
    assert summary_of(tmp_path / "s") == summary_of(tmp_path / "l")


def _timed_inputs(folder: Path) -> list[str]:
    """The sample with every arrival case of ``contain``: numeric and ISO times, none (its place among
    the items read stands in: each given time is half a second past its own place, so a place off by
    one, or an empty file not counted, makes the next untimed record late), late, unreadable, a record
    with no word, a repeated id (of a document, of a rejection), an empty file read in byte ranges."""
    from datetime import UTC, datetime

    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    rows[20]["text"] = "-- !!! --"  # admitted, then no words: its time still counts
    rows.insert(30, dict(rows[12]))  # a repeated id of a document
    rows.insert(35, dict(rows[9], text="a later record of a refused id"))  # a repeated id of a rejection
    for i, r in enumerate(rows):
        place = i + 1 if i < 25 else i + 2  # the empty file is read between the 25th and 26th
        if i % 7 == 3:
            r.pop("time")
        elif i % 13 == 4:
            r["time"] = place - 5  # late
        elif i % 5 == 2:
            r["time"] = datetime.fromtimestamp(place + 0.5, UTC).isoformat()
        else:
            r["time"] = place + 0.5
    rows[9]["time"] = "yesterday"  # invalid time
    rows[24]["time"], _ = 26.5, rows[25].pop("time")  # late unless the empty file's item is counted
    first, empty, second = folder / "a.jsonl", folder / "b.jsonl", folder / "c.jsonl"
    first.write_text("".join(json.dumps(r) + "\n" for r in rows[:25]))
    empty.write_text("\n" * 5000)  # read in two byte ranges, neither holding a record
    second.write_text("".join(json.dumps(r) + "\n" for r in rows[25:]))
    return [str(first), str(empty), str(second)]


@pytest.mark.parametrize("window", [None, "3s", "6"])
def test_contain_executors_read_arrival_times(spark, tmp_path, monkeypatch, window):
    """``contain`` on Spark has the executors read its inputs and check each record's time there; the
    times' sequential rule (none: the place read; earlier: the latest seen, late) on the driver over
    one number per document: the containments and summary are the local ones."""
    from neardup.contain.detector import ContainmentDetector
    from neardup.contain.run import contain_files

    inputs = _timed_inputs(tmp_path)
    local = contain_files(inputs, tmp_path / "l", window=window)
    engine = SparkEngine(master="local[2]", partitions=3, shuffle_seed=3, split_bytes=4096)
    with monkeypatch.context() as m:  # the driver reads nothing
        m.setattr(ContainmentDetector, "_read", lambda *a: pytest.fail("the driver read the input"))
        contain_files(inputs, tmp_path / "s", window=window, engine=engine)
    found = (tmp_path / "l" / "containments.jsonl").read_bytes()
    assert found.count(b"\n") > 10
    assert (tmp_path / "s" / "containments.jsonl").read_bytes() == found
    assert summary_of(tmp_path / "s") == summary_of(tmp_path / "l")
    reasons = local["documents"]["rejected_by_reason"]
    assert reasons["invalid time"] == 1 and reasons["no words"] == 1 and reasons["duplicate id"] == 2
    assert local["late_documents"] == 2  # the two at ``place - 5`` (a third is a repeated id)
    assert ("no time" in reasons) == (window == "3s")


def test_partial_align_corpus_two_partition_counts_any_order(spark, corpus, tmp_path):
    """The aligner's stages on 5,000 documents: 2 partitions in input order, 5 scrambled."""
    from neardup.partial.run import align_files

    align_files([str(corpus)], tmp_path / "l")
    local = (tmp_path / "l" / "partials.jsonl").read_bytes()
    assert local.count(b"\n") > 1000
    for i, engine in enumerate((_engine(2), _engine(5, shuffle_seed=7))):
        align_files([str(corpus)], tmp_path / f"s{i}", engine=engine)
        assert (tmp_path / f"s{i}" / "partials.jsonl").read_bytes() == local
        assert summary_of(tmp_path / f"s{i}") == summary_of(tmp_path / "l")


def test_complete_runs_never_split_a_key():
    import pandas as pd

    from neardup.engines.spark_batches import complete_runs

    keys = np.array([1, 1, 2, 2, 2, 2, 2, 3, 4, 4])
    frames = [pd.DataFrame({"k": keys[lo:hi], "v": np.arange(lo, hi)}) for lo, hi in ((0, 3), (3, 5), (5, 6), (6, 6),
                                                                                    (6, 9), (9, 10))]
    got = list(complete_runs(iter(frames), ["k"]))
    assert np.array_equal(np.concatenate([f["v"].to_numpy() for f in got]), np.arange(10))
    seen = [set(f["k"].tolist()) for f in got]
    assert all(not (x & y) for i, x in enumerate(seen) for y in seen[i + 1:])  # each key in one frame


def test_group_pairs_groups_across_arrow_batches(spark):
    """Every pair of every group, ``a < b``, when groups span many Arrow batches (3 rows each here) and
    partitions, and groups of one give none; a pair two groups make counts 2 (its ``n`` summed)."""
    from collections import Counter

    from neardup.engines.spark_stages import group_pairs

    sizes = ((1, 10), (2, 1), (3, 7), (4, 2))
    rows = [(k, i) for k, size in sizes for i in range(100 * k + size - 1, 100 * k - 1, -1)]
    rows += [(5, 100), (5, 101), (5, 300)]  # again (100, 101); (100, 300) and (101, 300) once
    keyed = spark.createDataFrame(rows, "key long, row long")
    batch = spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "3")
    try:
        got: Counter = Counter()
        for r in group_pairs(keyed, ["key"], "row").collect():
            got[(r["a"], r["b"])] += r["n"]
    finally:
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", batch)
    want = Counter((a, b) for k, size in sizes if size > 1 for a in range(100 * k, 100 * k + size)
                   for b in range(a + 1, 100 * k + size))
    want.update([(100, 101), (100, 300), (101, 300)])
    assert got == want and got[(100, 101)] == 2
    # groups of two keys: one first key's rows in groups of the second (a group of one among them),
    # arriving in no order (the JVM sorts by the first key only)
    banded = spark.createDataFrame([(7, 2, 6), (7, 0, 2), (7, 2, 4), (7, 1, 3), (7, 0, 1), (7, 2, 5), (8, 0, 1)],
                                   "key long, band int, row long")
    pairs = Counter((r["a"], r["b"]) for r in group_pairs(banded, ["key", "band"], "row").collect()
                    for _ in range(r["n"]))
    assert pairs == Counter([(1, 2), (4, 5), (4, 6), (5, 6)])


def test_span_stage_matches_every_document_pair_in_one_call_per_batch(spark):
    """PDC's sequence matching on Spark: the spans of every document pair as the local kernel finds them,
    with pairs spanning Arrow batches (3 rows each here) and partitions -- by batches of whole pairs
    (``mapInPandas``), not a Python call per document pair (``applyInPandas``; docs/scale.md, thirteenth part)."""
    from neardup.engines.spark_partial import span_stage
    from neardup.pdc.stages import Records, sequence_matching

    rng = np.random.default_rng(3)
    rows = []
    for pair in range(12):
        run = rng.integers(0, 9)  # a diagonal of ``run`` sentences, then scattered ones
        rows += [(pair // 4, pair, 5 + i, 2 + i) for i in range(run)]
        rows += [(pair // 4, pair, int(a), int(b)) for a, b in rng.integers(0, 40, (rng.integers(0, 6), 2))]
    rows = list(dict.fromkeys(rows))
    rng.shuffle(rows)
    dups = spark.createDataFrame([tuple(map(int, r)) for r in rows], "doc_a long, doc_b long, a long, b long")
    batch = spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "3")
    try:
        stage = span_stage(dups.repartition(3), 1, 3)
        got = sorted(tuple(r) for r in stage.collect())
    finally:
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", batch)
    plan = stage._jdf.queryExecution().executedPlan().toString()
    assert "MapInPandas" in plan and "FlatMapGroupsInPandas" not in plan, plan
    table = np.array(rows, dtype=np.int64)
    key = table[:, 0] * 100 + table[:, 1]
    local = sequence_matching(Records(key, {"a": table[:, 2], "b": table[:, 3]}), 1, 3)
    want = sorted((int(k // 100), int(k % 100), int(a), int(b), int(n)) for k, a, b, n in local)
    assert got == want and len(want) >= 5


def test_sketch_stage_makes_the_candidate_keys(spark):
    """With ``keys_of``, each sketch row carries the method's keys of that document (the local index's
    bands), one column a band; the candidates explode those of usable documents as ``(band, key, row)``."""
    from neardup.engines import spark_stages as st
    from neardup.engines.codec import SketchLayout
    from neardup.methods import get_method

    method = get_method("minhash")
    layout = SketchLayout.probe(method)
    texts = ["the council approved the budget for the schools of the northern villages on tuesday",
             "the council approved the budget for the schools of the northern villages on monday", "", "!!"]
    docs = spark.createDataFrame(list(enumerate(texts)), "row long, text string")
    keys_of = st.candidate_keys(method, method.candidate_plan(), len(texts))
    columns = st.key_columns(method, keys_of)
    got = {r["row"]: [r[c] for c in columns] for r in st.sketch(docs, method, layout, keys_of=keys_of).collect()}
    local = method.finish([method.sketch(method.prepare(texts))])
    want = np.ascontiguousarray(keys_of(local)).view(np.int64)
    assert len(columns) == want.shape[1] == method.banding().bands
    for row in range(len(texts)):
        assert got[row] == want[row].tolist()
    assert local.usable.tolist() == [True, True, False, False]
    sketches = st.sketch(docs, method, layout, keys_of=keys_of)
    assert sorted(tuple(r) for r in st.key_candidates(sketches, 1).collect()) == [(0, 1)]


def test_narrow_batches_are_restored(spark):
    """Inside, Arrow batches of at least NARROW_BATCH_ROWS rows (never fewer than a larger setting)
    and no byte bound (2**31 - 1: Spark then skips its size check after every row); after, even when a
    job failed, both settings as they were."""
    from neardup.engines.spark_batches import NARROW_BATCH_ROWS, narrow_batches

    key, size = "spark.sql.execution.arrow.maxRecordsPerBatch", "spark.sql.execution.arrow.maxBytesPerBatch"
    before = spark.conf.get(key)
    spark.conf.set(key, "2000")
    bytes_before = spark.conf.get(size)
    try:
        with pytest.raises(RuntimeError), narrow_batches(spark):
            assert int(spark.conf.get(key)) == NARROW_BATCH_ROWS
            assert spark.conf.get(size) == str(2**31 - 1)
            raise RuntimeError("a stage failed")
        assert spark.conf.get(key) == "2000" and spark.conf.get(size) == bytes_before
        spark.conf.set(key, str(4 * NARROW_BATCH_ROWS))
        with narrow_batches(spark):
            assert int(spark.conf.get(key)) == 4 * NARROW_BATCH_ROWS
    finally:
        spark.conf.set(key, before)


@pytest.mark.parametrize("one_task", [False, True])
def test_connected_components_large_small_star(spark, one_task):
    from neardup.cluster import cluster_labels
    from neardup.engines.spark_components import connected_components

    rng = np.random.default_rng(4)
    a = rng.integers(0, 300, 250)
    b = rng.integers(0, 300, 250)
    keep = a != b
    a, b = np.minimum(a, b)[keep], np.maximum(a, b)[keep]
    edges = spark.createDataFrame([(int(x), int(y)) for x, y in zip(a, b)], "a long, b long").repartition(3)
    found = connected_components(edges, one_task).collect()
    comp = {r["row"]: r["comp"] for r in found}
    assert len(comp) == len(found)  # one row per node
    labels = cluster_labels(300, a, b)
    for node in set(a.tolist()) | set(b.tolist()):
        assert comp[node] == int(np.flatnonzero(labels == labels[node])[0])  # the component's smallest row


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """900 documents syndicated from 300 made-up articles: every method finds pairs, in seconds."""
    from neardup.evaluate.synth import write_corpus

    out = tmp_path_factory.mktemp("small")
    write_corpus(made_up_articles(300, 11), out, 3, 900)
    return out / "docs.jsonl"


#: Every method at its defaults, and the variants whose statistics come from the whole collection.
METHOD_VARIANTS = [("ffp", {}), ("minhash", {}), ("spotsigs", {}), ("simhash", {}), ("imatch", {}), ("wsample", {}),
                   ("andd", {}), ("minhash", {"max_df": 30}), ("spotsigs", {"antecedents": "top:5"}),
                   ("simhash", {"weighting": "tfidf"}), ("simhash", {"weighting": "uniform"}),
                   ("andd", {"similarity": "jaccard", "model": "tfidf"})]


@pytest.mark.parametrize("name, params", METHOD_VARIANTS)
def test_every_method_byte_identical(spark, small, name, params):
    """Issue 32: the collection statistics as a Spark stage (counted per batch, summed, applied per
    batch), simhash's Hamming search by permuted-table keys: the local answer, reports included."""
    local = Deduplicator(method=name, **params).run(read_inputs([str(small)]))
    assert local.a.shape[0] > 10 and len(local.groups) > 3
    got = Deduplicator(method=name, engine=_engine(3, shuffle_seed=2), **params).run(read_inputs([str(small)]))
    _same(local, got)
    assert {k: v for k, v in got.params.items() if k != "engine"} == local.params


def test_rows_a_method_never_pairs_are_no_spark_candidates(spark):
    """Three documents made only of phrases in every document: usable, but no weighted phrase (log IDF
    0), so weighted sampling never pairs them; Spark's key grouping made them candidates (6 more)."""
    import random

    r = random.Random(1)
    common = " ".join(f"common{i}" for i in range(30))
    texts = [" ".join(f"w{r.randrange(5000)}" for _ in range(60)) + " " + common for _ in range(20)] + [common] * 3
    docs = [{"id": f"d{i}", "text": t} for i, t in enumerate(texts)]
    local = Deduplicator(method="wsample", phrase_idf="log").run(docs)
    _same(local, Deduplicator(method="wsample", phrase_idf="log", engine=_engine(2)).run(docs))


def test_stats_build_on_spark_writes_the_same_statistics(spark, small, tmp_path):
    from neardup.stats.build import CollectionStats

    assert main(["stats", "build", str(small), "-o", str(tmp_path / "l.npz"), "--quiet"]) == 0
    assert main(["stats", "build", str(small), "-o", str(tmp_path / "s.npz"), "--quiet", *SPARK]) == 0
    local, other = CollectionStats.load(tmp_path / "l.npz"), CollectionStats.load(tmp_path / "s.npz")
    assert local.n_docs == other.n_docs == 900 and local.words.keys.shape[0] > 1000
    for a, b in ((local.words, other.words), (local.phrases, other.phrases)):
        assert a.keys.tobytes() == b.keys.tobytes() and a.counts.tobytes() == b.counts.tobytes()


def test_starved_driver_ends_with_the_cause_never_hangs(tmp_path):
    """Issue 32: a driver whose heap runs out (a JVM of 96 MB told by spark.testing.memory that it has
    2 GB, so Spark starts and overfills it) ends the run with one line naming the setting, exit 2,
    nothing written -- not a hang, not a traceback, not a blame on the output file."""
    import subprocess
    import sys

    out = tmp_path / "c"
    done = subprocess.run([sys.executable, "-m", "neardup", "contain", str(SAMPLE), "-o", str(out), "--quiet", *SPARK,
                           "--spark-driver-memory", "96m", "--spark-conf", "spark.testing.memory=2147483648"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr == ("neardup: error: the Spark driver ran out of memory (spark.driver.memory=96m): "
                           "raise --spark-driver-memory\n"), done.stderr[-2000:]
    assert not out.exists()


def test_watchdog_ends_a_stuck_job(spark):
    """No job waits forever: a task that does not finish within --spark-timeout ends the run with
    the cause (the job is cancelled; the session lives on)."""
    import time

    from neardup.errors import EngineError

    def stuck(frames):
        time.sleep(120)
        yield from frames

    engine = SparkEngine(master="local[2]", timeout=6)
    start = time.monotonic()
    with pytest.raises(EngineError, match="no Spark task finished for 6 s"):
        with engine.running() as session:
            session.range(1).mapInPandas(stuck, "id long").collect()
    assert time.monotonic() - start < 60
    assert spark.range(3).count() == 3


def test_refusals_before_reading(tmp_path):
    assert main(["dedup", str(SAMPLE), "-o", str(tmp_path / "x"), "--spark-partitions", "2"]) == 2
    assert main(["partial", str(SAMPLE), "-o", str(tmp_path / "t"), "--truth", str(SAMPLE), *SPARK]) == 2
    assert main(["contain", str(SAMPLE), "-o", str(tmp_path / "c"), "--method", "codet", *SPARK]) == 2
    assert not (tmp_path / "c").exists() and not (tmp_path / "t").exists()
    assert not (tmp_path / "x").exists()


def test_quiet_silences_spark(tmp_path):
    # issue 29 item 10: --quiet left Spark's (and Java's) log on stderr; a run of its own, so its JVM starts here
    import subprocess
    import sys

    assert main(["dedup", str(SAMPLE), "-o", str(tmp_path / "l"), "--quiet"]) == 0
    done = subprocess.run([sys.executable, "-m", "neardup", "dedup", str(SAMPLE), "-o", str(tmp_path / "s"), "--quiet",
                           *SPARK], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0 and done.stderr == "" and done.stdout == ""
    assert (tmp_path / "s" / "pairs.jsonl").read_bytes() == (tmp_path / "l" / "pairs.jsonl").read_bytes()
