"""Signature and candidate throughput of every detection method on one simulated corpus.

Makes (once, cached) a corpus with ``neardup synth`` from the Reuters-21578 texts in
``../shared/data``, then runs ``neardup dedup`` for each registered method in its own
process with default parameters and reads the per-stage seconds from ``summary.json``:
documents per second through reading + features + sketch (including a method's
corpus-level finalize step), the candidate step, and
verification.  Prints a markdown table and writes ``bench/results/methods.{md,json}``.

    python bench/bench_methods.py [--docs 20000] [--seed 1] [--methods minhash,spotsigs]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DATA = REPO.parent / "shared" / "data" / "reuters21578"


def corpus(workdir: Path, docs: int, seed: int) -> Path:
    """The simulated corpus' documents file, made on first use."""
    out = workdir / f"synth-n{docs}-s{seed}"
    if not (out / "docs.jsonl").exists():
        if not DATA.exists():
            sys.exit(f"bench_methods: {DATA} not found (the Reuters texts are needed to build the corpus)")
        subprocess.run(
            [sys.executable, "-m", "neardup.cli", "synth", str(DATA), "-o", str(out), "--docs", str(docs),
             "--seed", str(seed), "--quiet"],
            check=True,
        )
    return out / "docs.jsonl"


def run_method(docs: Path, method: str, workdir: Path) -> dict:
    """One ``neardup dedup`` process; its summary plus the wall time."""
    out = workdir / f"out-{method}"
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "neardup.cli", "dedup", str(docs), "-o", str(out), "--method", method, "--quiet"],
        check=True,
    )
    wall = time.perf_counter() - start
    summary = json.loads((out / "summary.json").read_text())
    return {"method": method, "wall": wall, **summary}


def table(rows: list[dict]) -> str:
    head = "| method | wall s | docs/s (read+features+sketch) | candidates s | verify s | candidate pairs | pairs |"
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        s = r["seconds"]
        n = r["documents"]["kept"]
        lines.append(
            f"| {r['method']} | {r['wall']:.2f} | {n / max(s['read_and_sketch'] + s['finalize'], 1e-9):,.0f} | "
            f"{s['candidates']:.2f} | {s['verify']:.2f} | {r['candidate_pairs']:,} | {r['pairs']:,} |"
        )
    return "\n".join(lines)


def main() -> None:
    from neardup.methods import REGISTRY

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--methods", default=",".join(sorted(REGISTRY)))
    parser.add_argument("--workdir", type=Path, default=HERE / "results")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    docs = corpus(args.workdir, args.docs, args.seed)
    rows = [run_method(docs, m, args.workdir) for m in args.methods.split(",")]
    text = f"corpus: {docs} ({args.docs:,} simulated pages, text field)\n\n{table(rows)}"
    print(text)
    (args.workdir / "methods.md").write_text(text + "\n")
    (args.workdir / "methods.json").write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
