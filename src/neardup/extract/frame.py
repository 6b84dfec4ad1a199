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
  author or comment box, navigation or ad (:data:`FRAME_KEYWORDS`), or a byline, dateline or timestamp
  (:data:`CREDIT_KEYWORDS`: only its short lines, not a heading or a sentence), or inside an ``<aside>``,
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
  "Lesen Sie auch:", "Lire aussi :", "Читайте также:", "اقرأ أيضا:" and whose rest is mostly link text
  (:data:`RECIRCULATION`), or, in a script written without spaces ("関連記事：", "相关阅读："), is one short
  run of characters (:func:`spaceless_headline`);
* **labelled lists of links**: a block that is such a label alone ("More coverage", "Mehr zum Thema",
  "İlgili Haberler") and the :data:`LIST_LINKS`+ blocks of link text right after it
  (:func:`labelled_lists`: a box of linked headlines set between a story's paragraphs, named by no
  class);
* **a second copy of the body**: the kept blocks of an element that repeat, text for text, those of
  an earlier sibling element (:func:`repeated_copies`: templates that print the body twice, one copy
  for phones and one for desktops, a style sheet hiding one);
* **calls to sign up and affiliate notices**: short blocks holding phrases such as "by signing up",
  "to your inbox", "subscribe for free" (a newsletter platform's box under every post), "we may earn a
  commission", "become a paid subscriber" (:data:`CALLS`).

The word lists are short and hold only phrases that introduce the frame (English first, with the
common German, French, Spanish, Portuguese, Polish, Italian, Dutch, Turkish, Arabic, Japanese, Chinese
and Russian recirculation labels); the tag and class/id rules hold no words of a language.  Chosen by
leave-one-collection-out over seven collections with fixed fold models (``bench/bench_extract.py``; see ``docs/results.md``): each rule
raised the mean and WCXB's 2025-26 pages.  The older collections' gold sometimes counts captions
(Readability's tests) and "Related:" lines (Dragnet's blogs) as content; the modern pages' gold, and
readers, do not.  A broader call-to-action list (any "newsletter", "follow us on") and dropping
every repeated block were tried and lost more on the older collections than they gained (a copy is
now only a whole sibling element's text).
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
CREDIT_KEYWORDS = ("byline", "dateline", "timestamp")
"""Class/id keywords of the boxes of a story's credit lines (a byline of a bare name, "山田太郎", which
:mod:`.credits` cannot tell by its shape): their short lines are dropped (:data:`CREDIT_LINE_WORDS`)."""
CREDIT_BITS = np.uint64(sum(1 << KEYWORDS.index(w) for w in CREDIT_KEYWORDS))
CREDIT_LINE_WORDS = 6
"""In such a box (under :data:`FRAME_ELEMENT_SHARE` of the kept words) only a line is dropped: a block of at
most this many words that is no heading (a headline set in a ``title-byline`` box) and does not end as a
sentence does (a lede set in an ``article-byline`` box)."""
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
_LABELS = (
    r"(?:also read|read also|read more|more|related|related reading|related articles?|related stories|"
    r"related posts?|related content|related coverage|see also|further reading|recommended|recommended reading|"
    r"don'?t miss|you may also like|you might also like|must read|"
    r"lesen sie auch|lesen sie mehr|mehr zum thema|auch interessant|das könnte sie auch interessieren|"
    r"lire aussi|à lire aussi|a lire aussi|voir aussi|leia também|leia mais|lee también|lea también|"
    r"te puede interesar|czytaj też|czytaj także|zobacz też|leggi anche|lees ook|"
    r"more coverage|more on this story|read next|"
    r"ilgili haber(?:ler)?|bunlar da ilginizi çekebilir|اقرأ أيضا|اقرأ أيضاً|اقرأ المزيد|أخبار ذات صلة|"
    r"関連記事|関連ニュース|あわせて読みたい|相关阅读|相关新闻|延伸阅读|推荐阅读|相關閱讀|相關新聞|"
    r"читайте также|читайте ещё|читайте еще|смотрите также|по теме|"
    r"sur le même sujet|noticias relacionadas|artículos relacionados|notícias relacionadas|weitere artikel)"
)
"""The labels of the site's links to its other stories, in English and the common languages of the news."""
RECIRCULATION = re.compile(rf"^\W{{0,3}}{_LABELS}(?:\s*[:»>|\-–—]\s|\s*：\s*)", re.I | re.M)
"""The label opening a recirculation line ("Also read: <linked headline>"); multi-line, so that it
matches at the start of each of the block texts joined by newlines (a block's text has none)."""
SPACELESS_CHARS = 40
"""The longest headline after a recirculation label in a script written without spaces."""
_SPACELESS = re.compile("[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
LIST_HEAD = re.compile(rf"^\W{{0,3}}(?!see also|further reading){_LABELS}[^\w\n]{{0,3}}$", re.I | re.M)
"""A block that is a label alone ("More coverage", "Mehr zum Thema", "İlgili Haberler"): the head of
a list of linked headlines when the blocks after it are links (:data:`LIST_LINKS`); not "See also" or
"Further reading", which head a reference work's own section of links."""
LIST_HEAD_WORDS = 6
"""A list's head has at most this many words."""
LIST_LINKS = 2
"""A labelled list drops its head and the linked blocks right after it when there are at least this
many of them (every word of each in a link): one link under a label may be a story's source."""
LIST_AFTER_WORDS = 30
"""... and when at least this many words of kept text that is not links follow the list (the story goes on)."""
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


def spaceless_headline(text: str) -> bool:
    """Whether ``text`` is one run of at most :data:`SPACELESS_CHARS` characters, written in a script
    without spaces between words (``関連記事：<headline>``): the links of such a line cannot be told by
    its words (a run of characters is one word, counted in a link only when the link holds all of it),
    so the rest of a recirculation label is taken as the linked headline by its shape."""
    return 0 < len(text) <= SPACELESS_CHARS and not any(c.isspace() for c in text) and bool(_SPACELESS.search(text))


def labelled_lists(page: Page, keep: np.ndarray) -> np.ndarray:
    """The kept blocks of ``page`` that make a labelled list of links set inside the story: a short block
    that is a label alone (:data:`LIST_HEAD`) and the :data:`LIST_LINKS`+ kept blocks right after it whose
    every word is in a link, followed by :data:`LIST_AFTER_WORDS`+ words of kept text that is not links
    ("More coverage" and three linked headlines between a story's paragraphs).  A list at the story's end
    is left to the other rules: older collections' gold counts a blog's "Related posts:" under the post."""
    out = np.zeros(len(page), dtype=bool)
    kept = np.flatnonzero(keep)
    words, links = page.words[kept], page.link_words[kept]
    linked = np.append((words > 0) & (links >= words), False)  # a sentinel ends the last run
    after = np.concatenate((np.cumsum((words * ~linked[:-1])[::-1])[::-1], [0]))  # prose words from each on
    for at in np.searchsorted(kept, _matching(page.texts, kept[words <= LIST_HEAD_WORDS], LIST_HEAD)).tolist():
        end = at + 1 + int(np.argmin(linked[at + 1:]))  # the first kept block after the links
        if end - at - 1 >= LIST_LINKS and after[end] >= LIST_AFTER_WORDS:
            out[kept[at:end]] = True
    return out


COPY_WORDS = 30
"""A copy of the body has at least this many kept words (:func:`repeated_copies`)."""
COPY_NAMES = ("mobile", "desktop", "tablet", "hidden", "visible")
"""Lower-case parts of the class/id values that show an element on one kind of screen and hide it on another
(``mobile-only``, ``body--desktop``, ``hidden-xs``, ``visible-lg``): one of two copies carries one
(:func:`repeated_copies`).  Not "show" or "none": they are parts of other names ("slideshow")."""


def repeated_copies(page: Page, keep: np.ndarray) -> np.ndarray:
    """The kept blocks of ``page`` inside an element whose kept blocks repeat, text for text, those of an
    earlier sibling element of :data:`COPY_WORDS`+ kept words, when one of the two has a class/id naming
    the screens it is shown on (:data:`COPY_NAMES`): a template's second copy of the body (one for phones,
    one for desktops, the other hidden by a style sheet), which a reader sees once.  Only such sibling
    elements are compared: a paragraph or quote that repeats another elsewhere on the page, and a page
    printed twice (whose old collections' gold counts both copies), are kept."""
    out = np.zeros(len(page), dtype=bool)
    el = page.elements
    held, _ = _kept_under(page, keep)
    count = np.concatenate(([0], np.cumsum(np.bincount(page.container[keep], minlength=len(el)))))
    blocks = count[el.end + 1] - count[:-1]
    cand = np.flatnonzero((held >= COPY_WORDS) & (el.parent >= 0))
    if len(cand) < 2:
        return out
    key = np.stack((el.parent[cand], held[cand].astype(np.int64), blocks[cand]))
    order = np.lexsort(key[::-1])
    same = (key[:, order[1:]] == key[:, order[:-1]]).all(axis=0)
    if not same.any():
        return out
    cont = page.container
    kept = np.flatnonzero(keep)

    def texts(e: int) -> list[str]:
        return [page.texts[i] for i in kept[(cont[kept] >= e) & (cont[kept] <= el.end[e])].tolist()]

    pairs = np.sort(np.stack((cand[order[:-1][same]], cand[order[1:][same]])), axis=0)
    named = el.naming(COPY_NAMES, pairs.ravel()).reshape(pairs.shape) != 0
    for first, second in pairs[:, named.any(axis=0)].T.tolist():
        if texts(first) == texts(second):
            out |= below(page, np.array([second]))[cont] & keep
    return out


def frame_labels(page: Page, keep: np.ndarray) -> np.ndarray:
    """``keep`` without the frame blocks of the module docstring: captions, blocks of small
    recirculation and sign-up boxes, short lines of credit boxes, recirculation lines, calls to sign
    up, labelled lists of links, a second copy of the body; a new array.  When that
    would drop every kept block, ``keep`` is returned as it is (the page is then all frame to these
    rules, and the model's reading is the better guess)."""
    out = keep.copy()
    if not keep.any():
        return out
    el = page.elements
    cont = page.container
    held, total = _kept_under(page, keep)
    words, links = page.words, page.link_words
    named, consent = named_boxes(page, held, total)
    drop = np.concatenate((np.flatnonzero(el.tag == TAG_ID["figcaption"]), consent))
    boxes = np.union1d(np.flatnonzero(((el.keywords & FRAME_BITS) != 0) | _FRAME_TAG[el.tag]), named)
    if len(boxes):
        drop = np.concatenate((drop, boxes[held[boxes] < FRAME_ELEMENT_SHARE * total]))
    if len(drop):
        out &= ~below(page, drop)[cont]
    credit = np.flatnonzero((el.keywords & CREDIT_BITS) != 0)
    if len(credit):
        boxed = below(page, credit[held[credit] < FRAME_ELEMENT_SHARE * total])[cont]
        for i in np.flatnonzero(out & boxed & (words <= CREDIT_LINE_WORDS) & ~page.is_heading()).tolist():
            out[i] = page.texts[i].rstrip().endswith((".", "!", "?", "\u3002"))  # a sentence is kept
    short = (words <= RECIRCULATION_WORDS) & ((links > 0) | (words <= 2))  # linked, or a spaceless script's line
    for i in _matching(page.texts, np.flatnonzero(out & short), RECIRCULATION).tolist():
        m = RECIRCULATION.match(page.texts[i])
        label = len(m.group(0).split()) if m else 0
        rest = page.texts[i][m.end():] if m else ""
        if (words[i] > label and 2 * links[i] >= words[i] - label) or spaceless_headline(rest):
            out[i] = False
    out[_matching(page.texts, np.flatnonzero(out & (words <= CALL_WORDS)), CALLS, CALLS_HELD)] = False
    out &= ~labelled_lists(page, out)
    out &= ~repeated_copies(page, out)
    if not out.any():
        return keep
    return out | gallery_captions(page, out)
