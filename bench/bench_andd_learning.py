"""Can learned k-gram weights beat binary weights on the GoldSet?  Both objectives, one table.

Issue 6 asks that ANDD's learning beat the best unsupervised method on the same split.
On the same 5 random half splits by cluster (``neardup eval --folds 5``), trained on
each development half and measured on the other:

1. **The objectives** of :mod:`neardup.learn.training` on extracted text: the paper's
   ``preference`` loss, and ``f1`` (smoothed Max F1 over all pairs, log-linear weights)
   along its ``l2`` path: from binary weights (``l2`` large) to weights fit to the
   development half alone (``l2 = 0``).
2. **What extraction knows.**  Whole pages (every block), with two k-gram features the
   paper did not have: the content probability of its block (the sigmoid of the shipped
   CE-BEST model's block margin; the title counts as content) and whether the model kept
   the block, learned with both objectives next to the fixed weightings.

Rows: held-out Max F1 (mean +- std over the splits), held-out F1 at the development
half's threshold, the development half's own Max F1, and per-split values.  Exact
similarities (no signatures).

    .venv/bin/python bench/bench_andd_learning.py [GOLDSET] [--splits 5] [--split-seed 0] [--k 1]
        [--similarity cosine] [--lams 1,0.3,0.1,0.03,0] [--no-whole]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from neardup.evaluate.harness import half_splits
from neardup.evaluate.measures import confusion_at, max_f1, prf
from neardup.extract.blocks import page_blocks
from neardup.extract.extractor import assemble, default_model, model_labels
from neardup.learn import andd as L
from neardup.learn.training import L2, fit, fit_stats
from neardup.sketch.icws import weighted_jaccard

EXTRA = ("content_p", "kept")
RESULTS = Path(__file__).parent / "results"


def load_pages(root: Path) -> tuple[np.ndarray, list[str], list[str], list[list[tuple[str, float, float]]]]:
    """Cluster, extracted text, whole-page text and blocks ``(text, content prob, kept)`` of each page.

    Clusters are numbered by sorted folder name, pages by sorted file name (the order
    :func:`neardup.evaluate.harness.load_labeled` gives, so the splits are the same).
    """
    model = default_model()
    cluster, extracted, whole, blocks = [], [], [], []
    folders = sorted(p for p in root.iterdir() if p.is_dir())
    for c, folder in enumerate(folders):
        for f in sorted(p for p in folder.iterdir() if p.is_file()):
            page = page_blocks(f.read_bytes().decode("utf-8", "replace"))
            keep = model_labels(page, model) if len(page) else np.zeros(0, dtype=bool)
            prob = 1.0 / (1.0 + np.exp(-model.margins(page))) if len(page) else np.zeros(0)
            bl = [(page.meta_title or page.title, 1.0, 1.0)]
            bl += [(t, float(p), float(k)) for t, p, k in zip(page.texts, prob, keep)]
            cluster.append(c)
            extracted.append(assemble(page, keep).full_text())
            whole.append("\n\n".join(t for t, _, _ in bl))
            blocks.append(bl)
    return np.array(cluster), extracted, whole, blocks


def block_features(stats: L.GramStats, blocks: list[list[tuple[str, float, float]]]) -> np.ndarray:
    """Per entry of ``stats`` (k = 1, the documents made of ``blocks``): the largest content
    probability and kept flag among the blocks holding the word."""
    texts = [t for bl in blocks for t, _, _ in bl]
    page = np.repeat(np.arange(len(blocks)), [len(bl) for bl in blocks])
    values = np.array([(p, k) for bl in blocks for _, p, k in bl]).reshape(-1, 2)
    per_block = L.featurize(texts, 1)
    doc = per_block.doc()
    pg, h = page[doc], per_block.sets.hashes
    order = np.lexsort((h, pg))
    pg, h, vals = pg[order], h[order], values[doc][order]
    first = np.flatnonzero(np.r_[True, (h[1:] != h[:-1]) | (pg[1:] != pg[:-1])])
    if not np.array_equal(h[first], stats.sets.hashes):
        raise AssertionError("the blocks' words are not the page's words")
    return np.maximum.reduceat(vals, first, axis=0)


class Table:
    """Held-out measures per row name, split by split."""

    def __init__(self, cluster: np.ndarray) -> None:
        self.i, self.j = np.triu_indices(cluster.shape[0], 1)
        self.y = cluster[self.i] == cluster[self.j]
        self.rows: dict[str, list[tuple[float, float, float]]] = {}

    def add(self, name: str, scores: np.ndarray, dev: np.ndarray) -> None:
        both_dev, both_held = dev[self.i] & dev[self.j], ~dev[self.i] & ~dev[self.j]
        tuned = max_f1(scores[both_dev], self.y[both_dev])
        held = max_f1(scores[both_held], self.y[both_held])
        at_dev = prf(*confusion_at(scores[both_held], self.y[both_held], tuned.threshold)[:3]).f1
        self.rows.setdefault(name, []).append((held.f1, at_dev, tuned.f1))
        print(f"  {name:40} held-out Max F1 {held.f1:.4f}  F1 at dev thr {at_dev:.4f}  dev Max F1 {tuned.f1:.4f}", flush=True)

    def markdown(self) -> str:
        out = ["| weights | held-out Max F1 | F1 at dev threshold | dev Max F1 | per split |", "|---|---|---|---|---|"]
        for name, v in self.rows.items():
            a = np.array(v)
            out.append(f"| {name} | {a[:, 0].mean():.4f} ± {a[:, 0].std():.4f} | {a[:, 1].mean():.4f} | "
                       f"{a[:, 2].mean():.4f} | {' '.join(f'{x:.4f}' for x in a[:, 0])} |")
        return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset", nargs="?", default=str(Path(__file__).resolve().parents[2] / "shared/data/goldset-dev"))
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--split-seed", type=int, default=0)
    ap.add_argument("--k", type=int, default=1)
    ap.add_argument("--similarity", choices=L.SIMILARITIES, default="cosine")
    ap.add_argument("--lams", default="1,0.3,0.1,0.03,0")
    ap.add_argument("--no-whole", action="store_true", help="skip the whole-page rows")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    start = time.perf_counter()
    cluster, extracted, whole, blocks = load_pages(Path(args.dataset))
    print(f"{len(cluster)} pages, {cluster.max() + 1} clusters ({time.perf_counter() - start:.0f} s)", flush=True)
    exact = L.sparse_cosine if args.similarity == "cosine" else weighted_jaccard
    table = Table(cluster)

    def scores(stats: L.GramStats, x: np.ndarray, model: L.ANDDModel) -> np.ndarray:
        return exact(stats.sets.hashes, stats.sets.offsets, model.weigh(x), table.i, table.j)

    def fixed(name: str, width: int) -> L.ANDDModel:
        w = np.zeros(width)
        w[(L.FEATURES + EXTRA).index(name)] = 1.0
        return L.ANDDModel(w)

    whole_pages = args.k == 1 and not args.no_whole
    st_e = L.featurize(extracted, args.k)
    x_e = L.feature_matrix(st_e)
    if whole_pages:
        st_w = L.featurize(whole, 1)
        x_w = np.column_stack([L.feature_matrix(st_w), block_features(st_w, blocks)])
    rows = f"extracted k={args.k} {args.similarity}"
    for r, dev in enumerate(half_splits(cluster, args.splits, args.split_seed)):
        print(f"split {r}", flush=True)
        docs = np.flatnonzero(dev)
        cl = cluster[docs]
        texts = [extracted[d] for d in docs]
        for name in ("binary", "tfidf"):
            table.add(f"{rows}: {name}", scores(st_e, x_e, L.ANDDModel.fixed(name)), dev)
        common = {"k": args.k, "similarity": args.similarity, "seed": args.seed}
        table.add(f"{rows}: learned, preference (paper)", scores(st_e, x_e, fit(texts, cl, objective="preference", **common)), dev)
        for lam in [float(v) for v in args.lams.split(",")]:
            table.add(f"{rows}: learned, f1, l2={lam:g}", scores(st_e, x_e, fit(texts, cl, l2=lam, **common)), dev)
        if whole_pages:
            for name in ("bias", "kept", "content_p"):
                table.add(f"whole pages k=1: {name}", scores(st_w, x_w, fixed(name, x_w.shape[1])), dev)
            st = L.featurize([whole[d] for d in docs], 1)
            x = np.column_stack([L.feature_matrix(st), block_features(st, [blocks[d] for d in docs])])
            for objective in ("preference", "f1"):
                model = fit_stats(st, cl, args.similarity, args.seed, objective=objective, l2=L2, x=x)
                table.add(f"whole pages k=1: learned (+content_p, kept), {objective}", scores(st_w, x_w, model), dev)
    md = table.markdown()
    print(md)
    RESULTS.mkdir(exist_ok=True)
    tag = f"k{args.k}-{args.similarity}-s{args.split_seed}"
    (RESULTS / f"andd-learning-{tag}.md").write_text(md + "\n")
    (RESULTS / f"andd-learning-{tag}.json").write_text(json.dumps({**vars(args), "rows": table.rows}, indent=1))
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
