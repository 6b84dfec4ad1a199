"""Can learned k-gram weights beat binary weights on the GoldSet?  Two probes, one table.

Issue 6 asks that ANDD's learning beat the best unsupervised method on the same split.
The paper's loss does not (``bench_goldset.py --andd-table``: learned weights < TF-IDF <
binary on extracted text).  This script asks whether that is the loss's fault or the
data's, on the same 5 random half splits by cluster (``neardup eval --folds 5``):

1. **Max F1 as the loss.**  A smoothed F1 over *all* pairs of the development half,
   ``F1 = 2 sum_pos p_i / (sum_all p_i + #pos)`` with ``p_i = sigmoid(gamma (sim_i -
   t))`` and the threshold ``t`` learned too, plus ``lam |w - binary|^2``.  It starts from
   binary weights, so the path over ``lam`` runs from binary (``lam`` large) to weights fit
   to the development half's F1 alone (``lam = 0``).  If learning could help, some
   ``lam`` would raise the held-out Max F1 above binary's.
2. **What extraction knows.**  Whole pages (every block), with two k-gram features the
   paper did not have: the content probability of its block (the sigmoid of the shipped
   CE-BEST model's block margin; the title counts as content) and whether the model kept
   the block, learned with the paper's loss next to the fixed weightings.

Rows: held-out Max F1 (mean +- std over the splits), held-out F1 at the development
half's threshold, the development half's own Max F1, and per-split values.  k = 1 and
cosine by default (the shipped model's setting).

    /work/venv/bin/python bench/bench_andd_learning.py [GOLDSET] [--splits 5] [--k 1]
        [--similarity cosine] [--lams 0.3,0.03,0.003,0] [--gamma 30]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from neardup.evaluate.harness import half_splits
from neardup.evaluate.measures import confusion_at, max_f1, prf
from neardup.extract.blocks import page_blocks
from neardup.extract.extractor import assemble, default_model, model_labels
from neardup.learn import andd as L
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


def smooth_f1_loss(theta, prob: L.TrainingProblem, y: np.ndarray, gamma: float, lam: float, anchor: np.ndarray):
    """``1 - smoothed F1`` at threshold ``theta[-1]`` plus the pull toward ``anchor`` and the norm pin; gradient."""
    w, t = theta[:-1], theta[-1]
    v = L.entry_weights(prob.x, w)
    sim, backward = L.forward(prob, v)
    p = 1.0 / (1.0 + np.exp(-gamma * (sim - t)))
    dp = gamma * p * (1.0 - p)  # d p / d sim  (= -d p / d t)
    den = p.sum() + y.sum()
    tp = float(p @ y)
    df_dp = 2.0 * y / den - 2.0 * tp / den**2
    g_v = backward(-df_dp * dp)
    g_v[v <= 0.0] = 0.0
    d, norm2 = w - anchor, float(w @ w)
    loss = 1.0 - 2.0 * tp / den + lam * float(d @ d) + prob.mu * (norm2 - 1.0) ** 2
    grad_w = prob.x.T @ g_v + 2.0 * lam * d + 4.0 * prob.mu * (norm2 - 1.0) * w
    return loss, np.r_[grad_w, float(df_dp @ dp)]


def fit_f1(stats: L.GramStats, x: np.ndarray, cluster: np.ndarray, similarity: str, gamma: float, lam: float) -> np.ndarray:
    """Weights minimizing :func:`smooth_f1_loss` over all pairs of ``stats``' documents, from binary."""
    a, b = np.triu_indices(len(stats.sets), 1)
    y = ((cluster[a] == cluster[b]) & (cluster[a] >= 0)).astype(np.float64)
    prob = L.pairs_problem(stats, x, a, b, similarity=similarity)
    binary = np.eye(x.shape[1])[L.FEATURES.index("bias")]
    t0 = max_f1(L.forward(prob, L.entry_weights(x, binary))[0], y > 0).threshold
    res = minimize(smooth_f1_loss, np.r_[binary, t0], args=(prob, y, gamma, lam, binary), jac=True,
                   method="L-BFGS-B", options={"maxiter": 300})
    return res.x[:-1] / max(np.linalg.norm(res.x[:-1]), 1e-12)


def fit_paper(stats: L.GramStats, x: np.ndarray, cluster: np.ndarray, similarity: str, seed: int) -> np.ndarray:
    """Weights by the paper's pairwise-preference loss (as :func:`neardup.learn.andd.fit`) over features ``x``."""
    pa, pb, na, nb = L.sample_pair_pairs(cluster, L.N_PAIRS, seed)
    n = len(stats.sets)
    uniq, inverse = np.unique(np.r_[pa * n + pb, na * n + nb], return_inverse=True)
    prob = L.pairs_problem(stats, x, uniq // n, uniq % n, inverse[: pa.shape[0]], inverse[pa.shape[0]:], similarity)
    w0 = np.eye(x.shape[1])[L.FEATURES.index("tfidf")]
    res = minimize(L.loss_and_grad, w0, args=(prob,), jac=True, method="L-BFGS-B", options={"maxiter": 200})
    return res.x / max(np.linalg.norm(res.x), 1e-12)


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
    ap.add_argument("--lams", default="0.3,0.03,0.003,0")
    ap.add_argument("--gamma", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    start = time.perf_counter()
    cluster, extracted, whole, blocks = load_pages(Path(args.dataset))
    print(f"{len(cluster)} pages, {cluster.max() + 1} clusters ({time.perf_counter() - start:.0f} s)", flush=True)
    exact = L.sparse_cosine if args.similarity == "cosine" else weighted_jaccard
    table = Table(cluster)

    def scores(stats: L.GramStats, x: np.ndarray, w: np.ndarray) -> np.ndarray:
        return exact(stats.sets.hashes, stats.sets.offsets, L.entry_weights(x, w), table.i, table.j)

    def unit(name: str, names: tuple[str, ...]) -> np.ndarray:
        return np.eye(len(names))[names.index(name)]

    lams = [float(v) for v in args.lams.split(",")]
    st_e = L.featurize(extracted, args.k)
    x_e = L.feature_matrix(st_e)
    wnames = L.FEATURES + EXTRA
    st_w = L.featurize(whole, 1)
    x_w = np.column_stack([L.feature_matrix(st_w), block_features(st_w, blocks)])
    for r, dev in enumerate(half_splits(cluster, args.splits, args.split_seed)):
        print(f"split {r}", flush=True)
        docs = np.flatnonzero(dev)
        cl = cluster[docs]
        table.add(f"extracted k={args.k}: binary", scores(st_e, x_e, unit("bias", L.FEATURES)), dev)
        table.add(f"extracted k={args.k}: tfidf", scores(st_e, x_e, unit("tfidf", L.FEATURES)), dev)
        st = L.featurize([extracted[d] for d in docs], args.k)
        x = L.feature_matrix(st)
        table.add(f"extracted k={args.k}: learned, paper's loss", scores(st_e, x_e, fit_paper(st, x, cl, args.similarity, args.seed)), dev)
        for lam in lams:
            w = fit_f1(st, x, cl, args.similarity, args.gamma, lam)
            table.add(f"extracted k={args.k}: learned, smoothed F1, lam={lam:g}", scores(st_e, x_e, w), dev)
        if args.k == 1:
            for name in ("bias", "kept", "content_p"):
                table.add(f"whole pages: {name}", scores(st_w, x_w, unit(name, wnames)), dev)
            st = L.featurize([whole[d] for d in docs], 1)
            x = np.column_stack([L.feature_matrix(st), block_features(st, [blocks[d] for d in docs])])
            table.add("whole pages: learned (+content_p, kept), paper's loss",
                      scores(st_w, x_w, fit_paper(st, x, cl, args.similarity, args.seed)), dev)
    md = table.markdown()
    print(md)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "andd-learning.md").write_text(md + "\n")
    (RESULTS / "andd-learning.json").write_text(json.dumps({**vars(args), "rows": table.rows}, indent=1))
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
