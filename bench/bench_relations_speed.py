"""What the relations cost: `neardup dedup` with and without them, whole processes, paired.

The relations align every document once more (the aligner of `neardup partial`) and type the
method's pairs by the passages.  This prints wall seconds, CPU seconds and peak memory of
`neardup dedup INPUT -o OUT` (the default, relations on) against `--no-relations` (what
`dedup` did before), run in turn A B A B ... so a drift of the machine's speed hits both, and
the median of the paired wall ratios:

- on pages: the GoldSet development half (1,084 HTML pages, extraction included), and a
  simulated corpus rendered as whole pages (`--html`, 5,000 documents);
- on plain text: a simulated corpus of 20,000 documents (where alignment weighs most).

    python bench/bench_relations_speed.py [--runs 5] [--skip-text]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDSET = ROOT.parent / "shared" / "data" / "goldset-dev"
NEARDUP = [sys.executable, "-m", "neardup"]


def timed(cmd: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MB) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024


def compare(name: str, args: list[str], out: Path, runs: int) -> str:
    on = [*NEARDUP, "dedup", *args, "-o", str(out / "on"), "--quiet"]
    off = [*NEARDUP, "dedup", *args, "-o", str(out / "off"), "--quiet", "--no-relations"]
    timed(on), timed(off)  # warm-up: kernels compiled and cached, files in the page cache
    got_on, got_off, ratios = [], [], []
    for _ in range(runs):
        a, b = timed(on), timed(off)
        got_on.append(a)
        got_off.append(b)
        ratios.append(a[0] / b[0])

    def med(rows: list[tuple[float, float, float]], k: int) -> float:
        return statistics.median(r[k] for r in rows)

    # ru_maxrss of children is the largest child so far: measured per setting in its own process below
    peak_on, peak_off = peak(on), peak(off)
    return (f"| {name} | {med(got_off, 0):.2f} s | {med(got_on, 0):.2f} s | {statistics.median(ratios):.2f}x "
            f"({min(ratios):.2f}-{max(ratios):.2f}) | {med(got_off, 1):.1f} / {med(got_on, 1):.1f} s | "
            f"{peak_off:.0f} / {peak_on:.0f} MB |")


def peak(cmd: list[str]) -> float:
    """Peak RSS (MB) of ``cmd`` alone (a fresh interpreter measuring one child)."""
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
            "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)")
    return float(subprocess.run([sys.executable, "-c", code, *cmd], check=True, capture_output=True,
                                text=True).stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--skip-text", action="store_true")
    args = ap.parse_args(argv)
    rows = ["| input | --no-relations (before) | relations (default) | wall ratio, median (min-max) | "
            "CPU before / now | peak RSS before / now |", "|---|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        if GOLDSET.is_dir():
            rows.append(compare("goldset-dev, 1,084 HTML pages", [str(GOLDSET)], out, args.runs))
        subprocess.run([*NEARDUP, "synth", "-o", str(out / "s5k"), "--docs", "5000", "--seed", "5", "--quiet"],
                       check=True)
        rows.append(compare("simulated pages (--html), 5,000", [str(out / "s5k" / "docs.jsonl"), "--html"], out,
                            args.runs))
        if not args.skip_text:
            subprocess.run([*NEARDUP, "synth", "-o", str(out / "s20k"), "--docs", "20000", "--seed", "5", "--quiet"],
                           check=True)
            rows.append(compare("simulated text, 20,000", [str(out / "s20k" / "docs.jsonl")], out, args.runs))
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
