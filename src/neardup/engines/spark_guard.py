"""How a Spark run ends when Spark fails: one line naming the cause and the setting to change.

A Spark job fails in ways that have nothing to do with the data or the output files: the
driver's JVM runs out of heap (it also hosts the executors on a ``local[N]`` master), an
executor is lost, a stage's tasks keep failing, or nothing happens at all (a JVM thrashing
in garbage collection, a cluster without free cores).  Without care these surface as a
Java stack trace, a ``Connection refused`` from the Python-to-JVM bridge once the JVM is
gone (blamed on whatever file the run was writing), or a run that never ends.  Here:

* :func:`machine_driver_memory` -- the driver's heap chosen from the machine (a quarter of its
  memory, 1 to 32 GB) unless the user sets ``--spark-driver-memory``; the JVM is started
  with ``-XX:+ExitOnOutOfMemoryError``, so a heap exhausted anywhere ends the JVM at once
  (exit status 3) instead of leaving a half-dead driver whose result thread died;
* :class:`Watchdog` -- a thread that watches the running jobs' finished tasks: no task
  finished for ``timeout`` seconds while a job runs, or a JVM that does not answer, ends
  the jobs (then the JVM); the run then fails with that cause;
* :func:`guarded` -- around every piece of an engine that calls Spark: a failure from
  Spark or from the bridge becomes an :class:`~neardup.errors.EngineError` (exit 2, the
  output folder left unwritten, as for any error) whose message says what happened and
  what to change.  A :class:`~neardup.errors.UserError` raised inside a task (an input the
  stage refuses) is raised again as itself; an error in neardup's own code inside a task
  stays a bug (traceback, exit 1).
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

from ..errors import EngineError, UserError

#: Seconds without a finished task, while a job runs, after which the run is ended (``--spark-timeout``).
DEFAULT_TIMEOUT = 900.0
#: Exit status of a JVM started with -XX:+ExitOnOutOfMemoryError whose heap ran out.
JVM_OOM_STATUS = 3
#: Seconds a JVM whose bridge broke is given to exit (and so say why).
JVM_EXIT_WAIT = 10.0
#: The options that make a JVM end when its heap runs out (driver and executors).
EXIT_ON_OOM = "-XX:+ExitOnOutOfMemoryError"
_MEMORY = ("OutOfMemoryError", "Java heap space", "GC overhead limit exceeded", "MemoryError")
_USER_ERROR = re.compile(r"neardup\.errors\.(?:UserError|InputError|EngineError): (.*)")


def machine_driver_memory(total_bytes: int | None = None) -> str:
    """The driver's heap for a machine of ``total_bytes`` (this one's by default): a quarter of it,
    at least 1 GB and at most 32 GB, in whole GB (Spark's form, ``"5g"``).

    On a ``local[N]`` master the driver's JVM runs the executors' tasks too, so a fixed small
    heap is what made 5,000 documents run out of it; a quarter leaves the machine to the
    Python workers, which do most of the work."""
    if total_bytes is None:
        total_bytes = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return f"{min(max(total_bytes // 4 >> 30, 1), 32)}g"


class Watchdog:
    """Ends a Spark run that makes no progress (see the module docstring).

    Every ``interval`` seconds it reads, through the status tracker, the running jobs and
    their stages' finished and failed tasks.  Any change is progress.  While a job runs and
    nothing changes for ``timeout`` seconds, or the tracker itself does not answer for that
    long, it records the cause, cancels every job and, when that does not end them within
    ``timeout / 10`` seconds (at least 10), kills the JVM: the call the run is waiting in
    then fails, and :func:`guarded` reports the cause recorded here.
    """

    def __init__(self, spark: Any, timeout: float, interval: float = 2.0) -> None:
        self.sc = spark.sparkContext
        self.timeout = timeout
        self.interval = interval
        self.cause: str | None = None
        self._stop = threading.Event()
        quiet_accumulator_server(self.sc)
        self._thread = threading.Thread(target=self._run, name="neardup-spark-watchdog", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()

    def _progress(self) -> tuple[Any, ...] | None:
        """What has happened so far (``None``: no job runs); read with a time limit."""
        tracker = self.sc.statusTracker()
        jobs = tracker.getActiveJobsIds()
        if not jobs:
            return None
        stages = []
        for sid in tracker.getActiveStageIds():
            info = tracker.getStageInfo(sid)
            if info is not None:
                stages.append((sid, info.currentAttemptId, info.numCompletedTasks, info.numFailedTasks))
        return tuple(jobs), tuple(stages)

    def _ask(self) -> tuple[str, tuple[Any, ...] | None]:
        """``("answered", progress)``; ``("gone", None)`` when the bridge to the JVM broke (the run's
        own call fails too, and says why); ``("silent", None)`` after ``timeout`` without an answer.
        The tracker is asked in a helper thread, so a JVM that hangs cannot hang the watchdog."""
        box: list[tuple[str, tuple[Any, ...] | None]] = []

        def ask() -> None:
            try:
                box.append(("answered", self._progress()))
            except Exception:
                box.append(("gone", None))

        helper = threading.Thread(target=ask, name="neardup-spark-watchdog-ask", daemon=True)
        helper.start()
        helper.join(self.timeout)
        return box[0] if box else ("silent", None)

    def _run(self) -> None:
        last: tuple[Any, ...] | None = None
        since = time.monotonic()
        while not self._stop.wait(self.interval):
            state, now = self._ask()
            if state == "gone":
                return
            if state == "silent":
                self._end(f"the Spark driver did not answer for {self.timeout:.0f} s (a JVM out of memory "
                          "thrashes like this): raise --spark-driver-memory, or give more --spark-partitions")
                return
            if now is None or now != last:
                last, since = now, time.monotonic()
                continue
            if time.monotonic() - since >= self.timeout:
                self._end(f"no Spark task finished for {self.timeout:.0f} s: a stage is stuck (no free executor, "
                          "a task far too large); give more --spark-partitions, check the cluster, or raise "
                          "--spark-timeout")
                return

    def _end(self, cause: str) -> None:
        """Record ``cause``, cancel the jobs; kill the JVM if they do not end within the grace time."""
        self.cause = cause
        proc = jvm_process()
        try:
            self.sc.cancelAllJobs()
        except Exception:
            return  # the bridge broke: the JVM is going anyway
        deadline = time.monotonic() + max(self.timeout / 10, 10.0)
        while time.monotonic() < deadline and not self._stop.is_set():
            state, now = self._ask()
            if state == "gone" or (state == "answered" and now is None):
                return
            time.sleep(1.0)
        if proc is not None and not self._stop.is_set():
            proc.kill()


def quiet_accumulator_server(sc: Any) -> None:
    """pyspark's accumulator server (a socket server in this process, which neardup does not use)
    prints a traceback when the JVM dies mid-update; the run's own error line says what happened,
    so the server's connection errors are dropped.  ``handle_error`` is socketserver's hook for
    exactly this; the server itself is only reachable as the context's ``_accumulatorServer``."""
    server = getattr(sc, "_accumulatorServer", None)
    if server is not None:
        server.handle_error = lambda request, client_address: None


def describe(exc: BaseException, watchdog: Watchdog | None, driver_memory: str | None,
             log: str | None = None, starting: bool = False) -> str | None:
    """The one line a Spark failure ends the run with, or ``None`` when ``exc`` is not one: an
    error of neardup's own code inside a task or in a query it built is a bug, reported as one.

    ``log``: where Spark's log went (``--quiet``), named instead of "above"; ``starting``: the
    session was being started (any failure then is the environment's or a setting's)."""
    from py4j.protocol import Py4JError, Py4JJavaError
    from pyspark.errors import PySparkException

    if not isinstance(exc, (Py4JError, PySparkException, ConnectionError)):
        return None
    if watchdog is not None and watchdog.cause:
        return watchdog.cause
    see = f"Spark's log is {log}" if log else "see Spark's log above"
    heap = f" (spark.driver.memory={driver_memory})" if driver_memory else ""
    text = _text(exc)
    first = next((line.strip() for line in text.splitlines() if line.strip()), type(exc).__name__)[:400]
    bridge_broke = isinstance(exc, ConnectionError) or (isinstance(exc, Py4JError)
                                                        and not isinstance(exc, Py4JJavaError))
    status = _jvm_status(wait=bridge_broke)
    if status == JVM_OOM_STATUS:
        return f"the Spark driver ran out of memory{heap}: raise --spark-driver-memory"
    if any(m in text for m in _MEMORY):
        return (f"a Spark process ran out of memory{heap}: raise --spark-driver-memory (on a cluster: "
                "--spark-conf spark.executor.memory=...), or give more --spark-partitions (smaller tasks)")
    if status is not None:
        return f"the Spark driver's JVM ended unexpectedly (exit status {status}); {see}"
    if isinstance(exc, Py4JJavaError):
        return f"the Spark job failed: {first}; {see}"
    if bridge_broke:
        return f"lost the connection to the Spark driver's JVM; {see}"
    if starting or "JAVA_GATEWAY" in text:
        return f"Spark did not start: {first}; {see}"
    return None


def jvm_process() -> Any:
    """The driver JVM's process, when this Python started it (``None`` on Spark Connect)."""
    from pyspark import SparkContext

    return getattr(getattr(SparkContext, "_gateway", None), "proc", None)


def _jvm_status(wait: bool) -> int | None:
    """The driver JVM's exit status, ``None`` while it runs (or when it is not ours).  ``wait``: the
    bridge to it broke, so it is likely ending -- give it a few seconds to say how."""
    import subprocess

    proc = jvm_process()
    if proc is None:
        return None
    try:
        return proc.wait(JVM_EXIT_WAIT) if wait else proc.poll()
    except subprocess.TimeoutExpired:
        return None


def _text(exc: BaseException) -> str:
    """The failure's message, with the Java exception's when there is one."""
    java = getattr(exc, "java_exception", None)
    if java is not None:
        try:
            return str(java.toString())
        except Exception:
            pass
    return str(exc)


@contextmanager
def guarded(watchdog: Watchdog | None, driver_memory: str | None, log: str | None = None,
            starting: bool = False) -> Iterator[None]:
    """Spark failures inside as :class:`EngineError` (see the module docstring and :func:`describe`)."""
    try:
        yield
    except UserError:
        raise
    except Exception as exc:
        user = _USER_ERROR.search(_text(exc))
        if user is not None and type(exc).__name__ == "PythonException":
            raise UserError(user.group(1).strip()) from None
        line = describe(exc, watchdog, driver_memory, log, starting)
        if line is None:
            raise
        raise EngineError(line) from None


def remove_log_unless_errors(path: str) -> None:
    """At exit: the quiet run's Spark log is removed unless it holds an error worth reading."""
    try:
        with open(path, "rb") as fh:
            text = fh.read()
        if b" ERROR " not in text and b"Exception" not in text:
            os.remove(path)
    except OSError:
        pass


class BridgeReports(logging.Filter):
    """py4j's own report of a command it could not send ("Exception while sending command." and a
    traceback, logged on the root logger by whichever thread first meets a JVM that is ending: the
    watchdog's poll or the stage's call) written to Spark's log instead of stderr, so a quiet run
    that fails ends with the one line of :func:`guarded` and nothing else.  Installed once per
    process (:meth:`into`); the path is the latest quiet session's log."""

    _installed: "BridgeReports | None" = None

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    @classmethod
    def into(cls, path: str) -> None:
        """Send py4j's reports on the root logger to ``path`` from now on."""
        if cls._installed is None:
            cls._installed = cls(path)
            logging.getLogger().addFilter(cls._installed)
        cls._installed.path = path

    def filter(self, record: logging.LogRecord) -> bool:
        if "py4j" not in record.pathname.replace("\\", "/").split("/"):
            return True
        try:
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(logging.Formatter().format(record) + "\n")
        except OSError:
            pass
        return False
