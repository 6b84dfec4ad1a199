"""Scoring extractors against gold text and gold block labels, with site-grouped CV.

Text scoring follows the article-extraction benchmark: both texts become ``\\w+``
tokens, then word 4-shingles counted with multiplicity (a text of fewer than 4 tokens is
one shingle); per page, precision = matched / predicted shingles and recall = matched /
gold shingles (an empty prediction has precision 0); the report averages precision and
recall over pages and gives the F1 of the two averages.  On annotated corpora, whose
annotated copies replaced characters beyond Latin-1 with ``?``, those characters become
``?`` in the prediction too (:func:`fold_text`), so no extractor is charged for them.

Block scoring is precision/recall/F1 of the content label over all blocks of all pages
(micro-averaged), where gold labels exist.

:func:`site_folds` assigns whole sites to folds, so that :func:`cross_validate` never
tests a model on a site it was trained on; :func:`collection_folds` makes each data
collection one fold (leave-one-collection-out: the model never saw the collection's
sites, era, or its annotators' idea of content).
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..errors import UserError

SHINGLE = 4
_TOKEN = re.compile(r"\w+")
_BEYOND_LATIN1 = re.compile(r"[^\x00-\xff]")


def fold_text(text: str) -> str:
    """``text`` with every character beyond Latin-1 replaced by ``?``."""
    return _BEYOND_LATIN1.sub("?", text)


def shingles(text: str, n: int = SHINGLE) -> Counter:
    """Word ``n``-shingles of ``text`` with their counts."""
    tokens = _TOKEN.findall(text)
    if not tokens:
        return Counter()
    if len(tokens) < n:
        return Counter([tuple(tokens)])
    return Counter(zip(*(tokens[i:] for i in range(n))))


def shingle_pr(gold: str, pred: str, n: int = SHINGLE) -> tuple[float, float]:
    """Shingle precision and recall of ``pred`` against ``gold``."""
    g, p = shingles(gold, n), shingles(pred, n)
    matched = sum((g & p).values())
    n_pred, n_gold = sum(p.values()), sum(g.values())
    return (matched / n_pred if n_pred else 0.0, matched / n_gold if n_gold else 0.0)


@dataclass
class TextScore:
    """Averaged shingle precision and recall over pages, and the F1 of the averages."""

    precision: float
    recall: float
    f1: float
    pages: int

    @classmethod
    def of(cls, pairs: Sequence[tuple[float, float]]) -> TextScore:
        if not pairs:
            return cls(0.0, 0.0, 0.0, 0)
        p, r = (float(np.mean(x)) for x in zip(*pairs))
        return cls(p, r, 2 * p * r / (p + r) if p + r else 0.0, len(pairs))


@dataclass
class BlockScore:
    """Precision, recall and F1 of the content label over blocks."""

    precision: float
    recall: float
    f1: float
    blocks: int

    @classmethod
    def of(cls, gold: Sequence[np.ndarray], pred: Sequence[np.ndarray]) -> BlockScore:
        g = np.concatenate(list(gold)) if gold else np.zeros(0, dtype=bool)
        p = np.concatenate(list(pred)) if pred else np.zeros(0, dtype=bool)
        tp = float(np.sum(g & p))
        prec = tp / p.sum() if p.sum() else 0.0
        rec = tp / g.sum() if g.sum() else 0.0
        return cls(prec, rec, 2 * prec * rec / (prec + rec) if prec + rec else 0.0, len(g))


def site_folds(sites: Sequence[str], k: int, seed: int = 0) -> np.ndarray:
    """A fold number per page such that every site's pages share one fold.

    Sites are shuffled by ``seed``, then placed largest first into the fold with the
    fewest pages so far (balanced folds; the same seed gives the same folds).
    """
    names, counts = np.unique(np.asarray(sites, dtype=object), return_counts=True)
    k = max(1, min(k, len(names)))
    order = np.random.default_rng(seed).permutation(len(names))
    order = order[np.argsort(-counts[order], kind="stable")]
    load = np.zeros(k, dtype=np.int64)
    fold_of: dict[str, int] = {}
    for i in order.tolist():
        f = int(np.argmin(load))
        fold_of[names[i]] = f
        load[f] += counts[i]
    return np.array([fold_of[s] for s in sites], dtype=np.int64)


def collection_folds(datasets: Sequence[str]) -> np.ndarray:
    """A fold number per page: the index of its collection among the sorted collection names."""
    names = sorted(set(datasets))
    return np.array([names.index(d) for d in datasets], dtype=np.int64)


@dataclass
class Run:
    """An extractor's output on a list of pages, with its time.

    ``blocks`` holds the block labels it gave the labeled pages' blocks, when it labels
    blocks; ``seconds`` is the extraction time only (never training).
    """

    texts: list[str]
    seconds: float
    blocks: list[np.ndarray] | None = None

    @property
    def pages_per_second(self) -> float:
        return len(self.texts) / self.seconds if self.seconds > 0 else float("inf")


def run_extractor(fn: Callable[[str], str], htmls: Sequence[str]) -> Run:
    """Apply ``fn`` to every page, timing the whole pass (one process, one core).

    One untimed call on the first page first, so one-time costs (imports, compiled
    kernels loaded, models read) are not charged to the pages.
    """
    if htmls:
        fn(htmls[0])
    start = time.perf_counter()
    texts = [fn(html) or "" for html in htmls]
    return Run(texts, time.perf_counter() - start)


def text_scores(golds: Sequence[str], preds: Sequence[str], folded: Sequence[bool]) -> TextScore:
    """Averaged shingle scores; ``folded[i]`` folds both texts of page ``i`` (:func:`fold_text`)."""
    pairs = []
    for gold, pred, fold in zip(golds, preds, folded):
        if not _TOKEN.search(gold):
            continue
        pairs.append(shingle_pr(fold_text(gold), fold_text(pred)) if fold else shingle_pr(gold, pred))
    return TextScore.of(pairs)


def run_model(model, htmls: Sequence[str], examples, at: Sequence[int]) -> Run:
    """Extractions of pages ``at`` by a trained ``model``, timed, plus its labels of their blocks."""
    from .extractor import extract

    run = run_extractor(lambda html: extract(html, model).full_text(), [htmls[i] for i in at])
    run.blocks = [model.predict(examples[i].page, examples[i].stats) for i in at]
    return run


def cross_validate(examples, htmls: Sequence[str], kind: str, folds: np.ndarray, seed: int = 0,
                   cache: str | Path | None = None) -> Run:
    """Out-of-fold extractions of a ``kind`` model trained on the other folds' sites.

    Returns the texts (from ``htmls``, the pages as crawled), the seconds spent
    extracting (training excluded) and the block labels predicted on the examples'
    blocks (for block scoring).  With a ``cache`` folder each fold's model is kept there and
    reused while its training input is the same (:func:`.train.fit_cached`).
    """
    from .train import fit_cached

    texts = [""] * len(htmls)
    blocks: list[np.ndarray] = [np.zeros(0, dtype=bool)] * len(htmls)
    seconds = 0.0
    for f in np.unique(folds).tolist():
        test = np.flatnonzero(folds == f).tolist()
        model = fit_cached([examples[i] for i in np.flatnonzero(folds != f)], kind, seed, cache)
        run = run_model(model, htmls, examples, test)
        seconds += run.seconds
        assert run.blocks is not None  # a model labels blocks
        for j, i in enumerate(test):
            texts[i], blocks[i] = run.texts[j], run.blocks[j]
    return Run(texts, seconds, blocks)


EXTRACTOR_NAMES = ("none", "heuristic", "logreg", "crf", "model")
"""What :func:`neardup_runs` evaluates: the registry's ``none`` and ``heuristic``,
CE-SIMPLE and CE-BEST by site-grouped CV, and a given trained ``model`` as it is."""


def neardup_runs(pages, examples, names: Sequence[str], folds: np.ndarray, seed: int = 0, model=None) -> dict[str, Run]:
    """Runs of neardup's extractors ``names`` (see :data:`EXTRACTOR_NAMES`) on ``pages``."""
    from .extractor import heuristic_text
    from .heuristic import heuristic_labels
    from .model import load_default
    from .visible import visible_text

    htmls = [p.html for p in pages]
    runs: dict[str, Run] = {}
    for name in names:
        if name == "none":
            runs[name] = run_extractor(visible_text, htmls)
            runs[name].blocks = [np.ones(len(e.labels), dtype=bool) for e in examples]
        elif name == "heuristic":
            runs[name] = run_extractor(heuristic_text, htmls)
            runs[name].blocks = [heuristic_labels(e.page) for e in examples]
        elif name in ("logreg", "crf"):
            runs[name] = cross_validate(examples, htmls, name, folds, seed)
        elif name == "model":
            runs[name] = run_model(model or load_default(), htmls, examples, range(len(htmls)))
        else:
            raise UserError(f"unknown extractor {name!r}; choose from {', '.join(EXTRACTOR_NAMES)}")
    return runs


def report(pages, examples, runs: dict[str, Run]) -> dict[str, dict]:
    """Per extractor: pages/s, and per data folder the text scores (and block scores)."""
    datasets = sorted({p.dataset for p in pages})
    out: dict[str, dict] = {}
    for name, run in runs.items():
        entry: dict = {"pages_per_second": run.pages_per_second, "empty_outputs": sum(not t.strip() for t in run.texts)}
        for ds in datasets:
            idx = [i for i, p in enumerate(pages) if p.dataset == ds]
            folded = [pages[i].annotated is not None for i in idx]
            entry[ds] = asdict(text_scores([pages[i].gold for i in idx], [run.texts[i] for i in idx], folded))
            labeled = [i for i in idx if pages[i].annotated is not None]
            if run.blocks is not None and labeled:
                gold, pred = [examples[i].labels for i in labeled], [run.blocks[i] for i in labeled]
                entry[ds]["blocks"] = asdict(BlockScore.of(gold, pred))
        out[name] = entry
    return out


LABELS = {"none": "none (visible text)", "heuristic": "heuristic (MinBlock 10 + links)",
          "logreg": "CE-SIMPLE (logreg, CV)", "crf": "CE-BEST (CRF, CV)", "model": "model (as given, no CV)"}


def markdown(results: dict[str, dict]) -> str:
    """A markdown table: text F1/P/R per data folder, block P/R/F1, pages/s."""
    datasets = sorted({k for e in results.values() for k in e if isinstance(e[k], dict)})
    head = ["extractor"] + [f"{ds} {m}" for ds in datasets for m in ("F1", "P", "R")] + ["blocks P / R / F1", "pages/s"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, e in results.items():
        cells = [LABELS.get(name, name)]
        blocks = ""
        for ds in datasets:
            s = e[ds]
            cells += [f"{s['f1']:.3f}", f"{s['precision']:.3f}", f"{s['recall']:.3f}"]
            if "blocks" in s:
                b = s["blocks"]
                blocks = f"{b['precision']:.3f} / {b['recall']:.3f} / {b['f1']:.3f}"
        lines.append("| " + " | ".join(cells + [blocks, f"{e['pages_per_second']:.0f}"]) + " |")
    return "\n".join(lines) + "\n"
