"""Benchmark neardup's content extractors against open extractors on the same pages.

Every extractor runs on the same crawled pages in one process; its output (title and
body) is scored against the gold article text with the article-extraction benchmark's
measure (``neardup.extract.evaluate``: word 4-shingles, precision and recall averaged
over pages, F1 of the averages), per data folder, and timed (pages per second, one
core).  neardup's learned extractors (CE-SIMPLE ``logreg``, CE-BEST ``crf``) are
evaluated by site-grouped cross-validation: each page is extracted by a model trained
on the other folds, whose sites never include the page's own.  Block-level precision,
recall and F1 are reported where gold block labels exist (annotated corpora).

Anchors (optional; a missing package is skipped): trafilatura (default and
favor_precision), readability-lxml, resiliparse (main-content), jusText.  They are
timed on their plain text call; the title they report (trafilatura's metadata,
readability's short title, resiliparse's ``<title>``) is prepended afterwards, untimed,
because the gold text starts with the headline.

    /work/venv/bin/pip install trafilatura readability-lxml resiliparse justext
    /work/venv/bin/python bench/bench_extract.py              # both folders, 5 folds
    /work/venv/bin/python bench/bench_extract.py --tools none,heuristic,crf --folds 3

Writes a markdown table and JSON to ``bench/results/extract.{md,json}``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Callable

from neardup.extract.datasets import load
from neardup.extract.evaluate import (
    EXTRACTOR_NAMES,
    Run,
    markdown,
    neardup_runs,
    report,
    run_extractor,
    site_folds,
)
from neardup.extract.train import examples as make_examples

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "extraction"


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", nargs="+", default=[str(DATA / "l3s-gn1"), str(DATA / "msv-news")])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tools", default="", help="comma-separated subset (default: all available)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "extract"))
    args = ap.parse_args(argv)

    pages = load(*args.data)
    htmls = [p.html for p in pages]
    examples = make_examples(pages)
    folds = site_folds([p.site for p in pages], args.folds, args.seed)
    available = anchors()
    names = args.tools.split(",") if args.tools else ["none", "heuristic", "logreg", "crf", *available]
    runs: dict[str, Run] = {}
    for name in names:
        if name in available:
            body, title = available[name]
            runs[name] = run_extractor(_safe(body), htmls)
            runs[name].texts = ["\n\n".join(x for x in (_safe(title)(h), t) if x) for h, t in zip(htmls, runs[name].texts)]
        elif name in EXTRACTOR_NAMES:
            runs.update(neardup_runs(pages, examples, [name], folds, args.seed))
        else:
            print(f"skipping {name}: not installed or unknown")
            continue
        print(name, f"{runs[name].pages_per_second:.1f} pages/s", flush=True)
    results = report(pages, examples, runs)
    meta = {"pages": {ds: sum(p.dataset == ds for p in pages) for ds in sorted({p.dataset for p in pages})},
            "sites": len({p.site for p in pages}), "folds": args.folds, "seed": args.seed}
    table = (f"Pages {meta['pages']}, {meta['sites']} sites; learned extractors by {args.folds}-fold "
             f"site-grouped CV (seed {args.seed}); pages/s on one core, same run.\n\n" + markdown(results))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps({"meta": meta, "results": results}, indent=2, default=float))
    out.with_suffix(".md").write_text(table)
    print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
