"""Issue 32: the Spark engine's executors read the inputs (:mod:`neardup.engines.spark_input`).

The same rows, ids, rejections (reasons, files, lines, order), account and outputs as the
local input stage, on a folder of every input kind with every kind of bad record, with
plain JSONL files cut into byte ranges; and the driver never reads a record.
The byte-range reader itself is checked without Spark.
"""

from __future__ import annotations

import gzip
import io
import json
import shutil
import sys
from pathlib import Path

import pytest

from spark_launch import session_fixture, small_corpus, summary_of

from neardup.io.readers import Record, Rejection, read_inputs, read_jsonl

STORY = ("The council approved the new budget for the city's schools on Tuesday after a long debate "
         "about teachers, buildings and the cost of buses for the children of the northern villages.")
OTHER = ("Heavy rain closed several roads in the north of the region, and forecasters expect more "
         "storms this week as rivers rise close to the level of the floods two winters ago.")


def _ranges(path: Path, size: int) -> list[Record | Rejection]:
    """``path`` read as byte ranges of ``size``, lines renumbered from the file's start."""
    out: list[Record | Rejection] = []
    before, total, held = 0, path.stat().st_size, False
    for lo in range(0, total, size):
        seen = [0, 0]
        for item in read_jsonl(path, start=lo, end=min(lo + size, total), seen=seen):
            if item.line is not None:
                item.line += before
            out.append(item)
        before += seen[1]
        held = held or bool(seen[0])
    if not held:
        out.append(Rejection(str(path), None, "empty input", "no records"))
    return out


@pytest.mark.parametrize("size", [1, 7, 64, 100, 1000, 10**6])
def test_byte_ranges_read_every_line_once_with_its_number(tmp_path, size):
    lines = [b'\xef\xbb\xbf{"id": "a", "text": "one two"}', b"", b"   ", b"{not json", b'{"id": "b", "text": "x"}',
             b'{"id": "c", "text": "caf\xe9 au lait"}', b"", b'{"id": "d", "text": "last"}']
    path = tmp_path / "x.jsonl"
    path.write_bytes(b"\n".join(lines))  # no newline at the end
    whole = list(read_inputs([path]))
    assert [getattr(i, "id", None) for i in whole] == ["a", None, "b", "c", "d"]
    got = _ranges(path, size)
    assert [(type(i), getattr(i, "id", None), i.line) for i in got] == [(type(i), getattr(i, "id", None), i.line)
                                                                         for i in whole]
    assert [i.encoding for i in got if isinstance(i, Record)] == [i.encoding for i in whole if isinstance(i, Record)]


def test_byte_ranges_of_a_file_without_records_say_it_is_empty(tmp_path):
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n\n  \n\n")
    assert [(i.reason, i.line) for i in _ranges(path, 2)] == [(i.reason, i.line) for i in read_inputs([path])]


def wide_and_tabular_folder(root: Path) -> Path:
    """A UTF-16 JSONL file larger than :data:`SPLIT` (a bad line in it), UTF-16, cp1252 and malformed
    CSV/TSV files: what the local readers decode or reject, and the executors must read the same."""
    folder = root / "wide"
    folder.mkdir()
    lines = [json.dumps({"id": f"w{i}", "text": f"{STORY if i % 2 else OTHER} \u00e9 {i}"}) for i in range(700)]
    lines[350] = "{broken"
    (folder / "a_wide.jsonl").write_bytes(("\n".join(lines) + "\n").encode("utf-16"))
    assert (folder / "a_wide.jsonl").stat().st_size > 2 * SPLIT
    (folder / "b_wide.tsv").write_bytes(f'id\ttext\nt1\t"{STORY}\nsecond line"\nt2\t{OTHER}\n'.encode("utf-16"))
    (folder / "c_legacy.csv").write_bytes(f'id,text\nl1,"caf\u00e9 {OTHER}"\n'.encode("cp1252"))
    (folder / "d_bad.csv").write_text(f'id,text\nm1,"{STORY} m"\nm2,one,two\n,"{OTHER}"\nm3,"never closed\nm4,x\n')
    (folder / "e_twice.csv").write_text(f'id,text,text\nn1,"{STORY}","{OTHER}"\n')
    return folder


def _warc(path: Path) -> None:
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    page = f"<html><body><article><p>{STORY}</p></article></body></html>".encode()
    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for url, ctype, body in [("https://a.example/1", "text/html", page), ("https://b.example/2", "text/html", page),
                                 ("https://a.example/logo.png", "image/png", b"\x89PNG....")]:
            http = StatusAndHeaders("200 OK", [("Content-Type", ctype)], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=http))


def messy_folder(root: Path, synth: Path) -> Path:
    """A folder of every input kind the readers take, with every kind of bad record."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = root / "in"
    (folder / "pages").mkdir(parents=True)
    shutil.copy(synth, folder / "a_synth.jsonl")
    rows = [{"id": "dup", "text": STORY}, {"id": "dup", "text": OTHER}, {"id": "e", "text": ""},
            {"id": "x" * 5000, "text": STORY}, {"id": "page", "html": f"<p>{OTHER}</p>"},
            {"id": "noext", "html": "<html><body></body></html>"}, {"id": "noext", "text": STORY},
            {"id": "nowords", "text": "!!! ??? ..."}, {"id": "story2", "text": STORY + " Again."},
            {"id": "in_text", "text": f"<html><body><article><p>{OTHER}</p></article></body></html>"}]
    lines = [json.dumps(r, ensure_ascii=False).encode() for r in rows]
    lines.insert(3, b"{broken")
    lines.insert(5, b"")
    lines.append('{"id": "cp", "text": "caf\u00e9 au lait in the morning with the paper"}'.encode("cp1252"))
    (folder / "b_mixed.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    with gzip.open(folder / "c_more.jsonl.gz", "wt") as fh:
        fh.write(json.dumps({"id": "gz1", "text": OTHER}) + "\n" + json.dumps({"id": "dup", "text": OTHER}) + "\n")
    pq.write_table(pa.table({"id": ["p1", "p2", "story2"], "text": [STORY, "", OTHER]}), folder / "d.parquet")
    (folder / "e.csv").write_text(f'id,text\ncsv1,"{OTHER}"\ncsv2,\n')
    (folder / "f_empty.jsonl").write_text("\n" * 70_000)  # read in two ranges of SPLIT
    _warc(folder / "g.warc.gz")
    (folder / "pages" / "one.html").write_text(f"<html><body><article><p>{STORY}</p></article></body></html>")
    (folder / "pages" / "two.txt").write_text(OTHER)
    (folder / "pages" / "empty.txt").write_text("  ")
    (folder / "pages" / "notes.doc").write_text("?")
    return folder


spark_test = pytest.mark.spark
slow_test = pytest.mark.slow
#: Byte ranges of 64 KB: a few dozen tasks over the messy folder, two over its empty file (the
#: byte-range reader's own edges are tested above, without Spark, down to ranges of a few bytes).
SPLIT = 1 << 16


spark = session_fixture(2)


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    return small_corpus(tmp_path_factory.mktemp("small_input"))


@spark_test
@slow_test
@pytest.mark.parametrize("split", [SPLIT, 1 << 26])
@pytest.mark.usefixtures("spark")
def test_executors_read_a_messy_folder_as_the_local_input_stage(tmp_path, small, split):
    """Rows, ids, pairs, clusters, the account and the listed rejections (files, lines, order) as
    locally, whether the JSONL files are read whole or in ranges of SPLIT bytes."""
    from neardup.engines.spark import SparkEngine
    from neardup.pipeline import WrittenResult
    from neardup.run import dedup_files

    folder = messy_folder(tmp_path, small)
    local, ls = dedup_files([str(folder)], tmp_path / "l", relations=False)  # the reading is what is tested
    engine = SparkEngine(master="local[2]", partitions=3, split_bytes=split)
    got, gs = dedup_files([str(folder)], tmp_path / "s", engine=engine, relations=False)
    assert isinstance(got, WrittenResult) and len(local.ids) > 500  # the executors wrote the files
    assert got.written.n == len(local.ids) and got.written.unusable == int((~local.usable).sum())
    for name in ("pairs.jsonl", "clusters.jsonl"):
        assert (tmp_path / "s" / name).read_bytes() == (tmp_path / "l" / name).read_bytes()
    assert summary_of(tmp_path / "s") == summary_of(tmp_path / "l")
    reasons = ls["documents"]["rejected_by_reason"]
    for reason in ("duplicate id", "empty text", "invalid JSON", "id too long", "no text after extraction",
                   "unsupported file type", "empty input", "no words"):
        assert reason in reasons, reason
    assert ls["documents"]["skipped"] >= 1 and ls["documents"]["detected_encodings"]


def test_a_utf16_jsonl_file_is_read_whole_not_in_byte_ranges(tmp_path):
    """A newline is two or four bytes in UTF-16/32, so a byte range cannot start at one: such a file
    (its byte-order mark) is one unit, as a gzipped one is; a range read of it is refused."""
    from neardup.engines.spark_input import plan

    folder = wide_and_tabular_folder(tmp_path)
    units = plan([str(folder)], split_bytes=SPLIT)
    assert [(Path(u.path).name, u.start, u.end) for u in units][:1] == [("a_wide.jsonl", 0, -1)]
    with pytest.raises(ValueError, match="read whole"):
        list(read_jsonl(folder / "a_wide.jsonl", start=SPLIT, end=2 * SPLIT, seen=[0, 0]))


@spark_test
@slow_test
@pytest.mark.usefixtures("spark")
def test_executors_read_utf16_legacy_and_malformed_tables_as_locally(tmp_path):
    """The same records, rejections (lines, reasons, details), encodings and outputs as locally, with
    the JSONL files cut into ranges of SPLIT bytes where they can be."""
    from neardup.engines.spark import SparkEngine
    from neardup.run import dedup_files

    folder = wide_and_tabular_folder(tmp_path)
    _, ls = dedup_files([str(folder)], tmp_path / "l", relations=False)
    dedup_files([str(folder)], tmp_path / "s", engine=SparkEngine(master="local[2]", partitions=3, split_bytes=SPLIT),
                relations=False)
    for name in ("pairs.jsonl", "clusters.jsonl"):
        assert (tmp_path / "s" / name).read_bytes() == (tmp_path / "l" / name).read_bytes()
    assert summary_of(tmp_path / "s") == summary_of(tmp_path / "l")
    docs = ls["documents"]
    assert docs["kept"] == 699 + 2 + 1 + 1 and docs["detected_encodings"] == {
        f"utf-16-{sys.byteorder[0]}e": 701, "cp1252": 1}
    assert docs["rejected_by_reason"] == {"invalid JSON": 1, "invalid CSV row": 2, "missing id": 1,
                                         "invalid CSV header": 1}


@spark_test
@slow_test
@pytest.mark.usefixtures("spark")
def test_strict_names_the_first_rejection_as_locally(tmp_path, small):
    from neardup.engines.spark import SparkEngine
    from neardup.errors import InputError
    from neardup.pipeline import Deduplicator

    folder = messy_folder(tmp_path, small)
    with pytest.raises(InputError) as local:
        Deduplicator(strict=True).run_files([str(folder)])
    with pytest.raises(InputError) as got:
        Deduplicator(strict=True, engine=SparkEngine(master="local[2]", split_bytes=SPLIT)).run_files([str(folder)])
    assert str(got.value) == str(local.value)


@spark_test
@slow_test
@pytest.mark.usefixtures("spark")
def test_the_driver_reads_no_record(tmp_path, small, monkeypatch):
    """The driver holds per-unit numbers only: the readers and the input stage, made to fail in this
    process (the executors are other Python processes), are never called by the driver."""
    import neardup.input_stage as stage
    import neardup.io.readers as readers
    from neardup.engines.spark import SparkEngine
    from neardup.pipeline import Deduplicator

    def refuse(*args, **kwargs):
        raise AssertionError("the driver read a record")

    for name in ("read_jsonl", "read_parquet", "read_document_file", "read_record_file", "read_inputs"):
        monkeypatch.setattr(readers, name, refuse)
    for name in ("documents", "batches", "text_of_record"):
        monkeypatch.setattr(stage, name, refuse)
    from neardup.io.ids import ArrowIds

    result = Deduplicator(engine=SparkEngine(master="local[2]", split_bytes=SPLIT)).run_files([str(small)])
    assert len(result.ids) == 600 and result.a.shape[0] > 100
    assert isinstance(result.ids, ArrowIds)  # the ids are one Arrow array, not a Python str each
    assert len(set(result.ids)) == 600


def test_arrow_ids_stand_for_their_list():
    import pyarrow as pa

    from neardup.io.ids import ArrowIds

    ids = ArrowIds(pa.array(["a", "b", "ç"]))
    assert len(ids) == 3 and ids[2] == "ç" and ids[-1] == "ç" and ids[1:] == ["b", "ç"]
    assert list(ids) == ["a", "b", "ç"] and ids == ["a", "b", "ç"] and ["a", "b", "ç"] == ids
    assert ids != ["a", "b"] and ids != ["a", "b", "c"]


def test_no_spark_module_collects_rows_to_the_driver():
    """Issue 32: what the driver reads of a stage is Parquet read by pyarrow (a batch at a time, or
    per-file/per-reason aggregates), never rows collected through the driver's JVM: no Spark module
    calls ``collect``, ``toPandas``, ``toLocalIterator``, ``take``, ``head`` or ``tail``; ``first``
    only of an aggregate (one row)."""
    import ast

    import neardup.engines as engines

    folder = Path(engines.__file__).parent
    found = []
    for path in sorted(folder.glob("spark*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                name = node.func.attr
                if name in ("collect", "toPandas", "toLocalIterator", "take", "head", "tail", "collectAsList"):
                    found.append(f"{path.name}:{node.lineno}: {name}")
                if name == "first" and "agg(" not in ast.unparse(node.func.value):
                    found.append(f"{path.name}:{node.lineno}: first of rows, not of an aggregate")
    assert found == []


@spark_test
@slow_test
@pytest.mark.parametrize("method", ["align", "pdc"])
@pytest.mark.usefixtures("spark")
def test_partial_reads_on_the_executors_as_locally(tmp_path, small, method, monkeypatch):
    """``partial`` (both methods) on Spark has the executors read the messy folder: the same partials,
    account and rejections as the local run, and the driver reads no record."""
    import neardup.input_stage as stage
    import neardup.io.readers as readers
    from neardup.engines.spark import SparkEngine
    from neardup.partial.run import align_files, partial_files

    folder = messy_folder(tmp_path, small)
    run = align_files if method == "align" else partial_files
    run([str(folder)], tmp_path / "l")

    def refuse(*args, **kwargs):
        raise AssertionError("the driver read a record")

    for name in ("read_inputs", "read_jsonl"):
        monkeypatch.setattr(readers, name, refuse)
    monkeypatch.setattr(stage, "batches", refuse)
    run([str(folder)], tmp_path / "s", engine=SparkEngine(master="local[2]", partitions=3))
    local = (tmp_path / "l" / "partials.jsonl").read_bytes()
    assert local.count(b"\n") > 50
    assert (tmp_path / "s" / "partials.jsonl").read_bytes() == local
    assert summary_of(tmp_path / "s") == summary_of(tmp_path / "l")


@spark_test
@slow_test
@pytest.mark.usefixtures("spark")
def test_the_texts_are_written_once(tmp_path, small):
    """The kept documents' ``(row, text)`` are the stored records numbered, in the local input stage's
    order (a duplicate id shifts the rows after it); no shards of the texts are written beside them."""
    from neardup.engines.spark import SparkEngine
    from neardup.engines.spark_input import read_inputs as read_on_executors
    from neardup.input_stage import documents
    from neardup.job import RunStats

    folder = messy_folder(tmp_path, small)
    engine = SparkEngine(master="local[2]", partitions=3, work=str(tmp_path / "work"), split_bytes=SPLIT)
    given = read_on_executors(engine, [str(folder)], "heuristic", RunStats())
    try:
        got = [(r["row"], r["text"]) for r in given.texts.orderBy("row").collect()]
        want = [text for _, text in documents(read_inputs([str(folder)]), "heuristic", RunStats())]
        assert [row for row, _ in got] == list(range(len(want))) and len(want) > 500
        assert [text for _, text in got] == want
        assert not (tmp_path / "work" / "input" / "documents").exists() and (tmp_path / "work" / "input" / "records").exists()
    finally:
        given.close()


@spark_test
@slow_test
@pytest.mark.usefixtures("spark")
def test_the_reading_starts_with_the_records_job(tmp_path, small):
    """Issue 32 (a job costs a fixed time on a small master): the reading's first job is the records
    job itself, one task per reading task (no job samples a table of units to range-partition it);
    the provenance is stored unsorted, and the ids still come in row order."""
    from neardup.engines.spark import SparkEngine
    from neardup.engines.spark_input import _tasks, plan
    from neardup.engines.spark_input import read_inputs as read_on_executors
    from neardup.input_stage import documents
    from neardup.job import RunStats

    folder = messy_folder(tmp_path, small)
    engine = SparkEngine(master="local[2]", partitions=3, work=str(tmp_path / "work"))
    context = engine.session().sparkContext
    context.setJobGroup("reading", "the reading's jobs")
    given = read_on_executors(engine, [str(folder)], "heuristic", RunStats(), split_bytes=SPLIT)
    try:
        tracker = context.statusTracker()
        first = tracker.getJobInfo(min(tracker.getJobIdsForGroup("reading")))
        assert first is not None and len(first.stageIds) == 1
        stage = tracker.getStageInfo(first.stageIds[0])
        tasks = len(set(_tasks(plan([str(folder)], split_bytes=SPLIT))))
        assert stage is not None and stage.numTasks == tasks > 8
        want = [record.id for record, _ in documents(read_inputs([str(folder)]), "heuristic", RunStats())]
        assert list(given.ids()) == want and len(want) > 500
    finally:
        context._jsc.sc().clearJobGroup()  # the session is the test run's
        given.close()


def test_a_reading_task_imports_no_compiler(tmp_path):
    """Issue 32: the records stage's function (what a reading task runs) needs no numba -- each of
    Spark's Python workers would import it (half a second) before its first task."""
    import subprocess
    import sys

    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"id": "a", "text": STORY, "url": "https://www.example.com/a"}) + "\n")
    code = f"""
import sys
import pandas as pd
from neardup.engines.spark_records import read_units
from neardup.io.readers import FIELDS
units = [[(0, "records", {str(path)!r}, "a.jsonl", 0, -1, "")]]
frames = list(read_units(False, FIELDS, "model", units)(iter([pd.DataFrame({{"id": [0]}})])))
assert frames[0]["site"].tolist()[0] == "example.com" and frames[0]["script"].tolist()[0] == "Latin"
print(sorted(m for m in sys.modules if m.split(".")[0] == "numba"))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@spark_test
@slow_test
@pytest.mark.usefixtures("spark")
def test_the_reading_is_four_jobs(tmp_path, small):
    """Issue 32 (a job costs a fixed time on a small master): reading a clean input is four Spark jobs --
    the records, the ids and the account (one job: its shuffles stages of it, not jobs of their own),
    the units' offsets (a local table) and the provenance -- with the reading tasks sketching or not."""
    from neardup.engines.spark import SparkEngine
    from neardup.engines.spark_input import read_inputs as read_on_executors
    from neardup.job import RunStats
    from neardup.methods import get_method

    engine = SparkEngine(master="local[2]", partitions=3, work=str(tmp_path / "work"))
    context = engine.session().sparkContext
    for i, method in enumerate((None, get_method("minhash"))):
        context.setJobGroup(f"reading{i}", "the reading's jobs")
        given = read_on_executors(engine, [str(small)], "heuristic", RunStats(), method=method)
        try:
            assert (given.sketches is None) == (method is None) and given.n == 600 and len(context.statusTracker().getJobIdsForGroup(f"reading{i}")) == 4
        finally:
            context._jsc.sc().clearJobGroup()  # the session is the test run's
            given.close()


@spark_test
@slow_test
@pytest.mark.usefixtures("spark")
def test_the_reading_tasks_sketch_as_the_sketch_stage(tmp_path, small):
    """Issue 32: for a method that needs nothing of the whole collection, the reading tasks sketch their
    own documents (one pass over the texts): numbered as the texts are (a duplicate id's record dropped,
    the rows after it shifted), the same sketches, ``good`` and keys as the sketch stage makes of the
    stored texts; a method whose sketches need the collection (statistics, or table keys chosen for the
    number of documents) is sketched after the reading."""

    from neardup.engines import spark_stages as st
    from neardup.engines.codec import SketchLayout
    from neardup.engines.spark import SparkEngine
    from neardup.engines.spark_input import read_inputs as read_on_executors
    from neardup.job import RunStats
    from neardup.methods import get_method

    assert st.early_sketching(get_method("simhash")) is None  # statistics
    assert st.early_sketching(get_method("simhash", weighting="uniform")) is None  # blocks chosen for n
    folder = messy_folder(tmp_path, small)
    engine = SparkEngine(master="local[2]", partitions=3, work=str(tmp_path / "work"), split_bytes=SPLIT)
    for method in (get_method("minhash"), get_method("ffp"), get_method("simhash", weighting="uniform", blocks=6)):
        given = read_on_executors(engine, [str(folder)], "heuristic", RunStats(), method=method)
        try:
            plan = method.candidate_plan()
            keys_of = None if plan.kind == "set_join" else st.candidate_keys(method, plan, given.n)
            want = st.sketch(given.texts, method, SketchLayout.probe(method), keys_of=keys_of).toPandas()
            assert given.sketches is not None
            got = given.sketches.toPandas()
            assert sorted(got["row"]) == list(range(given.n)) and given.n > 500
            want, got = (f.sort_values("row", ignore_index=True) for f in (want, got))
            assert list(got.columns) == list(want.columns)
            for name in want.columns:
                same = [(a is None and b is None) or (a is not None and b is not None and bytes(a) == bytes(b))
                        if name.startswith(("c_", "l_")) else a == b
                        for a, b in zip(got[name], want[name])]
                assert all(same), (method.name, name)
        finally:
            given.close()


def test_texts_no_stage_reads_are_not_stored(tmp_path, small):
    """Issue 32: when the reading tasks sketch and no later stage reads the texts (relations off), the
    records hold no text -- the same sketches, and ``dedup --no-relations`` the local files."""
    import pyarrow.compute as pc

    from neardup.cli import main
    from neardup.engines.shards import read_stored
    from neardup.engines.spark import SparkEngine
    from neardup.engines.spark_input import read_inputs as read_on_executors
    from neardup.job import RunStats
    from neardup.methods import get_method

    folder = messy_folder(tmp_path, small)
    engine = SparkEngine(master="local[2]", partitions=3, work=str(tmp_path / "work"), split_bytes=SPLIT)
    made = {}
    for texts in (True, False):
        given = read_on_executors(engine, [str(folder)], "heuristic", RunStats(), method=get_method("minhash"),
                                  texts=texts)
        try:
            assert 0 < engine.input_bytes <= sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
            stored_texts = read_stored(given.records_path, ["text"])["text"]
            assert (pc.count(stored_texts).as_py() > 500) == texts and (given.texts is None) != texts
            assert given.sketches is not None
            made[texts] = given.sketches.toPandas().sort_values("row", ignore_index=True)
        finally:
            given.close()
    assert made[True].equals(made[False])
    args = [str(folder), "--quiet", "--no-relations", "--extract", "heuristic"]
    assert main(["dedup", *args, "-o", str(tmp_path / "l")]) == 0
    assert main(["dedup", *args, "-o", str(tmp_path / "s"), "--engine", "spark", "--spark-master", "local[2]"]) == 0
    for name in ("pairs.jsonl", "clusters.jsonl"):
        assert (tmp_path / "s" / name).read_bytes() == (tmp_path / "l" / name).read_bytes()
