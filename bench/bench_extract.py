"""Benchmark neardup's content extraction against open extractors on the same pages.

The number that counts is how an extractor does on a collection it never saw, so the
main table is **leave-one-collection-out** (LOCO): for each collection of
``../shared/data/extraction`` in turn, neardup's shipped approach (CE-BEST, the CRF with
the shipped features and parameters) is trained on all the other collections and
extracts the held-out one.  The anchors -- trafilatura (default and favor_precision),
readability-lxml, resiliparse (and jusText with ``--tools``) -- need no training and run
on the same pages in the same run.  Scoring is the article-extraction benchmark's
measure (``neardup.extract.evaluate``: word 4-shingles of ``\\w+`` tokens, precision and
recall averaged over pages, F1 of the averages), per collection; the table's last rows
average the collections (each weighs the same) and pool all pages.

Speed, on the same pages:

* in-process pages/s: the extraction calls alone, one core, after one warm-up call;
* whole-process pages/s: one fresh process per extractor reads every page from one
  JSONL file (``{"id", "html"}`` per line), extracts it and writes JSON lines, timed
  from spawn to exit (imports, model loading and compiled-kernel loading included):
  ``neardup extract PAGES.jsonl --jsonl OUT --workers 1`` against a minimal script per anchor
  (import, read, extract, write; the most favourable whole-process setting for the anchors), and
  neardup again with its default ``--workers auto`` (every core of the machine).

Both are reported for all pages and again for the **heavy pages**, the largest quarter of them
by HTML bytes (long modern templates, inline scripts and JSON; the lead that matters is the one
kept there), where neardup runs its shipped model.  ``--speed-only`` skips training and
scoring and prints the two speed tables alone (about 5 minutes).

``--folds K`` adds the site-grouped K-fold cross-validation of CE-BEST over all pages
pooled (no model tested on a site it trained on), the protocol of neardup's first model.
Anchors are timed on their plain text call; the title they report (trafilatura's
metadata, readability's short title, resiliparse's ``<title>``) is prepended afterwards,
untimed, because the gold texts start with the headline.

    .venv/bin/pip install -e '.[bench,train]'
    .venv/bin/python bench/bench_extract.py                        # ~25 minutes on 2 cores
    .venv/bin/python bench/bench_extract.py --data ../shared/data/extraction/l3s-gn1 \\
        ../shared/data/extraction/msv-news --tools trafilatura --no-process

Writes markdown and JSON to ``bench/results/extract.{md,json}``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np

from neardup.extract.datasets import load
from neardup.extract.evaluate import (
    Run,
    collection_folds,
    cross_validate,
    report,
    run_extractor,
    site_folds,
)
from neardup.extract.train import examples as make_examples

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "extraction"
COLLECTIONS = ("l3s-gn1", "msv-news", "dragnet", "cleaneval", "readability", "cleanportaleval", "wcxb")
ERAS = {
    "l3s-gn1": "2005-2013", "msv-news": "2005-2013", "dragnet": "2005-2013", "cleaneval": "2005-2013",
    "cleanportaleval": "2005-2013", "readability": "2012-2022 (mixed)", "wcxb": "2017+",
    "trafilatura-eval": "2017+",
}
"""Each collection's era (when its pages were crawled; see each README): L3S-GN1 2008, msv-news
2005/2009/2013/2017 (three of its four clusters before 2017), Dragnet 2012, CleanEval 2007,
CleanPortalEval 2012-13; Mozilla Readability's test pages span 2012-2022; WCXB 2025-26.  The era
table averages the held-out collections of each era, so a change that helps 2008 pages and hurts
2025 pages shows."""
PEERS = ("trafilatura", "trafilatura-precision", "readability", "resiliparse")
OURS = "neardup"
OURS_CORES = "neardup-every-core"
"""neardup's whole process with its default ``--workers auto`` (every core); :data:`OURS` runs with
``--workers 1``, one core as the anchors' scripts."""
LABELS = {
    OURS: "neardup CE-BEST (LOCO)",
    OURS_CORES: "neardup, every core (`--workers auto`)",
    "crf-cv": "neardup CE-BEST (site CV)",
    "trafilatura": "trafilatura",
    "trafilatura-precision": "trafilatura favor_precision",
    "readability": "readability-lxml",
    "resiliparse": "resiliparse main content",
    "justext": "jusText",
}


def _lxml_text(html_fragment: str) -> str:
    import lxml.html

    if not html_fragment.strip():
        return ""
    root = lxml.html.fromstring(html_fragment)
    return "\n".join(t.strip() for t in root.itertext() if t.strip())


def anchors() -> dict[str, tuple[Callable[[str], str], Callable[[str], str]]]:
    """Available anchors: name -> (timed body extraction, untimed title)."""
    found: dict[str, tuple[Callable[[str], str], Callable[[str], str]]] = {}
    try:
        import trafilatura

        def traf_title(html: str) -> str:
            meta = trafilatura.extract_metadata(html)
            return (meta.title or "") if meta else ""

        found["trafilatura"] = (lambda h: trafilatura.extract(h) or "", traf_title)
        found["trafilatura-precision"] = (lambda h: trafilatura.extract(h, favor_precision=True) or "", traf_title)
    except ImportError:
        pass
    try:
        from readability import Document

        found["readability"] = (lambda h: _lxml_text(Document(h).summary()), lambda h: Document(h).short_title())
    except ImportError:
        pass
    try:
        from resiliparse.extract.html2text import extract_plain_text
        from resiliparse.parse.html import HTMLTree

        found["resiliparse"] = (
            lambda h: extract_plain_text(h, main_content=True),
            lambda h: HTMLTree.parse(h).title or "",
        )
    except ImportError:
        pass
    try:
        import justext

        stop = justext.get_stoplist("English")

        def jt(html: str) -> str:
            paragraphs = justext.justext(html.encode("utf-8"), stop, encoding="utf-8")
            return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)

        found["justext"] = (jt, lambda h: "")
    except ImportError:
        pass
    return found


def _safe(fn: Callable[[str], str]) -> Callable[[str], str]:
    """An anchor that raises on a page yields no text for it (counted as a failure)."""

    def call(html: str) -> str:
        try:
            return fn(html) or ""
        except Exception:  # anchors raise many types on odd pages
            return ""

    return call


PEER_SETUP = {
    "trafilatura": "import trafilatura\nf = lambda h: trafilatura.extract(h) or ''",
    "trafilatura-precision": "import trafilatura\nf = lambda h: trafilatura.extract(h, favor_precision=True) or ''",
    "readability": "from readability import Document\nimport lxml.html\n"
                   "f = lambda h: lxml.html.fromstring(Document(h).summary()).text_content()",
    "resiliparse": "from resiliparse.extract.html2text import extract_plain_text\n"
                   "f = lambda h: extract_plain_text(h, main_content=True)",
}
PEER_LOOP = """
import json, sys
{setup}
with open(sys.argv[1], encoding="utf-8") as src, open(sys.argv[2], "w", encoding="utf-8") as out:
    for line in src:
        html = json.loads(line)["html"]
        try:
            text = f(html)
        except Exception:
            text = ""
        out.write(json.dumps({{"text": text}}) + "\\n")
"""


def whole_process(tool: str, pages_jsonl: Path, workdir: Path, repeat: int) -> float:
    """Best wall-clock seconds of ``repeat`` fresh processes extracting every page of ``pages_jsonl``."""
    out = workdir / f"{tool}.out.jsonl"
    if tool in (OURS, OURS_CORES):
        exe = Path(sys.executable).with_name("neardup")
        cmd = [str(exe) if exe.exists() else shutil.which("neardup") or "neardup",
               "extract", str(pages_jsonl), "--jsonl", str(out), "--workers", "1" if tool == OURS else "auto"]
    else:
        cmd = [sys.executable, "-c", PEER_LOOP.format(setup=PEER_SETUP[tool]), str(pages_jsonl), str(out)]
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - start)
    return best


HEAVY_SHARE = 0.25
"""The heavy pages: this share of the pages, the largest by HTML bytes."""


def heavy(pages) -> list[int]:
    """Indices (in page order) of the :data:`HEAVY_SHARE` largest pages by UTF-8 bytes of HTML."""
    sizes = np.array([len(p.html.encode("utf-8")) for p in pages])
    k = max(1, round(len(pages) * HEAVY_SHARE)) if pages else 0
    return sorted(np.argsort(-sizes, kind="stable")[:k].tolist())


def shipped_text(html: str) -> str:
    """neardup's shipped extraction of one page (title and text), as ``neardup extract`` does it."""
    from neardup.extract.extractor import model_text

    return model_text(html)


def process_speed(pages, names: list[str], repeat: int) -> dict[str, float]:
    """Whole-process pages/s of each extractor of ``names`` (neardup and the anchors with a
    :data:`PEER_SETUP`) on ``pages``: best of ``repeat`` fresh processes reading one JSONL file."""
    out: dict[str, float] = {}
    workdir = Path(tempfile.mkdtemp(prefix="bench-extract-"))
    try:
        src = workdir / "pages.jsonl"
        with open(src, "w", encoding="utf-8") as fh:
            for p in pages:
                fh.write(json.dumps({"id": p.id, "html": p.html}) + "\n")
        for name in [n for n in [*names, OURS_CORES] if n in (OURS, OURS_CORES) or n in PEER_SETUP]:
            seconds = whole_process(name, src, workdir, repeat)
            out[name] = len(pages) / seconds
            print(f"{name} whole process ({len(pages)} pages): {seconds:.1f} s, {out[name]:.1f} pages/s", flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return out


def timed_speed(pages, names: list[str], available, repeat: int, process: bool) -> dict[str, dict]:
    """In-process pages/s of each extractor of ``names`` on ``pages`` (one pass after a warm-up
    call; neardup with its shipped model) and, with ``process``, whole-process pages/s."""
    htmls = [p.html for p in pages]
    out = {name: {"pages_per_second": run_extractor(shipped_text if name == OURS else _safe(available[name][0]),
                                                    htmls).pages_per_second}
           for name in names}
    if process:
        for name, pps in process_speed(pages, names, repeat).items():
            out.setdefault(name, {})["process_pages_per_second"] = pps
    return out


def loco_markdown(results: dict[str, dict], datasets: list[str], pages: dict[str, int]) -> str:
    """The LOCO table: F1 (P / R) per held-out collection and extractor, the margin over
    trafilatura's better setting, and the collection mean and pooled rows."""
    names = list(results)
    traf = [n for n in ("trafilatura", "trafilatura-precision") if n in results]
    head = ["held-out collection", "pages"] + [LABELS.get(n, n) for n in names]
    if OURS in results and traf:
        head.append("neardup - best trafilatura")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for ds in datasets:
        cells = [ds, str(pages[ds])]
        best = max((results[n][ds]["f1"] for n in names), default=0.0)
        for n in names:
            s = results[n][ds]
            f1 = f"{s['f1']:.3f}"
            cells.append(f"**{f1}** ({s['precision']:.3f} / {s['recall']:.3f})" if s["f1"] == best
                         else f"{f1} ({s['precision']:.3f} / {s['recall']:.3f})")
        if OURS in results and traf:
            cells.append(f"{results[OURS][ds]['f1'] - max(results[t][ds]['f1'] for t in traf):+.3f}")
        lines.append("| " + " | ".join(cells) + " |")
    for label, key in (("mean of collections", "mean"), ("all pages pooled", "pooled")):
        cells = [label, str(sum(pages.values()))]
        for n in names:
            s = results[n][key]
            cells.append(f"{s['f1']:.3f} ({s['precision']:.3f} / {s['recall']:.3f})")
        if OURS in results and traf:
            cells.append(f"{results[OURS][key]['f1'] - max(results[t][key]['f1'] for t in traf):+.3f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def era_markdown(results: dict[str, dict], datasets: list[str]) -> str:
    """The LOCO table grouped by era (:data:`ERAS`): per era the mean F1 of its held-out collections
    for each extractor, and neardup's margin over trafilatura's better setting."""
    names = list(results)
    traf = [n for n in ("trafilatura", "trafilatura-precision") if n in results]
    eras: dict[str, list[str]] = {}
    for ds in datasets:
        eras.setdefault(ERAS.get(ds, "unknown"), []).append(ds)
    head = ["era", "held-out collections"] + [LABELS.get(n, n) for n in names]
    if OURS in results and traf:
        head.append("neardup - best trafilatura")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for era, members in eras.items():
        means = {n: float(np.mean([results[n][ds]["f1"] for ds in members])) for n in names}
        cells = [era, ", ".join(members)] + [f"{means[n]:.3f}" for n in names]
        if OURS in results and traf:
            best = max(float(np.mean([results[t][ds]["f1"] for ds in members])) for t in traf)
            cells.append(f"{means[OURS] - best:+.3f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def speed_markdown(results: dict[str, dict], n_pages: int, what: str = "pages", shipped: bool = False) -> str:
    """Pages/s in-process and whole-process, and the ratios to trafilatura's faster setting
    (``shipped``: neardup ran its shipped model, not the LOCO models)."""
    traf = [n for n in ("trafilatura", "trafilatura-precision") if n in results]
    lines = [f"| extractor | in-process pages/s | whole-process pages/s ({n_pages} {what}) | x trafilatura "
             "(in-process) | x trafilatura (whole process) |", "|---|---|---|---|---|"]
    ref_in = max((results[t]["pages_per_second"] for t in traf), default=0.0)
    ref = max((results[t].get("process_pages_per_second") or 0.0 for t in traf), default=0.0)
    for n, e in results.items():
        proc, inproc = e.get("process_pages_per_second"), e.get("pages_per_second")
        ratio_in = f"{inproc / ref_in:.1f}" if ref_in and inproc else "-"
        ratio = f"{proc / ref:.1f}" if proc and ref else "-"
        label = "neardup CE-BEST (shipped model)" if shipped and n == OURS else LABELS.get(n, n)
        lines.append(f"| {label} | {f'{inproc:.0f}' if inproc else '-'} | {f'{proc:.0f}' if proc else '-'} | "
                     f"{ratio_in} | {ratio} |")
    return "\n".join(lines) + "\n"


def _summaries(results: dict[str, dict], pages, runs: dict[str, Run], datasets: list[str]) -> None:
    """Add the collection-mean and pooled text scores to every extractor's results."""
    from neardup.extract.evaluate import text_scores

    golds = [p.gold for p in pages]
    folded = [p.annotated is not None for p in pages]
    for name, run in runs.items():
        e = results[name]
        p = float(np.mean([e[ds]["precision"] for ds in datasets]))
        r = float(np.mean([e[ds]["recall"] for ds in datasets]))
        e["mean"] = {"precision": p, "recall": r, "f1": float(np.mean([e[ds]["f1"] for ds in datasets]))}
        pooled = text_scores(golds, run.texts, folded)
        e["pooled"] = {"precision": pooled.precision, "recall": pooled.recall, "f1": pooled.f1}


def _anchor_key(htmls: list[str]) -> str:
    import hashlib

    digest = hashlib.sha1()
    for h in htmls:
        digest.update(hashlib.sha1(h.encode("utf-8", "surrogatepass")).digest())
    return digest.hexdigest()[:16]


def _cached_anchor(folder: str | None, name: str, htmls: list[str]) -> Run | None:
    """An anchor's texts (and timing) of an earlier run on exactly these pages, from ``folder``."""
    if not folder:
        return None
    path = Path(folder) / f"{name}-{_anchor_key(htmls)}.json"
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return Run(data["texts"], data["seconds"])


def _save_anchor(folder: str | None, name: str, htmls: list[str], run: Run) -> None:
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        path = Path(folder) / f"{name}-{_anchor_key(htmls)}.json"
        path.write_text(json.dumps({"texts": run.texts, "seconds": run.seconds}), encoding="utf-8")


def quality(pages, args, tools: list[str], available, process: bool) -> tuple[dict[str, dict], dict, str]:
    """The LOCO table (and with ``--folds`` the site CV) with the anchors' scores on the same
    pages, and the all-pages speed table: results, metadata and markdown."""
    datasets = sorted({p.dataset for p in pages}, key=lambda d: [Path(x).name for x in args.data].index(d))
    htmls = [p.html for p in pages]
    examples = make_examples(pages)
    runs: dict[str, Run] = {}
    start = time.perf_counter()
    runs[OURS] = cross_validate(examples, htmls, "crf", collection_folds([p.dataset for p in pages]), args.seed,
                                args.fold_cache)
    print(f"{OURS} LOCO: {time.perf_counter() - start:.0f} s, {runs[OURS].pages_per_second:.1f} pages/s", flush=True)
    if args.folds:
        runs["crf-cv"] = cross_validate(examples, htmls, "crf", site_folds([p.site for p in pages], args.folds, args.seed),
                                        args.seed, args.fold_cache)
        print(f"site CV: {runs['crf-cv'].pages_per_second:.1f} pages/s", flush=True)
    for name in tools:
        cached = _cached_anchor(args.anchor_cache, name, htmls)
        if cached is not None:
            runs[name] = cached
            print(f"{name}: texts from {args.anchor_cache} (speed of the run that made them)", flush=True)
            continue
        body, title = available[name]
        runs[name] = run_extractor(_safe(body), htmls)
        runs[name].texts = ["\n\n".join(x for x in (_safe(title)(h), t) if x) for h, t in zip(htmls, runs[name].texts)]
        _save_anchor(args.anchor_cache, name, htmls, runs[name])
        print(f"{name}: {runs[name].pages_per_second:.1f} pages/s", flush=True)
    results = report(pages, examples, runs)
    _summaries(results, pages, runs, datasets)
    if process:
        for name, pps in process_speed(pages, list(runs), args.repeat).items():
            results[name]["process_pages_per_second"] = pps
    counts = {ds: sum(p.dataset == ds for p in pages) for ds in datasets}
    meta = {"pages": counts, "sites": len({p.site for p in pages}), "seed": args.seed, "folds": args.folds}
    table = (f"Pages {counts}; neardup's CE-BEST trained on all collections but the held-out one (LOCO, seed "
             f"{args.seed}); anchors on the same pages in the same run; F1 (P / R) of 4-word shingles.\n\n"
             + loco_markdown(results, datasets, counts)
             + "\nBy era (mean F1 of the held-out collections of each era):\n\n" + era_markdown(results, datasets)
             + "\n" + speed_markdown(results, len(pages)))
    if "crf-cv" in results:
        table += (f"\nSite-grouped {args.folds}-fold CV over all pages pooled: F1 "
                  f"{results['crf-cv']['pooled']['f1']:.3f} (mean of collections {results['crf-cv']['mean']['f1']:.3f}).\n")
    return results, meta, table


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", nargs="+", default=[str(DATA / c) for c in COLLECTIONS],
                    help="collection folders; each is held out in turn (default: the seven of ../shared/data/extraction)")
    ap.add_argument("--tools", default=",".join(PEERS),
                    help=f"comma-separated anchors ({','.join(PEERS)}; justext too)")
    ap.add_argument("--folds", type=int, default=0, help="also site-grouped K-fold CV of CE-BEST over all pages (0: no)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-process", action="store_true", help="skip the whole-process timing")
    ap.add_argument("--speed-only", action="store_true", help="only the speed tables (no training, no scores)")
    ap.add_argument("--repeat", type=int, default=1, help="whole-process timing: best of R runs")
    ap.add_argument("--anchor-cache", metavar="DIR",
                    help="keep the anchors' texts in DIR and reuse them when the pages are the same (the anchors "
                         "need no training, so a rerun after a change to neardup need not run them again)")
    ap.add_argument("--fold-cache", metavar="DIR",
                    help="keep each fold's trained model in DIR and reuse it while its training input (feature rows, "
                         "labels, trainer code and parameters) is the same: a rerun after a change made after the "
                         "model (the extractor's rules) retrains nothing")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "extract"))
    args = ap.parse_args(argv)

    missing = [d for d in args.data if not Path(d).is_dir()]
    if missing:
        print(f"no data at {', '.join(missing)}: nothing to benchmark")
        return 0
    pages = load(*args.data)
    available = anchors()
    tools = [t for t in args.tools.split(",") if t]
    for name in [t for t in tools if t not in available]:
        print(f"skipping {name}: not installed or unknown")
    tools = [t for t in tools if t in available]
    process = not args.no_process
    if args.speed_only:
        results: dict[str, dict] = timed_speed(pages, [OURS, *tools], available, args.repeat, process)
        meta = {"pages": len(pages), "speed_only": True}
        table = speed_markdown(results, len(pages), shipped=True)
    else:
        results, meta, table = quality(pages, args, tools, available, process)
    hp = [pages[i] for i in heavy(pages)]
    kb = np.array([len(p.html.encode("utf-8")) for p in hp]) / 1024
    heavy_results = timed_speed(hp, [OURS, *tools], available, args.repeat, process)
    meta["heavy"] = {"pages": len(hp), "min_kb": float(kb.min()), "median_kb": float(np.median(kb))}
    table += (f"\nHeavy pages: the largest quarter by HTML bytes, {len(hp)} pages of {kb.min():.0f} KB and more "
              f"(median {np.median(kb):.0f} KB); neardup with its shipped model.\n\n"
              + speed_markdown(heavy_results, len(hp), "heavy pages", shipped=True))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({"meta": meta, "results": results, "heavy": heavy_results},
                                                   indent=2, default=float))
    out.with_suffix(".md").write_text(table)
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
