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
  main run (its subtree; :func:`enclosing`), or the nearest ``<article>`` element around that one
  (:func:`article_around`: a 2020s template sets each section of one article in a box of its own,
  and the main run is then one section; the page's ``<article>`` says where the rest is).  A minor
  run inside the article's own element (a pull quote, the second half of a story past a large
  inline box) is never touched;
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

Pages of the 2020s also split one article into sections -- subheadings, lists, ad slots and
newsletter boxes between them -- and the CRF, trained mostly on 2005-2012 pages, often keeps the
first section and drops the rest: a block under ``div.content-nav-section`` or after an ad slot
looks to it like the frame.  :func:`fill_article` puts the sections back: it finds the element
holding most of the page's prose (long, link-poor blocks) and adds its prose blocks, subheadings
and list items near the kept ones, but not what sits in the site's frame inside it (related
stories, newsletter and share boxes, author boxes, captions: class/id keywords and the
``aside``/``nav``/``footer``/``form`` tags), a list of teasers (text right after a linked headline),
or a lone line past the article's end (a call to subscribe).  Chosen by leave-one-collection-out
over seven collections (``bench/bench_extract.py``, WCXB's 2025-26 pages the seventh): every
held-out collection at or above the rule-less run with the same fold models (WCXB 0.910 -> 0.929,
CleanEval 0.865 -> 0.877, Readability 0.929 -> 0.936; the bench's LOCO mean of seven 0.923 -> 0.930); the guards (near, edge, teasers) were added
for the GoldSet, where one line of a site's call to subscribe added to two short stories merged
their clusters.
Later (issue 28, third pass) the candidates grew by the linked list items (a listicle's list of
links; not a teaser list, which the frame and teaser guards keep out) and the table cells of the
article's span, and :data:`NEAR_LEVELS` from three to four so a cell can reach the kept block before
it: leave one collection out with fixed fold models, WCXB 0.9372 -> 0.9402 with the frame rules of
:mod:`.frame` (four levels alone: 0.9387 -> 0.9402, Dragnet -0.0006 the largest loss).
"""

from __future__ import annotations

import numpy as np

from .blocks import TAG_ID, TAGS, Page
from .features import BlockStats, block_stats, headline

RUN_GAP = 4
"""Kept blocks with at most this many not-kept blocks between them are one run."""
MINOR_SHARE = 0.5
"""A run is minor (may be dropped) when it holds at most this share of the main run's words."""
ARTICLE_SHARE = 0.5
"""An ``<article>`` element holding at least this share of the kept words is the page's article."""
_ARTICLE = TAG_ID["article"]


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
    starts = np.cumsum([0] + [len(r) for r in parts[:-1]])
    words = np.add.reduceat(page.words[np.flatnonzero(keep)], starts)  # per run, in one call
    main = int(np.argmax(words))
    minor = words <= MINOR_SHARE * words[main]
    minor[main] = False
    if not minor.any():
        return out
    head = -1
    if minor[:main].any():
        head = headline(page, stats if stats is not None else block_stats(page))
    first, last = article_around(page, *enclosing(page, parts[main]))
    inside = (page.container >= first) & (page.container <= last)
    for k in np.flatnonzero(minor).tolist():
        r = parts[k]
        if k < main and not 0 <= r[-1] < head <= parts[main][0]:  # above the headline, above the main run
            continue
        out[r[~inside[r]]] = False
    return out


def article_around(page: Page, first: int, last: int) -> tuple[int, int]:
    """The pre-order range of the nearest ``<article>`` element enclosing element ``first`` (itself
    included); ``(first, last)`` when none does."""
    el = page.elements
    e = first
    while e >= 0:
        if el.tag[e] == _ARTICLE:
            return e, int(el.end[e])
        e = int(el.parent[e])
    return first, last


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


FILL_SHARE = 0.6
"""The article's element for :func:`fill_article`: the lowest element holding at least this share
of the page's prose words."""
PROSE_WORDS = 10
"""A prose block has at least this many words, and at most :data:`PROSE_LINKS` of them in links."""
PROSE_LINKS = 0.3
_FRAME_WORDS = frozenset(
    """comment related share social ad ads advert sponsor promo outbrain taboola newsletter subscribe
    recommend popular trending cookie login footer side teaser author byline caption credit
    disclaimer copyright breadcrumb banner pagination""".split()
)
_FRAME_TAGS = ("nav", "aside", "footer", "form", "figcaption")
_FRAME_TAG = np.zeros(len(TAGS) + 1, dtype=bool)  # by tag id: a lookup, not np.isin (ten times faster)
_FRAME_TAG[[TAG_ID[t] for t in _FRAME_TAGS]] = True
_CELL_TAG = np.zeros(len(TAGS) + 1, dtype=bool)
_CELL_TAG[[TAG_ID["td"], TAG_ID["th"]]] = True


def _frame_bits() -> np.uint64:
    from .blocks import KEYWORDS

    bits = 0
    for k, word in enumerate(KEYWORDS):
        if word in _FRAME_WORDS:
            bits |= 1 << k
    return np.uint64(bits)


FRAME_BITS = _frame_bits()


TEASERS = 2
"""This many prose blocks each right after a linked line (a teaser's headline) make a list of
teasers, which :func:`fill_article` does not add."""
EDGE_PROSE = 2
"""Blocks added past the kept article's first or last block are kept only when this many of them
are prose (a section, not a lone line), or are in the same element as the kept block they follow
(precede)."""
NEAR_LEVELS = 4
"""A block is added only when an element at most this many levels above its container also holds
the kept (or added) block before it (after it, before the article's first kept block).  Four, not
three, since table cells and linked list items are candidates (a cell sits under tr, tbody and
table): leave one collection out with fixed fold models, WCXB 0.9387 -> 0.9402, mean of seven
0.9327 -> 0.9329; five lost WCXB again (0.9391)."""
DECLARED_SHARE = 0.3
"""An ``itemprop="articleBody"`` element holding at least this share of the page's prose words is
the article's element for :func:`fill_article`."""


def _declared_body_element(page: Page) -> int:
    """The element marked ``itemprop="articleBody"`` holding the most text, -1 when none."""
    el = page.elements
    marked = el.holding("articleBody")
    if not marked:
        return -1
    words = np.bincount(page.container, page.words.astype(np.float64), len(el))
    cum = np.concatenate(([0.0], np.cumsum(words)))
    return max(marked, key=lambda i: cum[el.end[i] + 1] - cum[i])


def fill_article(page: Page, keep: np.ndarray) -> np.ndarray:
    """``keep`` with the sections of the article the model missed (see the module docstring); a
    new array, ``keep`` is not changed.

    The article's element is the lowest element holding at least :data:`FILL_SHARE` of the words
    of the page's prose blocks (:data:`PROSE_WORDS`+ words, at most :data:`PROSE_LINKS` of them in
    links, not headings), or the ``itemprop="articleBody"`` element when it holds
    :data:`DECLARED_SHARE` of them; nothing is added unless the model kept a block inside it.  Inside
    it, between its first and last prose block, the prose blocks, subheadings not mostly links, list
    items (linked or not: a listicle's list of links is its body) and table cells not mostly links
    are candidates, except those below an element of the site's frame (class/id
    keywords of :data:`FRAME_BITS`: related, newsletter, share, comment, author, caption, ...; tags
    ``nav``, ``aside``, ``footer``, ``form``, ``figcaption``) and, when there are
    :data:`TEASERS`+ of them, the prose blocks right after a linked line (a teaser list).  A
    candidate is added when it is near the kept or added block before it in page order
    (:data:`NEAR_LEVELS`; blocks before the first kept block grow backwards from it), and what is
    added past the first or last kept block stays only when it holds :data:`EDGE_PROSE`+ prose
    blocks."""
    out = keep.copy()
    n = len(page)
    if n == 0 or not keep.any():
        return out
    el = page.elements
    words = page.words.astype(np.float64)
    prose = (words >= PROSE_WORDS) & (page.link_words <= PROSE_LINKS * words) & ~page.is_heading()
    total = words[prose].sum()
    if total == 0:
        return out
    m = len(el)
    per_el = np.bincount(page.container[prose], words[prose], m)
    cum = np.concatenate(([0.0], np.cumsum(per_el)))
    idx = np.arange(m)
    sub = cum[el.end + 1] - cum[idx]
    cands = np.flatnonzero(sub >= FILL_SHARE * total)
    e = int(cands[np.argmax(el.depth[cands])])
    declared = _declared_body_element(page)
    if declared >= 0 and sub[declared] >= DECLARED_SHARE * total:
        e = declared  # the publisher's itemprop="articleBody" element, when it holds a good part of the prose
    last = int(el.end[e])
    inside = (page.container >= e) & (page.container <= last)
    if not (keep & inside).any():
        return out
    bad = np.flatnonzero(((el.keywords[e + 1:last + 1] & FRAME_BITS) != 0)
                         | _FRAME_TAG[el.tag[e + 1:last + 1]]) + e + 1
    depth = np.zeros(last - e + 2, dtype=np.int64)  # elements below a frame element: pre-order ranges
    np.add.at(depth, bad - e, 1)
    np.add.at(depth, el.end[bad] + 1 - e, -1)
    frame = np.cumsum(depth[:-1]) > 0
    ok = inside.copy()
    ok[inside] = ~frame[page.container[inside] - e]
    linked = (page.link_words * 2 >= words) & (words >= 3)
    after_link = np.zeros(n, dtype=bool)
    after_link[1:] |= linked[:-1]
    after_link[2:] |= linked[:-2] & (words[1:-1] < 3)  # a date or a dot between the link and the text
    teaser = prose & ok & ~keep & after_link
    if teaser.sum() >= TEASERS:
        ok &= ~teaser
    core = np.flatnonzero(prose & ok)
    if len(core) == 0:
        return out
    lo, hi = int(core[0]), int(core[-1])
    span = np.zeros(n, dtype=bool)
    span[lo:hi + 1] = True
    li = el.tag[page.container] == TAG_ID["li"]
    cell = _CELL_TAG[el.tag[page.container]]
    minor = (page.is_heading() & (words >= 2)) | ((li | cell) & (words >= 1))
    minor &= (page.link_words * 2 <= words) | li  # a list of links inside the body is the body's (a listicle)
    cand = ok & span & (prose | minor) & ~keep
    cont = page.container
    anchors = np.flatnonzero(keep & inside)
    if len(anchors) == 0:
        return out

    end, up = el.end, el.parent

    def near(b: int, a: int) -> bool:  # an element at most NEAR_LEVELS above b's container encloses a's
        x, ca = int(cont[b]), int(cont[a])
        for _ in range(NEAR_LEVELS + 1):
            if x <= ca <= end[x]:
                return True
            if up[x] < 0:
                return False
            x = int(up[x])
        return False

    start = int(anchors[0])
    anchor_set = set(anchors.tolist())
    after = np.flatnonzero(cand | (keep & inside))
    prev = start
    for b in after[after > start].tolist():
        if b in anchor_set:
            prev = b
        elif near(b, prev):
            out[b] = True
            prev = b
    nxt = start
    for b in np.flatnonzero(cand[:start])[::-1].tolist():
        if near(b, nxt):
            out[b] = True
            nxt = b
    added = out & ~keep
    parent = el.parent[cont]
    for side, anchor in ((np.arange(n) > anchors[-1], anchors[-1]), (np.arange(n) < anchors[0], anchors[0])):
        if (added & side & prose).sum() < EDGE_PROSE:  # one line past the article: a call to subscribe, a credit
            out[added & side & (parent != parent[anchor])] = False  # unless a sibling of the article's paragraphs
    return out
