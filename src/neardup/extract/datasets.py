"""Labeled pages for training and evaluating extractors, read from two folder formats.

* **Annotated pages** (L3S-GN1 layout): ``original/ID.html`` as crawled,
  ``annotated/ID.html`` the same page with every text run wrapped in an element of class
  ``x-nc-selN`` (1 headline, 2 full text: content; 0 boilerplate, 3 supplemental,
  4 related, 5 comments: not content).  Block labels come from the annotations on the
  annotated copy; the gold text is its headline and full-text runs.
* **Pages with gold text** (``html/NAME.htm[l]`` and ``gold/NAME.txt``, title first):
  block labels come from matching each block of the page to the gold text
  (:func:`labels_from_gold`).
* **Input and gold standard** (``input/NAME.html`` and ``GoldStandard/NAME.txt``: the
  layout of the CleanEval, Dragnet, Readability and CleanPortalEval copies), labeled the
  same way.  Their gold files come in three formats, normalized by :func:`gold_text`.

A page's site (its cross-validation group) comes from an optional ``url-mapping.txt``
(``ID<TAB>URL`` per line) in either layout, else from the page itself (canonical URL,
else the most linked host); see :func:`site_of_host`.

:func:`load` finds either layout anywhere under the paths given (a folder of yearly
sub-folders included).  Page bytes are decoded as UTF-8 when they are valid UTF-8
(these corpora were re-encoded without fixing their ``<meta charset>``), otherwise by
:func:`neardup.io.readers.decode_html`.
"""

from __future__ import annotations

import html as html_lib
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

from ..errors import UserError
from ..io.readers import decode_html
from .blocks import Page, clean, declared, parse, split

CONTENT_CLASSES = frozenset({1, 2})
"""Annotation classes that are content: headline and full text."""

_SEL = re.compile(rb"""class\s*=\s*["']?x-nc-sel(\d)["']?""", re.I)
_NC_CLASS = re.compile(rb"x-nc-(?:invisible|linearized)")
_WORD = re.compile(r"\w+")
_ARCHIVED = r"""(?:[^"'\s>]*?/web/\d+[a-z_]*/)?(?:https?:)?//([^/"'\s>:?#]+)"""
"""An absolute URL's host; Wayback Machine links (``/web/<time>/http://host/``) unwrapped."""
_HREF = re.compile(r"""href\s*=\s*["']?""" + _ARCHIVED, re.I)
_CANONICAL = re.compile(
    r"""<(?:link[^>]+rel=["']?canonical["']?[^>]*href|meta[^>]+property=["']?og:url["']?[^>]*content)=["']?"""
    + _ARCHIVED,
    re.I,
)
_COMMENTS = re.compile(r"^[ \t]*[!@#$%^&*() ]{4,}[ \t]*COMMENTS[ \t\r]*$", re.M)
"""Dragnet's line between the article and its reader comments (typed by hand, so variants)."""
_CLEANEVAL_MARK = re.compile(r"^[ \t]*<[phl]>", re.M)
_SECOND_LEVEL = {"co", "com", "org", "net", "ac", "gov", "edu", "ne", "or"}


@dataclass
class LabeledPage:
    """A page with its gold article text.

    Annotated pages also keep their annotated copy and its blocks with their labels
    (``labeled``, from :func:`annotated_page`).
    """

    id: str
    dataset: str
    site: str
    html: str
    gold: str
    annotated: str | None = None
    labeled: tuple[Page, np.ndarray] | None = None


def read_html(path: Path) -> str:
    """The text of a page file: UTF-8 when it decodes as such, else by its declared charset."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return decode_html(data)


def site_of_host(host: str) -> str:
    """The site (brand) of a host name: its registrable name without the public suffix.

    ``news.bbc.co.uk`` and ``www.bbc.com`` are both ``bbc``, so one publisher's pages
    under different domains or years land in one cross-validation group.
    """
    parts = [p for p in host.lower().split(".") if p]
    if len(parts) >= 3 and parts[-2] in _SECOND_LEVEL and len(parts[-1]) == 2:
        return parts[-3]
    return parts[-2] if len(parts) >= 2 else (parts[0] if parts else "unknown")


def site_of_page(html: str) -> str:
    """A page's site: its canonical/og:url host, else the host it links to most."""
    canonical = _CANONICAL.search(html)
    if canonical and "archive.org" not in canonical.group(1):
        return site_of_host(canonical.group(1))
    hosts = Counter(site_of_host(h) for h in _HREF.findall(html) if "archive.org" not in h)
    return hosts.most_common(1)[0][0] if hosts else "unknown"


_MARK = 0xE000
"""Private-use code points ``_MARK + class`` tag annotated text runs while splitting."""
_MARKS = re.compile("([\ue000-\ue005])")
_UNMARK = {cp: None for cp in range(_MARK, _MARK + 6)}


def annotated_page(annotated: str) -> tuple[Page, np.ndarray, str]:
    """Blocks of an annotated copy, their content labels, and the gold text.

    The annotation classes become ``data-nc`` attributes before parsing, so they never
    reach the class/id features.  Each text run is then prefixed with a private-use
    character naming its innermost annotation class, the page is split as any other, and
    the marks are read back out of the block texts: a block is content when most of its
    words are in headline or full-text runs; the gold text keeps those runs, one line
    per block.
    """
    raw = _NC_CLASS.sub(b"", _SEL.sub(rb'data-nc="\1"', annotated.encode("utf-8", "replace")))
    text = raw.decode("utf-8", "replace")
    tree = parse(text)
    title, meta, body = declared(tree, text)
    clean(tree)
    label_of: dict[int, int] = {}
    for node in tree.css("[data-nc]"):  # outer before inner: the innermost class wins
        cls = int(node.attributes.get("data-nc") or 0)
        for sub in node.traverse(include_text=True):
            if sub.is_text_node:
                label_of[sub.mem_id] = cls
    root = tree.body or tree.root
    runs = [n for n in root.traverse(include_text=True) if n.is_text_node] if root is not None else []
    for node in runs:
        text = node.text_content or ""
        body = text.lstrip()
        if body:
            node.replace_with(text[: len(text) - len(body)] + chr(_MARK + label_of.get(node.mem_id, 0)) + body)
    page = split(tree, title, meta, body)
    labels = np.zeros(len(page), dtype=bool)
    gold_lines = []
    for i, text in enumerate(page.texts):
        parts = _MARKS.split(text)
        content = total = 0
        kept = []
        for mark, run in zip(parts[1::2], parts[2::2]):
            n = len(run.split())
            total += n
            if ord(mark) - _MARK in CONTENT_CLASSES:
                content += n
                kept.append(run)
        labels[i] = 2 * content > total
        line = " ".join("".join(kept).split())
        if line:
            gold_lines.append(line)
        page.texts[i] = " ".join(text.translate(_UNMARK).split())
    return page, labels, "\n".join(gold_lines)


def labels_from_gold(texts: list[str], gold: str, n: int = 3, min_share: float = 0.5) -> np.ndarray:
    """Content labels of blocks by matching them to the gold article text.

    A block of ``n`` or more words is content when at least ``min_share`` of its word
    ``n``-grams occur in the gold text; those blocks anchor the alignment.  A shorter
    block (a headline, a one-word paragraph) is content when a neighbouring anchor (the
    nearest longer block before or after it) is content and its words occur, in order,
    in the stretch of gold text between the content anchors around it -- short runs
    such as "Home" or "AP" also occur elsewhere in the article.
    """
    gold_tokens = [t.lower() for t in _WORD.findall(gold)]
    first_at: dict[tuple[str, ...], int] = {}
    for k in range(1, n + 1):
        for i in range(len(gold_tokens) - k + 1):
            first_at.setdefault(tuple(gold_tokens[i : i + k]), i)
    toks = [[t.lower() for t in _WORD.findall(text)] for text in texts]
    labels = np.zeros(len(texts), dtype=bool)
    span = np.zeros((len(texts), 2), dtype=np.int64)  # gold positions of a content anchor
    anchors = [i for i, t in enumerate(toks) if len(t) >= n]
    for i in anchors:
        hits = [first_at[g] for g in (tuple(toks[i][j : j + n]) for j in range(len(toks[i]) - n + 1)) if g in first_at]
        labels[i] = len(hits) >= min_share * (len(toks[i]) - n + 1)
        if labels[i]:
            span[i] = min(hits), max(hits) + n
    content = [i for i in anchors if labels[i]]
    for i, t in enumerate(toks):
        if not 0 < len(t) < n:
            continue
        at = np.searchsorted(anchors, i)
        beside = anchors[at - 1 : at] + anchors[at : at + 1]
        if not any(labels[j] for j in beside):
            continue
        c = np.searchsorted(content, i)
        lo = span[content[c - 1], 1] if c > 0 else 0
        hi = span[content[c], 0] if c < len(content) else len(gold_tokens)
        pos = first_at.get(tuple(t), -1)
        window = gold_tokens[lo:hi]
        labels[i] = pos >= 0 and any(window[j : j + len(t)] == t for j in range(len(window) - len(t) + 1))
    return labels


def gold_text(raw: str) -> str:
    """The article text of a gold file in any of the formats the collections use.

    * an HTML fragment (Mozilla Readability's expected output, ``<div id="readability-page-1">``):
      its text, one line per text node;
    * CleanEval text (a ``URL:`` line, then paragraphs opened by ``<p>``, ``<h>``, ``<l>``; also
      CleanPortalEval, whose text keeps HTML entities): the paragraphs without their markers,
      entities decoded -- headings and list items are content there;
    * plain text (Dragnet, msv-news): as it is, up to Dragnet's comment marker line (the reader
      comments that follow it are not the article).
    """
    body = raw.lstrip("\ufeff \t\r\n")
    if body.startswith("<") and not _CLEANEVAL_MARK.match(body):
        tree = parse(body)
        root = tree.body or tree.root
        return root.text(separator="\n", strip=True) if root is not None else ""
    if body.startswith("URL:"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        return html_lib.unescape(_CLEANEVAL_MARK.sub("", body))
    cut = _COMMENTS.search(body)
    return body[: cut.start()] if cut else body


def _url_site(gold: str) -> str | None:
    """The site of a CleanEval gold file's ``URL:`` line, if it has one."""
    head = gold.lstrip()[:500]
    if head.startswith("URL:"):
        host = urlsplit(head[4:].split("\n", 1)[0].strip()).hostname
        return site_of_host(host) if host else None
    return None


def _mapped_sites(root: Path) -> dict[str, str]:
    """Sites from ``root/url-mapping.txt`` (``ID<TAB>URL`` lines; ``<urn:uuid:ID>`` too), by ID."""
    mapping = root / "url-mapping.txt"
    sites: dict[str, str] = {}
    if mapping.exists():
        for line in mapping.read_text(encoding="utf-8", errors="replace").splitlines():
            if "\t" in line:
                key, url = line.split("\t", 1)
                host = urlsplit(url.strip()).hostname
                if host:
                    sites[key.strip().strip("<>").rsplit(":", 1)[-1]] = site_of_host(host)
    return sites


def _l3s_pages(root: Path) -> list[LabeledPage]:
    sites = _mapped_sites(root)
    pages = []
    for path in sorted((root / "annotated").glob("*.htm*")):
        original = root / "original" / path.name
        if not original.exists():
            continue
        annotated = read_html(path)
        html = read_html(original)
        pages.append(LabeledPage(path.stem, root.name, sites.get(path.stem) or site_of_page(html), html, "", annotated))
    return pages


def _gold_pages(root: Path, dataset: str) -> list[LabeledPage]:
    sites = _mapped_sites(root)
    pages = []
    for path in sorted((root / "html").glob("*.htm*")):
        gold = root / "gold" / (path.stem + ".txt")
        if not gold.exists():
            continue
        html = read_html(path)
        ident = f"{root.name}/{path.stem}"
        text = gold.read_text(encoding="utf-8", errors="replace")
        pages.append(LabeledPage(ident, dataset, sites.get(path.stem) or site_of_page(html), html, text))
    return pages


def _standard_pages(root: Path, dataset: str) -> list[LabeledPage]:
    """Pages of the ``input/`` + ``GoldStandard/`` layout (inputs without a gold file are skipped)."""
    pages = []
    for path in sorted((root / "input").glob("*.htm*")):
        gold = root / "GoldStandard" / (path.stem + ".txt")
        if not gold.exists():
            continue
        html = read_html(path)
        raw = read_html(gold)
        ident = f"{root.name}/{path.stem}"
        site = _url_site(raw) or site_of_page(html)
        pages.append(LabeledPage(ident, dataset, site, html, gold_text(raw)))
    return pages


def load(*paths: str | Path) -> list[LabeledPage]:
    """All labeled pages under ``paths`` (any layout; folders searched recursively).

    Annotated pages get their gold text, blocks and labels from their annotations
    (:func:`annotated_page`).
    """
    pages: list[LabeledPage] = []
    for path in map(Path, paths):
        if not path.is_dir():
            what = "is not a folder" if path.exists() else "does not exist"
            raise UserError(f"{path} {what}: labeled pages are read from folders (annotated/+original/, "
                            "html/+gold/ or input/+GoldStandard/)")
        found = False
        for folder in sorted([path, *(p for p in path.rglob("*") if p.is_dir())]):
            if (folder / "annotated").is_dir() and (folder / "original").is_dir():
                pages.extend(_l3s_pages(folder))
                found = True
            elif (folder / "html").is_dir() and (folder / "gold").is_dir():
                pages.extend(_gold_pages(folder, path.name))
                found = True
            elif (folder / "input").is_dir() and (folder / "GoldStandard").is_dir():
                pages.extend(_standard_pages(folder, path.name))
                found = True
        if not found:
            raise UserError(f"{path}: no annotated/+original/, html/+gold/ or input/+GoldStandard/ folders found")
    for page in pages:
        if page.annotated is not None:
            blocks, labels, page.gold = annotated_page(page.annotated)
            page.labeled = (blocks, labels)
    return pages
