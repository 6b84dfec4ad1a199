"""``neardup train DATASET... -o MODEL``: learn ANDD k-gram weights from labeled clusters."""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np


def run(args: argparse.Namespace) -> int:
    from ..evaluate.labeled import load_labeled
    from ..io.writers import check_outputs_apart
    from ..learn.andd import FEATURES, QueryFrequencies
    from ..learn.training import fit

    check_outputs_apart([*args.datasets, *([args.qf] if args.qf else [])], files=[args.output])
    texts: list[str] = []
    clusters: list[np.ndarray] = []
    records = {}
    offset = 0
    for path in args.datasets:
        data = load_labeled(path, args.extract, prefer_html=args.html)
        records[path] = {k: v for k, v in data.stats.counts().items() if k != "rejected_by_reason"}
        for line in data.stats.rejection_report(path):
            print(line, file=sys.stderr)
        texts.extend(data.texts)
        c = data.cluster.copy()
        c[c >= 0] += offset  # clusters of different datasets never merge
        offset = int(c.max(initial=offset - 1)) + 1
        clusters.append(c)
    model = fit(texts, np.concatenate(clusters) if clusters else np.zeros(0, np.int64),
                k=args.shingle_size, similarity=args.similarity, seed=args.seed, n_pairs=args.n_pairs,
                qf=None if args.qf is None else QueryFrequencies.load(args.qf), objective=args.objective, l2=args.l2)
    model.info["datasets"] = records  # records read, kept and rejected of each
    model.save(args.output)
    if not args.quiet:
        print(json.dumps({"output": args.output, "similarity": model.similarity, "form": model.form,
                          "weights": dict(zip(FEATURES, model.weights.tolist())),
                          **model.info}, indent=2), file=sys.stderr)
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``train`` to the ``neardup`` command's subparsers."""
    from ..cli_options import add_input_options
    from ..learn.andd import SIMILARITIES
    from ..learn.training import L2, N_PAIRS, OBJECTIVES

    p = subparsers.add_parser("train", help="learn ANDD k-gram weights from labeled near-duplicate clusters")
    p.add_argument("datasets", nargs="+", metavar="DATASET",
                   help="folder of cluster sub-folders, or JSONL/Parquet with 'cluster'")
    p.add_argument("-o", "--output", required=True, metavar="MODEL", help="model file to write (JSON)")
    p.add_argument("--shingle-size", type=int, default=1, help="words per k-gram, k (1)")
    p.add_argument("--similarity", choices=SIMILARITIES, default="cosine",
                   help="similarity the weights are learned for: cosine or weighted Jaccard sum(min)/sum(max) (cosine)")
    p.add_argument("--objective", choices=OBJECTIVES, default="f1",
                   help="f1: smoothed F1 over the training pairs, log-linear weights pulled toward binary (default); "
                        "preference: the paper's pairwise loss, clipped linear weights")
    p.add_argument("--n-pairs", type=int,
                   help=f"f1: near-duplicate (and as many non-duplicate) pairs sampled when there are more than twice "
                        f"as many pairs ({N_PAIRS['f1']}); preference: sampled pair-pairs ({N_PAIRS['preference']}, as in the paper)")
    p.add_argument("--l2", type=float, default=L2, help=f"f1: pull toward binary weights ({L2})")
    p.add_argument("--qf", metavar="FILE", help="query frequencies for the qf feature: TSV of 'text<TAB>count' lines")
    p.add_argument("--seed", type=int, default=0, help="seed of the pair sampling (0)")
    p.add_argument("--quiet", action="store_true", help="no summary on stderr")
    add_input_options(p)
    return p
