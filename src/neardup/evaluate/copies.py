"""What ``dedup`` gives a user on labeled data with its relations on: the ``copy_`` columns of ``eval``.

The harness scores every pair by the method's similarity, as the papers do; ``dedup`` then
lists a pair above the threshold only as what it is (``duplicate``, ``contains``,
``contained`` or ``shares``) and clusters only the copies.  The measures here are taken on
that outcome: pair precision, recall and F1 of the listed pairs that are not ``shares``, and
B-cubed F1 of the clusters made of the copies -- the same aligner, coverage and clustering
as ``dedup`` (:func:`neardup.relations.copy_edges`), so they equal what its outputs score.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..relations import DEFAULT_MIN_COVERAGE, SITE_MAX_DF, Coverage

if TYPE_CHECKING:
    from .harness import LabeledSet, Scored


def copy_measures(scored: "Scored", threshold: float, clustering: str) -> dict[str, float]:
    """Pair P/R/F1 of the copies ``dedup`` lists at ``threshold`` (pairs scoring at least that
    whose relation is ``duplicate``, ``contains`` or ``contained``: not ``shares``) and B-cubed
    F1 of the clusters it makes of them -- the outcome a user gets; NaN with relations off."""
    keys = ("copy_precision", "copy_recall", "copy_f1", "copy_b3_f1")
    if scored.coverage is None or not np.isfinite(threshold):
        return dict.fromkeys(keys, float("nan"))
    from ..cluster import labels_by
    from ..relations import copy_edges
    from .cluster_measures import b3
    from .measures import prf

    keep = scored.scores >= threshold
    a = np.minimum(scored.i[keep], scored.j[keep])
    b = np.maximum(scored.i[keep], scored.j[keep])
    _, copy, weight = copy_edges(a, b, scored.coverage, scored.min_coverage)
    tp = int(np.count_nonzero(copy & scored.labels[keep]))
    pair = prf(tp, int(np.count_nonzero(copy)) - tp, int(np.count_nonzero(scored.labels)) - tp)
    labels = labels_by(clustering, len(scored.data.ids), a[copy], b[copy], weight)
    return dict(zip(keys, (pair.precision, pair.recall, pair.f1, b3(labels, scored.clusters).f1)))


def aligned_coverage(data: "LabeledSet", site_max_df: int = SITE_MAX_DF, batch: int = 2000,
                     min_coverage: float = DEFAULT_MIN_COVERAGE) -> Coverage:
    """The passages every pair of ``data`` shares, by the aligner ``dedup``'s relations use
    (with its per-site boilerplate when the records name their sites), for relations at
    ``min_coverage`` or above (a sparse pair under it is not reported)."""
    from ..engines import get_engine
    from ..relations import dedup_align_params

    aligner = get_engine("local").aligner(dedup_align_params(site_max_df, min_coverage))
    try:
        for lo in range(0, len(data), batch):
            sites = data.sites[lo : lo + batch] if site_max_df and data.sites is not None else None
            aligner.add(data.texts[lo : lo + batch], sites)
        return Coverage.from_chains(aligner.chains())
    finally:
        aligner.close()
