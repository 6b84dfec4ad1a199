"""The visible text of a page: everything a browser would render as text.

Drops ``script``, ``style``, ``noscript``, ``template`` and the ``head``; decodes entities
(the lexbor parser behind selectolax does, and it copes with broken markup).  Text of
different elements is joined with line breaks so that words never fuse across tags.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from .guard import check_depth

_INVISIBLE = ["script", "style", "noscript", "template", "head", "iframe", "svg"]


def visible_text(html: str) -> str:
    """The visible text of ``html``, one text node per line."""
    check_depth(html)
    tree = LexborHTMLParser(html)
    tree.strip_tags(_INVISIBLE)
    root = tree.body or tree.root
    if root is None:
        return ""
    return root.text(separator="\n", strip=True)
