"""ANDD: learned k-gram weights for near-duplicate detection (Hajishirzi, Yih, Kolcz 2010).

Each distinct k-gram ``g`` of document ``d`` gets the weight ``max(0, w . phi(g, d))``, a
clipped linear function of cheap features -- the paper's Table 1, as far as the text
alone gives them:

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

Training follows the paper's preference setting (Yih 2009): sample ``n_pairs``
pair-pairs (80,000 as in the paper), each a near-duplicate pair (same cluster) and a
non-duplicate pair (different clusters) drawn uniformly; with
``delta = sim(pos) - sim(neg)`` minimize

    L(w) = mean log(1 + exp(-gamma * delta)) + mu * (|w|^2 - 1)^2

(the logistic loss with y = 1, the near-duplicate pair first).  ``sim`` is either

* ``cosine`` of the weighted vectors, or
* ``jaccard`` -- the weighted (generalized) Jaccard ``sum min(v_p, v_q) / sum max(v_p,
  v_q)``, the paper's "extended Jaccard" read the way its signatures can estimate it:
  Ioffe's consistent weighted sampling (:mod:`neardup.sketch.icws`) draws samples that
  collide with exactly this probability from the real weights, with no binarization
  of the weights (which the paper needed for plain min-hash).

Both are unchanged when ``w`` is scaled, so the second term only pins ``|w|`` near 1.
``L`` is minimized by SciPy's L-BFGS-B with the analytic (sub)gradient
:func:`loss_and_grad`, starting from TF-IDF.  Everything is deterministic given ``seed``.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from numba import njit, prange

from ..features.sets import HashedSets, next_shared, sort_unique_segments
from ..hashing import xxh64_bytes, xxh64_lanes
from ..text.normalize import TABLE_SIZE, char_classes
from ..text.tokenize import code_point, encode_batch, scan_tokens, token_hashes

FEATURES = (
    "bias", "tf", "idf", "tfidf", "loc", "len", "inhead", "caps", "df_avg", "df_med", "qf",
)
FORMAT = "neardup-andd-v2"
#: Older model formats that still load; features they lack get weight 0.
OLD_FORMATS = ("neardup-andd-v1",)
SIMILARITIES = ("cosine", "jaccard")
#: Pair-pairs sampled for training: the paper's 80,000.
N_PAIRS = 80000


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
    """Distinct k-grams of each document (CSR, sorted by hash) with their raw statistics."""

    sets: HashedSets
    tf: np.ndarray  # occurrences in the document
    loc: np.ndarray  # first position / number of k-grams, in [0, 1)
    length: np.ndarray  # bytes of the (normalized) k-gram
    inhead: np.ndarray  # an occurrence lies in the first line (0 / 1)
    caps: np.ndarray  # share of occurrences whose first word is capitalized
    words: np.ndarray  # (entries, k) word hashes of the first occurrence (short texts repeat the last word)
    word_sets: HashedSets  # distinct words of each document (``sets`` itself for k = 1)

    @property
    def k(self) -> int:
        return self.words.shape[1]

    def doc(self) -> np.ndarray:
        """Document index of every entry."""
        return np.repeat(np.arange(len(self.sets), dtype=np.int64), self.sets.sizes())

    @staticmethod
    def concat(parts: list["GramStats"]) -> "GramStats":
        """One structure holding the documents of ``parts`` (all of one k) in order."""
        if not parts:
            return featurize([])
        sets = HashedSets.concat([p.sets for p in parts])
        return GramStats(
            sets,
            *(np.concatenate([getattr(p, f) for p in parts]) for f in ("tf", "loc", "length", "inhead", "caps", "words")),
            sets if parts[0].k == 1 else HashedSets.concat([p.word_sets for p in parts]),
        )


def featurize(texts: Sequence[str], k: int = 1) -> GramStats:
    """The distinct k-grams of ``texts`` with their per-document statistics."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    buf, offsets = encode_batch(texts)
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
    tf = np.diff(np.r_[starts, h.shape[0]]).astype(np.float64)
    d0, p0 = doc[starts], pos[starts]
    set_offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(np.bincount(d0, minlength=len(texts)), out=set_offsets[1:])
    sets = HashedSets(h[starts], set_offsets)
    tok_starts = _starts(ntok)
    word_index = tok_starts[d0, None] + np.minimum(p0[:, None] + np.arange(k), ntok[d0, None] - 1)
    return GramStats(
        sets,
        tf,
        p0 / np.maximum(sizes[d0], 1),
        ln[order][starts].astype(np.float64),
        np.logical_or.reduceat(head[order], starts).astype(np.float64),
        np.add.reduceat(cap[order].astype(np.float64), starts) / tf,
        tok[word_index],
        sets if k == 1 else HashedSets(*sort_unique_segments(tok.copy(), tok_starts, ntok)),
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
                    raise ValueError(f"{path}:{number}: expected 'text<TAB>count'") from None
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


def feature_matrix(stats: GramStats, qf: QueryFrequencies | None = None) -> np.ndarray:
    """``(entries, len(FEATURES))`` feature values; IDFs are over the documents of ``stats``."""
    idf = collection_df(stats.sets).idf(stats.sets.hashes)
    zero = np.zeros_like(stats.tf)
    df_avg = df_med = zero
    if stats.k > 1:
        word_idf = collection_df(stats.word_sets).idf(stats.words)
        df_avg, df_med = word_idf.mean(axis=1), np.median(word_idf, axis=1)
    return np.column_stack([
        np.ones_like(stats.tf), np.log1p(stats.tf), idf, stats.tf * idf, stats.loc, np.log1p(stats.length),
        stats.inhead, stats.caps, df_avg, df_med, zero if qf is None else qf.lookup(stats.words).mean(axis=1),
    ])


#: Weightings that need no training: the one feature each puts all weight on.
FIXED_WEIGHTINGS = {"tfidf": "tfidf", "binary": "bias"}


def fixed_weights(name: str) -> np.ndarray:
    """The model weights of a fixed weighting: ``tfidf`` (TF x IDF vectors) or ``binary`` (1 per k-gram)."""
    w = np.zeros(len(FEATURES))
    w[FEATURES.index(FIXED_WEIGHTINGS[name])] = 1.0
    return w


def entry_weights(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Clipped linear weights ``max(0, X w)``."""
    return np.maximum(x @ w, 0.0)


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


@njit(cache=True)
def _matches(hashes, offsets, a, b):
    """Entry index pairs of the shared k-grams of each pair, and the pair of each match."""
    total = 0
    for i in range(a.shape[0]):
        total += min(offsets[a[i] + 1] - offsets[a[i]], offsets[b[i] + 1] - offsets[b[i]])
    ip = np.empty(total, dtype=np.int64)
    iq = np.empty(total, dtype=np.int64)
    pair = np.empty(total, dtype=np.int64)
    m = 0
    for i in range(a.shape[0]):
        pe, qe = offsets[a[i] + 1], offsets[b[i] + 1]
        p, q = next_shared(hashes, offsets[a[i]], pe, offsets[b[i]], qe)
        while p < pe:
            ip[m], iq[m], pair[m] = p, q, i
            m += 1
            p, q = next_shared(hashes, p + 1, pe, q + 1, qe)
    return ip[:m], iq[:m], pair[:m]


@dataclass
class TrainingProblem:
    """Everything the loss needs, precomputed once: features, pairs and their shared k-grams."""

    x: np.ndarray  # (entries, features)
    doc: np.ndarray  # document of each entry
    n_docs: int
    a: np.ndarray  # unique pairs (a < b)
    b: np.ndarray
    ip: np.ndarray  # shared entries of each pair
    iq: np.ndarray
    match_pair: np.ndarray
    pos: np.ndarray  # index into the unique pairs of each pair-pair's near-duplicate pair
    neg: np.ndarray  # ... and of its non-duplicate pair
    similarity: str = "cosine"
    gamma: float = 10.0
    mu: float = 1.0


@njit(cache=True)
def _shared_sums(ip, iq, pair, v, n_pairs, jaccard):
    """Per pair, the sum over its shared k-grams of ``min(v_p, v_q)`` (jaccard) or ``v_p v_q``."""
    out = np.zeros(n_pairs)
    for m in range(ip.shape[0]):
        x, y = v[ip[m]], v[iq[m]]
        out[pair[m]] += min(x, y) if jaccard else x * y
    return out


@njit(cache=True)
def _shared_grads(ip, iq, pair, v, coef, n_entries, jaccard):
    """``coef[pair]`` times the derivative of each shared term of :func:`_shared_sums`, per entry.

    For ``min`` the smaller side takes it (a subgradient: at ties each side takes half).
    """
    g = np.zeros(n_entries)
    for m in range(ip.shape[0]):
        c, x, y = coef[pair[m]], v[ip[m]], v[iq[m]]
        if jaccard:
            side = 1.0 if x < y else (0.5 if x == y else 0.0)
            g[ip[m]] += c * side
            g[iq[m]] += c * (1.0 - side)
        else:
            g[ip[m]] += c * y
            g[iq[m]] += c * x
    return g


#: ``(similarity of each unique pair, backward)``; ``backward(c)`` maps ``dL/dsim`` per pair
#: to ``dL/dv`` per entry (before the clip).
Forward = Callable[[TrainingProblem, np.ndarray], tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]]


def _cosine(prob: TrainingProblem, v: np.ndarray):
    sq = np.bincount(prob.doc, weights=v * v, minlength=prob.n_docs)
    dot = _shared_sums(prob.ip, prob.iq, prob.match_pair, v, prob.a.shape[0], False)
    den = np.sqrt(sq[prob.a] * sq[prob.b])
    ok = den > 0
    cos = np.divide(dot, den, out=np.zeros_like(dot), where=ok)

    def backward(c: np.ndarray) -> np.ndarray:
        # d cos / d v_p = v_q / (|p||q|) on shared entries  -  cos v_p / |p|^2 on all of p's entries
        cm = np.divide(c, den, out=np.zeros_like(c), where=ok)
        g = _shared_grads(prob.ip, prob.iq, prob.match_pair, v, cm, v.shape[0], False)
        cc = np.where(ok, -c * cos, 0.0)
        per_doc = np.bincount(prob.a, weights=np.divide(cc, sq[prob.a], out=np.zeros_like(cc), where=ok), minlength=prob.n_docs)
        per_doc += np.bincount(prob.b, weights=np.divide(cc, sq[prob.b], out=np.zeros_like(cc), where=ok), minlength=prob.n_docs)
        return g + per_doc[prob.doc] * v

    return cos, backward


def _jaccard(prob: TrainingProblem, v: np.ndarray):
    total = np.bincount(prob.doc, weights=v, minlength=prob.n_docs)  # sum of each document's weights
    lo = _shared_sums(prob.ip, prob.iq, prob.match_pair, v, prob.a.shape[0], True)  # sum min
    hi = total[prob.a] + total[prob.b] - lo  # sum max
    ok = hi > 0
    jac = np.divide(lo, hi, out=np.zeros_like(lo), where=ok)

    def backward(c: np.ndarray) -> np.ndarray:
        # J = lo / (T_p + T_q - lo): dJ/dT_p = -lo / hi^2 for every entry of p, and
        # dJ/dlo = (T_p + T_q) / hi^2 on the smaller side of each shared k-gram
        ch = np.divide(c, hi * hi, out=np.zeros_like(c), where=ok)
        per_doc = np.bincount(prob.a, weights=-ch * lo, minlength=prob.n_docs)
        per_doc += np.bincount(prob.b, weights=-ch * lo, minlength=prob.n_docs)
        g = _shared_grads(prob.ip, prob.iq, prob.match_pair, v, ch * (total[prob.a] + total[prob.b]), v.shape[0], True)
        return g + per_doc[prob.doc]

    return jac, backward


_FORWARD: dict[str, Forward] = {"cosine": _cosine, "jaccard": _jaccard}


def forward(prob: TrainingProblem, v: np.ndarray) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """The similarity of each pair of ``prob`` under entry weights ``v``, and the map of
    ``dL/dsim`` per pair to ``dL/dv`` per entry (before the clip) -- for any pair loss."""
    return _FORWARD[prob.similarity](prob, v)


def pair_similarities(prob: TrainingProblem, w: np.ndarray) -> np.ndarray:
    """The similarity (``prob.similarity``) of each unique pair under weights ``w``."""
    return forward(prob, entry_weights(prob.x, w))[0]


def loss_and_grad(w: np.ndarray, prob: TrainingProblem) -> tuple[float, np.ndarray]:
    """The preference loss at ``w`` and its (sub)gradient (mean over the pair-pairs)."""
    v = entry_weights(prob.x, w)
    sim, backward = forward(prob, v)
    n = prob.pos.shape[0]
    z = -prob.gamma * (sim[prob.pos] - sim[prob.neg])
    loss = float(np.logaddexp(0.0, z).sum()) / n
    dl_ddelta = -prob.gamma / (1.0 + np.exp(-z)) / n  # d log(1 + e^z) / d delta
    c = np.bincount(prob.pos, weights=dl_ddelta, minlength=sim.shape[0])
    c -= np.bincount(prob.neg, weights=dl_ddelta, minlength=sim.shape[0])  # dL / dsim per pair
    g_v = backward(c)
    g_v[v <= 0.0] = 0.0  # the clip's subgradient
    norm2 = float(w @ w)
    loss += prob.mu * (norm2 - 1.0) ** 2
    return loss, prob.x.T @ g_v + prob.mu * 4.0 * (norm2 - 1.0) * w


def sample_pair_pairs(cluster: np.ndarray, n_pairs: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``n_pairs`` (near-duplicate pair, non-duplicate pair) samples, each drawn uniformly.

    Documents with a negative cluster are singletons.  Returns ``(pa, pb, na, nb)``,
    ``pa < pb`` and ``na < nb``; empty when either kind of pair does not exist.
    """
    rng = np.random.default_rng(seed)
    cluster = np.asarray(cluster)
    n = cluster.shape[0]
    keys = np.where(cluster >= 0, cluster, cluster.max(initial=0) + 1 + np.arange(n))
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    bounds = np.r_[0, np.flatnonzero(sk[1:] != sk[:-1]) + 1, n]
    sizes = np.diff(bounds)
    pos_per = sizes * (sizes - 1) // 2
    total_pos = int(pos_per.sum())
    total_neg = n * (n - 1) // 2 - total_pos
    empty = np.zeros(0, np.int64)
    if total_pos == 0 or total_neg == 0 or n_pairs <= 0:
        return empty, empty, empty, empty
    # near-duplicate pairs: a cluster with weight = its number of pairs, then two members
    c = rng.choice(sizes.shape[0], size=n_pairs, p=pos_per / total_pos)
    x = rng.integers(0, sizes[c])
    y = rng.integers(0, sizes[c] - 1)
    y = y + (y >= x)
    pa, pb = order[bounds[c] + x], order[bounds[c] + y]
    # non-duplicate pairs: rejection sampling of uniform pairs from different clusters
    na_, nb_ = [], []
    need = n_pairs
    while need > 0:
        u = rng.integers(0, n, size=2 * need + 16)
        v = rng.integers(0, n, size=2 * need + 16)
        keep = keys[u] != keys[v]
        na_.append(u[keep][:need])
        nb_.append(v[keep][:need])
        need -= int(min(keep.sum(), need))
    na, nb = np.concatenate(na_), np.concatenate(nb_)
    return (np.minimum(pa, pb), np.maximum(pa, pb), np.minimum(na, nb), np.maximum(na, nb))


def build_problem(
    stats: GramStats,
    cluster: np.ndarray,
    n_pairs: int,
    seed: int,
    similarity: str = "cosine",
    gamma: float = 10.0,
    qf: QueryFrequencies | None = None,
) -> TrainingProblem:
    """The training problem of documents ``stats`` labeled with ``cluster``."""
    if similarity not in SIMILARITIES:
        raise ValueError(f"similarity must be one of {', '.join(SIMILARITIES)}, got {similarity!r}")
    pa, pb, na, nb = sample_pair_pairs(cluster, n_pairs, seed)
    if not pa.shape[0]:
        raise ValueError("training needs at least one near-duplicate and one non-duplicate pair")
    n = len(stats.sets)
    codes = np.r_[pa * n + pb, na * n + nb]
    uniq, inverse = np.unique(codes, return_inverse=True)
    return pairs_problem(
        stats, feature_matrix(stats, qf), uniq // n, uniq % n, inverse[: pa.shape[0]], inverse[pa.shape[0]:],
        similarity, gamma,
    )


def pairs_problem(
    stats: GramStats,
    x: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    pos: np.ndarray | None = None,
    neg: np.ndarray | None = None,
    similarity: str = "cosine",
    gamma: float = 10.0,
) -> TrainingProblem:
    """The problem over the document pairs ``(a[i], b[i])`` of ``stats`` with features ``x``
    (one row per entry); ``pos``/``neg`` index the pair-pairs (none: for other losses)."""
    ip, iq, mp = _matches(stats.sets.hashes, stats.sets.offsets, a, b)
    empty = np.zeros(0, dtype=np.int64)
    return TrainingProblem(
        x, stats.doc(), len(stats.sets), a, b, ip, iq, mp,
        empty if pos is None else pos, empty if neg is None else neg, similarity, gamma,
    )


@dataclass
class ANDDModel:
    """Learned feature weights (aligned with FEATURES) of the k-gram weighting function."""

    weights: np.ndarray
    k: int = 1
    similarity: str = "cosine"
    info: dict = field(default_factory=dict)

    def save(self, path: str | Path) -> None:
        """Write as JSON."""
        doc = {
            "format": FORMAT, "k": self.k, "similarity": self.similarity, "features": list(FEATURES),
            "weights": [float(x) for x in self.weights], "info": self.info,
        }
        Path(path).write_text(json.dumps(doc, indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> "ANDDModel":
        """Read a file written by :meth:`save` (or by an older neardup: missing features weigh 0)."""
        try:
            doc = json.loads(Path(path).read_text())
            if doc.get("format") not in (FORMAT, *OLD_FORMATS):
                raise ValueError(f"format {doc.get('format')!r} is not {FORMAT!r}")
            names, values = list(doc["features"]), [float(x) for x in doc["weights"]]
            unknown = sorted(set(names) - set(FEATURES))
            if unknown or len(names) != len(values) or len(set(names)) != len(names):
                raise ValueError(f"features {names} do not match the weights or are not among {list(FEATURES)}")
            similarity = doc.get("similarity", "cosine")
            if similarity not in SIMILARITIES:
                raise ValueError(f"unknown similarity {similarity!r}")
            weights = np.zeros(len(FEATURES))
            weights[[FEATURES.index(f) for f in names]] = values
            return cls(weights, int(doc["k"]), similarity, doc.get("info", {}))
        except (OSError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}: not a neardup ANDD model ({exc})") from None

    @classmethod
    def fixed(cls, name: str, k: int = 1, similarity: str = "cosine") -> "ANDDModel":
        """The untrained weighting ``name`` (a key of :data:`FIXED_WEIGHTINGS`)."""
        return cls(fixed_weights(name), k, similarity, {"fixed": name})


def fit(
    texts: Sequence[str],
    clusters: np.ndarray,
    k: int = 1,
    similarity: str = "cosine",
    seed: int = 0,
    n_pairs: int = N_PAIRS,
    gamma: float = 10.0,
    max_iter: int = 200,
    qf: QueryFrequencies | None = None,
) -> ANDDModel:
    """Learn the k-gram weights for ``similarity`` from documents ``texts`` labeled with ``clusters``.

    ``clusters[i]`` is the cluster of text ``i`` (negative = a singleton); IDF is
    computed over ``texts``.  Starts from TF-IDF weights.  Raises ValueError when the
    labels give no near-duplicate or no non-duplicate pair.
    """
    stats = featurize(texts, k)
    prob = build_problem(stats, np.asarray(clusters), n_pairs, seed, similarity, gamma, qf)
    w0 = fixed_weights("tfidf")
    from scipy.optimize import minimize  # here: importing it costs every command 0.27 s

    res = minimize(loss_and_grad, w0, args=(prob,), jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
    w = res.x / max(np.linalg.norm(res.x), 1e-12)
    loss0, _ = loss_and_grad(w0, prob)
    info = {
        "seed": seed, "n_pairs": int(prob.pos.shape[0]), "gamma": gamma, "documents": len(texts),
        "loss_start": float(loss0), "loss_end": float(res.fun), "iterations": int(res.nit),
        "converged": bool(res.success),
    }
    if qf is not None:
        info["qf"] = qf.source
    return ANDDModel(w, k, similarity, info)
