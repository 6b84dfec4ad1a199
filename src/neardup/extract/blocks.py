"""HTML page -> text blocks (CEDAR §4.1), the units the extractors label.

A **block** is text that a browser renders without a line break.  Following CEDAR, a
block ends at every tag except the inline ones the paper lists (a, ins, del, bdo, em,
strong, dfn, code, samp, kbd, var, cite, abbr, acronym, q, sub, sup, tt, i, b, big,
small, u, s, strike, basefont, font).  Decisions beyond the paper's list:

* ``span``, ``label``, ``img``, ``mark``, ``time``, ``nobr``, ``wbr``, ``bdi``, ``data``
  and ``font`` are inline too: browsers render them inline, and sites wrap words of one
  sentence in them (splitting there would cut sentences into fragments);
* ``br`` *ends* a block: it is a rendered line break, and pages that separate
  paragraphs with ``<br><br>`` instead of ``<p>`` then still get one block per
  paragraph (which the output keeps as paragraph breaks).

Before splitting, the lexbor parser (via selectolax; it repairs any broken markup)
drops what is never rendered as text: ``script``, ``style``, ``noscript``,
``template``, the ``head``, embedded documents and graphics, form drop-downs, and
elements hidden with the ``hidden`` attribute or an inline ``display:none`` /
``visibility:hidden`` style.

Each block keeps its text, whitespace-collapsed, how many of its words sit inside
links, and the element that contains it (the innermost non-inline ancestor).  The
elements themselves are kept as a flat pre-order table (:class:`Elements`: tag,
parent, depth, class/id) so :mod:`.features` can compute tag paths and subtree text
shares with numpy instead of walking the tree again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from selectolax.lexbor import LexborHTMLParser, LexborNode

INLINE_TAGS = frozenset(
    "a ins del bdo em strong dfn code samp kbd var cite abbr acronym q sub sup tt i b big "
    "small u s strike basefont font span label img mark time nobr wbr bdi data".split()
)
"""Tags that do not end a block: CEDAR's list plus the ones documented above."""

DROPPED_TAGS = (
    "script style noscript template head title iframe frame frameset object embed applet svg math "
    "canvas select datalist"
).split()
"""Elements removed with their content before splitting: never rendered as text."""

HIDDEN_SELECTOR = ", ".join(
    ["[hidden]"]
    + [f'[style*="{prop}:{sp}{val}" i]' for prop, val in (("display", "none"), ("visibility", "hidden")) for sp in ("", " ")]
)
"""Elements hidden from the reader; removed with their content."""

_TEXT_TAG = "-text"


@dataclass
class Elements:
    """The non-inline elements of a page in document (pre-)order.

    ``end[i]`` is the index of the last element inside element ``i`` (its subtree is
    ``i..end[i]``), so subtree sums are differences of a cumulative sum.
    """

    tags: list[str]
    attrs: list[str]
    parent: np.ndarray
    depth: np.ndarray
    end: np.ndarray


@dataclass
class Page:
    """A page split into blocks: texts, link words, containers, and its title metadata."""

    texts: list[str]
    link_words: np.ndarray
    words: np.ndarray
    container: np.ndarray
    elements: Elements
    title: str
    meta_title: str
    nodes: list[list[LexborNode]] | None = None

    def __len__(self) -> int:
        return len(self.texts)


def parse(html: str) -> LexborHTMLParser:
    """The lexbor tree of ``html`` (any string: broken markup is repaired, not rejected)."""
    if not isinstance(html, str):
        raise TypeError(f"html must be str, not {type(html).__name__} (decode bytes first)")
    return LexborHTMLParser(html.replace("\x00", ""))


def _meta_title(tree: LexborHTMLParser) -> tuple[str, str]:
    """``<title>`` and the og:/twitter: title of the page (empty when absent)."""
    node = tree.css_first("title")
    title = " ".join(node.text().split()) if node is not None else ""
    meta = ""
    for sel in ('meta[property="og:title"]', 'meta[name="twitter:title"]', 'meta[name="title"]'):
        node = tree.css_first(sel)
        content = node.attributes.get("content") if node is not None else None
        if content:
            meta = " ".join(content.split())
            break
    return title, meta


def clean(tree: LexborHTMLParser) -> None:
    """Remove unrendered and hidden elements from ``tree`` in place."""
    tree.strip_tags(DROPPED_TAGS)
    for node in tree.css(HIDDEN_SELECTOR):
        node.decompose()


def page_blocks(html: str) -> Page:
    """Parse, clean and split ``html`` into blocks."""
    tree = parse(html)
    title, meta = _meta_title(tree)
    clean(tree)
    return split(tree, title, meta)


def split(tree: LexborHTMLParser, title: str = "", meta_title: str = "", keep_nodes: bool = False) -> Page:
    """Split a cleaned tree into blocks, in document order.

    With ``keep_nodes`` each block also keeps its text nodes (to label blocks from
    annotations on the same tree).
    """
    tags: list[str] = []
    attrs: list[str] = []
    parent: list[int] = []
    depth: list[int] = []
    end: list[int] = []
    texts: list[str] = []
    link_words: list[int] = []
    words: list[int] = []
    container: list[int] = []
    nodes: list[list[LexborNode]] | None = [] if keep_nodes else None

    pieces: list[str] = []
    block_nodes: list[LexborNode] = []
    n_link = 0
    in_link = 0

    def flush(owner: int) -> None:
        """End the current block (if it has any text) as a block of element ``owner``."""
        nonlocal n_link, block_nodes
        text = " ".join("".join(pieces).split())
        if text:
            texts.append(text)
            link_words.append(n_link)
            words.append(len(text.split()))
            container.append(owner)
            if nodes is not None:
                nodes.append(block_nodes)
        pieces.clear()
        n_link = 0
        if keep_nodes:
            block_nodes = []

    root = tree.body or tree.root
    if root is None:
        return _page(tags, attrs, parent, depth, end, texts, link_words, words, container, title, meta_title, nodes)
    # Frames of open elements: (node, element index or -1 for inline, is link).
    stack: list[tuple[LexborNode, int, bool]] = []
    owner = _open(root, -1, tags, attrs, parent, depth, end)
    stack.append((root, owner, False))
    node: LexborNode | None = root.child
    while stack:
        if node is None:
            done, index, is_link = stack.pop()
            if index >= 0:
                if pieces:
                    flush(index)
                end[index] = len(tags) - 1
                owner = parent[index]
            elif is_link:
                in_link -= 1
            node = done.next if stack else None
            continue
        tag = node.tag
        if tag == _TEXT_TAG:
            text = node.text_content
            if text:
                pieces.append(text)
                if in_link:
                    n_link += len(text.split())
                if keep_nodes:
                    block_nodes.append(node)
            node = node.next
            continue
        if tag is None or tag[0] in "-!_":  # comments, doctype, processing instructions
            node = node.next
            continue
        if tag in INLINE_TAGS:
            is_link = tag == "a"
            in_link += is_link
            stack.append((node, -1, is_link))
        else:
            if pieces:
                flush(owner)
            owner = _open(node, owner, tags, attrs, parent, depth, end)
            stack.append((node, owner, False))
        node = node.child
    return _page(tags, attrs, parent, depth, end, texts, link_words, words, container, title, meta_title, nodes)


def _open(node: LexborNode, owner: int, tags: list[str], attrs: list[str], parent: list[int], depth: list[int], end: list[int]) -> int:
    """Record a non-inline element; returns its index."""
    a = node.attributes
    tags.append(node.tag or "")
    attrs.append(f"{a.get('class') or ''} {a.get('id') or ''}" if a else "")
    parent.append(owner)
    depth.append(depth[owner] + 1 if owner >= 0 else 0)
    end.append(len(tags) - 1)
    return len(tags) - 1


def _page(tags, attrs, parent, depth, end, texts, link_words, words, container, title, meta_title, nodes) -> Page:
    elements = Elements(
        tags=tags,
        attrs=attrs,
        parent=np.asarray(parent, dtype=np.int64),
        depth=np.asarray(depth, dtype=np.int64),
        end=np.asarray(end, dtype=np.int64),
    )
    return Page(
        texts=texts,
        link_words=np.asarray(link_words, dtype=np.int64),
        words=np.asarray(words, dtype=np.int64),
        container=np.asarray(container, dtype=np.int64),
        elements=elements,
        title=title,
        meta_title=meta_title,
        nodes=nodes,
    )
