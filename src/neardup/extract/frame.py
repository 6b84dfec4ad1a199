"""The frame of 2020s templates inside the article's run: blocks the model keeps that a reader skips.

The CRF, trained mostly on 2005-2012 pages, sees a block and its near neighbours; templates of the
2020s set pieces of the site's frame right inside the article's run, where they look like text to
it and where :mod:`.mainbody`'s rules, which judge a block by where it sits, cannot see them.  They
give themselves away by markup or by a few fixed phrases, so :func:`frame_labels` drops, after
decoding and whatever the model says:

* **captions**: blocks inside a ``<figcaption>`` (HTML5's caption element; a photo's description
  and credit, not the story);
  -- unless the page is a gallery, whose captions are its story (:func:`gallery_captions`);
* **the site's boxes**: blocks inside an element whose class/id names a newsletter, subscription,
  promotion, related/recommended/popular/trending list, teaser, sponsor, disclaimer, share bar,
  author or comment box, navigation or ad (:data:`FRAME_KEYWORDS`), or inside an ``<aside>``,
  ``<nav>`` or ``<footer>`` (:data:`FRAME_TAGS`), or whose class/id value holds ``paywall``,
  ``regwall`` or ``subscription`` anywhere (:data:`FRAME_NAMES`: a paywall's box under a truncated
  story, a platform's subscription widget), when that element holds under
  :data:`FRAME_ELEMENT_SHARE` of the kept words (so a page whose whole article sits in, say,
  ``div.post-share-wrapper`` or an ``<aside>`` keeps it);
* **consent managers**: blocks inside an element whose class/id holds ``consent``, ``cookie``,
  ``gdpr`` or the name of a common consent platform (:data:`CONSENT_NAMES`), when that element holds
  no ``<h1>``, ``<article>`` or ``<main>``, and either under :data:`CONSENT_SHARE` of the kept words
  or leaves :data:`CONSENT_REST`+ kept words outside it: a cookie banner and its "privacy preference
  center" are a modal laid over every page of a site, often of hundreds of words of prose about
  partners and purposes -- longer than a short story, so neither the box share below nor
  :mod:`.mainbody`'s minor runs take it -- and never the article (a page wrapper whose class records
  the visitor's consent holds the headline, or the article and all but a few kept words);
* **recirculation lines**: a short block that opens with a label such as "Also read:", "Related:",
  "Lesen Sie auch:", "Lire aussi :" and whose rest is mostly link text (:data:`RECIRCULATION`);
* **calls to sign up and affiliate notices**: short blocks holding phrases such as "by signing up",
  "to your inbox", "subscribe for free" (a newsletter platform's box under every post), "we may earn a
  commission", "become a paid subscriber" (:data:`CALLS`).

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
FRAME_NAMES = ("paywall", "regwall", "subscription")
"""Lower-case parts of class/id values of the site's boxes that :data:`FRAME_KEYWORDS` (whole words of
the features' keyword list, or its words of 4+ letters inside a value) does not name, matched anywhere
in a value, case ignored (:meth:`.blocks.Elements.naming`)."""
CONSENT_NAMES = ("consent", "cookie", "gdpr", "onetrust", "didomi")
"""Lower-case parts of the class/id values of cookie-consent boxes (``onetrust-consent-sdk``,
``fc-consent-root``, ``CybotCookiebotDialog``, ``cookie-banner``, ``gdpr-modal``, ``didomi-host``),
matched anywhere in a value, case ignored (:meth:`.blocks.Elements.naming`)."""
CONSENT_SHARE = 0.5
"""A consent box is dropped when it holds less than this share of the kept words, ..."""
CONSENT_REST = 50
"""... or when at least this many kept words lie outside it (a short story beside a long banner)."""
_NOT_CONSENT = np.zeros(len(TAGS) + 1, dtype=bool)  # by tag id: what a consent box never holds
_NOT_CONSENT[[TAG_ID[t] for t in ("h1", "article", "main")]] = True
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
    r"\b(?:sign up (?:for|to) (?:our|my|the)|subscribe (?:for free|to (?:our|my)|now|today)|(?:in|to) your inbox|"
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


def _kept_under(page: Page, keep: np.ndarray) -> tuple[np.ndarray, float]:
    """The kept words under each element of ``page`` and the kept words of the page."""
    el = page.elements
    cum = np.concatenate(([0.0], np.cumsum(np.bincount(page.container, np.where(keep, page.words, 0), len(el)))))
    return cum[el.end + 1] - cum[:-1], float(cum[-1])


_NAMES = FRAME_NAMES + CONSENT_NAMES
_FRAME_NAME_BITS = np.uint64(sum(1 << _NAMES.index(w) for w in FRAME_NAMES))
_CONSENT_BITS = np.uint64(sum(1 << _NAMES.index(w) for w in CONSENT_NAMES))


def named_boxes(page: Page, held: np.ndarray, total: float) -> tuple[np.ndarray, np.ndarray]:
    """The elements of ``page`` holding kept words (``held`` per element, ``total`` in all) whose
    class/id names a box of :data:`FRAME_NAMES`, and the cookie-consent boxes to drop (the module
    docstring).  Only the elements holding kept words are searched for the names (the ancestors of
    the kept blocks, a small part of a page's elements)."""
    el = page.elements
    among = np.flatnonzero(held > 0)
    masks = el.naming(_NAMES, among)
    frame = among[(masks & _FRAME_NAME_BITS) != 0]
    consent = among[(masks & _CONSENT_BITS) != 0]
    if len(consent):
        inner = np.concatenate(([0], np.cumsum(_NOT_CONSENT[el.tag])))
        holds = inner[el.end[consent] + 1] - inner[consent]  # h1/article/main elements in the subtree
        rest = total - held[consent]
        consent = consent[((held[consent] < CONSENT_SHARE * total) | (rest >= CONSENT_REST)) & (holds == 0)]
    return frame, consent


GALLERY_CAPTIONS = 3
"""A gallery has at least this many captions of prose (:func:`gallery_captions`)."""
CAPTION_WORDS = 6
"""A caption block of fewer words is a photo's credit or a counter, not its description."""


def gallery_captions(page: Page, keep: np.ndarray) -> np.ndarray:
    """The caption blocks of ``page`` to keep because the page is a photo gallery: the blocks of
    :data:`CAPTION_WORDS`+ words, not mostly links, inside ``<figcaption>`` elements, when there are
    :data:`GALLERY_CAPTIONS`+ of them and they hold more words than the kept blocks that are not
    headings (a slideshow's page shows its headline, perhaps a line of introduction, and the photos;
    the captions are what it reports).  None otherwise: the caption of an article's photo is not its
    story (the module docstring)."""
    none = np.zeros(len(page), dtype=bool)
    el = page.elements
    figcaptions = np.flatnonzero(el.tag == TAG_ID["figcaption"])
    if len(figcaptions) < GALLERY_CAPTIONS:
        return none
    words = page.words
    prose = below(page, figcaptions)[page.container] & (words >= CAPTION_WORDS) & (2 * page.link_words < words)
    if prose.sum() < GALLERY_CAPTIONS:
        return none
    body = int(words[keep & ~prose & ~page.is_heading()].sum())
    return prose if int(words[prose].sum()) > body else none


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
    held, total = _kept_under(page, keep)
    named, consent = named_boxes(page, held, total)
    drop = np.concatenate((np.flatnonzero(el.tag == TAG_ID["figcaption"]), consent))
    boxes = np.union1d(np.flatnonzero(((el.keywords & FRAME_BITS) != 0) | _FRAME_TAG[el.tag]), named)
    if len(boxes):
        drop = np.concatenate((drop, boxes[held[boxes] < FRAME_ELEMENT_SHARE * total]))
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
    if not out.any():
        return keep
    return out | gallery_captions(page, out)
