"""A bound on HTML nesting, checked before a page is parsed.

An HTML parser keeps a stack of open elements and looks through it at almost every tag, so
a page of N nested elements takes time quadratic in N: 100,000 nested ``<div>`` take the
lexbor parser (selectolax) 11 s, 1,000,000 more than four minutes -- one such page in a
crawl, or one request to ``neardup serve``'s open ``/query``, would hold a worker that long.
Browsers flatten anything deeper than 512 (Blink's parser limit), so no page meant to be
read nests deeper than that.  :func:`html_depth_over` estimates the deepest nesting in one
linear pass (without building anything) and names a page over :data:`MAX_HTML_DEPTH`; the
parser entry points call :func:`check_depth`, so every extractor refuses such a page
(``TooDeep``), and the input stage counts it as "HTML nested too deeply".

The estimate follows the parser where it matters: void elements (``<br>``, ``<img>``) and
elements whose end tag is implied (``<p>``, ``<li>``, ``<td>``, ``<option>``) do not nest,
comments and the raw text of ``<script>``/``<style>``/``<textarea>`` hold no tags, ``/>``
closes an element only inside SVG or MathML (``<div/>`` opens a ``div`` in HTML).
"""

from __future__ import annotations

import re

#: Deepest element nesting parsed (estimated as described above); deeper pages are refused.
MAX_HTML_DEPTH = 5000

_TAG = re.compile(r"<(?:(/)?([A-Za-z][A-Za-z0-9:-]*)|!--)")
_VOID = frozenset("area base br col embed hr img input keygen link meta param source track wbr frame basefont "
                  "bgsound image isindex".split())
#: End tag implied by a sibling or the parent's end: never nested by an unclosed start tag.
_IMPLIED = frozenset("p li dt dd option optgroup tr td th tbody thead tfoot rb rt rp rtc colgroup caption html "
                     "head body a nobr".split())
_RAW = {name: re.compile(rf"</{name}[\s/>]", re.I) for name in
        ("script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "noscript", "plaintext")}
_FOREIGN = frozenset(("svg", "math"))


class TooDeep(ValueError):
    """A page nests elements deeper than :data:`MAX_HTML_DEPTH`: it is not parsed."""


def html_depth_over(html: str, limit: int = MAX_HTML_DEPTH) -> str | None:
    """Why ``html`` is too deeply nested to parse (a short message), or None.

    Linear in the page; free for pages of fewer than ``limit`` tags (``str.count``).
    """
    if html.count("<") <= limit:
        return None
    depth = foreign = 0
    pos = 0
    search = _TAG.search
    while True:
        m = search(html, pos)
        if m is None:
            return None
        name = m.group(2)
        if name is None:  # a comment
            end = html.find("-->", m.end())
            if end < 0:
                return None
            pos = end + 3
            continue
        pos = m.end()
        name = name.lower()
        if m.group(1):  # an end tag
            if name in _FOREIGN and foreign:
                foreign -= 1
            if name not in _VOID and name not in _IMPLIED and depth:
                depth -= 1
            continue
        if name in _VOID or name in _IMPLIED:
            continue
        if foreign:  # inside SVG / MathML "/>" closes the element
            close = html.find(">", pos)
            if close > 0 and html[close - 1] == "/":
                continue
        raw = _RAW.get(name)
        if raw is not None:  # its content is text up to its end tag
            closing = raw.search(html, pos)
            if closing is None:
                return None
            pos = closing.end()
            continue
        if name in _FOREIGN:
            foreign += 1
        depth += 1
        if depth > limit:
            return (f"elements nested over {limit:,} deep (at character {m.start():,}); parsing time grows with "
                    "the square of the depth, browsers flatten past 512")


def check_depth(html: str) -> None:
    """Raise :class:`TooDeep` for a page :func:`html_depth_over` refuses."""
    why = html_depth_over(html)
    if why is not None:
        raise TooDeep(why)
