"""ANDD: learned k-gram weights for near-duplicate detection (Hajishirzi, Yih, Kolcz 2010).

Each distinct k-gram ``g`` of document ``d`` gets a weight computed from ``w . phi(g, d)``,
a linear function of cheap features -- the paper's Table 1, as far as the text alone
gives them:

======= =============================================================================
bias    1
tf      ``log(1 + count of g in d)``
idf     ``log(N / df(g))`` over the collection the documents come from
tfidf   ``count x idf`` -- with ``w = e_tfidf`` the vectors are plain TF-IDF
loc     position of g's first occurrence / number of k-grams of d (0 = start)
len     ``log(1 + bytes of g)`` (its normalized UTF-8 length)
inhead  1 when an occurrence of g lies in the first line of d, else 0: neardup's
        extraction puts the title there (paragraphs are ``"\\n\\n"``-separated lines),
        and plain-text news usually starts with its headline too
caps    share of g's occurrences whose first word starts with an uppercase letter in
        the text before case folding (names, headline words, sentence starts)
df_avg  mean IDF of g's words (k > 1; the paper's DF-Avg; 0 for k = 1, where it
        would only repeat idf -- the paper uses it only for k > 1 too)
df_med  median IDF of g's words (likewise)
qf      mean over g's words of ``log(1 + query frequency)`` from an optional query
        log (:class:`QueryFrequencies`); 0 without one
======= =============================================================================

Left out: the paper's InURL (the k-gram occurs in the page's URL) needs the record's
URL, and methods see only texts; the block's content probability is ~1 everywhere,
since extraction keeps only the blocks it judged content.

Two weight forms (the ``form`` of a model): ``linear`` is the paper's clipped linear
``max(0, w . phi)``; ``exp`` is ``exp(w . z)`` of the features standardized by the
training set's mean and spread, ``z = (phi - center) / scale``, so that ``w = 0`` is binary
weights.  :mod:`neardup.learn.training` learns either.

Length: the k-gram features and the model that weighs them change together (objectives and
training are in :mod:`.training`, pair sampling in :mod:`.pairs`).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
from numba import njit, prange

from ..errors import UserError
from ..features.sets import HashedSets, next_shared, sort_unique_segments
from ..hashing import xxh64_bytes, xxh64_lanes
from ..text.normalize import TABLE_SIZE, char_classes
from ..text.tokenize import code_point, encode_batch, scan_tokens, token_hashes
from ..io.writers import atomic_file

FEATURES = (
    "bias", "tf", "idf", "tfidf", "loc", "len", "inhead", "caps", "df_avg", "df_med", "qf",
)
FORMAT = "neardup-andd-v3"
#: Older model formats that still load (all linear); features they lack get weight 0.
OLD_FORMATS = ("neardup-andd-v2", "neardup-andd-v1")
SIMILARITIES = ("cosine", "jaccard")
#: The weight form each training objective learns (:mod:`neardup.learn.training`).
FORM_OF = {"f1": "exp", "preference": "linear"}


@lru_cache(maxsize=1)
def upper_table() -> np.ndarray:
    """Whether each code point below TABLE_SIZE is an uppercase or titlecase letter."""
    return np.array(
        [unicodedata.category(chr(cp)) in ("Lu", "Lt") for cp in range(TABLE_SIZE)], dtype=np.bool_
    )


@njit(cache=True)
def _token_caps(cbuf, lo, hi, table, upper, t, out):
    """``out[i]``: token ``i`` of ``cbuf[lo:hi]`` starts with an uppercase letter.

    ``cbuf`` is the batch encoded without case folding (the tokenizer's buffer has lost
    the case); the tokens are found on a scratch copy of it (the scanner lowers ASCII in
    place) and the case read from ``cbuf`` itself.  Left all False when case folding changed the number of
    tokens (it maps letters to letters, so in practice never).
    """
    scratch = cbuf[lo:hi].copy()
    starts = np.empty(hi - lo, dtype=np.int64)
    ends = np.empty(hi - lo, dtype=np.int64)
    if scan_tokens(scratch, 0, hi - lo, table, starts, ends, 0) != t:
        return
    for i in range(t):
        cp, _ = code_point(cbuf, lo + starts[i])
        out[i] = cp < upper.shape[0] and upper[cp]


@njit(cache=True)
def _doc_grams(buf, lo, hi, cbuf, clo, chi, table, upper, k, seed, out_h, out_len, out_head, out_cap, out_tok):
    """The k-gram occurrences of ``buf[lo:hi]`` in text order; returns ``(k-grams, tokens)``.

    Per occurrence: hash, byte length, whether it lies in the first line, whether its
    first word is capitalized; per token: its hash (``out_tok``).
    """
    starts = np.empty(hi - lo, dtype=np.int64)
    ends = np.empty(hi - lo, dtype=np.int64)
    t = scan_tokens(buf, lo, hi, table, starts, ends, 0)
    if t == 0:
        return 0, 0
    for i in range(t):
        out_tok[i] = xxh64_bytes(buf, starts[i], ends[i], seed)
    line_end = starts[0]
    while line_end < hi and buf[line_end] != 10:  # the first line with a token
        line_end += 1
    n_head = np.searchsorted(starts[:t], line_end)
    caps = np.zeros(t, dtype=np.bool_)
    _token_caps(cbuf, clo, chi, table, upper, t, caps)
    width = min(k, t)
    m = t - width + 1
    for i in range(m):
        out_h[i] = out_tok[i] if k == 1 else xxh64_lanes(out_tok, i, i + width, seed)
        out_len[i] = ends[i + width - 1] - starts[i]
        out_head[i] = i + width <= n_head
        out_cap[i] = caps[i]
    return m, t


@njit(parallel=True, nogil=True, cache=True)
def _batch_grams(buf, offsets, cbuf, coffsets, table, upper, k, seed):
    """:func:`_doc_grams` of every document, written at its byte offset (a safe upper bound)."""
    n = offsets.shape[0] - 1
    out_h = np.empty(offsets[n], dtype=np.uint64)
    out_len = np.empty(offsets[n], dtype=np.int64)
    out_head = np.empty(offsets[n], dtype=np.bool_)
    out_cap = np.empty(offsets[n], dtype=np.bool_)
    out_tok = np.empty(offsets[n], dtype=np.uint64)
    sizes = np.zeros(n, dtype=np.int64)
    tokens = np.zeros(n, dtype=np.int64)
    for d in prange(n):
        lo = offsets[d]
        sizes[d], tokens[d] = _doc_grams(
            buf, lo, offsets[d + 1], cbuf, coffsets[d], coffsets[d + 1], table, upper, k, seed,
            out_h[lo:], out_len[lo:], out_head[lo:], out_cap[lo:], out_tok[lo:],
        )
    return out_h, out_len, out_head, out_cap, out_tok, sizes, tokens


def _starts(sizes: np.ndarray) -> np.ndarray:
    """Exclusive prefix sums: where each of the consecutive segments of ``sizes`` starts."""
    return np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64)


def _packed(bases: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Indices of ``sizes[d]`` items from ``bases[d]`` on, for every ``d`` in order."""
    return np.repeat(bases - _starts(sizes), sizes) + np.arange(int(sizes.sum()))


@dataclass
class GramStats:
    """Distinct k-grams of each document (CSR, sorted by hash) with their raw statistics.

    Kept as the counts they are (32-bit, a flag), not as features: a corpus-dependent run holds
    them until the collection's IDF is known, so they are what its memory grows with (25 bytes per
    entry for k = 1, 8 more per word for k > 1).  The float features read them through the
    properties below, with the same arithmetic :func:`featurize` used when it stored floats.
    """

    sets: HashedSets
    counts: np.ndarray  # occurrences in the document (uint32)
    first: np.ndarray  # position of the first occurrence, in k-grams (uint32)
    span: np.ndarray  # bytes of the (normalized) k-gram (uint32)
    head: np.ndarray  # an occurrence lies in the first line (bool)
    capital: np.ndarray  # occurrences whose first word is capitalized (uint32)
    grams: np.ndarray  # per document: its number of k-grams (int64)
    word_sets: HashedSets  # distinct words of each document (``sets`` itself for k = 1)
    word_hashes: np.ndarray | None = None  # (entries, k) word hashes of the first occurrence, k > 1

    @property
    def k(self) -> int:
        return 1 if self.word_hashes is None else self.word_hashes.shape[1]

    @property
    def tf(self) -> np.ndarray:
        """Occurrences in the document (float64)."""
        return self.counts.astype(np.float64)

    @property
    def loc(self) -> np.ndarray:
        """First position / number of k-grams of the document, in [0, 1)."""
        return self.first / np.maximum(self.grams[self.doc()], 1)

    @property
    def length(self) -> np.ndarray:
        """Bytes of the (normalized) k-gram (float64)."""
        return self.span.astype(np.float64)

    @property
    def inhead(self) -> np.ndarray:
        """1.0 when an occurrence lies in the first line, else 0.0."""
        return self.head.astype(np.float64)

    @property
    def caps(self) -> np.ndarray:
        """Share of the occurrences whose first word is capitalized."""
        return self.capital.astype(np.float64) / self.tf

    @property
    def words(self) -> np.ndarray:
        """``(entries, k)`` word hashes of the first occurrence (short texts repeat the last word);
        for k = 1 the k-gram's own hash."""
        return self.sets.hashes[:, None] if self.word_hashes is None else self.word_hashes

    def doc(self) -> np.ndarray:
        """Document index of every entry."""
        return np.repeat(np.arange(len(self.sets), dtype=np.int64), self.sets.sizes())

    @property
    def nbytes(self) -> int:
        """Bytes of the arrays held."""
        return sum(a.nbytes for a in self.arrays().values())

    def arrays(self) -> dict[str, np.ndarray]:
        """The structure as flat arrays, per entry or per document (sizes, not offsets), so that the
        arrays of consecutive batches, appended, are the arrays of their documents together
        (:meth:`from_arrays`; what the local engine spills to files)."""
        out = {"hashes": self.sets.hashes, "sizes": self.sets.sizes(), "counts": self.counts, "first": self.first,
               "span": self.span, "head": self.head, "capital": self.capital, "grams": self.grams}
        if self.word_hashes is not None:
            out.update(words=self.word_hashes, word_hashes=self.word_sets.hashes, word_sizes=self.word_sets.sizes())
        return out

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "GramStats":
        """The structure :meth:`arrays` gave (or the arrays of several, appended)."""

        def csr(hashes: np.ndarray, sizes: np.ndarray) -> HashedSets:
            offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
            np.cumsum(sizes, out=offsets[1:])
            return HashedSets(hashes, offsets)

        sets = csr(arrays["hashes"], arrays["sizes"])
        words = arrays.get("words")
        word_sets = sets if words is None else csr(arrays["word_hashes"], arrays["word_sizes"])
        return cls(sets, arrays["counts"], arrays["first"], arrays["span"], arrays["head"], arrays["capital"],
                   arrays["grams"], word_sets, words)

    def rows(self, lo: int, hi: int) -> "GramStats":
        """Documents ``lo`` to ``hi`` (views of the arrays; offsets from 0)."""
        a, b = int(self.sets.offsets[lo]), int(self.sets.offsets[hi])
        sets = HashedSets(self.sets.hashes[a:b], self.sets.offsets[lo : hi + 1] - a)
        word_sets, words = sets, None
        if self.word_hashes is not None:
            wa, wb = int(self.word_sets.offsets[lo]), int(self.word_sets.offsets[hi])
            word_sets = HashedSets(self.word_sets.hashes[wa:wb], self.word_sets.offsets[lo : hi + 1] - wa)
            words = self.word_hashes[a:b]
        return GramStats(sets, self.counts[a:b], self.first[a:b], self.span[a:b], self.head[a:b],
                         self.capital[a:b], self.grams[lo:hi], word_sets, words)

    @staticmethod
    def concat(parts: list["GramStats"]) -> "GramStats":
        """One structure holding the documents of ``parts`` (all of one k) in order."""
        if not parts:
            return featurize([])
        arrays = [p.arrays() for p in parts]
        return GramStats.from_arrays({f: np.concatenate([a[f] for a in arrays]) for f in arrays[0]})


def featurize(texts: Sequence[str], k: int = 1) -> GramStats:
    """The distinct k-grams of ``texts`` with their per-document statistics."""
    if k < 1:
        raise UserError(f"k must be at least 1, got {k}")
    buf, offsets = encode_batch(texts)
    if offsets.shape[0] > 1 and np.diff(offsets).max() >= 1 << 32:
        raise UserError("ANDD takes documents under 4 GiB")  # its counts are 32-bit
    cbuf, coffsets = encode_batch(texts, fold_case=False)
    h, ln, head, cap, tok, sizes, ntok = _batch_grams(
        buf, offsets, cbuf, coffsets, char_classes(), upper_table(), k, np.uint64(0)
    )
    keep = _packed(offsets[:-1], sizes)
    h, ln, head, cap = h[keep], ln[keep], head[keep], cap[keep]
    tok = tok[_packed(offsets[:-1], ntok)]
    doc = np.repeat(np.arange(len(texts), dtype=np.int64), sizes)
    pos = np.arange(h.shape[0]) - _starts(sizes)[doc]
    order = np.lexsort((pos, h, doc))
    h, doc, pos = h[order], doc[order], pos[order]
    first = np.ones(h.shape[0], dtype=bool)
    first[1:] = (h[1:] != h[:-1]) | (doc[1:] != doc[:-1])
    starts = np.flatnonzero(first)
    counts = np.diff(np.r_[starts, h.shape[0]])
    d0, p0 = doc[starts], pos[starts]
    set_offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(np.bincount(d0, minlength=len(texts)), out=set_offsets[1:])
    sets = HashedSets(h[starts], set_offsets)
    tok_starts = _starts(ntok)
    words = None
    if k > 1:
        words = tok[tok_starts[d0, None] + np.minimum(p0[:, None] + np.arange(k), ntok[d0, None] - 1)]
    return GramStats(
        sets,
        counts.astype(np.uint32),
        p0.astype(np.uint32),
        ln[order][starts].astype(np.uint32),
        np.logical_or.reduceat(head[order], starts) if starts.shape[0] else np.zeros(0, bool),
        (np.add.reduceat(cap[order].astype(np.int64), starts) if starts.shape[0] else np.zeros(0, np.int64)).astype(np.uint32),
        sizes.astype(np.int64),
        sets if k == 1 else HashedSets(*sort_unique_segments(tok.copy(), tok_starts, ntok)),
        words,
    )


class QueryFrequencies:
    """``log(1 + query frequency)`` of words, from a query log.

    The file is TSV, one ``text<TAB>count`` per line (a query log aggregated by query,
    or a word list): every word of ``text``, tokenized as documents are, gains
    ``count``.  Words never seen have frequency 0.
    """

    def __init__(self, texts: Sequence[str], counts: Sequence[float], source: str | None = None) -> None:
        buf, offsets = encode_batch(texts)
        hashes, ntok = token_hashes(buf, offsets, char_classes(), np.uint64(0))
        hashes = hashes[_packed(offsets[:-1], ntok)]
        per_word = np.repeat(np.asarray(counts, dtype=np.float64), ntok)
        self.keys, inverse = np.unique(hashes, return_inverse=True)
        self.values = np.log1p(np.bincount(inverse, weights=per_word, minlength=self.keys.shape[0]))
        self.source = source

    @classmethod
    def load(cls, path: str | Path) -> "QueryFrequencies":
        """Read a ``text<TAB>count`` file."""
        texts, counts = [], []
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                if not line.strip():
                    continue
                text, sep, count = line.rstrip("\n").rpartition("\t")
                try:
                    if not sep:
                        raise ValueError("no tab")
                    counts.append(float(count))
                except ValueError:
                    raise UserError(f"{path}:{number}: expected 'text<TAB>count'") from None
                texts.append(text)
        return cls(texts, counts, str(path))

    def lookup(self, words: np.ndarray) -> np.ndarray:
        """``log(1 + qf)`` of each word hash (0 for unseen words)."""
        if not self.keys.shape[0]:
            return np.zeros(words.shape)
        pos = np.minimum(np.searchsorted(self.keys, words), self.keys.shape[0] - 1)
        return np.where(self.keys[pos] == words, self.values[pos], 0.0)


def collection_df(sets: HashedSets):
    """Document frequencies over ``sets`` itself (a :class:`~neardup.stats.df.DocumentFrequencies`)."""
    from ..stats.df import DocumentFrequencies

    df = DocumentFrequencies()
    df.update(sets)
    return df


def feature_columns(stats: GramStats, qf: QueryFrequencies | None = None, gram_df: Any = None,
                    word_df: Any = None) -> Iterator[np.ndarray]:
    """The columns of :func:`feature_matrix` (one value per entry), in :data:`FEATURES` order, made
    one at a time: what weighs the entries without the matrix (:meth:`ANDDModel.weigh_entries`)."""
    idf = (collection_df(stats.sets) if gram_df is None else gram_df).idf(stats.sets.hashes)
    tf = stats.tf
    zero = np.zeros_like(tf)
    yield np.ones_like(tf)
    yield np.log1p(tf)
    yield idf
    yield tf * idf
    del tf, idf
    yield stats.loc
    yield np.log1p(stats.length)
    yield stats.inhead
    yield stats.caps
    if stats.k > 1:
        word_idf = (collection_df(stats.word_sets) if word_df is None else word_df).idf(stats.words)
        yield word_idf.mean(axis=1)
        yield np.median(word_idf, axis=1)
        del word_idf
    else:
        yield zero
        yield zero
    yield zero if qf is None else qf.lookup(stats.words).mean(axis=1)


def feature_matrix(stats: GramStats, qf: QueryFrequencies | None = None, gram_df: Any = None,
                   word_df: Any = None) -> np.ndarray:
    """``(entries, len(FEATURES))`` feature values; IDFs are over the documents of ``stats``, or
    those of the collection ``gram_df`` and ``word_df`` count (k-grams; words, for k > 1).

    What training needs (every entry's features at once); a run weighs its entries part by part
    with :meth:`ANDDModel.weigh_entries` instead, which never makes this matrix."""
    return np.column_stack(list(feature_columns(stats, qf, gram_df, word_df)))


#: Weightings that need no training: the one feature each puts all weight on.
FIXED_WEIGHTINGS = {"tfidf": "tfidf", "binary": "bias"}


def fixed_weights(name: str) -> np.ndarray:
    """The model weights of a fixed weighting: ``tfidf`` (TF x IDF vectors) or ``binary`` (1 per k-gram)."""
    w = np.zeros(len(FEATURES))
    w[FEATURES.index(FIXED_WEIGHTINGS[name])] = 1.0
    return w


def weigh(x: np.ndarray, w: np.ndarray, form: str = "linear") -> np.ndarray:
    """Entry weights from (for ``exp``: standardized) features ``x``: ``max(0, x w)`` or ``exp(x w)``."""
    if form == "linear":
        return np.maximum(x @ w, 0.0)
    return np.exp(np.clip(x @ w, -30.0, 30.0))


def standardize(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``((x - center) / scale, center, scale)`` per column; a constant column gets scale 1."""
    center = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-12] = 1.0
    return (x - center) / scale, center, scale


@njit(parallel=True, nogil=True, cache=True)
def sparse_cosine(hashes, offsets, v, a, b):
    """Cosine of the weighted sparse vectors of documents ``a[i]`` and ``b[i]`` (sorted merge).

    (The weighted Jaccard counterpart is :func:`neardup.sketch.icws.weighted_jaccard`.)
    """
    out = np.zeros(a.shape[0], dtype=np.float64)
    for i in prange(a.shape[0]):
        p, pe = offsets[a[i]], offsets[a[i] + 1]
        q, qe = offsets[b[i]], offsets[b[i] + 1]
        na = 0.0
        for t in range(p, pe):
            na += v[t] * v[t]
        nb = 0.0
        for t in range(q, qe):
            nb += v[t] * v[t]
        if na == 0.0 or nb == 0.0:
            continue
        dot = 0.0
        p, q = next_shared(hashes, p, pe, q, qe)
        while p < pe:
            dot += v[p] * v[q]
            p, q = next_shared(hashes, p + 1, pe, q + 1, qe)
        out[i] = min(dot / np.sqrt(na * nb), 1.0)
    return out


@dataclass
class ANDDModel:
    """Learned feature weights (aligned with FEATURES) of the k-gram weighting function."""

    weights: np.ndarray
    k: int = 1
    similarity: str = "cosine"
    info: dict = field(default_factory=dict)
    form: str = "linear"
    center: np.ndarray | None = None  # exp form: the standardization of the features
    scale: np.ndarray | None = None

    def weigh(self, x: np.ndarray) -> np.ndarray:
        """The weight of every entry with features ``x`` (rows of :func:`feature_matrix`)."""
        if self.form == "exp":
            x = (x - self.center) / self.scale
        return weigh(x, self.weights, self.form)

    def weigh_entries(self, stats: GramStats, qf: QueryFrequencies | None = None, gram_df: Any = None,
                      word_df: Any = None) -> np.ndarray:
        """The weight of every entry of ``stats`` (IDFs as :func:`feature_matrix`), one feature column at
        a time: no ``(entries, features)`` matrix, and the same float for an entry whichever entries are
        weighed with it (a fixed order of additions per entry, where a matrix product's depends on the
        matrix's size and threads), so the weights do not depend on how the documents are split.
        Equal to :meth:`weigh` of the feature matrix up to rounding."""
        total = np.zeros(stats.sets.hashes.shape[0])
        for j, column in enumerate(feature_columns(stats, qf, gram_df, word_df)):
            w = float(self.weights[j])
            if w == 0.0:
                continue
            if self.form == "exp":
                assert self.center is not None and self.scale is not None  # an exp model is standardized
                column = (column - self.center[j]) / self.scale[j]
            total += w * column
        if self.form == "linear":
            return np.maximum(total, 0.0)
        return np.exp(np.clip(total, -30.0, 30.0))

    def save(self, path: str | Path) -> None:
        """Write as JSON."""
        doc = {
            "format": FORMAT, "k": self.k, "similarity": self.similarity, "features": list(FEATURES),
            "weights": [float(x) for x in self.weights], "form": self.form, "info": self.info,
        }
        if self.form == "exp":
            assert self.center is not None and self.scale is not None  # an exp model is standardized
            doc["center"] = [float(x) for x in self.center]
            doc["scale"] = [float(x) for x in self.scale]
        with atomic_file(path) as tmp:
            tmp.write_text(json.dumps(doc, indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> "ANDDModel":
        """Read a file written by :meth:`save` (or by an older neardup: missing features weigh 0)."""
        try:
            doc = json.loads(Path(path).read_text())
            if not isinstance(doc, dict):
                raise ValueError("not a JSON object")
            if doc.get("format") not in (FORMAT, *OLD_FORMATS):
                raise ValueError(f"format {doc.get('format')!r} is not {FORMAT!r}")
            names, values = list(doc["features"]), [float(x) for x in doc["weights"]]
            if not np.isfinite(values).all() or int(doc["k"]) < 1:
                raise ValueError("weights must be finite numbers and k at least 1")
            unknown = sorted(set(names) - set(FEATURES))
            if unknown or len(names) != len(values) or len(set(names)) != len(names):
                raise ValueError(f"features {names} do not match the weights or are not among {list(FEATURES)}")
            similarity = doc.get("similarity", "cosine")
            if similarity not in SIMILARITIES:
                raise ValueError(f"unknown similarity {similarity!r}")
            form = doc.get("form", "linear")
            if form not in FORM_OF.values():
                raise ValueError(f"unknown weight form {form!r}")
            index = [FEATURES.index(f) for f in names]
            weights = np.zeros(len(FEATURES))
            weights[index] = values
            center = scale = None
            if form == "exp":  # features the file lacks: centered at 0, unit scale, weight 0
                center, scale = np.zeros(len(FEATURES)), np.ones(len(FEATURES))
                center[index] = [float(x) for x in doc["center"]]
                scale[index] = [float(x) for x in doc["scale"]]
                if len(doc["center"]) != len(names) or len(doc["scale"]) != len(names) or not (scale > 0).all():
                    raise ValueError("center and scale must give one value per feature, scales > 0")
            return cls(weights, int(doc["k"]), similarity, doc.get("info", {}), form, center, scale)
        except (OSError, KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise UserError(f"{path}: not a neardup ANDD model ({type(exc).__name__}: {exc})") from None

    @classmethod
    def fixed(cls, name: str, k: int = 1, similarity: str = "cosine") -> "ANDDModel":
        """The untrained weighting ``name`` (a key of :data:`FIXED_WEIGHTINGS`)."""
        return cls(fixed_weights(name), k, similarity, {"fixed": name})
