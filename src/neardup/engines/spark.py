"""The Spark engine: the stages of ``dedup`` (and of ``partial`` and ``contain --method
align``: :mod:`.spark_partial`, :mod:`.spark_align`) as Apache Spark stages.

Needs the optional extra ``neardup[spark]`` (pyspark 4; Java 17+).  How a run goes:

1. **input** (driver) -- records go through the one input stage every job shares
   (:func:`neardup.input_stage.documents`: readers, extraction, rejections counted the
   same way), so rows are numbered, ids made unique and records rejected exactly as the
   local engine does; the texts are written as Parquet shards of ``(row, text)`` into the
   engine's work folder (passim's habit: Parquet between stages);
2. **stages** (executors) -- :mod:`.spark_stages`: sketches by ``mapInPandas`` calling the
   method's compiled kernels, candidates by a ``groupBy`` on band keys or a prefix-filtered
   set join, verification by the method's ``score``, connected components by large-star /
   small-star, the local clustering per component; each stage's result is written as
   Parquet into the work folder (``sketches/``, ``candidates/``, ``pairs/``,
   ``components/``, ``clusters/``) and read back by the next;
3. **output** (driver) -- the pairs (sorted by row) and clusters are collected through
   Arrow and written by the same writers as the local engine's, so the files are
   byte-identical.

Methods: those whose sketches need no corpus statistics -- ``ffp`` (the default),
``minhash`` without ``max_df`` (LSH or supershingles, estimated or ``exact``) and
``spotsigs`` with fixed antecedents; others are refused with a clear error before
anything is read (:func:`plan_for`).

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
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from ..errors import UserError
from ..job import RunStats
from ..methods.base import Method
from .base import Found
from .shards import stored, write_documents

#: Pairs clustered in one call, about (components are dealt into groups of this size).
PAIRS_PER_GROUP = 500_000


@dataclass(frozen=True)
class Plan:
    """How the Spark engine finds a method's candidates: shared ``keys`` or a ``set_join``."""

    kind: str
    measure: str = ""


def plan_for(method: Method) -> Plan:
    """The candidate stage of ``method`` on Spark, or a :class:`UserError` saying why there is none."""
    name = method.name
    if name == "ffp":
        from ..methods.ffp import MEASURE_NAMES

        return Plan("set_join", MEASURE_NAMES[method.measure])  # type: ignore[attr-defined]
    if name == "minhash":
        if method.max_df is not None:  # type: ignore[attr-defined]
            raise UserError("--engine spark: minhash with --max-df needs the corpus' shingle frequencies before "
                            "signing; run it with --engine local, or without --max-df")
        return Plan("keys")
    if name == "spotsigs":
        if str(method.antecedents).strip().startswith("top:"):  # type: ignore[attr-defined]
            raise UserError("--engine spark: spotsigs with antecedents top:N picks them from the corpus; "
                            "give the antecedent words (--antecedents is,the,said,was) or use --engine local")
        return Plan("set_join", "jaccard")
    raise UserError(f"--engine spark runs ffp, minhash (without --max-df) and spotsigs (fixed antecedents); "
                    f"method {name} needs corpus statistics or an index the Spark engine does not have: "
                    f"use --engine local")


def _remove_unless_errors(path: str) -> None:
    """At exit: the quiet run's Spark log is removed unless it holds an error worth reading."""
    try:
        with open(path, "rb") as fh:
            text = fh.read()
        if b" ERROR " not in text and b"Exception" not in text:
            os.remove(path)
    except OSError:
        pass


class SparkEngine:
    """Runs the stages on Spark (see the module docstring).

    ``partitions``: input partitions of the documents (split by row group) and partitions of
    every shuffle (default: Spark's, 8 on a local master); ``shuffle_seed``: spread the rows over the partitions by a hash
    of this seed and scramble their order inside each (tests of order independence);
    ``work``: folder of the stages' Parquet (default: a temporary folder, removed after
    the run unless ``keep_work``); ``conf``: more Spark settings.  ``quiet``: nothing of
    Spark's on stderr -- the JVM it starts writes its log (and Java's own warnings) to
    :attr:`log_path` instead, where an error can still be read (``--quiet``).
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
    ) -> None:
        if master and connect:
            raise UserError("give --spark-master or --spark-connect, not both")
        if connect is not None and not connect.startswith("sc://"):
            raise UserError(f"--spark-connect takes an sc:// URL, got {connect!r}")
        if partitions is not None and partitions < 1:
            raise UserError(f"partitions must be at least 1, got {partitions}")
        self.master = master
        self.connect = connect
        self.partitions = partitions
        self.work = work
        self.keep_work = keep_work
        self.shuffle_seed = shuffle_seed
        self.conf = dict(conf or {})
        self.quiet = quiet
        self.log_path: str | None = None

    # -- session -----------------------------------------------------------------------
    def session(self) -> Any:
        """The Spark session (an active one is reused)."""
        try:
            from pyspark.sql import SparkSession
        except ImportError:
            raise UserError("--engine spark needs pyspark: pip install -e '.[spark]' in the neardup checkout (and Java 17 or later)") from None
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        if self.connect:
            builder = SparkSession.builder.remote(self.connect)
        else:
            builder = SparkSession.builder.master(self.master or "local[2]").appName("neardup")
        settings = {"spark.sql.execution.arrow.pyspark.enabled": "true", "spark.ui.showConsoleProgress": "false",
                    "spark.log.level": "WARN"}
        if self.partitions is not None:
            settings["spark.sql.shuffle.partitions"] = str(self.partitions)
        elif not self.connect and (self.master or "local").startswith("local"):
            settings["spark.sql.shuffle.partitions"] = "8"
        if not self.connect and (self.master or "local").startswith("local"):
            settings["spark.driver.memory"] = "2g"
        if self.quiet:
            settings["spark.log.level"] = "ERROR"
        settings.update(self.conf)
        for key, value in settings.items():
            builder = builder.config(key, value)
        if not self.quiet:
            return builder.getOrCreate()
        with self._stderr_to_log():  # the JVM (started here, if none runs) inherits it
            return builder.getOrCreate()

    @contextmanager
    def _stderr_to_log(self) -> Iterator[None]:
        """File descriptor 2 pointed at a log file while the session starts: a JVM started
        meanwhile writes its stderr there for the rest of its life; ours is restored after."""
        fd, self.log_path = tempfile.mkstemp(prefix="neardup-spark-", suffix=".log")
        atexit.register(_remove_unless_errors, self.log_path)
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

    def documents(self, spark: Any, path: str) -> Any:
        """The ``(row, text)`` shards as a DataFrame.

        With ``partitions``, the shards are split into about that many input partitions
        (by row group; no shuffle of the texts).  With ``shuffle_seed``, the rows are
        shuffled over the partitions by a seeded hash and scrambled inside each.
        """
        from pyspark.sql import functions as F

        if self.partitions is not None and self.shuffle_seed is None:
            size = _folder_bytes(path)
            spark.conf.set("spark.sql.files.maxPartitionBytes", str(max(1 << 20, size // self.partitions + 1)))
        docs = spark.read.parquet(path)
        if self.shuffle_seed is not None:
            parts = self.partitions or 8
            docs = (docs.repartition(parts, F.xxhash64(F.col("row"), F.lit(self.shuffle_seed)))
                    .sortWithinPartitions(F.rand(self.shuffle_seed)))
        return docs

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

    # -- dedup -------------------------------------------------------------------------
    def check(self, method: Method) -> None:
        """Refuse a method the Spark engine cannot run (:func:`plan_for`)."""
        plan_for(method)

    def dedup(self, method: Method, batches: Iterable[Sequence[str]], stats: RunStats, cluster: str | None) -> Found:
        """See :class:`neardup.engines.Engine`."""
        from . import spark_stages as st
        from .codec import SketchLayout

        plan = plan_for(method)
        t = time.perf_counter()
        with self.workdir() as work:
            n = write_documents(batches, f"{work}/documents")
            t = stats.timed("read", t)
            if n == 0:
                return Found(np.zeros(0, bool), *_no_pairs(), 0, [])
            spark = self.session()
            layout = SketchLayout.probe(method)
            sketches = stored(st.sketch(self.documents(spark, f"{work}/documents"), method, layout),
                               f"{work}/sketches")
            t = stats.timed("sketch", t)
            if plan.kind == "keys":
                cands = st.key_candidates(sketches, method, layout)
            else:
                tau = float(min(max(method.decision_threshold(), 1e-9), 1.0))
                cands = st.set_join_candidates(sketches, layout, plan.measure, tau, f"{work}/features")
            cands = stored(cands, f"{work}/candidates")
            n_cands = cands.count()
            t = stats.timed("candidates", t)
            pairs = stored(st.verify(cands, sketches, method, layout, method.decision_threshold()), f"{work}/pairs")
            got = pairs.toPandas()
            order = np.lexsort((got["b"].to_numpy(np.int64), got["a"].to_numpy(np.int64)))
            a, b = got["a"].to_numpy(np.int64)[order], got["b"].to_numpy(np.int64)[order]
            scores = got["score"].to_numpy(np.float64)[order]
            t = stats.timed("verify", t)
            groups: list[np.ndarray] = []
            if a.shape[0] and cluster is not None:
                comps = stored(st.connected_components(pairs), f"{work}/components")
                n_groups = max(int(spark.conf.get("spark.sql.shuffle.partitions")), a.shape[0] // PAIRS_PER_GROUP + 1)
                found = stored(st.clusters(pairs, comps, cluster, n_groups), f"{work}/clusters").toPandas()
                found = found.sort_values("first", kind="stable")
                groups = [np.asarray(m, dtype=np.int64) for m in found["members"]]
            t = stats.timed("cluster", t)
            usable = np.ones(n, dtype=bool)
            unusable = sketches.where("NOT usable").select("row").toPandas()
            usable[unusable["row"].to_numpy(np.int64)] = False
            stats.timed("collect", t)
        count = a.shape[0] if method.verifies else int(n_cands)
        return Found(usable, a, b, scores, count, groups, {})


def _folder_bytes(path: str) -> int:
    """Bytes of the files under ``path`` (a local folder or a URI pyarrow reads)."""
    from pyarrow import fs as pafs

    filesystem, root = pafs.FileSystem.from_uri(path if "://" in path else os.path.abspath(path))
    infos = filesystem.get_file_info(pafs.FileSelector(root, recursive=True))
    return sum(i.size or 0 for i in infos if i.type == pafs.FileType.File)


def _no_pairs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64)


