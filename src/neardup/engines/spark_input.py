"""The input stage on Spark's executors: the inputs read by tasks, with the local input stage's rules.

The local engine (and the Spark engine given batches of texts) reads every input in the
driver (:func:`neardup.input_stage.documents`) and keeps every id and its file and line.
:func:`read_inputs` reads them in the executors instead, and the driver keeps one row per
input file (or piece of one), never one per document:

1. **plan** (driver) -- the inputs are walked as the local reader walks them
   (:func:`neardup.io.readers.inputs_entries`: the same folders, sorted, the same files
   refused); each record file, document file or refusal is a *unit*, numbered in reading
   order; a plain JSONL file larger than ``split_bytes`` is cut into byte ranges, one unit
   each (a range reads the lines that begin in it) -- unless it is UTF-16/32 (a byte-order
   mark), which is read whole, as a gzipped one is;
2. **records** (executors) -- one task per partition of a range of task numbers, its units
   inside the function; each unit is read by the local readers (:func:`~neardup.io.readers.read_jsonl`
   with its range, :func:`~neardup.io.readers.read_record_file`, :func:`~neardup.io.readers.read_document_file`)
   and each record judged by the local per-record rules (:func:`~neardup.input_stage.record_problem`,
   then :func:`~neardup.input_stage.text_of_record`: extraction and its checks; then a job's own,
   ``admit``: ``contain``'s time and words, :class:`~neardup.contain.arrival.Arrival`); one row per item,
   keyed by ``(unit, pos)`` -- the global order of (file, position) -- stored as Parquet
   (``input/records``); given the method's sketching (``sketching``: a method whose sketches need
   nothing of the whole collection), the task sketches its documents there too, their sketch
   columns stored beside their texts (:mod:`.spark_records`);
3. **ids** -- the local rule "the first record of an id wins" over the whole input: among the
   records that passed the id's checks, every ``(unit, pos)`` but the first of its id is a
   "duplicate id" (a window over the ids alone: no text is shuffled), counted with the account
   in one aggregate, run as one Spark job (:func:`one_job`);
4. **rows** -- the kept documents are numbered from 0 in ``(unit, pos)`` order: each unit's
   count (one number per unit in the driver) gives its offset, and a document's row is its
   unit's offset plus its index in the unit (when a duplicate was dropped, the index is
   recounted over the narrow ``(unit, pos)`` rows and joined to the texts; the offsets are a
   local table, broadcast by the JVM); ``(row, text)`` is what the next stage reads from the
   records (the texts are not written again), so are ``(row, sketch columns)`` when the tasks
   sketched, and ``(row, id, unit, line, site)`` is written as the tasks number it (no sort: no
   job of its own).

The run's account (read, kept, rejected by reason, skipped, encodings, notes, scripts) is made of
aggregates; the first :data:`~neardup.job.MAX_LISTED_REJECTIONS` rejections are taken in order by
Spark (``orderBy(...).limit``) and read from Parquet, their lines counted from the start of
their file.  So the answer -- rows, ids, rejections and their order -- is the local one, whatever
the partitions.  One difference: a plain JSONL file that fails to read in the middle (an I/O
error, not a malformed line) loses the rest of that byte range, not of the whole file.
"""

from __future__ import annotations

import os
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator, Sequence

import numpy as np

from ..errors import InputError
from ..io.ids import ArrowIds
from ..io.readers import FIELDS, Fields, Rejection, inputs_entries
from ..job import MAX_LISTED_REJECTIONS, RunStats
from .shards import read_stored, stage_writer, stored
from .spark_records import ADMITTED, DOCUMENT, FAILED, META, RECORDS, REJECTED, SKIPPED, Sketching, read_units

if TYPE_CHECKING:
    import pandas as pd

    from ..methods.base import Method
    from .spark_runtime import SparkRuntime

#: A plain JSONL file larger than this is read by several tasks, one byte range each.
SPLIT_BYTES = 64 << 20
#: Document files (one ``.txt``/``.html`` each) read by one task, at most.
FILES_PER_TASK = 256
@dataclass
class Unit:
    """One piece of the input a task reads: ``what`` is ``records`` (a record file, or the byte
    range ``start``-``end`` of a plain JSONL file), ``document`` (``arg``: its id) or ``refused``
    (``arg``: the reason, ``detail``)."""

    what: str
    path: str
    arg: str = ""
    start: int = 0
    end: int = -1
    file: int = 0
    detail: str = ""


def plan(inputs: Sequence[str], file_ids: str = "auto", split_bytes: int = SPLIT_BYTES) -> list[Unit]:
    """The units of ``inputs`` in reading order (see the module docstring); an input that cannot be read
    at all raises :class:`~neardup.errors.InputError`, as locally."""
    from ..io.lines import by_byte_range
    from ..io.readers import JSONL_SUFFIXES

    units: list[Unit] = []
    for file, entry in enumerate(inputs_entries(inputs, file_ids)):
        if isinstance(entry, Rejection):
            units.append(Unit("refused", entry.source, entry.reason, file=file, detail=entry.detail or ""))
            continue
        what, path, arg = entry
        if what == "records" and arg.endswith(JSONL_SUFFIXES) and not str(path).lower().endswith(".gz"):
            size = os.path.getsize(path)
            if size > split_bytes and by_byte_range(path):  # a gzipped or UTF-16/32 file is read whole
                units.extend(Unit("records", str(path), arg, lo, min(lo + split_bytes, size), file)
                             for lo in range(0, size, split_bytes))
                continue
        units.append(Unit(what, str(path), arg, file=file))
    return units


def _tasks(units: list[Unit]) -> list[int]:
    """The task of each unit: a record file or range alone, up to :data:`FILES_PER_TASK` document
    files or refusals together."""
    task, in_task, out = -1, FILES_PER_TASK, []
    for u in units:
        if u.what == "records" or in_task >= FILES_PER_TASK:
            task, in_task = task + 1, 0
        in_task = FILES_PER_TASK if u.what == "records" else in_task + 1
        out.append(task)
    return out


@dataclass
class SparkInput:
    """The documents the executors read (:func:`read_inputs`): ``n`` rows, their ``(row, text)`` as
    :attr:`texts`, ``(row, id, unit, line, site)`` at :attr:`provenance_path` (in no order)."""

    work: str
    n: int
    units: list[Unit]
    lines_before: np.ndarray
    #: ``(row, text)`` of the kept documents: the stored records numbered (a narrow join with each
    #: unit's offset, read by the stage that needs the texts) -- the texts are written once, by the
    #: records stage, not copied into shards of their own; ``None`` when no later stage reads them.
    texts: Any = None
    #: ``(row, ...)``: the sketch stage's columns, when the reading tasks made them (a ``method`` given
    #: to :func:`read_inputs` that could), spread as the engine spreads the texts; else ``None``.
    sketches: Any = None
    #: Items read (not skipped) before each unit, in the whole input's order.
    read_before: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: Whether some ids were duplicates (``duplicates/``: their ``(unit, pos)``).
    duplicates: bool = False
    stack: ExitStack = field(default_factory=ExitStack)

    @property
    def records_path(self) -> str:
        return f"{self.work}/records"

    @property
    def provenance_path(self) -> str:
        return f"{self.work}/provenance"

    def ids(self) -> ArrowIds:
        """Every kept document's id, in row order, as one Arrow array (read by pyarrow from the
        stored Parquet and put in row order here: no Spark job sorts them for the runs that need no ids)."""
        import pyarrow as pa

        table = read_stored(self.provenance_path, ["row", "id"])
        return ArrowIds(table.sort_by("row")["id"].combine_chunks() if table.num_rows else pa.array([], pa.string()))

    def where(self, rows: np.ndarray) -> list[tuple[str, int | None, str]]:
        """File, line and id of the documents ``rows`` (to name them in a rejection), in the order given."""
        import pyarrow.compute as pc
        import pyarrow.dataset as ds

        if not len(rows):
            return []
        table = ds.dataset(self.provenance_path, format="parquet").to_table(
            columns=["row", "id", "unit", "line"], filter=pc.field("row").isin(rows.astype(np.int64)))
        found = {int(r): (self.units[u].path, self.line(u, ln), i) for r, i, u, ln in zip(
            table["row"].to_pylist(), table["id"].to_pylist(), table["unit"].to_pylist(), table["line"].to_pylist())}
        return [found[int(r)] for r in rows]

    def admitted(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The records a job's ``admit`` admitted (read with one: :func:`read_inputs`), in input order:
        each one's time (NaN: none given), its place among the items read (1 for the first, as the
        local ``RunStats.read`` counts) and whether it is a document (else rejected after admission,
        by ``admit.words``).  Read from the stored records by pyarrow: narrow columns, no Spark job."""
        import pyarrow.compute as pc
        import pyarrow.dataset as ds

        table = ds.dataset(self.records_path, format="parquet").to_table(
            columns=["unit", "pos", "kind", "time", "place"], filter=pc.field("place").is_valid())
        unit, pos, kind, when, place = (table[c].to_numpy() for c in ("unit", "pos", "kind", "time", "place"))
        key = unit.astype(np.int64) << 32 | pos.astype(np.int64)
        keep = np.ones(key.shape[0], bool)
        if self.duplicates:  # the local input stage refuses a repeated id before a job sees the record
            dup = read_stored(f"{self.work}/duplicates", ["unit", "pos"])
            keep = ~np.isin(key, dup["unit"].to_numpy().astype(np.int64) << 32 | dup["pos"].to_numpy().astype(np.int64))
        order = np.argsort(key[keep], kind="stable")
        unit, kind, when, place = (x[keep][order] for x in (unit, kind, when, place))
        return (when.astype(np.float64), self.read_before[unit] + place.astype(np.int64),
                kind == DOCUMENT)

    def line(self, unit: int, line: int) -> int | None:
        """The line (or row) in its file of item ``line`` of ``unit`` (``-1``: none)."""
        return None if line < 0 else int(line + self.lines_before[unit])

    def close(self) -> None:
        self.stack.close()


def read_inputs(engine: "SparkRuntime", inputs: Sequence[str], extract: str, stats: RunStats, strict: bool = False,
                fields: Fields = FIELDS, prefer_html: bool = False, file_ids: str = "auto",
                split_bytes: int = SPLIT_BYTES, method: "Method | None" = None, texts: bool = True,
                admit: Any = None) -> SparkInput:
    """Read ``inputs`` on the executors (see the module docstring); the account goes into ``stats``
    as the local input stage would put it (with ``strict``, the first rejection raises
    :class:`~neardup.errors.InputError`); given the ``method`` to run, the reading tasks sketch the
    documents too when its sketches need nothing of the whole collection
    (:func:`~.spark_stages.early_sketching`; :attr:`SparkInput.sketches`); then, unless ``texts`` (a
    later stage reads them: the relations' aligner), the texts are not stored (:attr:`SparkInput.texts`
    ``None``); ``admit``: a job's own checks of each record after the input stage's
    (:func:`~.spark_records.read_units`; what it admitted: :meth:`SparkInput.admitted`).  Close the
    result when done (its work folder goes)."""
    units = plan(inputs, file_ids, split_bytes)
    engine.input_bytes = sum(os.path.getsize(path) for path in {u.path for u in units if u.what != "refused"})
    stack = ExitStack()
    try:
        work = stack.enter_context(engine.workdir()) + "/input"
        with engine.running() as spark:
            from .spark_stages import early_sketching, spread  # pyspark's: the session started

            sketching = None if method is None else early_sketching(method)
            keep_texts = texts or sketching is None
            n, lines_before, numbered, read_before, dups = _stages(spark, units, work, stats, strict, fields,
                                                                   prefer_html, extract, sketching, keep_texts, admit)
        sketches = None if sketching is None else spread(numbered.select("row", *sketching.names),
                                                         engine.shuffle_seed, engine.partitions or 8)
        return SparkInput(work, n, units, lines_before, numbered.select("row", "text") if keep_texts else None,
                          sketches, read_before, dups, stack)
    except BaseException:
        stack.close()
        raise


def _stages(spark: Any, units: list[Unit], work: str, stats: RunStats, strict: bool, fields: Fields,
            prefer_html: bool, extract: str, sketching: Sketching | None,
            keep_texts: bool = True, admit: Any = None) -> tuple[int, np.ndarray, Any, np.ndarray, bool]:
    """Stages 2-4 and the account (see the module docstring); returns the rows, each unit's
    lines before it in its file, the kept documents' stored records with their ``row`` (not
    computed yet), each unit's items read before it and whether some ids were duplicates."""
    import pandas as pd
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    tasks = _tasks(units)
    by_task: list[list[tuple]] = [[] for _ in range(tasks[-1] + 1 if tasks else 1)]
    for i, (t, u) in enumerate(zip(tasks, units)):
        by_task[t].append((i, u.what, u.path, u.arg, u.start, u.end, u.detail))
    # no table of units: no job samples (or shuffles) one to range-partition it
    frame = spark.range(len(by_task), numPartitions=len(by_task))
    schema = ", ".join([RECORDS, *([ADMITTED] if admit is not None else []),
                        *([sketching.columns] if sketching is not None else [])])
    records = stored(frame.mapInPandas(read_units(prefer_html, fields, extract, by_task, sketching, keep_texts, admit),
                                       schema), f"{work}/records")

    # the ids: the first (unit, pos) of each id wins among the rows that name one (every other row is
    # a window of its own); then one aggregate of narrow columns: every count the account and the row
    # numbers need, per unit -- one job, the duplicates stored only when there are some
    named = F.col("kind").isin(DOCUMENT, FAILED)
    first = Window.partitionBy(F.when(named, F.col("id")), F.when(~named, F.col("unit")),
                               F.when(~named, F.col("pos"))).orderBy("unit", "pos")
    flagged = records.drop("text", "source", "detail").withColumn(
        "dup", named & (F.row_number().over(first) > 1))
    with one_job(spark):
        tally = read_stored_frame(flagged.groupBy("unit", "kind", "dup", "reason", "encoding", "html_note", "script")
                                  .agg(F.count("*").alias("count"), F.sum("k").alias("k"), F.sum("line").alias("line")),
                                  f"{work}/tally")
    n_dups = int(tally.loc[tally["dup"], "count"].sum())
    if n_dups:
        dups = stored(flagged.where("dup").select("unit", "pos", "id", "line"), f"{work}/duplicates")

    # the units' own rows: lines read (to number a range's lines from its file's start), whether it held a record
    meta = tally[tally["kind"] == META]
    held = np.zeros(len(units), np.int64)
    lines = np.zeros(len(units), np.int64)
    held[meta["unit"].to_numpy(np.int64)] = meta["k"].to_numpy(np.int64)
    lines[meta["unit"].to_numpy(np.int64)] = meta["line"].to_numpy(np.int64)
    lines_before = np.zeros(len(units), np.int64)
    for i in range(1, len(units)):
        if units[i].file == units[i - 1].file:
            lines_before[i] = lines_before[i - 1] + lines[i - 1]
    empty = _empty_ranged_files(units, held)
    read = tally[(tally["kind"] != META) & (tally["kind"] != SKIPPED)]
    per_unit_read = np.bincount(read["unit"].to_numpy(np.int64), read["count"].to_numpy(np.int64),
                                minlength=len(units)).astype(np.int64)
    for j, _ in empty:  # read (and refused) at the end of its file
        per_unit_read[j] += 1
    read_before = np.concatenate([[0], np.cumsum(per_unit_read)[:-1]]).astype(np.int64) if len(units) else per_unit_read

    rejected = records.where(F.col("kind").isin(REJECTED, FAILED)).select(
        "unit", "pos", "source", "line", "reason", "detail")
    if n_dups:
        rejected = (rejected.join(dups.select("unit", "pos"), ["unit", "pos"], "left_anti")
                    .unionByName(dups.select("unit", "pos", F.lit(None).cast("string").alias("source"),
                                             "line",
                                             F.lit("duplicate id").alias("reason"), F.col("id").alias("detail"))))
    docs = records.where(F.col("kind") == DOCUMENT)
    if n_dups:
        docs = docs.join(dups.select("unit", "pos"), ["unit", "pos"], "left_anti")
    _account(tally, rejected, empty, units, lines_before, stats, strict, work)

    # rows: each unit's offset, then a document's index in its unit
    kept = tally[(tally["kind"] == DOCUMENT) & ~tally["dup"]]
    per_unit = np.bincount(kept["unit"].to_numpy(np.int64), kept["count"].to_numpy(np.int64),
                           minlength=len(units)).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(per_unit)[:-1]]) if len(units) else per_unit
    n = int(per_unit.sum())
    # a local table (made from Arrow): broadcast by the JVM, no Python worker started to unpickle a list's rows
    has = np.flatnonzero(per_unit)
    offs = spark.createDataFrame(pd.DataFrame({"unit": has.astype(np.int32), "offset": offsets[has]}),
                                 "unit int, offset long")
    if n_dups:  # a dropped duplicate shifts the rest of its unit: recount over the narrow rows
        index = docs.select("unit", "pos").withColumn(
            "k", (F.row_number().over(Window.partitionBy("unit").orderBy("pos")) - 1).cast("int"))
        docs = docs.drop("k").join(index, ["unit", "pos"])
    numbered = docs.join(F.broadcast(offs), "unit").withColumn("row", F.col("offset") + F.col("k"))
    stage_writer(numbered.select("row", "id", "unit", "line", "site")).parquet(f"{work}/provenance")
    return n, lines_before, numbered, read_before, bool(n_dups)


@contextmanager
def one_job(spark: Any) -> Iterator[None]:
    """The queries run inside each one Spark job, their shuffles stages of it: adaptive query execution
    (which runs each shuffle's map stage as a job of its own, to plan the rest from its sizes) off,
    for small narrow queries that have nothing to re-plan; restored after."""
    before = spark.conf.get(_ADAPTIVE)
    spark.conf.set(_ADAPTIVE, "false")
    try:
        yield
    finally:
        spark.conf.set(_ADAPTIVE, before)


_ADAPTIVE = "spark.sql.adaptive.enabled"


def read_stored_frame(frame: Any, path: str) -> "pd.DataFrame":
    """A small result (one row per unit or reason) written by the executors and read here by pyarrow."""
    stored(frame, path)
    return read_stored(path, frame.columns).to_pandas()


def _empty_ranged_files(units: list[Unit], held: np.ndarray) -> list[tuple[int, Rejection]]:
    """"empty input" of each JSONL file read in ranges none of which held a record (a file read
    whole says so itself), keyed by its last unit."""
    out: list[tuple[int, Rejection]] = []
    i = 0
    while i < len(units):
        j = i
        while j + 1 < len(units) and units[j + 1].file == units[i].file:
            j += 1
        if units[i].what == "records" and units[i].end >= 0 and not held[i:j + 1].any():
            out.append((j, Rejection(units[i].path, None, "empty input", "no records")))
        i = j + 1
    return out


def _account(tally: "pd.DataFrame", rejected: Any, empty: list[tuple[int, Rejection]], units: list[Unit],
             lines_before: np.ndarray, stats: RunStats, strict: bool, work: str) -> None:
    """The input's account in ``stats`` from the ``tally`` (counts by unit, kind, duplicate, reason,
    encoding, note, script): what the local input stage counts record by record; the first
    rejections, in order, from an ordered ``limit``."""
    items = tally[tally["kind"] != META]
    for kind, dup, reason, count in items[["kind", "dup", "reason", "count"]].itertuples(index=False):
        if kind == SKIPPED:
            stats.skipped[reason] += int(count)
            continue
        stats.read += int(count)
        if dup:
            stats.reasons["duplicate id"] += int(count)
        elif kind in (REJECTED, FAILED):
            stats.reasons[reason] += int(count)
    stats.read += len(empty)
    for _, r in empty:
        stats.reasons[r.reason] += 1
    found: list[tuple[tuple[int, int], Rejection]] = []
    if (items["dup"] | items["kind"].isin([REJECTED, FAILED])).any():  # else no job lists none
        listed = read_stored_frame(rejected.orderBy("unit", "pos").limit(MAX_LISTED_REJECTIONS), f"{work}/listed")
        for unit, pos, source, line, reason, detail in listed.itertuples(index=False):
            unit = int(unit)
            where = None if line is None or line < 0 else int(line + lines_before[unit])
            found.append(((unit, int(pos)), Rejection(source or units[unit].path, where, reason, detail)))
    found += [((j, 1 << 31), r) for j, r in empty]
    found.sort(key=lambda x: x[0])
    if strict and found:
        raise InputError(found[0][1].message())
    stats.rejections.extend(r.message() for _, r in found[:MAX_LISTED_REJECTIONS])
    del stats.rejections[MAX_LISTED_REJECTIONS:]
    kept = items[(items["kind"] == DOCUMENT) & ~items["dup"]]
    for encoding, note, script, count in kept[["encoding", "html_note", "script", "count"]].itertuples(index=False):
        if encoding:
            stats.encodings[encoding] += int(count)
        if note:
            stats.notes["text fields that held a web page, extracted as HTML"] += int(count)
        stats.scripts[script] += int(count)
