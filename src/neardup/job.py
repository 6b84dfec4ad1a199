"""What every file job shares: the input account, the run report, its printer, and the command runner.

A file job (``dedup``, ``contain``, ``partial``, ``stats build``, ``train``, ``extract``)
reads inputs, accounts for every one of them in a :class:`RunStats` (read = kept +
rejected, with the file and line of each rejection), writes its outputs through
:mod:`neardup.io.writers` (atomically) and describes the run in one report
(:func:`run_report`: ``summary.json``, ending with ``complete: true``) that
:func:`print_report` shows on stderr.  :func:`run_command` is how the command line runs
a job: user errors exit 2 with one line, bugs exit 1 with a traceback and a request for
a report, SIGINT/SIGTERM exit 130/143 with one line and the outputs as they were.

Kept free of heavy imports: the command line imports it at start-up.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

from .errors import InputError, UserError
from .io.readers import Rejection
from .io.records import printable
from .io.writers import remove_pending

#: Rejections listed one by one in the summary; beyond this they are only counted.
MAX_LISTED_REJECTIONS = 1000

#: Where to report a bug (printed under the traceback of an internal error).
REPORT_TO = "the neardup issue tracker"


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


def _describe_os_error(exc: OSError) -> str:
    what = exc.strerror or str(exc)
    if exc.filename is None:
        return str(exc)
    return f"{what}: {exc.filename}" + (f" -> {exc.filename2}" if exc.filename2 else "")


@contextlib.contextmanager
def interrupts() -> Iterator[None]:
    """SIGINT/SIGTERM end the run at once with one line and exit 130/143, temporary outputs removed.

    The handler exits with ``os._exit``: no traceback from whatever was running (a
    compiled kernel, a worker thread), and the outputs of earlier runs stay as they were
    because nothing is moved into place before the run's last step.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        remove_pending()
        os.write(2, f"neardup: interrupted ({signal.Signals(signum).name})\n".encode())
        os._exit(128 + signum)

    with stop_signals(stop):
        yield


@contextlib.contextmanager
def stop_signals(handler: Callable[[int, Any], None]) -> Iterator[None]:
    """SIGINT and SIGTERM go to ``handler`` within the block; the previous handlers come back after it."""
    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old)


def run_command(func: Callable[[Any], int], args: Any) -> int:
    """Run one command's function with neardup's error taxonomy; returns the exit code.

    :class:`UserError` (and :class:`OSError`: a full disk, a missing permission) -> one line, 2;
    anything else is a bug -> traceback and a request to report it, 1.
    """
    try:
        with interrupts():
            return func(args)
    except UserError as exc:
        print(f"neardup: error: {printable(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader of our output went away (`neardup explain ... | head`): not an error
        sys.stdout = None  # nothing more is written to the closed pipe at exit
        return 0
    except OSError as exc:
        print(f"neardup: error: {printable(_describe_os_error(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # raised before the handler was installed
        remove_pending()
        print("neardup: interrupted (SIGINT)", file=sys.stderr)
        return 130
    except Exception:
        traceback.print_exc()
        print(f"neardup: internal error: this is a bug in neardup, not a problem with your input; "
              f"please report it to {REPORT_TO} with the command line and the traceback above", file=sys.stderr)
        return 1
