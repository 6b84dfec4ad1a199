"""Located text reuse: seed-and-extend alignment vs PDC, PAN measures and time, in one run.

Corpora: ``../shared/data/reuse-dev`` (424 real articles with 35 pasted, copy-edited
passages; development data) when present, and simulated corpora made here by ``neardup
synth`` from the Reuters-21578 stories (or the shipped articles) at 2% and 10% of words
replaced (``--edit-rate``), each with its truth.  For each corpus and method:
``neardup partial`` as a separate process (wall seconds), then ``neardup eval
--partials`` (PAN: located cases, macro precision/recall, granularity, plagdet).

    python bench/bench_reuse.py [--docs 3000] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"


def _neardup(*argv: str) -> str:
    exe = Path(sys.executable).with_name("neardup")
    done = subprocess.run([str(exe), *argv], check=True, capture_output=True, text=True)
    return done.stdout


def corpora(tmp: Path, docs: int, seed: int) -> list[tuple[str, Path, Path]]:
    found = []
    if (SHARED / "reuse-dev").exists():
        found.append(("reuse-dev", SHARED / "reuse-dev" / "docs.jsonl", SHARED / "reuse-dev" / "truth.jsonl"))
    source = [str(SHARED / "reuters21578")] if (SHARED / "reuters21578").exists() else []
    for rate in (0.02, 0.10):
        out = tmp / f"synth-{rate}"
        _neardup("synth", *source, "-o", str(out), "--docs", str(docs), "--seed", str(seed), "--edit-rate", str(rate),
                 "--quiet")
        found.append((f"simulated, {rate:.0%} words edited", out / "docs.jsonl", out / "truth.jsonl"))
    return found


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--docs", type=int, default=3000)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    print("| corpus | method | seconds | located | P | R | granularity | plagdet | unjudged detections |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, docs, truth in corpora(Path(tmp), args.docs, args.seed):
            for method in ("align", "pdc"):
                out = Path(tmp) / f"out-{method}"
                start = time.perf_counter()
                _neardup("partial", str(docs), "-o", str(out), "--method", method, "--quiet")
                seconds = time.perf_counter() - start
                pan = json.loads(_neardup("eval", str(docs), "--partials", str(out / "partials.jsonl"),
                                          "--truth", str(truth)))["pan"]
                print(f"| {name} | {method} | {seconds:.2f} | {pan['located']}/{pan['cases']} | "
                      f"{pan['macro_precision']:.3f} | {pan['macro_recall']:.3f} | {pan['granularity']:.2f} | "
                      f"{pan['plagdet']:.3f} | {pan['unjudged_detections']} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
