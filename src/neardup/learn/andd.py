"""ANDD: learned k-gram weights for cosine near-duplicate detection (Hajishirzi, Yih, Kolcz 2010).

Each distinct k-gram ``g`` of document ``d`` gets the weight ``max(0, w . phi(g, d))``, a
clipped linear function of cheap features (the paper's Table 1, those neardup has):

====== ===========================================================
bias   1
tf     ``log(1 + count of g in d)``
idf    ``log(N / df(g))`` over the collection the documents come from
tfidf  ``count x idf`` -- with ``w = e_tfidf`` the vectors are plain TF-IDF
loc    position of g's first occurrence / number of k-grams of d (0 = start)
len    ``log(1 + bytes of g)`` (its normalized UTF-8 length)
====== ===========================================================

(QF, InURL and DF-Avg/DF-Med are not available; capitalization is lost in
normalization.)  Training follows the paper's preference setting (Yih 2009): sample
``n_pairs`` pair-pairs, each a near-duplicate pair (same cluster) and a non-duplicate
pair (different clusters) drawn uniformly; with ``delta = cos(pos) - cos(neg)`` minimize

    L(w) = sum log(1 + exp(-gamma * delta)) + mu * (|w|^2 - 1)^2

(the logistic loss with y = 1, the near-duplicate pair first; cosine does not change
when ``w`` is scaled, so the second term only pins ``|w|`` near 1).  It is minimized by
SciPy's L-BFGS-B with the analytic gradient :func:`loss_and_grad`, starting from TF-IDF.
Everything is deterministic given ``seed``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np
from numba import njit, prange

from ..features.sets import HashedSets
from ..hashing import xxh64_bytes, xxh64_lanes
from ..text.normalize import char_classes
from ..text.tokenize import encode_batch, scan_tokens

FEATURES = ("bias", "tf", "idf", "tfidf", "loc", "len")
FORMAT = "neardup-andd-v1"


@njit(cache=True)
def _doc_grams(buf, lo, hi, table, k, seed, out_h, out_len):
    """k-gram hashes of ``buf[lo:hi]`` in text order with their byte lengths; returns how many."""
    starts = np.empty(hi - lo, dtype=np.int64)
    ends = np.empty(hi - lo, dtype=np.int64)
    t = scan_tokens(buf, lo, hi, table, starts, ends, 0)
    if t == 0:
        return 0
    toks = np.empty(t, dtype=np.uint64)
    for i in range(t):
        toks[i] = xxh64_bytes(buf, starts[i], ends[i], seed)
    if k == 1:
        for i in range(t):
            out_h[i] = toks[i]
            out_len[i] = ends[i] - starts[i]
        return t
    m = t - k + 1 if t >= k else 1
    width = k if t >= k else t
    for i in range(m):
        out_h[i] = xxh64_lanes(toks, i, i + width, seed)
        out_len[i] = ends[i + width - 1] - starts[i]
    return m


@njit(parallel=True, nogil=True, cache=True)
def _batch_grams(buf, offsets, table, k, seed):
    n = offsets.shape[0] - 1
    out_h = np.empty(offsets[n], dtype=np.uint64)
    out_len = np.empty(offsets[n], dtype=np.int64)
    sizes = np.zeros(n, dtype=np.int64)
    for d in prange(n):
        sizes[d] = _doc_grams(buf, offsets[d], offsets[d + 1], table, k, seed, out_h[offsets[d]:], out_len[offsets[d]:])
    return out_h, out_len, sizes


@dataclass
class GramStats:
    """Distinct k-grams of each document (CSR, sorted by hash) with their raw statistics."""

    sets: HashedSets
    tf: np.ndarray  # occurrences in the document
    loc: np.ndarray  # first position / number of k-grams, in [0, 1)
    length: np.ndarray  # bytes of the (normalized) k-gram

    def doc(self) -> np.ndarray:
        """Document index of every entry."""
        return np.repeat(np.arange(len(self.sets), dtype=np.int64), self.sets.sizes())

    @staticmethod
    def concat(parts: list["GramStats"]) -> "GramStats":
        if not parts:
            z = np.zeros(0)
            return GramStats(HashedSets.concat([]), z, z, z)
        return GramStats(
            HashedSets.concat([p.sets for p in parts]),
            np.concatenate([p.tf for p in parts]),
            np.concatenate([p.loc for p in parts]),
            np.concatenate([p.length for p in parts]),
        )


def featurize(texts: Sequence[str], k: int = 1) -> GramStats:
    """The distinct k-grams of ``texts`` with TF, first position and length."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    buf, offsets = encode_batch(texts)
    h, ln, sizes = _batch_grams(buf, offsets, char_classes(), k, np.uint64(0))
    idx = np.repeat(offsets[:-1] - np.r_[0, np.cumsum(sizes)[:-1]], sizes) + np.arange(int(sizes.sum()))
    h, ln = h[idx], ln[idx]
    doc = np.repeat(np.arange(len(texts), dtype=np.int64), sizes)
    pos = np.arange(h.shape[0]) - np.repeat(np.r_[0, np.cumsum(sizes)[:-1]], sizes)
    order = np.lexsort((pos, h, doc))
    h, ln, doc, pos = h[order], ln[order], doc[order], pos[order]
    first = np.ones(h.shape[0], dtype=bool)
    first[1:] = (h[1:] != h[:-1]) | (doc[1:] != doc[:-1])
    starts = np.flatnonzero(first)
    tf = np.diff(np.r_[starts, h.shape[0]]).astype(np.float64)
    set_offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(np.bincount(doc[starts], minlength=len(texts)), out=set_offsets[1:])
    loc = pos[starts] / np.maximum(sizes[doc[starts]], 1)
    return GramStats(HashedSets(h[starts], set_offsets), tf, loc.astype(np.float64), ln[starts].astype(np.float64))


def feature_matrix(stats: GramStats, idf: np.ndarray) -> np.ndarray:
    """``(entries, len(FEATURES))`` feature values; ``idf`` aligns with ``stats.sets.hashes``."""
    return np.column_stack(
        [np.ones_like(stats.tf), np.log1p(stats.tf), idf, stats.tf * idf, stats.loc, np.log1p(stats.length)]
    )


def collection_idf(sets: HashedSets) -> np.ndarray:
    """``log(N / df)`` of every entry of ``sets``, document frequencies over ``sets`` itself."""
    from ..stats.df import DocumentFrequencies

    df = DocumentFrequencies()
    df.update(sets)
    return df.idf(sets.hashes)


def tfidf_weights() -> np.ndarray:
    """The model weights giving plain TF-IDF vectors."""
    w = np.zeros(len(FEATURES))
    w[FEATURES.index("tfidf")] = 1.0
    return w


def entry_weights(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Clipped linear weights ``max(0, X w)``."""
    return np.maximum(x @ w, 0.0)


@njit(parallel=True, nogil=True, cache=True)
def sparse_cosine(hashes, offsets, v, a, b):
    """Cosine of the weighted sparse vectors of documents ``a[i]`` and ``b[i]`` (sorted merge)."""
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
        while p < pe and q < qe:
            if hashes[p] == hashes[q]:
                dot += v[p] * v[q]
                p += 1
                q += 1
            elif hashes[p] < hashes[q]:
                p += 1
            else:
                q += 1
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
        p, pe = offsets[a[i]], offsets[a[i] + 1]
        q, qe = offsets[b[i]], offsets[b[i] + 1]
        while p < pe and q < qe:
            if hashes[p] == hashes[q]:
                ip[m], iq[m], pair[m] = p, q, i
                m += 1
                p += 1
                q += 1
            elif hashes[p] < hashes[q]:
                p += 1
            else:
                q += 1
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
    gamma: float = 10.0
    mu: float = 1.0
    scale: np.ndarray = field(default_factory=lambda: np.ones(len(FEATURES)))


def pair_cosines(prob: TrainingProblem, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cosine of each unique pair, the entry weights and the squared norm of each document."""
    v = entry_weights(prob.x, w)
    sq = np.bincount(prob.doc, weights=v * v, minlength=prob.n_docs)
    dot = np.bincount(prob.match_pair, weights=v[prob.ip] * v[prob.iq], minlength=prob.a.shape[0])
    den = np.sqrt(sq[prob.a] * sq[prob.b])
    cos = np.divide(dot, den, out=np.zeros_like(dot), where=den > 0)
    return cos, v, sq


def loss_and_grad(w: np.ndarray, prob: TrainingProblem) -> tuple[float, np.ndarray]:
    """The preference loss at ``w`` and its gradient (mean over the pair-pairs)."""
    cos, v, sq = pair_cosines(prob, w)
    n = prob.pos.shape[0]
    delta = cos[prob.pos] - cos[prob.neg]
    z = -prob.gamma * delta
    loss = float(np.logaddexp(0.0, z).sum()) / n
    dl_ddelta = -prob.gamma / (1.0 + np.exp(-z)) / n  # d log(1 + e^z) / d delta
    c = np.bincount(prob.pos, weights=dl_ddelta, minlength=cos.shape[0])
    c -= np.bincount(prob.neg, weights=dl_ddelta, minlength=cos.shape[0])  # dL / dcos per pair
    na, nb = np.sqrt(sq[prob.a]), np.sqrt(sq[prob.b])
    ok = (na > 0) & (nb > 0)
    inv = np.where(ok, 1.0 / np.where(ok, na * nb, 1.0), 0.0)
    # d cos / d v_p = v_q / (|p||q|) on shared entries  -  cos v_p / |p|^2 on all of p's entries
    g_v = np.zeros(v.shape[0])
    cm = (c * inv)[prob.match_pair]
    np.add.at(g_v, prob.ip, cm * v[prob.iq])
    np.add.at(g_v, prob.iq, cm * v[prob.ip])
    per_doc = np.zeros(prob.n_docs)
    sa = np.where(ok, sq[prob.a], 1.0)
    sb = np.where(ok, sq[prob.b], 1.0)
    np.add.at(per_doc, prob.a, np.where(ok, -c * cos / sa, 0.0))
    np.add.at(per_doc, prob.b, np.where(ok, -c * cos / sb, 0.0))
    g_v += per_doc[prob.doc] * v
    g_v[v <= 0.0] = 0.0  # the clip's subgradient
    grad = prob.x.T @ g_v
    norm2 = float(w @ w)
    loss += prob.mu * (norm2 - 1.0) ** 2
    grad = grad + prob.mu * 4.0 * (norm2 - 1.0) * w
    return loss, grad


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
    stats: GramStats, idf: np.ndarray, cluster: np.ndarray, n_pairs: int, seed: int, gamma: float = 10.0
) -> TrainingProblem:
    """The training problem of documents ``stats`` labeled with ``cluster``."""
    pa, pb, na, nb = sample_pair_pairs(cluster, n_pairs, seed)
    if not pa.shape[0]:
        raise ValueError("training needs at least one near-duplicate and one non-duplicate pair")
    n = len(stats.sets)
    codes = np.r_[pa * n + pb, na * n + nb]
    uniq, inverse = np.unique(codes, return_inverse=True)
    a, b = uniq // n, uniq % n
    ip, iq, mp = _matches(stats.sets.hashes, stats.sets.offsets, a, b)
    x = feature_matrix(stats, idf)
    return TrainingProblem(
        x, stats.doc(), n, a, b, ip, iq, mp, inverse[: pa.shape[0]], inverse[pa.shape[0]:], gamma
    )


@dataclass
class ANDDModel:
    """Learned feature weights of the k-gram weighting function."""

    weights: np.ndarray
    k: int = 1
    features: tuple[str, ...] = FEATURES
    info: dict = field(default_factory=dict)

    def save(self, path: str | Path) -> None:
        """Write as JSON."""
        doc = {
            "format": FORMAT, "k": self.k, "features": list(self.features),
            "weights": [float(x) for x in self.weights], "info": self.info,
        }
        Path(path).write_text(json.dumps(doc, indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> "ANDDModel":
        """Read a file written by :meth:`save`."""
        try:
            doc = json.loads(Path(path).read_text())
            if doc.get("format") != FORMAT:
                raise ValueError("wrong format")
            if tuple(doc["features"]) != FEATURES:
                raise ValueError(f"features {doc['features']} differ from {list(FEATURES)}")
            return cls(np.array(doc["weights"], dtype=np.float64), int(doc["k"]), FEATURES, doc.get("info", {}))
        except (OSError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}: not a neardup ANDD model ({exc})") from None

    @classmethod
    def tfidf(cls, k: int = 1) -> "ANDDModel":
        return cls(tfidf_weights(), k, FEATURES, {"init": "tfidf"})


def fit(
    texts: Sequence[str],
    clusters: np.ndarray,
    k: int = 1,
    seed: int = 0,
    n_pairs: int = 20000,
    gamma: float = 10.0,
    max_iter: int = 200,
) -> ANDDModel:
    """Learn the k-gram weights from documents ``texts`` labeled with ``clusters``.

    ``clusters[i]`` is the cluster of text ``i`` (negative = a singleton); IDF is
    computed over ``texts``.  Starts from TF-IDF weights.
    """
    stats = featurize(texts, k)
    idf = collection_idf(stats.sets)
    prob = build_problem(stats, idf, np.asarray(clusters), n_pairs, seed, gamma)
    w0 = tfidf_weights()
    from scipy.optimize import minimize  # here: importing it costs every command 0.27 s

    res = minimize(loss_and_grad, w0, args=(prob,), jac=True, method="L-BFGS-B", options={"maxiter": max_iter})
    w = res.x / max(np.linalg.norm(res.x), 1e-12)
    loss0, _ = loss_and_grad(w0, prob)
    info = {
        "seed": seed, "n_pairs": int(prob.pos.shape[0]), "gamma": gamma, "documents": len(texts),
        "loss_start": float(loss0), "loss_end": float(res.fun), "iterations": int(res.nit),
        "converged": bool(res.success),
    }
    return ANDDModel(w, k, FEATURES, info)
