"""The passages every pair of a labeled dataset shares, as ``dedup``'s relations find them: what the
``copy_`` columns of ``eval`` are measured on (:meth:`~neardup.evaluate.harness.Scored.copy_measures`).

The harness scores every pair by the method's similarity, as the papers do; ``dedup`` then
lists a pair above the threshold only as what it is (``duplicate``, ``contains``,
``contained`` or ``shares``) and clusters only the copies -- from these passages, by the same
aligner, so the measures equal what its outputs score.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..relations import DEFAULT_MIN_COVERAGE, SITE_MAX_DF, Coverage

if TYPE_CHECKING:
    from .labeled import LabeledSet


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
