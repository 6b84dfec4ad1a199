"""The driver JVM's quick start: Spark's classes mapped from an archive, not loaded one by one, and,
for a short run on this machine, no optimizing compiler.

A local Spark run starts a JVM that loads thousands of classes from Spark's jars, a large part of
the seconds every run pays before its first job.  Java (13 and later) can write the classes an
application loaded into an archive when it exits (``-XX:ArchiveClassesAtExit``) and map them at
the next start (``-XX:SharedArchiveFile``):

* the first run whose JVM has no archive yet has its JVM write one as it exits; this process
  waits for that at its own exit (a few seconds, once), then moves the finished archive into
  place -- a run killed meanwhile leaves only a ``.part`` file, which no run reads;
* every later run maps it (and marks it used: the :data:`KEEP` archives used last are kept, the
  others deleted when a new one is put in place -- each is large: docs/scale.md).

The archive is kept in neardup's cache folder (:func:`~neardup.kernel_cache.cache_root`, ``spark/``),
named by a hash of what it was made for: the ``java`` program, Spark's jars (names, sizes, times) and
the driver's other JVM options -- the JVM checks an archive itself and runs without it when it does
not fit.  The JVM's own messages about archives are turned off (they would go to the standard
output).  Nothing here changes what a run computes; a cache folder that cannot be made, or whose
path has white space (Spark splits the JVM's options at it), means no archive.
``NEARDUP_SPARK_ARCHIVE=off`` turns archives off for a machine that starts empty every time (a CI
job, a throw-away container): there the first run's archive is never mapped, and writing it at exit
costs more than it would save (docs/scale.md, thirteenth part).

A ``local[...]`` master runs the tasks' JVM side in the driver's JVM too, and a short run is short
next to the time Java's optimizing (C2) compiler spends on Spark's code: its compiler threads
take cores from the tasks.  So the driver of a local run whose inputs are under
:data:`QUICK_INPUT_BYTES` (or not known: texts given in memory) compiles with the quick (C1)
compiler only (``-XX:TieredStopAtLevel=1``), unless its options choose their own compilation;
a long run keeps C2, whose code sorts the candidates' millions of keys faster (the paired
measurements and the sizes on both sides of the threshold: docs/scale.md, "Spark: the wall
time, eleventh part").  A cluster's executors are JVMs of their own, untouched.

Spark SQL compiles Java source for its queries (code generation, with Janino) and keeps the
compiled classes in a cache of 100 by default, fewer than one ``dedup`` plans, so every run compiled
most of them again.  The session keeps :data:`GENERATED` (a static setting, from the JVM's start; a
``--spark-conf`` of the user's decides instead).  Java keeps the machine code of C1 alone in 48 MB,
which a long-lived session's classes fill; the quick driver reserves the 240 MB tiered compilation
has.  Either change alone made the Spark tests no faster (a larger cache alone: slower, the code
cache full); both together: docs/scale.md, fourteenth part.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

#: Seconds this process waits, at its exit, for its JVM to finish writing the archive.
DUMP_WAIT = 300.0
#: Archives kept in the cache folder: those used last.
KEEP = 2
#: The JVM's messages about archives, off.
SILENT = "-Xlog:cds*=off"
#: The environment variable that turns archives off (``off``).
SWITCH = "NEARDUP_SPARK_ARCHIVE"


#: The driver JVM of a short local run: the quick compiler only, with tiered compilation's room for its code.
QUICK = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m"
#: Compiled classes of generated code the session keeps (``spark.sql.codegen.cache.maxEntries``).
GENERATED = "2000"
#: A local run reading this much input or more keeps Java's optimizing compiler: between the input
#: sizes where C1 was measured faster and slower (docs/scale.md, eleventh part).
QUICK_INPUT_BYTES = 3 << 30


def driver_options(options: str, memory: str, local: bool, input_bytes: int = 0) -> str:
    """The driver JVM's ``options`` (``spark.driver.extraJavaOptions``; its heap: ``memory``) with, for a
    ``local`` master reading under :data:`QUICK_INPUT_BYTES` (``input_bytes``, 0: not known), the quick
    compiler only (see the module docstring), and class data sharing."""
    if local and input_bytes < QUICK_INPUT_BYTES and "Tiered" not in options and "CodeCache" not in options:
        options = f"{options} {QUICK}".strip()
    return f"{options} {sharing_options(f'-Xmx{memory} {options}')}".strip()


def sharing_options(options: str) -> str:
    """JVM options for class data sharing, for a driver JVM started with the other ``options``:
    the archive mapped if it exists, else written at the JVM's exit (see the module docstring);
    ``""`` when this process's JVM already runs, when ``options`` choose their own sharing, or when no
    archive can be kept (no ``java`` or Spark jars found, no cache folder, white space in its path), or
    when ``$NEARDUP_SPARK_ARCHIVE`` is ``off``."""
    from pyspark import SparkContext

    if getattr(SparkContext, "_gateway", None) is not None or "-Xshare" in options or "Archive" in options:
        return ""
    if os.environ.get(SWITCH, "").strip().lower() == "off":
        return ""
    archive = archive_path(options)
    if archive is None or any(c.isspace() for c in str(archive)):
        return ""
    if archive.exists():
        with contextlib.suppress(OSError):
            os.utime(archive)  # used now: kept over older ones
        return f"-XX:SharedArchiveFile={archive} {SILENT}"
    try:
        archive.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return ""
    part = archive.with_name(f"{archive.stem}.{os.getpid()}.part")
    atexit.register(_finish, part, archive)
    return f"-XX:ArchiveClassesAtExit={part} {SILENT}"


def archive_path(options: str) -> Path | None:
    """Where the archive for a driver JVM with ``options`` is kept (``None``: no ``java`` or Spark jars found)."""
    from ..kernel_cache import cache_root

    java = shutil.which("java", path=os.path.join(os.environ["JAVA_HOME"], "bin")) if os.environ.get("JAVA_HOME") \
        else shutil.which("java")
    jars = _spark_jars()
    if java is None or jars is None:
        return None
    digest = hashlib.blake2b(digest_size=10)
    for path in [Path(java).resolve(), *sorted(jars.iterdir())]:
        info = path.stat()
        digest.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    digest.update(options.encode())
    return cache_root() / "spark" / f"classes-{digest.hexdigest()}.jsa"


def _spark_jars() -> Path | None:
    """The folder of Spark's jars (``$SPARK_HOME/jars``, else pyspark's own)."""
    home = os.environ.get("SPARK_HOME")
    if home is None:
        import pyspark

        home = str(Path(pyspark.__file__).parent)
    jars = Path(home) / "jars"
    return jars if jars.is_dir() else None


def _finish(part: Path, archive: Path) -> None:
    """At this process's exit: let its JVM end (its input closed, as pyspark's own exit does) and write
    the archive at ``part``, then move it to ``archive``.  Nothing when no JVM of ours wrote one.  A
    Spark context still running (the API's caller never stopped it) is stopped first, so its
    accumulator server is shut down rather than left to fail on the closed connection."""
    from pyspark import SparkContext

    from .spark_guard import jvm_process

    proc = jvm_process()
    if proc is not None:
        active = SparkContext._active_spark_context
        if active is not None:
            with contextlib.suppress(Exception):  # noqa: BLE001 -- exiting anyway: the archive is what is left to do
                active.stop()
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(DUMP_WAIT)
        except (OSError, subprocess.TimeoutExpired):
            return
    if proc is not None and proc.returncode == 0 and part.exists():
        os.replace(part, archive)
        _prune(archive.parent)
    else:
        part.unlink(missing_ok=True)


def _prune(folder: Path) -> None:
    """Delete all but the :data:`KEEP` archives of ``folder`` used last."""
    from ..kernel_cache import keep_used_last

    keep_used_last(folder.glob("classes-*.jsa"), KEEP)
