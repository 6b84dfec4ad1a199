"""HTML page -> text blocks (CEDAR §4.1), the units the extractors label.

A **block** is text that a browser renders without a line break.  Following CEDAR, a
block ends at every tag except the inline ones the paper lists (a, ins, del, bdo, em,
strong, dfn, code, samp, kbd, var, cite, abbr, acronym, q, sub, sup, tt, i, b, big,
small, u, s, strike, basefont, font).  Decisions beyond the paper's list:

* ``span``, ``label``, ``img``, ``mark``, ``time``, ``nobr``, ``wbr``, ``bdi`` and
  ``data`` are inline too: browsers render them inline, and sites wrap words of one
  sentence in them (splitting there would cut sentences into fragments);
* ``br`` *ends* a block: it is a rendered line break, and pages that separate
  paragraphs with ``<br><br>`` instead of ``<p>`` then still get one block per
  paragraph (which the output keeps as paragraph breaks);
* unknown tags (custom elements) end blocks, as ``div`` does.

The lexbor parser (via selectolax) builds the DOM from any input, repairing broken or
truncated markup.  A declarative shadow root (``<template shadowrootmode="open">``: a web
component's server-rendered content, which browsers render in place of the ``<template>``) is
opened into an ordinary element (:func:`open_shadow_roots`), so that its text is not dropped
with the inert templates.  Before splitting it drops what is never rendered as text:
``script``, ``style``, ``noscript``, ``template``, the ``head`` (after reading the
title), embedded documents and graphics, form drop-downs, raw-text relics, hidden inputs, and
elements hidden by the ``hidden`` attribute or an inline ``display:none`` / ``visibility:hidden``
style.  The cleaned DOM is serialized and split by the compiled scanner of
:mod:`.scan`.

Each block keeps its text (whitespace collapsed), its word count, how many of those
words sit inside links, and its container: the innermost non-inline element.  The page
keeps its titles and, when it declares one in JSON-LD, its ``articleBody``: structured data
the publisher gives search engines, which :mod:`.features` uses as a cross-check of blocks
(read before the scripts are dropped).  The
elements are a flat pre-order table (:class:`Elements`: tag id, parent, depth, last
descendant, class/id) so :mod:`.features` computes tag paths and subtree text shares
with numpy.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
from selectolax.lexbor import LexborHTMLParser

from ..hashing import hash_str
from .guard import check_depth
from .scan import keyword_masks, scan

INLINE_TAGS = frozenset(
    "a ins del bdo em strong dfn code samp kbd var cite abbr acronym q sub sup tt i b big "
    "small u s strike basefont font span label img mark time nobr wbr bdi data".split()
)
"""Tags that do not end a block: CEDAR's list plus the ones documented above."""

VOID_TAGS = frozenset("area base br col embed hr img input keygen link meta param source track wbr".split())
"""Elements without content or end tag."""

TAGS = tuple(
    sorted(INLINE_TAGS | VOID_TAGS)
    + """p div td th tr table tbody thead tfoot li ul ol dl dd dt h1 h2 h3 h4 h5 h6 section
    article header footer nav aside main figure figcaption blockquote pre form button center
    body html address caption legend fieldset option textarea menu details summary dialog
    picture video audio iframe""".split()
)
"""Tags with an id (``TAGS.index(t) + 1``); any other tag has id 0."""
TAG_ID = {t: i + 1 for i, t in enumerate(TAGS)}
_HEADING = np.zeros(len(TAGS) + 1, dtype=bool)
_HEADING[[TAG_ID[f"h{k}"] for k in range(1, 7)]] = True
_CONTROL = np.zeros(len(TAGS) + 1, dtype=bool)
_CONTROL[[TAG_ID["button"], TAG_ID["textarea"]]] = True

DROPPED_TAGS = (
    "script style noscript template head title iframe frame frameset object embed applet svg math "
    "canvas select datalist xmp plaintext noembed noframes"
).split()
"""Elements removed with their content before splitting: never rendered as text."""

HIDDEN_SELECTOR = ", ".join(
    ["[hidden]", 'input[type="hidden" i]']
    + [f'[style*="{prop}:{sp}{val}" i]' for prop, val in (("display", "none"), ("visibility", "hidden")) for sp in ("", " ")]
)
"""Elements hidden from the reader (hidden inputs too: form state such as ASP.NET's, which
sites put anywhere, even beside the article's paragraphs); removed with their content."""


@dataclass
class Elements:
    """The non-inline elements of a page in document (pre-)order.

    ``end[i]`` is the index of the last element inside element ``i`` (its subtree is
    ``i..end[i]``), so subtree sums are differences of a cumulative sum.  ``attrs[i]``
    is its class, id and itemprop values joined by spaces.
    """

    tag: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    end: np.ndarray
    keywords: np.ndarray
    """Per element, the bitmask of :data:`.features.KEYWORDS` in its class/id/itemprop values."""
    source: bytes = b""
    spans: np.ndarray | None = None
    """Byte ranges of each element's class, id and itemprop values in ``source``."""
    buf: np.ndarray | None = None
    """``source`` as a (writable) byte array, for the compiled passes over it."""

    def naming(self, words: tuple[str, ...], among: np.ndarray) -> np.ndarray:
        """Per element of ``among``, bit ``k`` set when its class or id value holds ``words[k]`` (lower-case
        ASCII letters, as :data:`KEYWORDS`: 4+ letters anywhere in a value, case ignored; shorter ones
        whole): the compiled pass of the keywords (:func:`.scan.keyword_masks`) with another word list."""
        if self.spans is None or self.buf is None or not len(among):
            return np.zeros(len(among), dtype=np.uint64)
        return keyword_masks(self.buf, np.ascontiguousarray(self.spans[among, :4]), *_keyword_table(words))

    def __len__(self) -> int:
        return len(self.tag)

    @cached_property
    def attrs(self) -> list[str]:
        """Per element, its class, id and itemprop values joined by spaces ("" when none);
        decoded on demand (the features need only :attr:`keywords`)."""
        if self.spans is None:
            return [""] * len(self)
        return [self._attr(row) for row in self.spans.tolist()]

    def _attr(self, row: list[int]) -> str:
        c0, c1, i0, i1, p0, p1 = row
        if c1 <= c0 and i1 <= i0 and p1 <= p0:
            return ""
        return " ".join(self.source[a:b].decode("utf-8", "replace") for a, b in ((c0, c1), (i0, i1), (p0, p1)))

    def holding(self, word: str) -> list[int]:
        """The elements whose :attr:`attrs` hold ``word`` as one of their space-separated words, in
        document order.  Found by searching the page's bytes for ``word`` and decoding only the
        elements whose values contain it: decoding every element's values took a twentieth of
        extraction's time on 2020s pages, whose elements carry long class lists."""
        if self.spans is None:
            return []
        needle = word.encode("utf-8")
        found = []
        at = self.source.find(needle)
        while at >= 0:
            found.append(at)
            at = self.source.find(needle, at + 1)
        if not found:
            return []
        starts = np.array(found)
        lo, hi = self.spans[:, 0::2, None], self.spans[:, 1::2, None]  # (element, value, occurrence)
        inside = ((lo <= starts) & (starts + len(needle) <= hi)).any(axis=(1, 2))
        rows = self.spans[inside].tolist()
        return [int(e) for e, row in zip(np.flatnonzero(inside), rows) if word in self._attr(row).split()]


@dataclass
class Page:
    """A page split into blocks: texts, word and link-word counts, containers; its titles and
    the JSON-LD ``articleBody`` text (empty when the page has none)."""

    texts: list[str]
    words: np.ndarray
    link_words: np.ndarray
    container: np.ndarray
    elements: Elements
    title: str
    meta_title: str
    article_body: str = ""

    def __len__(self) -> int:
        return len(self.texts)

    def is_heading(self) -> np.ndarray:
        """Whether each block's container is a heading (h1-h6)."""
        return _HEADING[self.elements.tag[self.container]]

    def is_control(self) -> np.ndarray:
        """Whether each block is the text of a form control: its container is a ``<button>`` or
        ``<textarea>``, or holds at least as many ``<input>`` elements as blocks (a poll's
        option beside its radio button, a check box's label, a search box's prompt; not an
        article's ``<br>``-separated paragraphs beside one search box).  Hidden inputs, which
        sites put anywhere, count for nothing: they are dropped with the other elements a
        reader never sees."""
        el = self.elements
        n = len(el)
        inputs = np.bincount(el.parent[(el.tag == TAG_ID["input"]) & (el.parent >= 0)], minlength=n)
        blocks = np.bincount(self.container, minlength=n)
        return (_CONTROL[el.tag] | (inputs >= blocks))[self.container]  # a container has >= 1 block


@lru_cache(maxsize=1)
def _tables() -> tuple[np.ndarray | np.int64, ...]:
    """Sorted tag-name hashes with their ids, the inline/void flags by id, and entities."""
    hashes = np.array([hash_str(t) for t in TAGS], dtype=np.uint64)
    order = np.argsort(hashes)
    ids = np.arange(1, len(TAGS) + 1, dtype=np.int64)
    inline = np.zeros(len(TAGS) + 1, dtype=np.bool_)
    void = np.zeros(len(TAGS) + 1, dtype=np.bool_)
    for t, i in TAG_ID.items():
        inline[i] = t in INLINE_TAGS
        void[i] = t in VOID_TAGS
    entities = [np.frombuffer(e, dtype=np.uint8) for e in (b"&amp;", b"&lt;", b"&gt;", b"&nbsp;", b"&quot;")]
    return (hashes[order], ids[order], inline, void, np.int64(TAG_ID["a"]), *entities)


KEYWORDS = tuple(
    """nav menu footer header side comment related share social ad ads advert sponsor promo
    banner outbrain taboola breadcrumb copyright disclaimer widget tag login subscribe newsletter
    rss popular trending recommend toolbar search cookie pagination hidden article content story
    body main post entry text caption photo image credit byline author date dateline timestamp
    title headline summary lead meta source video gallery list link item teaser""".split()
)
"""Class/id/itemprop keywords (at most 64: an element's set is a uint64 bitmask); words of 4+
letters match inside a value, shorter ones only whole (:func:`.scan.keyword_masks`)."""
assert len(KEYWORDS) <= 64 and all(len(k) >= 2 and k.isalpha() for k in KEYWORDS)  # a bitmask; two-letter buckets


@lru_cache(maxsize=8)
def _keyword_table(keywords: tuple[str, ...] = KEYWORDS) -> tuple[np.ndarray, ...]:
    """``keywords`` (default :data:`KEYWORDS`) for :func:`.scan.keyword_masks`: sorted, as a padded
    byte matrix, their lengths, which match only whole, their bits, and where the keywords of each
    pair of first letters start."""
    order = sorted(range(len(keywords)), key=lambda k: keywords[k])
    width = max(map(len, keywords))
    words = np.zeros((len(keywords), width), dtype=np.uint8)
    for row, k in enumerate(order):
        words[row, : len(keywords[k])] = np.frombuffer(keywords[k].encode("ascii"), dtype=np.uint8)
    lengths = np.array([len(keywords[k]) for k in order], dtype=np.int64)
    pairs = (words[:, 0].astype(np.int64) - 97) * 26 + words[:, 1].astype(np.int64) - 97
    first = np.searchsorted(pairs, np.arange(26 * 26 + 1)).astype(np.int64)
    return words, lengths, lengths < 4, np.array(order, dtype=np.int64), first


def keyword_mask(attrs: str) -> int:
    """Bit ``i`` set when class/id string ``attrs`` holds ``KEYWORDS[i]`` (as the features see it)."""
    data = np.frombuffer(attrs.encode("utf-8"), dtype=np.uint8)
    return int(keyword_masks(data, np.array([[0, len(data)]], dtype=np.int64), *_keyword_table())[0])


def parse(html: str) -> LexborHTMLParser:
    """The lexbor tree of ``html`` (any string: broken markup is repaired, not rejected).

    The page is encoded once, for the depth check and for the parser, which is given the bytes
    (given a string, it encodes it itself, dropping lone surrogates: so are they here)."""
    if not isinstance(html, str):
        raise TypeError(f"html must be str, not {type(html).__name__} (decode bytes first)")
    try:
        data = html.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates, which have no UTF-8 (the depth check passes them)
        check_depth(html)
        data = html.encode("utf-8", "ignore")
    else:
        check_depth(html, data)
    return LexborHTMLParser(data.replace(b"\x00", b"") if b"\x00" in data else data)


_TITLE_SELECTOR = 'title, meta[property="og:title"], meta[name="twitter:title"]'
_ARTICLE_BODY = re.compile(r'"articleBody"\s*:\s*"((?:[^"\\]|\\.)*)"')
"""A JSON string value of an ``articleBody`` key."""


def declared(tree: LexborHTMLParser, html: str) -> tuple[str, str, str]:
    """What ``html`` (parsed as ``tree``) declares of itself: its ``<title>``, its og:/twitter: title
    (the first of each, og:title before twitter:title; empty when absent) and the ``articleBody``
    strings of its JSON-LD scripts, joined (empty when none); all in one pass over the tree (a
    second pass for the scripts cost as much again).

    The bodies are read with a regular expression rather than a JSON parser: it needs no valid JSON
    around it (pages often break theirs), and the scripts are not looked at on pages without the key.
    On those, the ``<head>`` is searched first: it precedes every other element, so when it holds a
    ``<title>`` and a non-empty og:title, nothing after it can change the answer, and the rest of the
    tree is not searched (most pages; the whole tree's search was 4% of extraction).
    """
    with_body = '"articleBody"' in html
    head = None if with_body else tree.head
    if head is not None:
        title, og, twitter, parts = _declarations(head.css(_TITLE_SELECTOR))
        if title is None or not og:
            title, og, twitter, parts = _declarations(tree.css(_TITLE_SELECTOR))
    else:
        title, og, twitter, parts = _declarations(
            tree.css(_TITLE_SELECTOR + ', script[type="application/ld+json"]' if with_body else _TITLE_SELECTOR))
    return " ".join((title or "").split()), " ".join((og or twitter or "").split()), " ".join(" ".join(parts).split())


def _declarations(nodes: list) -> tuple[str | None, str | None, str | None, list[str]]:
    """The first ``<title>``'s text, the first non-empty og:title and twitter:title, and the
    ``articleBody`` strings of the JSON-LD scripts among ``nodes`` (in document order)."""
    title = og = twitter = None
    parts = []
    for node in nodes:
        tag = node.tag
        if tag == "title":
            title = title if title is not None else node.text()
        elif tag == "script":
            for m in _ARTICLE_BODY.finditer(node.text(deep=True) or ""):
                try:
                    parts.append(json.loads(f'"{m.group(1)}"'))
                except ValueError:
                    parts.append(m.group(1))
        elif node.attributes.get("property") == "og:title":
            og = og or node.attributes.get("content")
        else:
            twitter = twitter or node.attributes.get("content")
    return title, og, twitter, parts


_INERT_TEMPLATE = "template:not([shadowrootmode]):not([shadowroot])"
"""A ``<template>`` that is no declarative shadow root: never rendered."""
_CLEAN_SELECTOR = ", ".join(t if t != "template" else _INERT_TEMPLATE for t in DROPPED_TAGS) + ", " + HIDDEN_SELECTOR
_CLEAN_SCRIPTLESS = _CLEAN_SELECTOR.replace("noscript, ", "")


def clean(tree: LexborHTMLParser, noscript: bool = False) -> None:
    """Remove unrendered and hidden elements from ``tree`` in place.

    One selector query for all of them (one pass over the tree, not one per tag).  Nodes
    are unlinked without freeing their subtrees (``recursive=False``), so a match nested
    in an earlier match is never touched after being freed; the document's memory is
    released with the tree.  With ``noscript`` the ``<noscript>`` elements' content is kept (the
    page as a browser without scripts renders it).
    """
    for node in tree.css(_CLEAN_SCRIPTLESS if noscript else _CLEAN_SELECTOR):
        node.decompose(recursive=False)


_TEMPLATE_TAG = re.compile(r"""<template\b(?:[^>"']|"[^"]*"|'[^']*')*>|</template\s*>""", re.I)
_SHADOW_ATTR = re.compile(r"""\sshadowroot(?:mode)?\s*=""", re.I)


def open_shadow_roots(markup: str) -> str:
    """``markup`` (serialized by the parser: well formed, every template closed in order) with the tags
    of its declarative shadow roots, ``<template shadowrootmode>`` (or the older ``shadowroot``), made
    ``<div>``: a browser renders a shadow root's content where its template stands."""
    parts: list[str] = []
    stack: list[bool] = []
    last = 0
    for m in _TEMPLATE_TAG.finditer(markup):
        tag = m.group(0)
        if tag.startswith("</"):
            opened = stack.pop() if stack else False
            new = "</div>" if opened else tag
        else:
            opened = _SHADOW_ATTR.search(tag) is not None
            stack.append(opened)
            new = "<div>" if opened else tag
        parts += [markup[last:m.start()], new]
        last = m.end()
    parts.append(markup[last:])
    return "".join(parts)


def page_blocks(html: str, noscript: bool = False) -> Page:
    """Parse, clean and split ``html`` into blocks (with ``noscript``, as rendered without scripts:
    the ``<noscript>`` elements' content kept)."""
    tree = parse(html)
    title, meta, body = declared(tree, html)
    clean(tree, noscript)
    return split(tree, title, meta, body, noscript)


def split(tree: LexborHTMLParser, title: str = "", meta_title: str = "", body: str = "", noscript: bool = False) -> Page:
    """Split a cleaned tree into blocks, in document order.

    A template left by the cleaning is a declarative shadow root, whose content the parser keeps
    apart from the tree, where the cleaning did not reach: the serialized body is then parsed again
    with the shadow roots opened (:func:`open_shadow_roots`) and cleaned (with ``noscript``, the
    ``<noscript>`` content kept, as by :func:`clean`).  Other pages pay one search of the serialized
    body for ``<template``."""
    root = tree.body or tree.root
    markup = root.html if root is not None else None
    data = markup.encode("utf-8", "replace") if markup is not None else b""
    if b"<template" in data and markup is not None:
        tree = LexborHTMLParser(open_shadow_roots(markup).encode("utf-8", "replace"))
        clean(tree, noscript)
        root = tree.body or tree.root
        data = (root.html or "").encode("utf-8", "replace") if root is not None else b""
    buf = np.frombuffer(bytearray(data), dtype=np.uint8)
    out, words, links, owner, tag, parent, depth, end, spans = scan(buf, *_tables())
    texts = out.tobytes().decode("utf-8", "replace").split("\x00")[:-1]
    keywords = keyword_masks(buf, spans, *_keyword_table())
    elements = Elements(tag, parent, depth, end, keywords, data, spans, buf)
    return Page(texts, words, links, owner, elements, title, meta_title, body)
