"""The Spark engine through Spark Connect (``--spark-connect sc://...``), byte-identical to local (issue 32).

A Spark Connect server is started from pyspark's own launcher (``bin/spark-submit --class
org.apache.spark.sql.connect.service.SparkConnectServer``, the class its
``sbin/start-connect-server.sh`` runs), bound to 127.0.0.1 on a free port; ``neardup`` runs as a
client process of its own (a Connect client beside the classic sessions other test modules
leave in this process would not be one).  Skipped without pyspark's Connect client (grpcio) or Java.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from spark_launch import LOOPBACK, free_port, stop, wait_for

from neardup.engines.spark_classes import GENERATED, QUICK

pytest.importorskip("pyspark")
pytest.importorskip("grpc", reason="Spark Connect's client needs grpcio (the spark extra installs it)")
pytestmark = [pytest.mark.spark, pytest.mark.slow,
              pytest.mark.skipif(shutil.which("java") is None, reason="the Spark engine needs Java 17+")]

SAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sample.jsonl"

@pytest.fixture(scope="module")
def connect_server(tmp_path_factory):
    """``(sc://127.0.0.1:PORT, log)`` of a Spark Connect server on local[2] (stopped after)."""
    import pyspark

    home = Path(pyspark.__file__).parent
    tmp = tmp_path_factory.mktemp("connect")
    port = free_port()
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": LOOPBACK, "PYSPARK_PYTHON": sys.executable}
    log = tmp / "server.log"
    server = subprocess.Popen(
        [str(home / "bin" / "spark-submit"), "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
         "--master", "local[2]", "--driver-memory", "1g",
         "--driver-java-options", QUICK,  # short jobs: as neardup starts a short local run's JVM
         "--conf", f"spark.sql.codegen.cache.maxEntries={GENERATED}",
         "--conf", f"spark.connect.grpc.binding.address={LOOPBACK}",
         "--conf", f"spark.connect.grpc.binding.port={port}",
         "--conf", f"spark.driver.host={LOOPBACK}", "--conf", f"spark.driver.bindAddress={LOOPBACK}",
         "--conf", "spark.ui.enabled=false",
         "--conf", "spark.sql.shuffle.partitions=4",  # a 2-core server's setting (Spark's 200: 200 tasks a stage)
         "spark-internal"],
        env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    try:
        wait_for("Connect server", lambda: b"start GRPC service" in log.read_bytes(), server, log)
        yield f"sc://{LOOPBACK}:{port}", log
    finally:
        stop([server])


def _neardup(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "neardup", *args], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "SPARK_LOCAL_IP": LOOPBACK})


@pytest.mark.parametrize("extra", [[], ["--no-relations"]])  # relations off: the executors write the outputs
def test_dedup_through_spark_connect_byte_identical_and_quiet(connect_server, tmp_path, extra):
    url, log = connect_server
    before = log.read_bytes().count(b"Job ")
    local = _neardup("dedup", str(SAMPLE), "-o", str(tmp_path / "l"), "--quiet", *extra)
    assert local.returncode == 0, local.stderr
    remote = _neardup("dedup", str(SAMPLE), "-o", str(tmp_path / "c"), "--engine", "spark", "--spark-connect", url,
                      *extra)
    assert remote.returncode == 0, remote.stderr
    assert "CANNOT_MODIFY_CONFIG" not in remote.stderr  # nothing set that only the server may set
    assert log.read_bytes().count(b"Job ") > before  # the stages ran on that server
    pairs = (tmp_path / "l" / "pairs.jsonl").read_bytes()
    assert pairs.count(b"\n") > 10
    assert (tmp_path / "c" / "pairs.jsonl").read_bytes() == pairs
    assert (tmp_path / "c" / "clusters.jsonl").read_bytes() == (tmp_path / "l" / "clusters.jsonl").read_bytes()
