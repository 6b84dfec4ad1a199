"""What every file job shares: the job itself, the input account, the run report, its printer, the command runner.

A file job (``dedup``, ``contain``, ``partial``, ``index add|query``; ``stats build``,
``train`` and ``extract`` use the parts) reads inputs, accounts for every one of them in a
:class:`RunStats` (read = kept + rejected, with the file and line of each rejection),
writes its outputs through :mod:`neardup.io.writers` (atomically) and describes the run in
one report (:func:`run_report`: ``summary.json``, ending with ``complete: true``) that
:func:`print_report` shows on stderr.  :class:`Job` is that sequence, written once: the
input stage, a :class:`Task`'s tables, the writers, the summary, all files or none.  How the command line runs a job (exit codes,
signals) is :mod:`neardup.runner`.

Kept free of heavy imports: the command line imports it at start-up.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable, Iterator, Protocol, Sequence

from .errors import InputError
from .io.readers import FIELDS, Fields, Rejection

if TYPE_CHECKING:
    from .io.readers import Record
    from .io.writers import OutputFolder

#: Rejections listed one by one in the summary; beyond this they are only counted.
MAX_LISTED_REJECTIONS = 1000


class RunClock:
    """The command's wall clock and the time spent compiling kernels (the first run after an
    install or an edit): what the report's ``time`` line says, whatever the job's own stages took."""

    def __init__(self) -> None:
        self.started: float | None = None
        self.compiling = 0.0
        self.compiled = 0

    def start(self, at: float | None = None) -> None:
        """Start counting now, or at ``at`` (a ``time.perf_counter()`` taken earlier)."""
        self.started, self.compiling, self.compiled = time.perf_counter() if at is None else at, 0.0, 0

    def seconds(self) -> dict[str, float]:
        """``wall`` since the command started (when it did), and ``compiling`` when kernels were compiled."""
        out = {} if self.started is None else {"wall": round(time.perf_counter() - self.started, 3)}
        if self.compiled:
            out["compiling_kernels"] = round(self.compiling, 3)
        return out


#: Set by :func:`neardup.cli.main` when a command starts.
CLOCK = RunClock()


def listed_rejections(messages: list[str], total: int, listed: int = 5, more: str = "") -> list[str]:
    """The first ``listed`` rejection messages as report lines, and how many more there were (``more``: where)."""
    lines = [f"  rejected {msg}" for msg in messages[:listed]]
    if total > listed:
        lines.append(f"  ... {total - listed:,} more rejections{more}")
    return lines


@dataclass
class RunStats:
    """What happened to the input: counts, rejections, detected encodings and time per stage."""

    read: int = 0
    kept: int = 0
    reasons: Counter = field(default_factory=Counter)
    rejections: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    encodings: Counter = field(default_factory=Counter)
    #: Things done to kept records a user should know of, e.g. a text field read as HTML.
    notes: Counter = field(default_factory=Counter)
    #: Kept documents by detected script (:func:`neardup.text.scripts.document_scripts`).
    scripts: Counter = field(default_factory=Counter)
    #: Input units that are not documents (WARC records that are not pages), by reason: not read.
    skipped: Counter = field(default_factory=Counter)

    def reject(self, rejection: Rejection, strict: bool = False) -> None:
        """Count ``rejection`` and list it, or raise it in strict mode; a skipped one only counts
        under ``skipped`` (the caller does not count it as read)."""
        if rejection.skipped:
            self.skipped[rejection.reason] += 1
            return
        if strict:
            raise InputError(rejection.message())
        self.reasons[rejection.reason] += 1
        if len(self.rejections) < MAX_LISTED_REJECTIONS:
            self.rejections.append(rejection.message())

    def counts(self) -> dict[str, Any]:
        """Records read, kept and rejected (in all and by reason); encodings detected, if any."""
        out: dict[str, Any] = {
            "read": self.read,
            "kept": self.kept,
            "rejected": sum(self.reasons.values()),
            "rejected_by_reason": dict(sorted(self.reasons.items())),
        }
        if self.encodings:
            out["detected_encodings"] = dict(sorted(self.encodings.items()))
        if self.notes:
            out["notes"] = dict(sorted(self.notes.items()))
        if self.skipped:
            out["skipped"] = sum(self.skipped.values())
            out["skipped_by_reason"] = dict(sorted(self.skipped.items()))
        return out

    def rejection_report(self, source: str, listed: int = 5) -> list[str]:
        """Lines telling what of ``source`` was rejected and why (none when nothing was)."""
        c = self.counts()
        if not c["rejected"]:
            return []
        why = ", ".join(f"{reason} {n:,}" for reason, n in c["rejected_by_reason"].items())
        head = f"{source}: read {c['read']:,} records, kept {c['kept']:,}, rejected {c['rejected']:,} ({why})"
        return [head] + listed_rejections(self.rejections, c["rejected"], listed)

    def timed(self, stage: str, start: float) -> float:
        now = time.perf_counter()
        self.seconds[stage] = self.seconds.get(stage, 0.0) + now - start
        return now

    def require_usable(self) -> None:
        """Raise :class:`InputError` when no record could be used: such a run failed."""
        if self.kept:
            return
        c = self.counts()
        why = ", ".join(f"{reason} {n:,}" for reason, n in c["rejected_by_reason"].items()) or "no records"
        first = f"; first: {self.rejections[0]}" if self.rejections else ""
        raise InputError(f"no usable record: read {c['read']:,}, rejected {c['rejected']:,} ({why}){first}")


def read_as(prefer_html: bool, fields: Any) -> dict[str, Any]:
    """How a job read its records (``summary.json`` ``read_as``): the field options and ``--html``,
    so that ``neardup report`` reads the inputs again as the job did."""
    return {"id_field": fields.id, "text_field": fields.text, "html_field": fields.html, "html": bool(prefer_html)}


def run_report(stats: RunStats, inputs: Sequence[Any], parameters: dict[str, Any], total: float | None = None,
               **results: Any) -> dict[str, Any]:
    """The summary of a run (``summary.json``): counts, ``results``, time, parameters, rejections.

    ``total``: seconds of the whole run (default: the sum of the stages').  ``complete:
    true`` comes last: a summary without it was not written by a finished run.
    """
    seconds = {k: round(v, 3) for k, v in stats.seconds.items() if k != "total"}
    seconds["total"] = round(sum(seconds.values()) if total is None else total, 3)
    scripts = {"scripts": dict(stats.scripts.most_common())} if stats.scripts else {}
    seconds.update(CLOCK.seconds())
    return {
        "documents": stats.counts(),
        **scripts,
        **results,
        "seconds": seconds,
        "parameters": parameters,
        "inputs": [str(p) for p in inputs],
        "rejections": stats.rejections,
        "complete": True,
    }


class Task(Protocol):
    """A task as a :class:`Job` runs it (``dedup``, ``contain``, ``partial``): the job's inputs in, named tables out.

    ``tables`` reads the inputs through the job -- :meth:`Job.records`, the input stage, or the
    job's ``inputs`` themselves for an engine that reads them elsewhere -- and yields ``(name,
    rows)`` in the order the files are written; rows may be a
    generator that does the work as it is consumed (so a streaming task never holds its
    output), and a later table may use what an earlier one found.  ``run_stats`` is the input
    account of the run; ``summary`` its report (:func:`run_report`) with ``extra`` results.
    """

    @property
    def run_stats(self) -> RunStats: ...

    def tables(self, job: "Job") -> Iterator[tuple[str, Iterable[dict[str, Any]]]]: ...

    def summary(self, inputs: Sequence[Any], total: float | None = None, **extra: Any) -> dict[str, Any]: ...


class DetectorTask:
    """A :class:`Task` around a detector that streams what it finds (``stream(records)``,
    ``run_stats``, ``summary``): one table, named :attr:`table`, of :meth:`row` of each find, written
    as the detector finds them; with ``gold`` (a truth to evaluate against) the rows are kept in
    :attr:`found` for the task's evaluation.  A detector whose engine reads the files itself
    (``reads_files``: Spark's executors) is given the job's inputs (``stream_files``) instead of
    the records."""

    table: ClassVar[str]

    def __init__(self, detector: Any, gold: Any = None) -> None:
        self.detector, self.gold = detector, gold
        self.found: list[dict[str, Any]] = []

    @property
    def run_stats(self) -> RunStats:
        return self.detector.run_stats

    def engine_reads(self) -> bool:
        """Whether the detector's engine reads the job's files itself (Spark's executors); not with a
        truth, whose evaluation needs what the local input stage keeps."""
        return bool(getattr(self.detector, "reads_files", False)) and self.gold is None

    def tables(self, job: "Job") -> Iterator[tuple[str, Iterable[dict[str, Any]]]]:
        if self.engine_reads():
            yield self.table, self.rows(self.detector.stream_files(job.inputs, job.fields, job.prefer_html))
        else:
            yield self.table, self.rows(self.detector.stream(job.records()))

    def rows(self, finds: Iterable[Any]) -> Iterator[dict[str, Any]]:
        """The table's rows of ``finds`` (kept too when there is a truth)."""
        for item in finds:
            row = self.row(item)
            if self.gold is not None:
                self.found.append(row)
            yield row

    def row(self, item: Any) -> dict[str, Any]:
        """The table's row of one find."""
        raise NotImplementedError

    def summary(self, inputs: Sequence[Any], total: float | None = None, **extra: Any) -> dict[str, Any]:
        return self.detector.summary(inputs, total, **extra)


@dataclass(frozen=True)
class Job:
    """One file job: the input stage -> a task -> the writers -> ``summary.json``, all at once or not at all.

    ``inputs`` are read by :func:`~neardup.io.readers.read_inputs` (``prefer_html``,
    ``fields``, ``file_ids``); every table goes to ``outdir/<name>.<fmt>`` and the summary
    (with ``read_as``, how the inputs were read, when ``describe_reading``) to
    ``outdir/summary.json``; the folder appears when the job ends well, and side files
    (``--unique``) are renamed into place right after it.  :meth:`run` is the whole
    sequence; :meth:`writing` gives its parts to a job that needs its own (the online index).
    """

    inputs: Sequence[str]
    outdir: str | Path
    fmt: str = "jsonl"
    prefer_html: bool = False
    fields: Fields = FIELDS
    file_ids: str = "auto"
    describe_reading: bool = True

    def records(self) -> Iterator[Record | Rejection]:
        """The input stage's records (and rejections), in input order."""
        from .io.readers import read_inputs

        return read_inputs(self.inputs, self.prefer_html, self.fields, self.file_ids)

    def read_as(self) -> dict[str, Any]:
        """How the job read its records (:func:`read_as`)."""
        return read_as(self.prefer_html, self.fields)

    @contextlib.contextmanager
    def writing(self, started: float | None = None) -> Iterator["JobOutput"]:
        """The job's outputs, open: tables and side files written as temporary files, placed by
        :meth:`JobOutput.finish` and removed when the block fails; outputs that would overwrite or
        read back an input are refused first.  ``started``: when the job
        started (its summary's ``total``; default: now)."""
        from .io.writers import OutputFolder, check_outputs_apart

        check_outputs_apart(self.inputs, self.outdir)  # before anything is written: never over an input
        start = time.perf_counter() if started is None else started
        with OutputFolder(self.outdir) as folder, contextlib.ExitStack() as sides:
            yield JobOutput(self, folder, sides, start)

    def run(self, task: Task, after: Callable[["JobOutput"], dict[str, Any]] | None = None) -> dict[str, Any]:
        """Run ``task`` over the inputs and write its tables and summary; returns the summary.

        ``after`` is called once the tables are written and the input was found usable; what it
        returns goes into the summary (an evaluation, a file written beside the outputs).
        """
        with self.writing() as out:
            return out.run(task, after)


class JobOutput:
    """The open outputs of one :class:`Job` (see :meth:`Job.writing`)."""

    def __init__(self, job: Job, folder: "OutputFolder", sides: contextlib.ExitStack, started: float) -> None:
        self.job, self.folder, self.sides, self.started = job, folder, sides, started

    def side_file(self, path: str | Path) -> Path:
        """A temporary path for ``path`` (a file outside the folder and the inputs: refused otherwise),
        renamed onto it after the folder."""
        from .io.writers import atomic_file, check_outputs_apart

        check_outputs_apart(self.job.inputs, self.job.outdir, [path])
        return self.sides.enter_context(atomic_file(path))

    def table(self, name: str, rows: Iterable[dict[str, Any]]) -> int:
        """Write ``rows`` as the table ``name`` in the job's format; returns how many were written."""
        from .io.writers import write_rows

        ext = "jsonl" if self.job.fmt == "jsonl" else "parquet"
        return write_rows(self.folder.path(f"{name}.{ext}"), rows, self.job.fmt)

    def run(self, task: Task, after: Callable[["JobOutput"], dict[str, Any]] | None = None) -> dict[str, Any]:
        """:meth:`Job.run` in these outputs."""
        for name, rows in task.tables(self.job):
            self.table(name, rows)
        task.run_stats.require_usable()
        return self.finish(task.summary, **(after(self) if after is not None else {}))

    def finish(self, summarize: Callable[..., dict[str, Any]], **extra: Any) -> dict[str, Any]:
        """The summary ``summarize(inputs, total, **extra)`` written, every output placed; returns the summary."""
        if self.job.describe_reading:
            extra = {"read_as": self.job.read_as(), **extra}
        summary = summarize(self.job.inputs, time.perf_counter() - self.started, **extra)
        self.commit(summary)
        return summary

    def commit(self, summary: dict[str, Any]) -> None:
        """Write ``summary`` and place the folder (the side files follow when the block ends)."""
        from .io.writers import write_json

        write_json(self.folder.path("summary.json"), summary)
        self.folder.commit()


def time_line(seconds: dict[str, float]) -> str:
    """The report's time: the command's wall time (start-up included), and the compilation in it."""
    wall = max(seconds.get("wall", 0.0), seconds["total"])
    line = f"{wall:.2f} s"
    if seconds.get("compiling_kernels"):
        line += f" ({seconds['compiling_kernels']:.1f} s of it compiling kernels, once: later runs load them)"
    return line


def print_report(s: dict[str, Any], outdir: str, lines: Sequence[str]) -> None:
    """A few lines about a run on stderr: the input account, the job's own ``lines``, time, output, rejections."""
    d = s["documents"]
    out = [f"documents  read {d['read']:,}   kept {d['kept']:,}   rejected {d['rejected']:,}"]
    out += [f"           rejected: {reason}: {n:,}" for reason, n in d["rejected_by_reason"].items()]
    if d.get("skipped"):
        out.append(f"           skipped {d['skipped']:,} (not read): "
                   + ", ".join(f"{reason} {n:,}" for reason, n in d["skipped_by_reason"].items()))
    if d.get("detected_encodings"):
        out.append("           decoded as: " + ", ".join(f"{e} {n:,}" for e, n in d["detected_encodings"].items()))
    out.extend(f"           {note}: {n:,}" for note, n in d.get("notes", {}).items())
    scripts = s.get("scripts", {})
    if set(scripts) - {"Latin", "none"}:  # English-only runs print as they always did
        out.append("scripts    " + "   ".join(f"{k} {n:,}" for k, n in scripts.items()))
    out += list(lines)
    out += [f"time       {time_line(s['seconds'])}", f"output     {outdir}"]
    listed = len(s["rejections"])
    where = " in summary.json" if listed >= d["rejected"] else f" (summary.json lists the first {listed:,})"
    out += listed_rejections(s["rejections"], d["rejected"], more=where)
    print("\n".join(out), file=sys.stderr)


def print_found(s: dict, outdir: str, what: str, count: int) -> None:
    """The run report on stderr (:func:`print_report`) with how many ``what`` were found and any evaluation."""
    lines = [f"{what:<10} {count:,}"]
    if "evaluation" in s:
        lines.append("evaluation " + ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                                               for k, v in _flat(s["evaluation"]).items()))
    print_report(s, f"{outdir}/", lines)


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out
