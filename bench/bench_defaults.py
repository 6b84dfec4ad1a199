"""Default thresholds chosen for the job: the cluster outcome of `neardup dedup`, held out.

For each method setting, every pair of the GoldSet development half
(``../shared/data/goldset-dev``, model extraction) is scored with the method's own
similarity; at each threshold of a grid the pairs above it are clustered as ``dedup``
clusters them (leader clustering by default, connected components for comparison).
Protocol: K random halves of the clusters (seeds 0..K-1, as ``neardup eval --folds``);
on each development half the threshold of best B-cubed F1 is chosen (the deduplicated
set is what users keep), and the other half is scored at it: pair F1 (the pairs ``dedup``
writes) and B-cubed F1 (its clusters), mean and spread over the K held-out halves.
The default a method ships is the median of the K chosen thresholds.

    python bench/bench_defaults.py [--splits 5] [--methods minhash,ffp,...] [--extract model]

Prints one table row per method setting and clustering, with the held-out pair and B-cubed
F1 at the method's shipped default threshold beside the chosen ones (the default-settings
table). Note: the candidate threshold grid starts at 0.05.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
GOLDSET = ROOT.parent / "shared" / "data" / "goldset-dev"

#: Method settings measured: name -> (method, parameters other than the threshold).
SETTINGS = {
    "minhash k=5": ("minhash", {}),
    "minhash k=3": ("minhash", {"shingle_size": 3}),
    "minhash k=2 exact": ("minhash", {"shingle_size": 2, "exact": True}),
    "ffp": ("ffp", {}),
    "spotsigs": ("spotsigs", {}),
    "simhash": ("simhash", {}),
    "andd": ("andd", {}),
    "andd 384 bits": ("andd", {"raw": False}),
    "imatch": ("imatch", {}),
    "wsample": ("wsample", {}),
}
GRID = np.round(np.arange(0.05, 0.951, 0.025), 3)


def outcome(n, i, j, scores, truth, threshold, clustering):
    """Pair F1 and B-cubed F1 of the pairs at ``threshold`` and their clusters."""
    from neardup.cluster import labels_by
    from neardup.evaluate.cluster_measures import b3
    from neardup.evaluate.measures import prf

    hit = scores >= threshold
    same = (truth[i] == truth[j]) & (truth[i] >= 0)
    tp = int(np.count_nonzero(hit & same))
    pair = prf(tp, int(np.count_nonzero(hit)) - tp, int(np.count_nonzero(same)) - tp).f1
    labels = labels_by(clustering, n, i[hit], j[hit], scores[hit])
    return pair, b3(labels, truth).f1


def curves(n, i, j, scores, truth, clustering):
    """Pair F1 and B-cubed F1 at every threshold of the grid (rows)."""
    return np.array([outcome(n, i, j, scores, truth, t, clustering) for t in GRID])


def at_default(scored, splits, clustering, threshold):
    """Pair F1 and B-cubed F1 of each held-out half at the method's default ``threshold``."""
    from neardup.evaluate.harness import half_splits

    rows = []
    for dev in half_splits(scored.clusters, splits, 0):
        sub = scored.subset(~dev)
        rows.append(outcome(len(sub.data.ids), sub.i, sub.j, sub.scores, sub.clusters, threshold, clustering))
    return np.array(rows)


def held_out(scored, splits, clustering):
    """Chosen thresholds, held-out pair F1 and B-cubed F1 over ``splits`` halves."""
    from neardup.evaluate.harness import half_splits

    chosen, pair, bcubed = [], [], []
    for dev in half_splits(scored.clusters, splits, 0):
        parts = []
        for side in (dev, ~dev):
            sub = scored.subset(side)
            parts.append(curves(len(sub.data.ids), sub.i, sub.j, sub.scores, sub.clusters, clustering))
        best = int(np.argmax(parts[0][:, 1]))
        chosen.append(GRID[best])
        pair.append(parts[1][best, 0])
        bcubed.append(parts[1][best, 1])
    return np.array(chosen), np.array(pair), np.array(bcubed)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--splits", type=int, default=5)
    p.add_argument("--methods", default=",".join(SETTINGS), help="comma-separated setting names")
    p.add_argument("--extract", default="model")
    p.add_argument("--clusterings", default="leader,components")
    args = p.parse_args(argv)
    if not GOLDSET.exists():
        print(f"{GOLDSET} not present", file=sys.stderr)
        return 2
    from neardup.evaluate.harness import score_dataset, trained
    from neardup.evaluate.labeled import load_labeled

    data = load_labeled(str(GOLDSET), extract=args.extract)
    print(f"goldset-dev: {len(data)} pages, {args.splits} half splits by cluster, threshold of best B3 F1 on the "
          "development half, held-out half scored at it")
    print("| setting | clustering | chosen per split | held-out pair F1 | held-out B3 F1 | default threshold | "
          "pair F1 at it | B3 F1 at it |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.methods.split(","):
        method, params = SETTINGS[name]
        m = trained(method, params, data)
        scored = score_dataset(data, m)  # scoring every pair does not use the threshold
        default = m.decision_threshold()  # the method's own default (for andd: its model's recorded one)
        for clustering in args.clusterings.split(","):
            chosen, pair, bcubed = held_out(scored, args.splits, clustering)
            fixed = at_default(scored, args.splits, clustering, default)
            print(f"| {name} | {clustering} | {' '.join(f'{c:.3f}' for c in chosen)} | "
                  f"{pair.mean():.3f} ± {pair.std():.3f} | {bcubed.mean():.3f} ± {bcubed.std():.3f} | {default:.3f} | "
                  f"{fixed[:, 0].mean():.3f} | {fixed[:, 1].mean():.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
