"""The learning curve of ``neardup eval --learning-curve``: held-out quality by training-set size."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import UserError
from ..methods import get_method
from .harness import LabeledSet, mean_and_spread, half_splits, score_dataset, trained, true_clusters


#: Training-set sizes of the learning curve (the ANDD paper's 10, 30, 60, 120, ... documents).
CURVE_SIZES = (10, 30, 60, 120, 240, 480)


def learning_curve(
    data: LabeledSet, method: str, params: dict[str, Any], sizes: tuple[int, ...] = CURVE_SIZES,
    splits: int = 5, split_seed: int = 0,
) -> list[dict[str, Any]]:
    """Held-out Max F1 of ``method`` trained on ``n`` random documents of the development half.

    For each split half and each ``n`` (at most the half's size) the method is trained on
    ``n`` documents drawn from the development half (seeded by the split and ``n``) and
    scored on the held-out half; a draw without both kinds of pair counts as no result.
    Returns one row per size: mean and spread over the splits.
    """
    if not get_method(method, **params).learns:
        raise UserError(f"method {method} does not learn: a learning curve needs one that does (andd)")
    rows = []
    masks = half_splits(true_clusters(data), splits, split_seed)
    for n in sizes:
        runs = []
        for r, dev in enumerate(masks):
            pool = np.flatnonzero(dev)
            if n > pool.shape[0]:
                continue
            docs = np.sort(np.random.default_rng([split_seed + r, n]).choice(pool, size=n, replace=False))
            try:
                m = trained(method, params, data, docs)
            except ValueError:  # no near-duplicate (or no non-duplicate) pair among the draw
                runs.append({"max_f1": float("nan")})
                continue
            runs.append(score_dataset(data, m).subset(~dev).report(candidates=False))
        if runs:
            rows.append({"documents": n, "runs": len(runs), **mean_and_spread(runs, ("max_f1",))})
    return rows
