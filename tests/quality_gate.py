"""The quality gate: what neardup's default commands achieve on data it makes itself.

Two corpora that need no third-party data: the shipped sample (``examples/sample.jsonl``,
48 pages of 8 stories, as text and as whole pages) and a seeded simulated corpus made by
``neardup synth`` from the shipped articles.  Each is run through the commands a user
runs, at their defaults, and scored against the simulator's truth:

- ``dedup``: pair F1 of ``pairs.jsonl`` (its copies: a pair that only ``shares`` a passage is
  not called the same story) and B-cubed F1 of ``clusters.jsonl``;
- ``contain``: F1 of the directed containments;
- ``partial``: pair F1 of the located copies.

``tests/quality_floors.json`` holds the floors, which only move up (as trafilatura's
``tests/eval_gate.py``): ``python tests/quality_gate.py --raise`` measures again and
lifts every floor to what is measured now, never lowering one.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "sample.jsonl"
SAMPLE_TRUTH = ROOT / "examples" / "sample-truth.jsonl"
FLOORS = Path(__file__).with_name("quality_floors.json")
#: The simulated corpus: documents and seed (small enough for a CI run of a few seconds).
SYNTH_DOCS, SYNTH_SEED = 400, 7


def _run(*argv: str) -> None:
    from neardup.cli import main

    code = main([*argv, "--quiet"])
    if code:
        raise RuntimeError(f"neardup {' '.join(argv)} exited {code}")


def _clusters_of(truth: Path) -> dict[str, int]:
    out = {}
    for line in truth.read_bytes().splitlines():
        r = orjson.loads(line)
        if r.get("type") == "cluster":
            out.update({i: r["cluster"] for i in r["ids"]})
    return out


def _dedup_scores(docs: Path, truth: Path, out: Path, *extra: str) -> dict[str, float]:
    from neardup.evaluate.cluster_measures import b3
    from neardup.evaluate.measures import prf

    _run("dedup", str(docs), "-o", str(out), *extra)
    true = _clusters_of(truth)
    ids = [orjson.loads(line)["id"] for line in docs.read_bytes().splitlines() if line.strip()]
    true_pairs = {(a, b) for i, a in enumerate(ids) for b in ids[i + 1:] if true.get(a, -1) == true.get(b, -2)}
    order = {i: n for n, i in enumerate(ids)}
    found = set()
    for line in (out / "pairs.jsonl").read_bytes().splitlines():
        r = orjson.loads(line)
        if r.get("relation") != "shares":
            found.add((r["a"], r["b"]) if order[r["a"]] < order[r["b"]] else (r["b"], r["a"]))
    tp = len(found & true_pairs)
    pred = {i: -1 - n for n, i in enumerate(ids)}
    for line in (out / "clusters.jsonl").read_bytes().splitlines():
        r = orjson.loads(line)
        pred.update({i: r["cluster"] for i in r["ids"]})
    truth_labels = [true.get(i, -1 - n) for n, i in enumerate(ids)]
    return {"pair_f1": prf(tp, len(found) - tp, len(true_pairs) - tp).f1,
            "bcubed_f1": b3([pred[i] for i in ids], truth_labels).f1}


def measure() -> dict[str, float]:
    """Every gated measure, by name."""
    from neardup.contain.evaluate import evaluate_containment_files
    from neardup.partial.evaluate import evaluate_partial_files

    got: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        for name, value in _dedup_scores(SAMPLE, SAMPLE_TRUTH, t / "sample").items():
            got[f"sample/dedup/{name}"] = value
        for name, value in _dedup_scores(SAMPLE, SAMPLE_TRUTH, t / "sample-html", "--html").items():
            got[f"sample-html/dedup/{name}"] = value
        corpus = t / "synth"
        _run("synth", "-o", str(corpus), "--docs", str(SYNTH_DOCS), "--seed", str(SYNTH_SEED))
        docs, truth = corpus / "docs.jsonl", corpus / "truth.jsonl"
        for name, value in _dedup_scores(docs, truth, t / "synth-dedup").items():
            got[f"synth/dedup/{name}"] = value
        _run("contain", str(docs), "-o", str(t / "synth-contain"))
        got["synth/contain/f1"] = evaluate_containment_files(t / "synth-contain" / "containments.jsonl", truth)["f1"]
        _run("partial", str(docs), "-o", str(t / "synth-partial"))
        scored = evaluate_partial_files(t / "synth-partial" / "partials.jsonl", truth, [str(docs)])
        got["synth/partial/pair_f1"] = scored["all"]["pair_f1"]
    return {k: round(float(v), 4) for k, v in got.items()}


def floors() -> dict[str, float]:
    return json.loads(FLOORS.read_text())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--raise", dest="lift", action="store_true", help="lift the floors to today's measures")
    args = p.parse_args(argv)
    now = measure()
    old = floors() if FLOORS.exists() else {}
    for key in sorted(now):
        print(f"{key:32s} floor {old.get(key, float('nan')):.4f}  now {now[key]:.4f}")
    if args.lift:
        FLOORS.write_text(json.dumps({k: max(now[k], old.get(k, 0.0)) for k in sorted(now)}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
