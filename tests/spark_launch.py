"""What the Spark tests share: made-up articles; for the tests that start Spark servers, the
loopback address, free ports, waiting for a start.

Every server a test starts (a standalone master and worker, a Spark Connect server) binds to
127.0.0.1 only, on a port free at the time, and is given :data:`START_TIMEOUT` seconds to come up.
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path
from typing import Callable

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
