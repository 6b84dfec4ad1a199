"""Block features for the classifiers, as one sparse row per block.

Two feature sets share one layout mechanism (:class:`Layout` hands out column ranges):

* ``words`` (CE-SIMPLE): the block's words, hashed into 2**18 columns, plus a bias;
* ``rich`` (CE-BEST): CEDAR's richer block description --
  shape (token and byte counts, share of words inside links, punctuation, stopword,
  capital and digit densities, sentence end, word length), place (position by blocks and
  by text, depth, the share of the page's text under the block's container and its
  parent, whether the block lies in the page's main text container, distance to the
  nearest long block), title overlap (with ``<title>`` / og:title) and the distance to
  the headline block, text and link density of the container's and parent's subtrees,
  whether the block's word pairs occur in the page's JSON-LD ``articleBody``, tags of the
  container, its parent and grandparent, which structural tags (article, main, aside,
  nav, footer, li, figure, ...) enclose it, conjunctions of the main container with
  headings, short lines and list items, class/id/itemprop keywords (nav, footer, comment,
  article, content, ...) of the container, its parent and grandparent, and the same
  shape features of the two blocks before and after.

Version 2 is built to travel across sites and eras, chosen by leave-one-collection-out
over six collections (``bench/bench_extract.py``): it added the densities, enclosing
structural tags, headline distance, articleBody, itemprop and the conjunctions, and it
dropped what memorized the training sites -- class/id keywords anywhere above the block
(a page's ``<body class>`` spoke for all its blocks) and the hashed words of short blocks
and first words of every block.

Per-block text statistics come from one compiled pass over the page's block texts
(:func:`block_stats`: tokens are split and XXH64-hashed by neardup's tokenizer kernel,
ASCII lower-cased, without the NFKC step detection applies); the features from those, the
blocks and the elements come from the compiled passes of :mod:`.dense`, with numpy looking up
the words and taking the logarithms.  The result is COO triplets plus dense column blocks
(:class:`FeatureRows`): a linear model scores a page with one ``bincount`` and a few
matrix-vector products, and training converts the same rows to scikit-learn or crfsuite
input.  Real-valued features are scaled to about [0, 1]; the
binned indicator versions let a linear model bend.

Length: one feature layout (names, widths, offsets) and the code that fills it must change
together; the compiled scanners are in :mod:`.scan`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
from numba import njit

from ..hashing import hash_str
from ..text.normalize import char_classes, code_points
from ..text.tokenize import doc_tokens
from .blocks import KEYWORDS, TAG_ID, TAGS, Page, keyword_mask  # noqa: F401  (re-exported)
from .dense import COLUMNS, LOGS, dense_pass, indicator_pass, matrix_pass

FEATURES_VERSION = 2
"""Bumped whenever a feature's meaning or column changes; models record it."""

FEATURE_SETS = ("rich", "words")

STOPWORDS = tuple(
    """a about after all also an and any are as at be been but by can could did do does
    for from had has have he her his how i if in into is it its just more most my new no
    not of on one or our out over said say says she so some than that the their them then
    there these they this to up was we were what when which who will with would you your""".split()
)


TOKEN_EDGES = np.array([1, 2, 3, 4, 6, 9, 13, 20, 30, 50, 100], dtype=np.float64)
SHARE_EDGES = np.array([1e-9, 0.1, 0.3, 0.5, 0.8, 1.0 - 1e-9])
TENTH_EDGES = np.linspace(0.1, 0.9, 9)
GOOD_MIN_TOKENS = 10
"""A "long" block (CEDAR's MinBlock range 8-12) with under a third of its words in links."""
GOOD_MAX_LINK = 1 / 3
MAIN_SHARE = 0.6
"""The main container is the deepest element holding this share of the long blocks' text."""
WORD_BITS = 18
_SEED = 0
_REGEX_WORD = re.compile(r"\w+")


class Layout:
    """Allocates named column ranges of a feature space."""

    def __init__(self) -> None:
        self.ranges: dict[str, int] = {}
        self.size = 0

    def add(self, name: str, width: int) -> None:
        self.ranges[name] = self.size
        self.size += width


DENSE = list(COLUMNS)
_LOG_COLS = [COLUMNS.index(name) for name, _ in LOGS]
_LOG_BASES = np.array([np.log(base) for _, base in LOGS])  # each as the scalar the features were trained with
_DIST_TITLE = [name for name, _ in LOGS].index("dist_title")
_LISTY = np.zeros(len(TAGS) + 1, dtype=bool)
_LISTY[[TAG_ID[t] for t in ("li", "dd", "dt", "figcaption", "caption", "blockquote")]] = True
ANCESTOR_TAGS = tuple("article main section aside nav header footer form li table figure blockquote".split())
"""Structural tags whose presence above a block is a feature (bit ``i`` of an element's mask)."""
_COL = {name: j for j, name in enumerate(DENSE)}
NEIGHBOUR = [_COL[c] for c in ("tok", "link", "stop", "punct", "good", "heading", "sent_end", "upper")]
OFFSETS = (-2, -1, 1, 2)
_NEIGHBOUR = np.array(NEIGHBOUR, dtype=np.int64)
_OFFSETS = np.array(OFFSETS, dtype=np.int64)
BINNED = (("tok", TOKEN_EDGES, (0, -1, 1)), ("link", SHARE_EDGES, (0, -1, 1)), ("stop", SHARE_EDGES, (0,)),
          ("punct", SHARE_EDGES, (0,)), ("pos", TENTH_EDGES, (0,)), ("title_in", SHARE_EDGES, (0,)))
TAG_WIDTH = len(TAGS) + 1


def _rich_layout() -> Layout:
    lay = Layout()
    lay.add("dense", len(DENSE))
    for off in OFFSETS:
        lay.add(f"nb{off}", len(NEIGHBOUR) + 1)  # + "no such block" indicator
    for name, edges, offs in BINNED:
        for off in offs:
            lay.add(f"bin:{name}{off}", len(edges) + 1)
    for name in ("tag0", "tag-1", "tag1", "ptag", "gptag"):
        lay.add(name, TAG_WIDTH)
    lay.add("anc", len(ANCESTOR_TAGS))
    lay.add("kw_near", len(KEYWORDS))
    return lay


def _words_layout() -> Layout:
    lay = Layout()
    lay.add("bias", 1)
    lay.add("words", 1 << WORD_BITS)
    return lay


LAYOUTS = {"rich": _rich_layout(), "words": _words_layout()}


@dataclass
class FeatureRows:
    """Features of ``n`` blocks: sparse COO triplets (a block may repeat a column) plus dense
    column blocks for the features every block has (``blocks``: first column and an
    ``(n, k)`` matrix), which scoring multiplies directly instead of listing n x k triplets."""

    n: int
    rows: np.ndarray
    cols: np.ndarray
    vals: np.ndarray
    size: int
    blocks: tuple[tuple[int, np.ndarray], ...] = ()

    def dot(self, weights: np.ndarray) -> np.ndarray:
        """Per block, the sum of ``weights[col] * value`` over its features."""
        out = np.bincount(self.rows, weights[self.cols] * self.vals, self.n).astype(np.float64, copy=False)
        for base, matrix in self.blocks:
            out += matrix @ weights[base : base + matrix.shape[1]]
        return out

    def triplets(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All features as COO triplets (the dense blocks' non-zero cells included)."""
        rows, cols, vals = [self.rows], [self.cols], [self.vals]
        for base, matrix in self.blocks:
            r, c = np.nonzero(matrix)
            rows.append(r)
            cols.append(base + c)
            vals.append(matrix[r, c])
        return np.concatenate(rows), np.concatenate(cols).astype(np.int64), np.concatenate(vals)

    def csr(self):
        """The rows as a ``scipy.sparse.csr_matrix`` (duplicates summed)."""
        from scipy.sparse import csr_matrix

        rows, cols, vals = self.triplets()
        return csr_matrix((vals, (rows, cols)), shape=(self.n, self.size))

    def dicts(self) -> list[dict[str, float]]:
        """One ``{column: value}`` mapping per block (duplicates summed), for crfsuite."""
        m = self.csr()
        m.sum_duplicates()
        cols, vals, ptr = m.indices.tolist(), m.data.tolist(), m.indptr.tolist()
        return [{str(c): v for c, v in zip(cols[ptr[i] : ptr[i + 1]], vals[ptr[i] : ptr[i + 1]])} for i in range(self.n)]


@dataclass
class BlockStats:
    """Text statistics of a page's blocks; ``hashes`` holds every block's tokens in order."""

    hashes: np.ndarray
    tokens: np.ndarray
    punct: np.ndarray
    upper: np.ndarray
    digit: np.ndarray
    nbytes: np.ndarray
    sent_end: np.ndarray
    regex_words: np.ndarray
    """Per block, how many ``\\w+`` runs of Python's ``re`` it holds: the words the rules of
    :mod:`.credits` count, counted here in the same compiled pass rather than by a regular
    expression per block (a tenth of extraction's time on 2020s pages)."""

    @cached_property
    def owner(self) -> np.ndarray:
        """The block of each token."""
        return np.repeat(np.arange(len(self.tokens)), self.tokens)


WORDS_UNKNOWN = -1
""":func:`_regex_words` of a text it cannot count in the kernel (a code point outside the Basic
Multilingual Plane, or bytes that are not UTF-8): the caller counts it with ``re``."""


@lru_cache(maxsize=1)
def regex_word_chars() -> np.ndarray:
    """Whether each code point of the Basic Multilingual Plane is a word character of Python's
    ``re`` (``\\w``: ``str.isalnum()`` or ``_``; the table is asked of ``re`` itself, so it
    follows the running Python's Unicode version).  One regex pass over a string of all
    65,536 code points: a few milliseconds, once per process."""
    codes = code_points(0x10000)
    table = np.zeros(0x10000, dtype=np.bool_)
    for run in re.finditer(r"\w+", codes):
        table[run.start() : run.end()] = True
    return table


@njit(inline="always", cache=True)
def _regex_words(buf, lo, hi, word_chars):
    """How many ``\\w+`` runs the UTF-8 text ``buf[lo:hi]`` holds, or :data:`WORDS_UNKNOWN`."""
    runs = 0
    prev = False
    p = lo
    while p < hi:
        c = buf[p]
        if c < 0x80:
            cp = np.int64(c)
            width = 1
        elif 0xC2 <= c <= 0xDF:
            cp = np.int64(c & 0x1F)
            width = 2
        elif 0xE0 <= c <= 0xEF:
            cp = np.int64(c & 0x0F)
            width = 3
        else:
            return WORDS_UNKNOWN  # a 4-byte sequence (outside the table) or not UTF-8
        if p + width > hi:
            return WORDS_UNKNOWN
        for j in range(1, width):
            b = buf[p + j]
            if b & 0xC0 != 0x80:
                return WORDS_UNKNOWN
            cp = (cp << 6) | (b & 0x3F)
        if width == 3 and (cp < 0x800 or 0xD800 <= cp <= 0xDFFF):
            return WORDS_UNKNOWN
        word = word_chars[cp]
        runs += word and not prev
        prev = word
        p += width
    return runs


@njit(cache=True)
def _stats(buf, table, seed, word_chars):
    """Statistics of the NUL-terminated texts in ``buf`` (ASCII lower-cased in place)."""
    n = 0
    for b in buf:
        n += b == 0
    hashes = np.empty(buf.shape[0], dtype=np.uint64)
    out = np.zeros((7, n), dtype=np.int64)  # tokens punct upper digit bytes sent_end regex_words
    pos = 0
    lo = 0
    d = 0
    for hi in range(buf.shape[0]):
        if buf[hi] != 0:
            continue
        prev_word = False
        for p in range(lo, hi):
            c = buf[p]
            word = (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122) or c >= 128
            if word and not prev_word:
                out[2, d] += 65 <= c <= 90
                out[3, d] += 48 <= c <= 57
            out[1, d] += c == 46 or c == 44 or c == 59 or c == 58 or c == 33 or c == 63
            prev_word = word
        last = buf[hi - 1] if hi > lo else 0
        ends = last == 46 or last == 33 or last == 63 or last == 34 or last == 39
        if hi - lo >= 3 and buf[hi - 3] == 0xE2 and buf[hi - 2] == 0x80 and (last == 0x9D or last == 0x99):
            ends = True
        out[5, d] = ends
        out[4, d] = hi - lo
        out[6, d] = _regex_words(buf, lo, hi, word_chars)  # before doc_tokens lower-cases the bytes
        c = doc_tokens(buf, lo, hi, table, seed, hashes[pos:], False)  # one token per CJK character, as trained
        out[0, d] = c
        pos += c
        lo = hi + 1
        d += 1
    return hashes[:pos], out


def text_stats(texts: list[str]) -> BlockStats:
    """:class:`BlockStats` of ``texts``."""
    data = "\x00".join(texts).encode("utf-8") + b"\x00" if texts else b""
    hashes, out = _stats(np.frombuffer(bytearray(data), dtype=np.uint8), char_classes(), np.uint64(_SEED),
                         regex_word_chars())
    unknown = np.flatnonzero(out[6] == WORDS_UNKNOWN).tolist()
    if unknown:
        parts = data.split(b"\x00")
        for i in unknown:
            out[6, i] = len(_REGEX_WORD.findall(parts[i].decode("utf-8")))
    return BlockStats(hashes, *out)


def block_stats(page: Page) -> BlockStats:
    return text_stats(page.texts)


@lru_cache(maxsize=1)
def _stop_hashes() -> np.ndarray:
    return np.unique(np.array([hash_str(w, _SEED) for w in STOPWORDS], dtype=np.uint64))


@lru_cache(maxsize=1)
def _stop_table() -> tuple[np.uint64, np.ndarray] | None:
    return _slot_table(_stop_hashes())


SLOT_MEMBERS = 256
"""Sets of at most this many hashes are looked up by their top bits (:func:`_slot_table`), larger ones
by binary search."""


def _slot_table(members: np.ndarray) -> tuple[np.uint64, np.ndarray] | None:
    """``members`` (distinct uint64 hashes) in a table indexed by their top bits, and the shift that
    gives those: ``table[h >> shift] == h`` exactly when ``h`` is a member (an empty slot holds a
    value whose top bits are not its index).  None when no table of up to 2**20 slots gives every
    member a slot of its own.  Hashes are spread evenly, so about n**2 slots separate n members with
    high probability.  A lookup is three vector operations, while binary search
    (``np.searchsorted``) mispredicts a branch at almost every step (the stop-word and title-word
    lookups were a visible share of extraction's time: docs/results.md)."""
    for bits in range(2 * max(len(members), 1).bit_length(), 21):
        shift = np.uint64(64 - bits)
        slots = (members >> shift).astype(np.intp)
        if len(np.unique(slots)) == len(members):
            table = (np.arange(1, (1 << bits) + 1, dtype=np.uint64) << shift)  # slot i: top bits i + 1
            table[slots] = members
            return shift, table
    return None


def _member(values: np.ndarray, sorted_set: np.ndarray,
            table: tuple[np.uint64, np.ndarray] | None = None) -> np.ndarray:
    """Whether each value is in the sorted array ``sorted_set`` of distinct uint64 hashes (``table``:
    its :func:`_slot_table`, when known)."""
    if len(sorted_set) == 0:
        return np.zeros(len(values), dtype=bool)
    if table is None and len(sorted_set) <= SLOT_MEMBERS:
        table = _slot_table(sorted_set)
    if table is not None:
        shift, slots = table
        return slots[(values >> shift).astype(np.intp)] == values
    at = np.minimum(np.searchsorted(sorted_set, values), len(sorted_set) - 1)
    return sorted_set[at] == values


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros(len(num), dtype=np.float64), where=den > 0)


def word_features(page: Page, stats: BlockStats | None = None) -> FeatureRows:
    """The ``words`` feature set: hashed block words (term counts) and a bias."""
    lay = LAYOUTS["words"]
    stats = stats or block_stats(page)
    n = len(page)
    words = lay.ranges["words"] + (stats.hashes & np.uint64((1 << WORD_BITS) - 1)).astype(np.int64)
    rows = np.concatenate((np.arange(n), stats.owner))
    cols = np.concatenate((np.full(n, lay.ranges["bias"]), words))
    return FeatureRows(n, rows, cols, np.ones(len(rows)), lay.size)


def _bigrams(hashes: np.ndarray, owner: np.ndarray | None = None) -> np.ndarray:
    """Hashes of adjacent token pairs (within one block when ``owner`` is given)."""
    if len(hashes) < 2:
        return np.zeros(0, dtype=np.uint64)
    pairs = hashes[:-1] * np.uint64(0x9E3779B97F4A7C15) ^ hashes[1:]
    return pairs if owner is None else np.where(owner[:-1] == owner[1:], pairs, np.uint64(0))


def structured_share(page: Page, stats: BlockStats) -> tuple[np.ndarray, bool]:
    """Per block, the share of its word pairs found in the page's JSON-LD ``articleBody``
    (0 for blocks of one word), and whether the page has an ``articleBody`` of 20+ words.

    Word pairs rather than words: any navigation line shares single words ("the", "news")
    with the article, hardly its word pairs.
    """
    n = len(stats.tokens)
    if not page.article_body:
        return np.zeros(n), False
    body = text_stats([page.article_body]).hashes
    if len(body) < 20:
        return np.zeros(n), False
    pairs = _bigrams(stats.hashes, stats.owner)
    hit = _member(pairs, np.unique(_bigrams(body))) & (pairs != 0)
    found = np.bincount(stats.owner[:-1], hit, n) if len(pairs) else np.zeros(n)
    return _ratio(found, np.maximum(stats.tokens - 1, 0).astype(np.float64)), True


@lru_cache(maxsize=4)
def _title_words(titles: str) -> tuple[np.ndarray, tuple[np.uint64, np.ndarray] | None]:
    """The distinct word hashes of ``titles`` and their :func:`_slot_table` (None where :func:`_member`
    would not make one), kept for the last few pages' titles: the model's features and the main-body
    rule (:func:`headline`) each ask for a page's (docs/results.md, issue 28's seventh pass).  Read
    only: the arrays are shared."""
    title_set = np.unique(text_stats([titles]).hashes)
    return title_set, (_slot_table(title_set) if 0 < len(title_set) <= SLOT_MEMBERS else None)


def title_hits(page: Page, stats: BlockStats) -> tuple[np.ndarray, int]:
    """Per block, how many of its tokens are words of the page's titles (og:title and
    ``<title>``); and how many distinct words the titles have."""
    title_set, table = _title_words(f"{page.meta_title} {page.title}")
    return np.bincount(stats.owner, _member(stats.hashes, title_set, table), len(page)), len(title_set)


def headline(page: Page, stats: BlockStats, in_title: np.ndarray | None = None, title_words: int = 0) -> int:
    """The index of the page's headline block, -1 when none: the first block covering at least
    half of the titles' words, a heading and a short block preferred (``in_title`` and
    ``title_words``: :func:`title_hits`, when already known)."""
    if in_title is None:
        in_title, title_words = title_hits(page, stats)
    title_cov = in_title / max(title_words, 1)
    head_score = np.where(title_cov >= 0.5, title_cov + 0.5 * page.is_heading() + 0.3 * (stats.tokens <= 30), 0.0)
    return int(np.argmax(head_score)) if len(page) and head_score.max() > 0 else -1


def dense_features(page: Page, stats: BlockStats) -> np.ndarray:
    """The real-valued block description, ``(n, len(DENSE))`` in [0, 1]: the words looked up here, the
    rest in one compiled pass (:func:`.dense.dense_pass`), the logarithms by numpy."""
    n = len(page)
    el = page.elements
    cont = page.container
    tokens = stats.tokens.astype(np.float64)
    stop = np.bincount(stats.owner, _member(stats.hashes, _stop_hashes(), _stop_table()), n)
    in_title, title_words = title_hits(page, stats)
    # The headline: the first block covering most of the title's words (a heading preferred).
    head = headline(page, stats, in_title, title_words)
    in_ld, has_ld = structured_share(page, stats)
    dense, log_args = dense_pass(
        tokens, page.link_words, page.words, stop, in_title, title_words, stats.punct, stats.upper, stats.digit,
        stats.sent_end, stats.nbytes, cont, page.is_heading(), _LISTY[el.tag[cont]], el.depth, el.parent, el.end,
        head, in_ld, has_ld, GOOD_MIN_TOKENS, GOOD_MAX_LINK, MAIN_SHARE)
    logs = np.log1p(log_args) / _LOG_BASES
    if head < 0:
        logs[:, _DIST_TITLE] = 1.0
    dense[:, _LOG_COLS] = logs
    return np.clip(dense, 0.0, 1.0, out=dense)


def rich_features(page: Page, stats: BlockStats | None = None) -> FeatureRows:
    """The ``rich`` (CE-BEST) feature set of every block of ``page``."""
    lay = LAYOUTS["rich"]
    stats = stats or block_stats(page)
    n = len(page)
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return FeatureRows(0, empty, empty, np.zeros(0), lay.size)
    dense = dense_features(page, stats)
    # Binned indicators (of the block and, for some, of its neighbours), then the tags of the container
    # (and of the neighbours' containers), its parent and grandparent: one compiled pass.
    el = page.elements
    cont = page.container
    parent = el.parent[cont]
    grand = np.where(parent >= 0, el.parent[np.maximum(parent, 0)], -1)
    raw = np.empty((len(BINNED), n))
    for k, (name, _, _) in enumerate(BINNED):
        raw[k] = stats.tokens if name == "tok" else dense[:, _COL[name]]
    edges, n_edges, bin_groups, tag_groups = _indicator_tables()
    r, c = indicator_pass(raw, edges, n_edges, bin_groups, el.tag[cont], tag_groups, parent, grand, el.tag,
                          lay.ranges["ptag"], lay.ranges["gptag"])
    # Real-valued block features, the shape features of the neighbours, the structural tags enclosing
    # the block (its container's tag included) and the class/id/itemprop keywords near it (container,
    # parent, grandparent): another compiled pass.
    nb, anc, kw = matrix_pass(dense, _NEIGHBOUR, _OFFSETS, _tag_bits()[el.tag], el.parent, el.keywords, cont, parent,
                              grand, len(ANCESTOR_TAGS), len(KEYWORDS))
    blocks = ((lay.ranges["dense"], dense), *((lay.ranges[f"nb{off}"], nb[g]) for g, off in enumerate(OFFSETS)),
              (lay.ranges["anc"], anc), (lay.ranges["kw_near"], kw))
    return FeatureRows(n, r, c, np.ones(len(r)), lay.size, blocks)


@lru_cache(maxsize=1)
def _indicator_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:data:`BINNED`'s edges (padded rows) and their counts, and the column ranges of the binned and
    tag indicators, for :func:`.dense.indicator_pass`."""
    lay = LAYOUTS["rich"]
    edges = np.zeros((len(BINNED), max(len(e) for _, e, _ in BINNED)))
    for k, (_, e, _) in enumerate(BINNED):
        edges[k, : len(e)] = e
    n_edges = np.array([len(e) for _, e, _ in BINNED], dtype=np.int64)
    bin_groups = np.array([(k, off, lay.ranges[f"bin:{name}{off}"]) for k, (name, _, offs) in enumerate(BINNED)
                           for off in offs], dtype=np.int64)
    tag_groups = np.array([(off, lay.ranges[f"tag{off}"]) for off in (0, -1, 1)], dtype=np.int64)
    return edges, n_edges, bin_groups, tag_groups


@lru_cache(maxsize=1)
def _tag_bits() -> np.ndarray:
    """Per tag id, the bit of :data:`ANCESTOR_TAGS` it sets (0 for other tags)."""
    out = np.zeros(TAG_WIDTH, dtype=np.uint64)
    for i, t in enumerate(ANCESTOR_TAGS):
        out[TAG_ID[t]] = np.uint64(1 << i)
    return out


FEATURIZERS = {"rich": rich_features, "words": word_features}
