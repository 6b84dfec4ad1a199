"""The Spark engine on a real cluster: a standalone master and worker, byte-identical to local (issue 32).

The master and a worker are started from pyspark's own launcher (``bin/spark-class
org.apache.spark.deploy.master.Master`` / ``...deploy.worker.Worker``), bound to 127.0.0.1
only (``--host 127.0.0.1``, ``SPARK_LOCAL_IP=127.0.0.1``; the driver binds there too), on
free ports; the executors are separate JVMs with their own Python workers, so the method,
its collection statistics and the stages' functions really travel.  Skipped without pyspark
or Java; one cluster (and one session) for the module, stopped after it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspark")
pytestmark = [pytest.mark.spark,
              pytest.mark.skipif(shutil.which("java") is None, reason="the Spark engine needs Java 17+")]

from pyspark.sql import SparkSession  # noqa: E402

from spark_launch import LOOPBACK, free_port as _free_port, stop, wait_for as _wait_for  # noqa: E402

from neardup.cli import main  # noqa: E402

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sample.jsonl"


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """``spark://127.0.0.1:PORT`` of a standalone master with one 2-core worker (both stopped after)."""
    import pyspark

    if SparkSession.getActiveSession() is not None:  # another module's local session would be reused
        SparkSession.getActiveSession().stop()
    home = Path(pyspark.__file__).parent
    tmp = tmp_path_factory.mktemp("cluster")
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": LOOPBACK, "SPARK_WORKER_DIR": str(tmp / "work"),
           "PYSPARK_PYTHON": sys.executable}
    port = _free_port()
    url = f"spark://{LOOPBACK}:{port}"
    launcher = [str(home / "bin" / "spark-class")]
    procs = []
    try:
        master_log = tmp / "master.log"
        master = subprocess.Popen(
            [*launcher, "org.apache.spark.deploy.master.Master", "--host", LOOPBACK, "--port", str(port),
             "--webui-port", str(_free_port())],
            env=env, stdout=master_log.open("wb"), stderr=subprocess.STDOUT)
        procs.append(master)

        def listening() -> bool:
            with socket.socket() as s:
                return s.connect_ex((LOOPBACK, port)) == 0

        _wait_for("master", listening, master, master_log)
        worker_log = tmp / "worker.log"
        worker = subprocess.Popen(
            [*launcher, "org.apache.spark.deploy.worker.Worker", url, "--host", LOOPBACK, "--cores", "2",
             "--memory", "2g", "--webui-port", str(_free_port())],
            env=env, stdout=worker_log.open("wb"), stderr=subprocess.STDOUT)
        procs.append(worker)
        _wait_for("worker", lambda: b"Successfully registered with master" in worker_log.read_bytes(), worker,
                  worker_log)
        os.environ["SPARK_LOCAL_IP"] = LOOPBACK  # the driver's JVM binds to the loopback address too
        yield url
    finally:
        active = SparkSession.getActiveSession()
        if active is not None:
            active.stop()
        stop(procs)
        os.environ.pop("SPARK_LOCAL_IP", None)


@pytest.mark.parametrize("method", ["ffp", "simhash"])  # the default; a method whose statistics travel
def test_dedup_on_a_standalone_cluster_byte_identical(cluster, tmp_path, method):
    args = [str(SAMPLE), "--quiet", "--method", method]
    assert main(["dedup", *args, "-o", str(tmp_path / "l")]) == 0
    spark = ["--engine", "spark", "--spark-master", cluster, "--spark-partitions", "3", "--spark-driver-memory", "1g",
             "--spark-conf", f"spark.driver.host={LOOPBACK}", "--spark-conf", f"spark.driver.bindAddress={LOOPBACK}",
             "--spark-conf", "spark.executor.memory=1g"]
    assert main(["dedup", *args, "-o", str(tmp_path / "s"), *spark]) == 0
    assert SparkSession.getActiveSession().sparkContext.master == cluster  # it ran there, not on a local master
    local = (tmp_path / "l" / "pairs.jsonl").read_bytes()
    assert local.count(b"\n") > 10
    assert (tmp_path / "s" / "pairs.jsonl").read_bytes() == local
    assert (tmp_path / "s" / "clusters.jsonl").read_bytes() == (tmp_path / "l" / "clusters.jsonl").read_bytes()
