"""Near-duplicate quality on the GoldSet: every method, every extractor, and a trafilatura anchor.

For each content extractor (neardup's ``none``, ``heuristic``, ``model``, and
trafilatura as the anchor the issues quote) the pages of a GoldSet-layout folder are
reduced to text once, and each method configuration is measured two ways with
:mod:`neardup.evaluate.harness`:

* **split halves** (``neardup eval --folds 5``): 5 random halves of the clusters; the
  threshold is tuned (and a learning method trained) on one half, the other half is
  reported -- held-out F1 at the tuned threshold and the held-out half's Max F1, the
  number the issues' references ("Max F1 on held-out pages") are stated in;
* **in-sample**: Max F1 over all pages in one piece, as the papers report.

The trafilatura row runs the issues' reference configurations on trafilatura's text, so
the table shows whether neardup's own extraction beats them on the same pages and
protocol.  Writes ``bench/results/goldset.{md,json}``.

``--andd-table`` instead compares ANDD (hajishirzi2010 Tables 2-3) on the split halves:
learned weights (trained on each development half by either objective), TF-IDF and binary weights, for
cosine and weighted Jaccard, k = 1 and 3, scored exactly (raw) and by signatures (384
hyperplane bits = 48 bytes; 80 ICWS samples = 320 bytes), against the best unsupervised
methods on the same splits; ``goldset-andd.{md,json}``.

``--wsample-table`` instead compares the weighting functions of weighted sampling
(alonso2013 Table 4, compared in their Table 6) by the exact weighted Jaccard (no
sampling noise), with the paper's rare-phrase filter (bottom 50%) and without it, and
writes ``goldset-wsample.{md,json}``.

    .venv/bin/python bench/bench_goldset.py [DATASET] [--extractors none,heuristic,model,trafilatura]
        [--methods minhash,spotsigs,...] [--splits 5] [--wsample-table | --andd-table]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from neardup.evaluate.harness import evaluate
from neardup.evaluate.labeled import LabeledSet, load_labeled
from neardup.io.readers import Record, read_input
from neardup.methods.wsample import WEIGHT_FUNCTIONS

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "goldset-dev"

#: (row label, method, parameters): the papers' defaults and the issues' reference settings.
CONFIGS = (
    ("minhash k=5", "minhash", {}),
    ("minhash k=2 exact", "minhash", {"shingle_size": 2, "exact": True}),
    ("spotsigs c=3 d=2 (default)", "spotsigs", {}),
    ("spotsigs c=3 d=1", "spotsigs", {"distance": 1}),
    ("ffp", "ffp", {}),
    ("simhash", "simhash", {}),
    ("imatch", "imatch", {}),
    ("wsample", "wsample", {}),
    ("wsample rare=100 idf=log", "wsample", {"rare": 100.0, "phrase_idf": "log"}),
    ("andd", "andd", {}),
)

WSAMPLE_CONFIGS = tuple(
    (f"wsample {f} rare={rare}", "wsample", {"weight": f, "rare": float(rare), "exact": True})
    for f in WEIGHT_FUNCTIONS
    for rare in (50, 100)
)

#: ANDD's weightings: learned by each objective (retrained on every development half), and fixed.
ANDD_WEIGHTS = (
    ("learned f1", {"model": "default"}),
    ("learned preference", {"model": "default", "objective": "preference"}),
    ("tfidf", {"model": "tfidf"}),
    ("binary", {"model": "binary"}),
)

ANDD_CONFIGS = tuple(
    (f"andd {weights} {sim} k={k} {'raw' if raw else 'sig'}", "andd",
     {**params, "similarity": sim, "shingle_size": k, "raw": raw})
    for k in (1, 3)
    for sim in ("cosine", "jaccard")
    for weights, params in ANDD_WEIGHTS
    for raw in (True, False)
) + (
    ("ffp", "ffp", {}),
    ("minhash k=2 exact", "minhash", {"shingle_size": 2, "exact": True}),
    ("spotsigs c=3 d=1", "spotsigs", {"distance": 1}),
)

COLUMNS = ("max_f1", "f1", "precision", "recall", "auroc", "mcc", "pearson", "b3_f1", "candidate_recall")


def trafilatura_texts(path: Path, ids: list[str]) -> list[str]:
    """``trafilatura.extract`` of every page (the references' setting), in the order of ``ids``."""
    import trafilatura

    by_id = {
        rec.id: trafilatura.extract(rec.html) or " "
        for rec in read_input(path)
        if isinstance(rec, Record) and rec.html is not None
    }
    return [by_id.get(i, " ") for i in ids]


def datasets(path: Path, extractors: list[str]) -> dict[str, LabeledSet]:
    """The labeled pages as each extractor sees them."""
    out = {}
    for name in extractors:
        if name == "trafilatura":
            base = load_labeled(path, "none")
            out[name] = LabeledSet(base.name, base.ids, trafilatura_texts(path, base.ids), base.cluster, base.stats)
        else:
            out[name] = load_labeled(path, name)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", nargs="?", default=str(DEFAULT_DATA))
    ap.add_argument("--extractors", default="none,heuristic,model,trafilatura")
    ap.add_argument("--methods", help="comma-separated row labels' methods to keep (default: all)")
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--split-seed", type=int, default=0)
    ap.add_argument("--workdir", default=str(ROOT / "bench" / "results"))
    table = ap.add_mutually_exclusive_group()
    table.add_argument("--wsample-table", action="store_true", help="compare wsample's weighting functions instead")
    table.add_argument("--andd-table", action="store_true", help="compare ANDD weightings and signatures instead")
    args = ap.parse_args()
    configs, stem = (
        (WSAMPLE_CONFIGS, "goldset-wsample") if args.wsample_table
        else (ANDD_CONFIGS, "goldset-andd") if args.andd_table
        else (CONFIGS, "goldset")
    )
    keep = set(args.methods.split(",")) if args.methods else None
    rows = []
    for ex, data in datasets(Path(args.dataset), args.extractors.split(",")).items():
        for label, method, params in configs:
            if keep and method not in keep:
                continue
            start = time.perf_counter()
            held, scored = evaluate(data, method, params, splits=args.splits, split_seed=args.split_seed)
            # in-sample needs a model not trained on these pages: skip methods that learn
            whole = {"max_f1": float("nan")} if scored.method.method.learns else evaluate(data, method, params)[0]
            row = {"extract": ex, "config": label, "method": method, "params": params,
                   **{k: held[k] for k in COLUMNS}, "max_f1_std": held["max_f1_std"],
                   "in_sample_max_f1": whole["max_f1"], "seconds": round(time.perf_counter() - start, 2)}
            rows.append(row)
            print(f"{ex:12} {label:28} held-out max F1 {row['max_f1']:.3f} F1 {row['f1']:.3f} "
                  f"in-sample {row['in_sample_max_f1']:.3f}", flush=True)
    head = ("| extract | method | max F1 held out | F1 at dev thr | P | R | AU-ROC | MCC | r | B3 F1 | cand R "
            "| in-sample max F1 |\n|---|---|---|---|---|---|---|---|---|---|---|---|")
    lines = [head] + [
        f"| {r['extract']} | {r['config']} | {r['max_f1']:.3f} ± {r['max_f1_std']:.3f} | {r['f1']:.3f} | "
        f"{r['precision']:.3f} | {r['recall']:.3f} | {r['auroc']:.4f} | {r['mcc']:.3f} | {r['pearson']:.3f} | "
        f"{r['b3_f1']:.3f} | {r['candidate_recall']:.3f} | {r['in_sample_max_f1']:.3f} |"
        for r in rows
    ]
    out = Path(args.workdir)
    out.mkdir(parents=True, exist_ok=True)
    note = (f"{args.dataset}: {args.splits} random half splits by cluster (seed {args.split_seed}); "
            "held-out = the other half; in-sample = Max F1 over all pages\n\n")
    (out / f"{stem}.md").write_text(note + "\n".join(lines) + "\n")
    (out / f"{stem}.json").write_text(json.dumps(rows, indent=2, default=float) + "\n")
    print(note + "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
