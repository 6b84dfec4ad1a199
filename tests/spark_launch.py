"""What the Spark tests share: made-up articles and a small simulated corpus of them, the module's
Spark session, the CLI arguments of a three-partition run, the summary without its timings; for the
tests that start Spark servers, the loopback address, free ports, waiting for a start.

Every server a test starts (a standalone master and worker, a Spark Connect server) binds to
127.0.0.1 only, on a port free at the time, and is given :data:`START_TIMEOUT` seconds to come up.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import pytest

if TYPE_CHECKING:
    from neardup.evaluate.synth import SynthConfig

#: Spark on three partitions, AQE's merging of small partitions off: three part files per table.
SPARK = ["--engine", "spark", "--spark-master", "local[2]", "--spark-partitions", "3",
         "--spark-conf", "spark.sql.adaptive.coalescePartitions.enabled=false"]

LOOPBACK = "127.0.0.1"
#: Seconds a server is given to come up.
START_TIMEOUT = 180


def free_port() -> int:
    """A TCP port of the loopback address that nothing listens on now."""
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def wait_for(what: str, ready: Callable[[], bool], proc: subprocess.Popen, log: Path) -> None:
    """Return once ``ready()``; raise with the end of ``log`` when ``proc`` ended or time ran out first."""
    deadline = time.monotonic() + START_TIMEOUT
    while not ready():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the Spark {what} did not start:\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.5)


def stop(procs: list[subprocess.Popen]) -> None:
    """Terminate ``procs``, last started first, killing one that does not end within 30 s."""
    for proc in reversed(procs):
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def made_up_articles(n: int, seed: int):
    """``n`` distinct articles of made-up words (the simulator's vocabulary maker)."""
    import random

    from neardup.evaluate.sites import Words

    r = random.Random(seed)
    words = Words(r, 6000)
    for i in range(n):
        paras = [words.sentences(r, 2, 4) for _ in range(r.randint(3, 6))]
        yield {"id": f"a{i}", "topic": f"t{i % 7}", "title": words.sentence(r, 5, 9).rstrip("."),
               "text": "\n\n".join(paras)}


def small_corpus(folder: Path, config: SynthConfig | None = None, wordless: int = 0) -> Path:
    """600 simulated documents of 200 made-up articles in ``folder`` (the simulator's ``config``), then
    ``wordless`` records without words (named in the account); returns the JSONL file."""
    from neardup.evaluate.synth import write_corpus

    write_corpus(made_up_articles(200, 3), folder, 3, 600, config)
    with open(folder / "docs.jsonl", "a", encoding="utf-8") as fh:
        for i in range(wordless):
            fh.write(json.dumps({"id": f"none{i}", "text": "... !!! ???"}) + "\n")
    return folder / "docs.jsonl"


def session_fixture(partitions: int):
    """A module-scoped ``spark`` fixture: the local[2] session of the whole test run (one JVM, its
    Python workers started once; stopped at the end by conftest's ``spark_stopped_at_end``), set to
    ``partitions`` shuffle partitions; the test is skipped without pyspark or Java."""

    @pytest.fixture(scope="module")
    def spark(spark_stopped_at_end):
        pytest.importorskip("pyspark")
        if shutil.which("java") is None:
            pytest.skip("the Spark engine needs Java 17+")
        from neardup.engines.spark import SparkEngine

        return SparkEngine(master="local[2]", partitions=partitions).session()

    return spark


def summary_of(path: Path) -> dict:
    """``path/summary.json`` without what differs between equal runs (the seconds, the engine)."""
    s = json.loads((path / "summary.json").read_text())
    s.pop("seconds")
    s["parameters"].pop("engine", None)
    return s
