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

from functools import lru_cache

import numpy as np

#: Deepest element nesting parsed (estimated as described above); deeper pages are refused.
MAX_HTML_DEPTH = 5000

_VOID = frozenset("area base br col embed hr img input keygen link meta param source track wbr frame basefont "
                  "bgsound image isindex".split())
#: End tag implied by a sibling or the parent's end: never nested by an unclosed start tag.
_IMPLIED = frozenset("p li dt dd option optgroup tr td th tbody thead tfoot rb rt rp rtc colgroup caption html "
                     "head body a nobr".split())
#: Elements whose content is text up to ``</name`` and white space, ``/`` or ``>`` (any case).
_RAW_NAMES = frozenset("script style textarea title xmp iframe noembed noframes noscript plaintext".split())
_FOREIGN = frozenset(("svg", "math"))


class TooDeep(ValueError):
    """A page nests elements deeper than :data:`MAX_HTML_DEPTH`: it is not parsed."""


def html_depth_over(html: str, limit: int = MAX_HTML_DEPTH, data: bytes | None = None) -> str | None:
    """Why ``html`` is too deeply nested to parse (a short message), or None.

    Linear in the page; nearly free for pages of at most ``limit`` start tags (:func:`_openings_over`).
    Other pages are read by a compiled pass over their UTF-8 bytes (:func:`.scan.depth_over`): as a loop
    of regular-expression searches in Python it took a tenth of extraction's time on 2020s pages,
    which have 5,000 tags and more.  ``data``: ``html`` in UTF-8 when the caller has it (the parser's
    input: a page is then encoded once, not once here and once for the parser).
    """
    if data is None:
        if html.count("<") <= limit:
            return None
        data = html.encode("utf-8", "surrogatepass")
    buf = np.frombuffer(data, dtype=np.uint8)
    if not _openings_over(buf, limit):
        return None
    from .scan import depth_over

    at = depth_over(buf, limit, *_depth_tables())
    if at < 0:
        return None
    char = len(data[:at].decode("utf-8", "surrogatepass"))
    return (f"elements nested over {limit:,} deep (at character {char:,}); parsing time grows with "
            "the square of the depth, browsers flatten past 512")


def _openings_over(buf: np.ndarray, limit: int) -> bool:
    """Whether the UTF-8 page ``buf`` has more than ``limit`` places where a start tag may open ("<" and
    an ASCII letter).  Only those nest (:func:`.scan.depth_over` counts a level at each, at most), so a
    page with fewer is never too deep: the exact answer, with no compiled pass.  Counted with numpy
    on the bytes: ``str.count("<")``, which this replaced, took 2% of extraction on 2020s pages, and the
    few of them with over 5,000 "<" (3%) went through the compiled pass, though half of those are end tags."""
    lt = buf[:-1] == 60
    if np.count_nonzero(lt) <= limit:
        return False
    folded = buf[1:][lt] | 0x20  # ASCII letters to lower case; no other byte lands on one
    return int(np.count_nonzero((folded >= 97) & (folded <= 122))) > limit


@lru_cache(maxsize=1)
def _depth_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The void, implied-end, raw-text and foreign tag names for :func:`.scan.depth_over`: a padded
    byte matrix, their lengths and their kinds (1 void, 2 implied end, 3 raw text, 4 foreign)."""
    groups = ((_VOID, 1), (_IMPLIED, 2), (_RAW_NAMES, 3), (_FOREIGN, 4))
    names = [(name, kind) for group, kind in groups for name in sorted(group)]
    matrix = np.zeros((len(names), max(len(name) for name, _ in names)), dtype=np.uint8)
    for row, (name, _) in enumerate(names):
        matrix[row, : len(name)] = np.frombuffer(name.encode("ascii"), dtype=np.uint8)
    return (matrix, np.array([len(name) for name, _ in names], dtype=np.int64),
            np.array([kind for _, kind in names], dtype=np.int64))


def check_depth(html: str, data: bytes | None = None) -> None:
    """Raise :class:`TooDeep` for a page :func:`html_depth_over` refuses (``data``: ``html`` in UTF-8, if known)."""
    why = html_depth_over(html, data=data)
    if why is not None:
        raise TooDeep(why)
