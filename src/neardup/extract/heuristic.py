"""The heuristic baseline: keep long blocks that are not mostly links.

CEDAR's MinBlock filter drops blocks under N tokens (N = 8-12 was best for duplicate
detection; 10 here) and a link-density rule drops blocks most of whose words are link
text (navigation, related-article lists).  No training, no data: a floor for the
learned extractors to beat.
"""

from __future__ import annotations

import numpy as np

from .blocks import Page

MIN_TOKENS = 10
MAX_LINK_SHARE = 1 / 3


def heuristic_labels(page: Page, min_tokens: int = MIN_TOKENS, max_link_share: float = MAX_LINK_SHARE) -> np.ndarray:
    """Content labels: at least ``min_tokens`` words, under ``max_link_share`` of them in links."""
    words = page.words
    return (words >= min_tokens) & (page.link_words < max_link_share * np.maximum(words, 1))
