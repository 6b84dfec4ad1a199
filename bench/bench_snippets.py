"""Score extractors on pages labeled with snippets instead of full gold text (``trafilatura-eval``).

Trafilatura's rule (its ``tests/eval_common.count_item``): the extracted text (title and body) and
every snippet are whitespace-normalised; a "with" snippet found is a true positive, missing a false
negative; a "without" snippet found is a false positive, missing a true negative.  Counts are summed
over the pages; precision, recall, F1 and accuracy follow.  neardup runs its shipped model (or
``--model``): the collection is in no training set, so it is held out for every neardup model.
Trafilatura's own score here is in-sample (its releases are gated on these pages; see the
collection's README).

    .venv/bin/python bench/bench_snippets.py                       # ~5 minutes on 2 shared cores
    .venv/bin/python bench/bench_snippets.py --tools "" --model other.npz

Prints a markdown table and writes it with JSON to ``bench/results/snippets.{md,json}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_extract import LABELS, _safe, anchors  # noqa: E402

from neardup.extract.datasets import read_html  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "extraction" / "trafilatura-eval"


def norm(text: str) -> str:
    return " ".join(text.split())


def count(text: str, record: dict) -> tuple[int, int, int, int]:
    """(TP, FN, FP, TN) of one page's extracted ``text`` against its snippets."""
    text = norm(text)
    found = [norm(s) in text for s in record.get("with", [])]
    leaked = [norm(s) in text for s in record.get("without", [])]
    return sum(found), len(found) - sum(found), sum(leaked), len(leaked) - sum(leaked)


def scores(counts: list[tuple[int, int, int, int]]) -> dict[str, float]:
    tp, fn, fp, tn = (sum(c[i] for c in counts) for i in range(4))
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0,
            "accuracy": (tp + tn) / max(tp + fn + fp + tn, 1), "tp": tp, "fn": fn, "fp": fp, "tn": tn}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(DATA), help="folder with html/ and snippets.jsonl")
    ap.add_argument("--tools", default="trafilatura,trafilatura-precision", help="comma-separated anchors")
    ap.add_argument("--model", help="a neardup model file (default: the shipped one)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "snippets"))
    args = ap.parse_args(argv)
    root = Path(args.data)
    if not (root / "snippets.jsonl").exists():
        print(f"no data at {root}: nothing to benchmark")
        return 0
    records = [json.loads(line) for line in (root / "snippets.jsonl").read_text(encoding="utf-8").splitlines() if line]
    htmls = [read_html(root / "html" / f"{r['id']}.html") for r in records]

    from neardup.extract.extractor import extract
    from neardup.extract.model import BlockModel

    model = BlockModel.load(args.model) if args.model else None
    texts = {"neardup": [extract(h, model).full_text() for h in htmls]}
    available = anchors()
    for name in [t for t in args.tools.split(",") if t]:
        if name not in available:
            print(f"skipping {name}: not installed or unknown")
            continue
        body, title = available[name]
        texts[name] = ["\n\n".join(x for x in (_safe(title)(h), _safe(body)(h)) if x) for h in htmls]
    results = {name: scores([count(t, r) for t, r in zip(out, records)]) for name, out in texts.items()}
    lines = [f"{len(records)} pages of {root.name} (snippet labels; trafilatura in-sample)", "",
             "| extractor | P | R | F1 | accuracy |", "|---|---|---|---|---|"]
    for name, s in results.items():
        label = (f"neardup ({'model ' + Path(args.model).name if args.model else 'shipped model'})" if name == "neardup"
                 else LABELS.get(name, name))
        lines.append(f"| {label} | {s['precision']:.3f} | {s['recall']:.3f} | {s['f1']:.3f} | {s['accuracy']:.3f} |")
    table = "\n".join(lines) + "\n"
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({"pages": len(records), "model": args.model, "results": results},
                                                   indent=2))
    out.with_suffix(".md").write_text(table)
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
