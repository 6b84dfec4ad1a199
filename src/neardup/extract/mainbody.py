"""The article's main body: kept blocks far from it, in other parts of the page, are dropped.

The CRF labels each block from its own shape and its near neighbours (two blocks either
side), so on a page it never saw it can keep a piece of the site's frame that looks like a
story: a sidebar of teasers, a box of text ads, a site's self-description, a reader comment
thread in its own container.  What gives them away is where they are, which the block
features see only locally: far from the run of blocks the model kept as the article, and
outside the element that holds that run.  Boilerpipe's "largest block" rule keeps only the
largest run of content; on its own that takes stories whose article is cut in two by an
inline box, so :func:`main_body` drops a block only when all of these hold:

* it is in a **minor run**: the kept blocks are grouped into runs, consecutive kept blocks
  with at most :data:`RUN_GAP` not-kept blocks between them (a caption, a share bar or an
  inline ad inside the article do not split it); the **main run** has the most words; a
  minor run is any other run with at most :data:`MINOR_SHARE` of the main run's words (a
  run of comparable size may be the story itself, or its second half, when the main run
  is a long sidebar -- then nothing is dropped);
* it is **outside the main run's element**: the lowest element enclosing every block of the
  main run (its subtree; :func:`enclosing`).  A minor run inside the article's own element
  (a pull quote, the second half of a story past a large inline box) is never touched;
* before the main run, its run **ends above the page's headline** (the block that covers the
  ``<title>``'s words, :func:`.features.headline`): the headline, the deck and a lede set apart
  by a photo sit above the article's body, often in elements of their own, and are kept; what
  the page shows above the headline is the site's frame.  Without a headline nothing before
  the main run is dropped, nor when the headline is not above the main run: then the main
  run may not be the article (a long comment thread or a poll can outweigh a short story, and
  a title's words recur in its comments), and the runs above it may be the story.

Distances are counted in blocks and the enclosure in elements, never in words of a
vocabulary: the rule holds no word list, so it carries to sites and languages the training
never saw.  It was chosen, with its two constants, by leave-one-collection-out
(``bench/bench_extract.py``): mean F1 0.921 -> 0.924, every held-out collection up (Dragnet +0.010)
but CleanEval (-0.001: catalogs and link pages whose gold counts every scattered item).

Pages of the 2020s say where their article ends: HTML5's ``<article>`` element.  What follows
it -- a newsletter box, "most read", the next story's teaser -- often comes right after the
last paragraph, in the main run itself, where the rule above cannot see it.  So when one
``<article>`` element holds at least :data:`ARTICLE_SHARE` of the kept words, the kept blocks
after it are dropped (:func:`after_article`); what precedes it (a headline and deck set in a
``<header>`` of their own) is left to the rule above.  The share is what makes the element the
article rather than a comment or a teaser card (many pages have one ``<article>`` per comment or
teaser).  Few pages of the training collections use the element (2005-2012 pages, Readability's
tests): leave one collection out it changes five pages, four of them for the better (mean F1
0.9245 -> 0.9246), and three of the 1,084 GoldSet pages have it (no change there).
"""

from __future__ import annotations

import numpy as np

from .blocks import TAG_ID, Page
from .features import BlockStats, block_stats, headline

RUN_GAP = 4
"""Kept blocks with at most this many not-kept blocks between them are one run."""
MINOR_SHARE = 0.5
"""A run is minor (may be dropped) when it holds at most this share of the main run's words."""
ARTICLE_SHARE = 0.5
"""An ``<article>`` element holding at least this share of the kept words is the page's article."""


def runs(keep: np.ndarray, gap: int = RUN_GAP) -> list[np.ndarray]:
    """The kept block indices of ``keep`` grouped into runs, in page order: consecutive kept
    blocks with at most ``gap`` not-kept blocks between them."""
    kept = np.flatnonzero(keep)
    if len(kept) == 0:
        return []
    return np.split(kept, np.flatnonzero(np.diff(kept) > gap + 1) + 1)


def enclosing(page: Page, blocks: np.ndarray) -> tuple[int, int]:
    """The pre-order element range ``(first, last)`` of the lowest element that encloses
    every block of ``blocks`` (indices into ``page``; not empty)."""
    el = page.elements
    cont = page.container[blocks]
    lo, hi = int(cont.min()), int(cont.max())
    e = lo
    while e > 0 and el.end[e] < hi:  # up from the first container until its subtree reaches the last
        e = int(el.parent[e])
    return e, int(el.end[e])


def main_body(page: Page, keep: np.ndarray, stats: BlockStats | None = None) -> np.ndarray:
    """``keep`` (a page's content labels) without the minor runs' blocks outside the main
    run's element that follow the main run or end above the headline (see the module
    docstring); a new array, ``keep`` is not changed.  ``stats`` (the blocks' statistics, if
    known) serve to find the headline, which is looked for only when a minor run precedes the
    main run."""
    parts = runs(keep)
    out = keep.copy()
    if len(parts) <= 1:
        return out
    words = np.array([int(page.words[r].sum()) for r in parts])
    main = int(np.argmax(words))
    minor = words <= MINOR_SHARE * words[main]
    minor[main] = False
    if not minor.any():
        return out
    head = -1
    if minor[:main].any():
        head = headline(page, stats if stats is not None else block_stats(page))
    first, last = enclosing(page, parts[main])
    inside = (page.container >= first) & (page.container <= last)
    for k in np.flatnonzero(minor).tolist():
        r = parts[k]
        if k < main and not 0 <= r[-1] < head <= parts[main][0]:  # above the headline, above the main run
            continue
        out[r[~inside[r]]] = False
    return out


def after_article(page: Page, keep: np.ndarray) -> np.ndarray:
    """``keep`` without the blocks after the ``<article>`` element that holds the most kept
    words, when it holds at least :data:`ARTICLE_SHARE` of them (see the module docstring);
    a new array, ``keep`` is not changed."""
    out = keep.copy()
    el = page.elements
    articles = np.flatnonzero(el.tag == TAG_ID["article"])
    if len(articles) == 0 or not keep.any():
        return out
    words = np.where(keep, page.words, 0)
    by_container = np.argsort(page.container, kind="stable")
    containers = page.container[by_container]
    cum = np.concatenate(([0], np.cumsum(words[by_container])))  # kept words of blocks up to a container
    inside = cum[np.searchsorted(containers, el.end[articles], side="right")] - cum[np.searchsorted(containers, articles)]
    best = int(np.argmax(inside))
    if inside[best] >= ARTICLE_SHARE * words.sum():
        out[page.container > el.end[articles[best]]] = False
    return out
