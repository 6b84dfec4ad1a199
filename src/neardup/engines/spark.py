"""The Spark engine: the stages of ``dedup`` (and of ``partial`` and ``contain --method
align``: :mod:`.spark_partial`, :mod:`.spark_align`) as Apache Spark stages.

Needs the optional extra ``neardup[spark]`` (pyspark 4; Java 17+).  How a run goes:

1. **input** -- a file job's inputs are read by the executors (:meth:`SparkEngine.read_files`,
   :mod:`.spark_input`: the local readers and per-record rules in tasks, rows numbered by
   (file, position), ids made unique over the whole input); records given as batches of
   texts (the API) go through the one input stage every job shares in the driver
   (:func:`neardup.input_stage.documents`).  Either way rows are numbered, ids made unique
   and records rejected exactly as the local engine does, and the texts are Parquet shards
   of ``(row, text)`` in the engine's work folder (passim's habit: Parquet between stages);
2. **stages** (executors) -- :mod:`.spark_stages`: for a corpus-dependent method the
   collection's statistics first (each batch's count tables summed by key, read by the
   driver and sent back inside the next stage's function), sketches by ``mapInPandas``
   calling the method's compiled kernels (when the method needs no statistics, by the tasks
   that read a file job's inputs: :mod:`.spark_records`), candidates as the method's
   :class:`~neardup.methods.base.CandidatePlan` says -- its keys grouped, a
   prefix-filtered set join, or (``hamming``) a ``groupBy`` on the permuted tables' keys of
   its fingerprints, kept within the radius --, verification by the method's ``score`` (each
   task reading its candidates' sketches from the stored sketches: no sketch is shuffled),
   connected components (each task's union-find, then large-star / small-star:
   :mod:`.spark_components`), the local clustering per component (pairs few enough for one
   call: all of them clustered in one task, no components);
   each stage's result is written as Parquet into the work folder (``statistics/``,
   ``sketches/``, ``candidates/``, ``pairs/``, ``components/``, ``clusters/``) and read
   back by the next;
3. **output** -- a file job (``dedup`` without ``--unique``): the executors type the pairs by
   their relations (:mod:`.spark_relations`, unless ``--no-relations``), join the pairs and
   clusters to the ids and write them as part files under the output folder, or the local
   writer's single file, the summary's counts from footers and aggregates (:mod:`.spark_output`);
   otherwise (``--unique``, the API) the pairs (sorted by row), clusters and unusable rows are
   read from the stages' Parquet by pyarrow in this process (:func:`~.shards.read_found`) and
   written by the local writers.  Either way the files are the local engine's, byte for byte.

A Spark failure (a heap out of memory, a lost JVM or executor, a stage that makes no
progress for ``timeout`` seconds) ends the run with one line naming the cause and the
setting to change (:mod:`.spark_guard`); the driver's heap is chosen from the machine unless
``driver_memory`` is given.

Every method runs, with the local engine's answer: the engine reads only what the method
declares (:meth:`~neardup.methods.base.Method.corpus_statistics`, ``candidate_plan``,
``apply_statistics``), never its name.

``master``: any Spark master URL (``local[2]`` by default, ``spark://...``, ``yarn``);
``connect``: a Spark Connect endpoint (``sc://host:15002``) instead.  On a cluster, the
executors need neardup installed and ``work`` must be a folder every node reaches (a
shared filesystem, or a URI pyarrow and Spark both write, e.g. ``s3://bucket/tmp``).
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from ..errors import UserError
from ..job import RunStats
from ..methods.base import CandidatePlan, Method
from .base import Destination, Found, Relating, Written
from .shards import folder_bytes, read_found, stored, stored_by_row, stored_rows, write_documents
from .spark_classes import GENERATED, driver_options
from .spark_guard import (DEFAULT_TIMEOUT, EXIT_ON_OOM, BridgeReports, Watchdog, guarded, machine_driver_memory,
                          remove_log_unless_errors)
from .spark_kernels import kernels_by_name

class SparkEngine:
    """Runs the stages on Spark (see the module docstring).

    ``partitions``: input partitions of the documents (split by row group) and partitions of
    every shuffle (default: Spark's, 8 on a local master); ``shuffle_seed``: spread the rows over the partitions by a hash
    of this seed and scramble their order inside each (tests of order independence);
    ``work``: folder of the stages' Parquet (default: a temporary folder, removed after
    the run unless ``keep_work``); ``conf``: more Spark settings.  ``quiet``: nothing of
    Spark's on stderr -- the JVM it starts writes its log (and Java's own warnings) to
    :attr:`log_path` instead, where an error can still be read (``--quiet``).
    ``driver_memory``: the driver JVM's heap (``"8g"``; default: chosen from the machine,
    :func:`~.spark_guard.machine_driver_memory`); ``timeout``: seconds without a finished task after
    which a running job is ended (:class:`~.spark_guard.Watchdog`); ``split_bytes``: a plain JSONL
    input larger than this is read by several tasks (:mod:`.spark_input`); ``executors_read``: a
    file job's inputs are read by the executors (default), not by the driver's input stage.
    """

    name = "spark"

    def __init__(
        self,
        master: str | None = None,
        connect: str | None = None,
        partitions: int | None = None,
        work: str | None = None,
        keep_work: bool = False,
        shuffle_seed: int | None = None,
        conf: dict[str, str] | None = None,
        quiet: bool = False,
        driver_memory: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        split_bytes: int | None = None,
        executors_read: bool = True,
    ) -> None:
        if master and connect:
            raise UserError("give --spark-master or --spark-connect, not both")
        if connect is not None and not connect.startswith("sc://"):
            raise UserError(f"--spark-connect takes an sc:// URL, got {connect!r}")
        if partitions is not None and partitions < 1:
            raise UserError(f"partitions must be at least 1, got {partitions}")
        if not timeout > 0:
            raise UserError(f"--spark-timeout must be positive, got {timeout}")
        self.master = master
        self.connect = connect
        self.partitions = partitions
        self.work = work
        self.keep_work = keep_work
        self.shuffle_seed = shuffle_seed
        self.conf = dict(conf or {})
        self.quiet = quiet
        self.timeout = timeout
        self.driver_memory = None if connect else (driver_memory or self.conf.get("spark.driver.memory")
                                                   or machine_driver_memory())
        self.log_path: str | None = None
        from .spark_input import SPLIT_BYTES

        self.split_bytes = split_bytes or SPLIT_BYTES
        self.executors_read = executors_read
        self.input_bytes = 0  # of the run that starts the JVM, when known: a long run's JVM is not quick (spark_classes)

    # -- session -----------------------------------------------------------------------
    def session(self) -> Any:
        """The Spark session (an active one is reused); one that cannot start ends the run with
        the reason (:func:`~.spark_guard.guarded`)."""
        try:
            from pyspark.sql import SparkSession
        except ImportError:
            raise UserError("--engine spark needs pyspark: pip install -e '.[spark]' in the neardup checkout (and Java 17 or later)") from None
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        kernels_by_name()  # the workers load neardup's kernels from their cache, not compile them
        if self.connect:
            builder = SparkSession.builder.remote(self.connect)
        else:
            builder = SparkSession.builder.master(self.master or "local[2]").appName("neardup")
        settings = {"spark.sql.execution.arrow.pyspark.enabled": "true"}
        if not self.connect:  # the console and the log level are the server's own on Spark Connect
            settings.update({"spark.ui.showConsoleProgress": "false", "spark.sql.codegen.cache.maxEntries": GENERATED,
                             "spark.log.level": "ERROR" if self.quiet else "WARN"})
        local = not self.connect and (self.master or "local").startswith("local")
        if self.partitions is not None:
            settings["spark.sql.shuffle.partitions"] = str(self.partitions)
        elif local:
            settings["spark.sql.shuffle.partitions"] = "8"
        if local:  # no web UI server for a run on this machine (--spark-conf spark.ui.enabled=true brings it)
            settings["spark.ui.enabled"] = "false"
        if not self.connect:
            assert self.driver_memory is not None
            settings["spark.driver.memory"] = self.driver_memory
        settings.update(self.conf)
        if not self.connect:  # a heap that runs out ends its JVM at once (see spark_guard)
            for key in ("spark.driver.extraJavaOptions", "spark.executor.extraJavaOptions"):
                settings[key] = f"{settings.get(key, '')} {EXIT_ON_OOM}".strip()
            settings["spark.driver.extraJavaOptions"] = driver_options(  # spark_classes: a quick start
                settings["spark.driver.extraJavaOptions"], settings["spark.driver.memory"], local, self.input_bytes)
        for key, value in settings.items():
            builder = builder.config(key, value)
        if not self.quiet:
            with guarded(None, self.driver_memory, starting=True):
                return builder.getOrCreate()
        with self._stderr_to_log():  # the JVM (started here, if none runs) inherits it
            assert self.log_path is not None
            BridgeReports.into(self.log_path)  # and py4j's own reports go there too
            with guarded(None, self.driver_memory, self.log_path, starting=True):
                return builder.getOrCreate()

    @contextmanager
    def running(self) -> Iterator[Any]:
        """The Spark session, watched (:class:`~.spark_guard.Watchdog`: no job waits forever; not
        on Spark Connect, whose server has its own) and with Spark's failures ended as one line
        (:func:`~.spark_guard.guarded`).  Every stage of this engine runs inside."""
        spark = self.session()
        watchdog = None if self.connect else Watchdog(spark, self.timeout)
        try:
            with guarded(watchdog, self.driver_memory, self.log_path):
                yield spark
        finally:
            if watchdog is not None:
                watchdog.close()

    @contextmanager
    def _stderr_to_log(self) -> Iterator[None]:
        """File descriptor 2 pointed at a log file while the session starts: a JVM started
        meanwhile writes its stderr there for the rest of its life; ours is restored after."""
        fd, self.log_path = tempfile.mkstemp(prefix="neardup-spark-", suffix=".log")
        atexit.register(remove_log_unless_errors, self.log_path)
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(fd, 2)
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            os.close(fd)

    @contextmanager
    def workdir(self) -> Iterator[str]:
        """The folder of the stages' Parquet: ``work`` as given, else a temporary one (removed after)."""
        if self.work is not None:
            yield self.work.rstrip("/")
            return
        path = tempfile.mkdtemp(prefix="neardup-spark-")
        try:
            yield path
        finally:
            if not self.keep_work:
                shutil.rmtree(path, ignore_errors=True)

    def documents(self, spark: Any, source: Any) -> Any:
        """The ``(row, text)`` of the documents as a DataFrame: the shards at ``source`` (a path), or the
        texts of the input the executors read (a :class:`~.spark_input.SparkInput`: its stored records).
        With ``partitions``, the stored texts are split into about that many input partitions (by row
        group; no shuffle of the texts).  With ``shuffle_seed``, the rows are shuffled over the
        partitions by a seeded hash and scrambled inside each (:func:`~.spark_stages.spread`)."""
        from .spark_stages import spread

        path = source if isinstance(source, str) else source.records_path
        if self.partitions is not None and self.shuffle_seed is None:
            size = folder_bytes(path)
            spark.conf.set("spark.sql.files.maxPartitionBytes", str(max(1 << 20, size // self.partitions + 1)))
        # the schema known: no job reads a footer for it
        docs = spark.read.schema("row long, text string").parquet(path) if isinstance(source, str) else source.texts
        return spread(docs, self.shuffle_seed, self.partitions or 8)

    # -- partial -----------------------------------------------------------------------
    def partial_detector(self, **options: Any) -> Any:
        """A PDC detector whose stages run on this engine (:mod:`.spark_partial`)."""
        from .spark_partial import SparkPartialDetector

        return SparkPartialDetector(self, **options)

    def aligner(self, params: Any) -> Any:
        """An aligner (``add`` / ``pairs`` / ``counts`` / ``close``, as the local
        :class:`~neardup.align.aligner.Aligner`) whose stages run on this engine (:mod:`.spark_align`)."""
        from .spark_align import SparkAligner

        return SparkAligner(self, params)

    # -- statistics --------------------------------------------------------------------
    def statistics(self, batches: Iterable[Sequence[str]], count: Callable[[list[str]], Any], template: Any) -> tuple[Any, int]:
        """The statistic ``count`` makes of texts, over all ``batches``
        (:func:`~.spark_stages.summed_statistics`; ``neardup stats build --engine spark``), and the
        documents counted."""
        from .spark_stages import summed_statistics

        with self.workdir() as work:
            n = write_documents(batches, f"{work}/documents")
            if n == 0:
                return template, 0
            with self.running() as spark:
                return summed_statistics(self.documents(spark, f"{work}/documents"), count, template, n,
                                         f"{work}/statistics"), n

    # -- dedup -------------------------------------------------------------------------
    def check(self, method: Method) -> None:
        """Every method that declares its candidate plan runs (an undeclared one raises here)."""
        method.candidate_plan()

    @property
    def writes_outputs(self) -> bool:
        """Whether :meth:`dedup` can have the executors write the pairs and clusters (``into``): when they
        read the inputs, whose ids they stored as Parquet."""
        return self.executors_read

    def dedup(self, method: Method, batches: Iterable[Sequence[str]], stats: RunStats, cluster: str | None) -> Found:
        """See :class:`neardup.engines.Engine`."""
        return self._run(method, batches, stats, cluster)

    def dedup_into(self, method: Method, given: Any, stats: RunStats, cluster: str, into: Destination,
                   listed: int, relating: Relating | None = None) -> Written:
        """:meth:`dedup` of the input the executors read (``given``: :meth:`read_files`' answer), the
        executors writing the pairs and clusters into ``into`` (:mod:`.spark_output`; typed there by
        ``relating``'s aligner when given): their counts, naming the first ``listed`` unusable rows."""
        return self._run(method, given, stats, cluster, into, listed, relating)

    def _run(self, method: Method, batches: Iterable[Sequence[str]], stats: RunStats, cluster: str | None,
             into: Destination | None = None, listed: int = 0, relating: Relating | None = None) -> Any:
        """:meth:`dedup` (``into`` ``None``) or :meth:`dedup_into`."""
        from .spark_input import SparkInput

        plan = method.candidate_plan()
        t = time.perf_counter()
        with self.workdir() as work:
            documents: Any = batches  # read by the executors (read_files): their stored records
            if isinstance(batches, SparkInput):
                n = batches.n
            else:
                assert into is None, "the executors write the outputs of the inputs they read"
                n, documents = write_documents(batches, f"{work}/documents"), f"{work}/documents"
                t = stats.timed("read", t)
            if n == 0:
                return Found(np.zeros(0, bool), *_no_pairs(), 0, []) if into is None else \
                    Written(0, 0, np.zeros(0, np.int64), 0, 0, 0, 0, 0)
            with self.running() as spark:
                found = self._dedup(spark, work, documents, n, method, plan, stats,
                                    cluster if relating is None else None, t)
                pairs, n_pairs, clusters, unusable, count, info, t = found
                if into is None:
                    result: Any = read_found(work, n, clusters is not None, unusable, count, info)
                else:
                    from .spark_output import written

                    assert isinstance(batches, SparkInput)
                    result = written(pairs, n_pairs, clusters, unusable, batches.provenance_path, n, count, info, into,
                                     listed, work, relating)
                stats.timed("collect" if into is None else "write", t)
                return result

    def read_files(self, inputs: Sequence[str], extract: str, stats: RunStats, strict: bool = False, fields: Any = None,
                   prefer_html: bool = False, method: Method | None = None, texts: bool = True, admit: Any = None) -> Any:
        """The input stage on the executors (:func:`.spark_input.read_inputs`, ``admit`` a job's checks of
        each record): a :class:`~.spark_input.SparkInput` to give :meth:`dedup` instead of text batches (and,
        when they can, the reading tasks' sketches for ``method``: then the texts are kept only with ``texts``)."""
        from ..io.readers import FIELDS
        from .spark_input import read_inputs

        t = time.perf_counter()
        given = read_inputs(self, inputs, extract, stats, strict, fields or FIELDS, prefer_html,
                            split_bytes=self.split_bytes, method=method, texts=texts, admit=admit)
        stats.timed("read", t)
        return given

    def _dedup(self, spark: Any, work: str, documents: Any, n: int, method: Method, plan: CandidatePlan,
               stats: RunStats, cluster: str | None, t: float) -> tuple[Any, int, Any, Any, int, dict[str, Any], float]:
        """The stages of :meth:`dedup` once the input is written (see the module docstring): the stored
        pairs and their count, the stored clusters (``None``: none made), the unusable rows, the count
        the summary reports as candidates, what the method derived, the time."""
        from . import spark_batches, spark_stages as st
        from .codec import SketchLayout
        from .spark_components import clustered

        layout = SketchLayout.probe(method)
        read = getattr(documents, "sketches", None)  # sketched by the reading tasks, when they could
        docs: Any = None if read is not None else self.documents(spark, documents)  # (no stage reads the texts)
        info: dict[str, Any] = {}
        collection = None
        if method.corpus_dependent:
            collection, info = collection_statistics(method, docs, n, f"{work}/statistics")
            t = stats.timed("statistics", t)
        keys_of = None if plan.kind == "set_join" else st.candidate_keys(method, plan, n)
        sketched = read if read is not None else st.sketch(docs, method, layout, collection, keys_of)
        sketches, by_row = stored_by_row(sketched, f"{work}/sketches")
        t = stats.timed("sketch", t)
        with spark_batches.narrow_batches(spark):  # every stage from here has rows of a few numbers
            threshold = method.decision_threshold()
            if plan.kind == "set_join":
                tau = float(min(max(threshold, 1e-9), 1.0))
                cands = st.set_join_candidates(sketches, layout, plan.measure, tau, f"{work}/features")
            else:
                cands = st.key_candidates(sketches, 1 if plan.kind == "hamming" else plan.min_shared)
            cands = stored(cands, f"{work}/candidates")
            if plan.kind == "hamming":  # the candidates are the pairs within the radius, as the local search's
                cands = stored(st.verify(cands, by_row, method, layout, -np.inf, plan), f"{work}/near")
            n_cands = stored_rows(f"{work}/near" if plan.kind == "hamming" else f"{work}/candidates")
            t = stats.timed("candidates", t)
            if plan.kind == "hamming":
                pairs = stored(cands.where(cands["score"] >= threshold), f"{work}/pairs")
            else:
                pairs = stored(st.verify(cands, by_row, method, layout, threshold), f"{work}/pairs")
            n_pairs = stored_rows(f"{work}/pairs")
            t = stats.timed("verify", t)
            made = None
            if n_pairs and cluster is not None:
                made = clustered(pairs, n_pairs, cluster, f"{work}/components", f"{work}/clusters")
            t = stats.timed("cluster", t)
        count = n_pairs if method.verifies else int(n_cands)
        return pairs, n_pairs, made, sketches.where("NOT good").select("row"), count, info, t


def collection_statistics(method: Method, docs: Any, n: int, path: str) -> tuple[Any, dict[str, Any]]:
    """A corpus-dependent method's statistics of the ``n`` documents ``docs`` (:func:`summed_statistics`
    of its batches' ``Sketches.stats``) and what applying them reports (``info``).  The statistic
    goes to the executors inside the next stage's function (pyspark broadcasts a large one)."""
    from .codec import PROBE

    from .spark_stages import summed_statistics

    probe = method.sketch(method.prepare([PROBE]))
    merged = summed_statistics(docs, lambda texts: method.sketch(method.prepare(texts)).stats, probe.stats, n, path)
    return merged, dict(method.apply_statistics(probe, merged).info)


def _no_pairs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64)


