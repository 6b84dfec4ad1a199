"""The frame of 2020s templates inside the article's run: blocks the model keeps that a reader skips.

The CRF, trained mostly on 2005-2012 pages, sees a block and its near neighbours; templates of the
2020s set pieces of the site's frame right inside the article's run, where they look like text to
it and where :mod:`.mainbody`'s rules, which judge a block by where it sits, cannot see them.  They
give themselves away by markup or by a few fixed phrases, so :func:`frame_labels` drops, after
decoding and whatever the model says:

* **captions**: blocks inside a ``<figcaption>`` (HTML5's caption element; a photo's description
  and credit, not the story);
* **the site's boxes**: blocks inside an element whose class/id names a newsletter, subscription,
  promotion, related/recommended/popular/trending list, teaser, sponsor, disclaimer, share bar,
  author or comment box, navigation or ad (:data:`FRAME_KEYWORDS`), or inside an ``<aside>``,
  ``<nav>`` or ``<footer>`` (:data:`FRAME_TAGS`), when that element holds under
  :data:`FRAME_ELEMENT_SHARE` of the kept words (so a page whose whole article sits in, say,
  ``div.post-share-wrapper`` or an ``<aside>`` keeps it);
* **recirculation lines**: a short block that opens with a label such as "Also read:", "Related:",
  "Lesen Sie auch:", "Lire aussi :" and whose rest is mostly link text (:data:`RECIRCULATION`);
* **calls to sign up and affiliate notices**: short blocks holding phrases such as "by signing up",
  "to your inbox", "we may earn a commission", "become a paid subscriber" (:data:`CALLS`).

The word lists are short and hold only phrases that introduce the frame (English first, with the
common German, French, Spanish, Portuguese, Polish, Italian and Dutch recirculation labels); the tag
and class/id rules hold no words of a language.  Chosen by leave-one-collection-out over seven
collections with fixed fold models (``bench/bench_extract.py``; see ``docs/results.md``): each rule
raised the mean and WCXB's 2025-26 pages.  The older collections' gold sometimes counts captions
(Readability's tests) and "Related:" lines (Dragnet's blogs) as content; the modern pages' gold, and
readers, do not.  A broader call-to-action list (any "newsletter", "follow us on") and dropping
every repeated block were tried and lost more on the older collections than they gained.
"""

from __future__ import annotations

import re

import numpy as np

from .blocks import KEYWORDS, TAG_ID, TAGS, Page
from .held import held_at

FRAME_KEYWORDS = tuple(
    """newsletter subscribe promo related teaser disclaimer sponsor outbrain taboola recommend trending
    popular social share author comment nav menu breadcrumb ad ads advert banner cookie login search
    toolbar rss""".split()
)
"""Class/id keywords (of :data:`.blocks.KEYWORDS`) of the site's boxes: recirculation, sign-up, share,
author and comment boxes, navigation, ads.  Each group was added only when leave-one-collection-out
with fixed fold models kept every collection at or above (``caption`` was not: CleanPortalEval's
gold keeps the text of its ``caption`` elements)."""
FRAME_BITS = np.uint64(sum(1 << KEYWORDS.index(w) for w in FRAME_KEYWORDS))
FRAME_TAGS = ("aside", "nav", "footer")
"""HTML5's elements of what is not the article -- tangential content, navigation, a section's footer
(its author, tags, share links) -- boxes of the frame like a :data:`FRAME_KEYWORDS` class/id, under the
same share (chosen by leave one collection out with fixed fold models: ``docs/results.md``, issue 28's
eighth pass)."""
_FRAME_TAG = np.zeros(len(TAGS) + 1, dtype=bool)  # by tag id
_FRAME_TAG[[TAG_ID[t] for t in FRAME_TAGS]] = True
FRAME_ELEMENT_SHARE = 0.3
"""An element with a :data:`FRAME_KEYWORDS` class/id is a box of the frame only when it holds less
than this share of the kept words."""
RECIRCULATION_WORDS = 40
"""A recirculation line has at most this many words, and at least half of those after its label in links."""
RECIRCULATION = re.compile(
    r"^\W{0,3}(?:also read|read also|read more|more|related|related reading|related articles?|related stories|"
    r"related posts?|related content|related coverage|see also|further reading|recommended|recommended reading|"
    r"don'?t miss|you may also like|you might also like|must read|"
    r"lesen sie auch|lesen sie mehr|mehr zum thema|auch interessant|das könnte sie auch interessieren|"
    r"lire aussi|à lire aussi|a lire aussi|voir aussi|leia também|leia mais|lee también|lea también|"
    r"te puede interesar|czytaj też|czytaj także|zobacz też|leggi anche|lees ook)\s*[:»>|\-–—]\s",
    re.I | re.M,
)
"""The label opening a recirculation line ("Also read: <linked headline>"); multi-line, so that it
matches at the start of each of the block texts joined by newlines (a block's text has none)."""
CALL_WORDS = 60
"""A call to sign up or an affiliate notice has at most this many words."""
CALLS = re.compile(
    r"\b(?:sign up (?:for|to) (?:our|my|the)|subscribe (?:to (?:our|my)|now|today)|(?:in|to) your inbox|"
    r"by (?:signing up|clicking|subscribing)|you agree to (?:our|the|receive)|"
    r"(?:we|i) (?:may )?(?:earn|receive|get) (?:a )?(?:small )?(?:commission|compensation)|affiliate links?|"
    r"become a (?:paid )?(?:subscriber|member))",
    re.I,
)
"""Phrases of a call to sign up (a newsletter box's text, its legal line) or of an affiliate notice."""
CALLS_HELD = ("sign up", "subscribe", "your inbox", "by signing up", "by clicking", "by subscribing", "you agree to",
              "commission", "compensation", "affiliate link", "become a ")
"""Every match of :data:`CALLS` holds one of these words (:mod:`.held`): only the blocks holding one are
searched (the tests derive it from the pattern)."""


def below(page: Page, marked: np.ndarray) -> np.ndarray:
    """Per element of ``page``, whether it or an ancestor is one of the ``marked`` elements (pre-order
    ranges: +1 where a marked subtree starts, -1 past its end, a cumulative sum)."""
    el = page.elements
    depth = np.zeros(len(el) + 1, dtype=np.int64)
    np.add.at(depth, marked, 1)
    np.add.at(depth, el.end[marked] + 1, -1)
    return np.cumsum(depth[:-1]) > 0


def _matching(texts: list[str], rows: np.ndarray, pattern: re.Pattern[str], held: tuple[str, ...] = ()) -> np.ndarray:
    """The ``rows`` whose text matches ``pattern``, searched in one pass over their texts joined by
    newlines (block texts hold none), not one search per block; with ``held``, the words every match
    of ``pattern`` holds (:mod:`.held`; a pattern that matches no newline), only the rows holding one
    of them are searched."""
    if len(rows) == 0:
        return rows
    parts = [texts[i] for i in rows.tolist()]
    joined = "\n".join(parts)
    starts = np.cumsum([0] + [len(t) + 1 for t in parts[:-1]])
    found = held_at(joined, held) if held else None
    if found is not None:  # a row's matches are the same among fewer rows: none spans a newline
        return _matching(texts, rows[np.unique(np.searchsorted(starts, found, side="right") - 1)], pattern)
    at = np.searchsorted(starts, [m.start() for m in pattern.finditer(joined)], side="right") - 1
    return rows[np.unique(at)] if len(at) else rows[:0]


def frame_labels(page: Page, keep: np.ndarray) -> np.ndarray:
    """``keep`` without the frame blocks of the module docstring: captions, blocks of small
    recirculation and sign-up boxes, recirculation lines, calls to sign up; a new array.  When that
    would drop every kept block, ``keep`` is returned as it is (the page is then all frame to these
    rules, and the model's reading is the better guess)."""
    out = keep.copy()
    if not keep.any():
        return out
    el = page.elements
    cont = page.container
    drop = np.flatnonzero(el.tag == TAG_ID["figcaption"])
    boxes = np.flatnonzero(((el.keywords & FRAME_BITS) != 0) | _FRAME_TAG[el.tag])
    if len(boxes):
        cum = np.concatenate(([0.0], np.cumsum(np.bincount(cont, np.where(keep, page.words, 0), len(el)))))
        held = cum[el.end[boxes] + 1] - cum[boxes]
        drop = np.concatenate((drop, boxes[held < FRAME_ELEMENT_SHARE * cum[-1]]))
    if len(drop):
        out &= ~below(page, drop)[cont]
    words, links = page.words, page.link_words
    lines = np.flatnonzero(out & (words <= RECIRCULATION_WORDS) & (links > 0))
    for i in _matching(page.texts, lines, RECIRCULATION).tolist():
        m = RECIRCULATION.match(page.texts[i])
        label = len(m.group(0).split()) if m else 0
        if words[i] > label and 2 * links[i] >= words[i] - label:
            out[i] = False
    out[_matching(page.texts, np.flatnonzero(out & (words <= CALL_WORDS)), CALLS, CALLS_HELD)] = False
    return out if out.any() else keep
