"""The extraction API: HTML -> :class:`Extracted` (title, main text).

:func:`extract` splits a page into blocks, labels them (with the shipped CE-BEST model
unless told otherwise) and assembles the kept blocks in page order, one paragraph per
block ("\\n\\n" between blocks).  Blocks that the page's JSON-LD ``articleBody`` holds are
kept whatever the model says (:data:`STRUCTURED_SHARE`), and credit lines -- rights notices,
agency credits, bylines, bare timestamps -- and reader comments after the story (:mod:`.credits`)
are dropped whatever it says, and so are the text of form controls (a poll's options) and
kept runs far from the article's main body and outside its element (:mod:`.mainbody`).  When
the model keeps no block of a page that has text, the heuristic's blocks are taken instead (a
page is not lost to one confident mistake), and when that finds nothing either (a page of short
lines only), every block not mostly link text: a page with text never yields nothing.  The
title is the first kept block set in a heading element; failing that, the page's og:title (or
``<title>``).  The default model is loaded once per process, on first use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .blocks import Page, page_blocks
from .credits import comment_start, credit_lines
from .features import block_stats, structured_share
from .frame import frame_labels
from .heuristic import heuristic_labels
from .mainbody import after_article, fill_article, main_body
from .model import BlockModel, load_default
from .structured import FALLBACK_SHARE, declared_body


@dataclass(frozen=True)
class Extracted:
    """The main content of a page: its title (may be empty) and body paragraphs."""

    title: str
    text: str

    def full_text(self) -> str:
        """Title and body as one text (what detection compares)."""
        return "\n\n".join(part for part in (self.title, self.text) if part)


def assemble(page: Page, keep: np.ndarray) -> Extracted:
    """Join the kept blocks of ``page``; a kept heading block becomes the title."""
    kept = np.flatnonzero(keep).tolist()
    heading = page.is_heading()
    title_block = next((i for i in kept if heading[i]), None)
    title = page.texts[title_block] if title_block is not None else (page.meta_title or page.title)
    text = "\n\n".join(page.texts[i] for i in kept if i != title_block)
    return Extracted(title, text)


@lru_cache(maxsize=1)
def default_model() -> BlockModel:
    """The shipped model, loaded on first use and kept for the process."""
    return load_default()


STRUCTURED_SHARE = 0.5
"""A block with at least this share of its word pairs in the page's JSON-LD ``articleBody``
is content, whatever the model says."""


def model_labels(page: Page, model: BlockModel) -> np.ndarray:
    """``model``'s content labels, cross-checked with the page's structured data; the
    heuristic's where neither keeps anything; the blocks that are not mostly link text
    where the heuristic keeps nothing either.

    The cross-check adds the blocks that the publisher's own JSON-LD ``articleBody``
    holds (:func:`.features.structured_share`): most pages of the 2020s declare their
    article there, few training pages do, so the rule is fixed by argument rather than
    learned -- it rescues pages whose markup the model misreads and never removes a block.
    Then the kept credit lines (:func:`.credits.credit_lines`: who made the story and when,
    never what happened) and the reader comments after the story (from the line that opens
    them on, :func:`.credits.comment_start`) are dropped, also fixed by argument: the features
    hold no words.  So is the text of form controls (:meth:`.blocks.Page.is_control`: a
    poll's options, a check box's label, a button), the page's interface and never its
    article: a reader poll longer than the story beside it would otherwise pass for the main
    body.  Last, the small runs of kept blocks away from the article's main run and
    outside its element (:func:`.mainbody.main_body`: sidebars, ad boxes, comment threads
    the model took for text) are dropped, and so is what follows the page's ``<article>``
    element when it holds most of the kept text (:func:`.mainbody.after_article`): the block
    features see only a block's near neighbours, not where it sits relative to the article.
    """
    stats = block_stats(page)
    keep = model.predict(page, stats)
    share, has_body = structured_share(page, stats)
    declared = (share >= STRUCTURED_SHARE) & (stats.tokens >= 3) if has_body else np.zeros(len(keep), dtype=bool)
    keep |= declared
    if keep.any():
        keep = fill_article(page, keep)
    if keep.any():
        kept = np.flatnonzero(keep)
        texts = [page.texts[i] for i in kept.tolist()]
        words = stats.regex_words[kept]
        keep[kept[comment_start(texts, words):]] = False
        keep[kept[credit_lines(texts, words)]] = False
        keep &= ~page.is_control()
        keep = frame_labels(page, keep)
        keep = after_article(page, main_body(page, keep, stats)) | (keep & declared)  # declarations outrank place
    if keep.any():
        return keep
    keep = heuristic_labels(page)
    return keep if keep.any() else page.link_words * 2 < np.maximum(page.words, 1)


FALLBACK_WORDS = 250
"""Only an extraction of fewer words than this is checked against the page's structured data
(:func:`.structured.declared_body`); a longer one is the visible article."""


NOSCRIPT_EMPTY = 300
"""A page whose kept text has fewer characters than this shows no article (a headline and a line or two
at most: characters, not words, as a text without spaces between its words is no shorter) and may be
extracted again as rendered without scripts (:func:`extract`) ..."""
NOSCRIPT_GAIN = 50
"""... when its ``<noscript>`` elements hold at least this many words; that extraction is taken when it
holds at least this many more words than the first."""
_NOSCRIPT = re.compile(r"<noscript\b[^>]*>(.*?)</noscript\s*>", re.I | re.S)
_TAG = re.compile(r"<[^>]*>")


def kept_chars(page: Page, keep: np.ndarray) -> int:
    """The characters of the kept blocks of ``page``."""
    return sum(len(page.texts[i]) for i in np.flatnonzero(keep).tolist())


def noscript_words(html: str) -> int:
    """About how many words the ``<noscript>`` elements of ``html`` hold (their markup's tags left out),
    counted on the page's source: a page without enough of them is not extracted again."""
    return sum(len(_TAG.sub(" ", m.group(1)).split()) for m in _NOSCRIPT.finditer(html))



def extract(html: str, model: BlockModel | None = None) -> Extracted:
    """The title and main text of ``html`` as labeled by ``model`` (default: the shipped one).

    A page whose extraction is empty or thin may hold its article where the blocks do not show it: in
    ``<noscript>`` elements (a page whose scripts render the story and which gives the story as it is
    to a reader without them: when the kept text is under :data:`NOSCRIPT_EMPTY` characters, the page
    is extracted again as rendered without scripts, and that is taken when it holds
    :data:`NOSCRIPT_GAIN`+ more words), or in structured data (under :data:`FALLBACK_WORDS` words
    kept, the article the page declares instead when the blocks kept hold less than
    :data:`.structured.FALLBACK_SHARE` of its words)."""
    model = model or default_model()
    page = page_blocks(html)
    keep = model_labels(page, model)
    kept = int(page.words[keep].sum())
    if kept < FALLBACK_WORDS and kept_chars(page, keep) < NOSCRIPT_EMPTY and noscript_words(html) >= NOSCRIPT_GAIN:
        page_ns = page_blocks(html, noscript=True)
        keep_ns = model_labels(page_ns, model)
        kept_ns = int(page_ns.words[keep_ns].sum())
        if kept_ns >= kept + NOSCRIPT_GAIN:
            page, keep, kept = page_ns, keep_ns, kept_ns
    out = assemble(page, keep)
    if kept < FALLBACK_WORDS:
        body = declared_body(html)
        if body and kept < FALLBACK_SHARE * sum(len(p.split()) for p in body):
            return Extracted(out.title or page.meta_title or page.title, "\n\n".join(body))
    return out


def extract_heuristic(html: str) -> Extracted:
    """The title and long, link-poor blocks of ``html`` (:mod:`.heuristic`)."""
    page = page_blocks(html)
    return assemble(page, heuristic_labels(page))


def model_text(html: str) -> str:
    """The ``model`` extractor: title and main text by the shipped CE-BEST model."""
    return extract(html).full_text()


def heuristic_text(html: str) -> str:
    """The ``heuristic`` extractor: MinBlock and link-density filter."""
    return extract_heuristic(html).full_text()
