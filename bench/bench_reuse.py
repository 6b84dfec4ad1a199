"""Located text reuse and containment under copy-editing: neardup's defaults vs the papers' methods vs datasketch.

Corpora: ``../shared/data/reuse-dev`` (424 real articles: 85 containments, 35 pasted,
copy-edited passages; development data) when present; a variant of it with 10% of the
words of every contained document replaced (``bench/reuse_variant.py``, seed 1); and
simulated corpora made here by ``neardup synth`` from the Reuters-21578 stories (or the
shipped articles) at 2% and 10% of words replaced per rewrite (``--edit-rate``).

Per corpus, each as a separate process timed whole (wall seconds, compile cache warm):

* partial copies: ``neardup partial`` (seed-and-extend, the default) and ``--method pdc``,
  scored by ``neardup eval --partials`` (PAN: located cases, macro P/R, granularity, plagdet);
* containment: ``neardup contain`` (aligned coverage, the default) and ``--method codet``
  (the paper's corpus tree), scored by ``neardup eval --containments`` (direction must be
  right), and datasketch's ``MinHashLSHEnsemble`` over the same words as CoDet's FFP
  (``bench_contain.py``'s job): its threshold swept 0.3 ... 0.9 on the corpus itself and
  the best F1 shown (optimistic for it), its seconds being the features, sketches and that
  threshold's index and queries.

The simulator's truth calls every version of a story a containment of every other (both
ways), rewrites of rewrites included, so at 10% per rewrite two versions can differ in a
quarter of their words and still count; reuse-dev's truth lists exactly the copies made.

    python bench/bench_reuse.py [--docs 3000] [--seed 1] [--no-datasketch]
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
sys.path.insert(0, str(Path(__file__).resolve().parent))


def _neardup(*argv: str) -> str:
    exe = Path(sys.executable).with_name("neardup")
    done = subprocess.run([str(exe), *argv], check=True, capture_output=True, text=True)
    return done.stdout


def _timed(*argv: str) -> float:
    start = time.perf_counter()
    _neardup(*argv)
    return time.perf_counter() - start


def corpora(tmp: Path, docs: int, seed: int) -> list[tuple[str, Path, Path]]:
    """``(name, docs.jsonl, truth.jsonl)`` of every corpus of the table."""
    from reuse_variant import make_variant

    found = []
    if (SHARED / "reuse-dev").exists():
        found.append(("reuse-dev", SHARED / "reuse-dev" / "docs.jsonl", SHARED / "reuse-dev" / "truth.jsonl"))
        found.append(("reuse-dev, 10% replaced", *make_variant(SHARED / "reuse-dev", tmp / "reuse-dev-10", 0.10, 1)))
    source = [str(SHARED / "reuters21578")] if (SHARED / "reuters21578").exists() else []
    for rate in (0.02, 0.10):
        out = tmp / f"synth-{rate}"
        _neardup("synth", *source, "-o", str(out), "--docs", str(docs), "--seed", str(seed), "--edit-rate", str(rate),
                 "--quiet")
        found.append((f"simulated, {rate:.0%} per rewrite", out / "docs.jsonl", out / "truth.jsonl"))
    return found


def _measures(report: dict) -> dict:
    """An ``eval`` JSON report's measures with null (an undefined measure) as nan, for the tables."""
    return {k: float("nan") if v is None else v for k, v in report.items()}


def partial_rows(name: str, docs: Path, truth: Path, tmp: Path) -> list[str]:
    rows = []
    for method in ("align", "pdc"):
        out = tmp / f"partial-{method}"
        seconds = _timed("partial", str(docs), "-o", str(out), "--method", method, "--quiet")
        pan = _measures(json.loads(_neardup("eval", str(docs), "--partials", str(out / "partials.jsonl"),
                                            "--truth", str(truth)))["pan"])
        label = "seed-and-extend (default)" if method == "align" else "PDC"
        rows.append(f"| {name} | {label} | {seconds:.2f} | {pan['located']}/{pan['cases']} | {pan['macro_precision']:.3f} | "
                    f"{pan['macro_recall']:.3f} | {pan['granularity']:.2f} | {pan['plagdet']:.3f} |")
    return rows


def contain_rows(name: str, docs: Path, truth: Path, tmp: Path, datasketch: bool) -> list[str]:
    rows = []
    for method, label in (("align", "aligned coverage (default)"), ("codet", "CoDet")):
        out = tmp / f"contain-{method}"
        seconds = _timed("contain", str(docs), "-o", str(out), "--method", method, "--quiet")
        ev = _measures(json.loads(_neardup("eval", str(docs), "--containments", str(out / "containments.jsonl"),
                                           "--truth", str(truth))))
        rows.append(f"| {name} | {label} | {seconds:.2f} | {ev['precision']:.3f} | {ev['recall']:.3f} | "
                    f"**{ev['f1']:.3f}** | {ev['recorded_recall']:.3f} |")
    if datasketch:
        import bench_contain

        out = tmp / "datasketch"
        bench_contain.run_job("datasketch", docs.parent, out)  # the folder of docs.jsonl and truth.jsonl
        ev = bench_contain.score("datasketch", docs.parent, out)
        rows.append(f"| {name} | datasketch LSH Ensemble, best threshold {ev['threshold']} on this corpus | "
                    f"{ev['method_seconds']:.2f} | {ev['precision']:.3f} | {ev['recall']:.3f} | {ev['f1']:.3f} | "
                    f"{ev['recorded_recall']:.3f} |")
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--docs", type=int, default=3000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-datasketch", dest="datasketch", action="store_false")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        found = corpora(Path(tmp), args.docs, args.seed)
        for command, method in (("partial", "align"), ("partial", "pdc"), ("contain", "align"), ("contain", "codet")):
            _neardup(command, str(found[0][1]), "-o", str(Path(tmp) / "warm"), "--method", method, "--quiet")  # compile
        partial, contain = [], []
        for name, docs, truth in found:
            partial += partial_rows(name, docs, truth, Path(tmp))
            contain += contain_rows(name, docs, truth, Path(tmp), args.datasketch)
            print(f"{name}: done", file=sys.stderr, flush=True)
    print("Partial copies (PAN text-alignment measures over characters):\n")
    print("| corpus | method | seconds | located | P | R | granularity | plagdet |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(partial))
    print("\nContainment (directed pairs; the direction must be right):\n")
    print("| corpus | method | seconds | P | R | F1 | recorded R |")
    print("|---|---|---:|---:|---:|---:|---:|")
    print("\n".join(contain))
    return 0


if __name__ == "__main__":
    sys.exit(main())
