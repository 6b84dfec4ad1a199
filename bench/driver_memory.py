"""Where the Spark driver's memory grows: its anonymous memory (now, and the peak so far) at each
stage boundary of one ``dedup --engine spark`` run.

A thread samples ``/proc/self/status`` every 50 ms; ``RunStats.timed`` (called at the end of each
stage) is wrapped to print the two numbers.  Run it at two corpus sizes and subtract (docs/scale.md)::

    .venv/bin/python bench/driver_memory.py synth25000/docs.jsonl OUT25 [--method minhash]
    .venv/bin/python bench/driver_memory.py synth200000/docs.jsonl OUT200
"""

from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path

from neardup.engines.spark import SparkEngine
from neardup.job import RunStats
from neardup.run import dedup_files

PEAK = [0]


def anon_mb() -> int:
    """This process's anonymous resident memory, MiB."""
    status = Path("/proc/self/status").read_text()
    return int(status.split("RssAnon:")[1].split()[0]) // 1024


def _watch() -> None:
    while True:
        PEAK[0] = max(PEAK[0], anon_mb())
        time.sleep(0.05)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("corpus")
    p.add_argument("out")
    p.add_argument("--method", default="minhash")
    p.add_argument("--partitions", type=int, default=4)
    args = p.parse_args()
    threading.Thread(target=_watch, daemon=True).start()
    timed = RunStats.timed

    def reporting(self: RunStats, stage: str, start: float) -> float:
        print(f"after {stage}: anon {anon_mb()} MB, peak {PEAK[0]} MB", flush=True)
        return timed(self, stage, start)

    RunStats.timed = reporting  # type: ignore[method-assign]
    engine = SparkEngine(master="local[2]", partitions=args.partitions, quiet=True)
    dedup_files([args.corpus], args.out, method=args.method, engine=engine, relations=False)
    print(f"end: anon {anon_mb()} MB, peak {PEAK[0]} MB", flush=True)


if __name__ == "__main__":
    main()
