"""Seed-and-extend alignment: copied passages that survive copy-editing, located by characters.

The way text-reuse tools work (passim; the PAN text-alignment systems), as stages over
key/value arrays:

1. **seeds** -- every run of ``n`` words of every document (words: ``\\w`` runs, case-
   folded), keyed by a 64-bit mix of its word ids; one inverted index over all documents;
   a seed found in more than ``max_df`` documents (boilerplate, stock phrases) or in one
   only is dropped;
2. **seed pairs** -- for each kept seed, every pair of its occurrences in two documents:
   ``(doc a, doc b, word position in a, in b)``; a document pair needs ``min_seeds``
   distinct shared seeds to go on;
3. **chains** -- a pair's seed matches in order of their position in ``a`` are chained
   into passages while both positions move on by at most ``gap`` words (so an edited word,
   a re-broken or merged sentence does not break a passage, and a skipped or reordered
   sentence starts a new one); passages close in both documents are merged (one copy is
   one passage);
4. **validation** -- a passage needs ``min_words`` words on both sides and a density of
   matched words of at least ``min_density`` on the shorter side, so same-topic sentences
   that share a few phrases do not pair.

Passage ends come from the matched words, not from sentence edges; offsets are
characters of the texts given.  The kernels are compiled; memory grows with the number of
words (4 arrays of one integer per word) and of seed pairs (bounded by ``max_df``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from numba import njit

_WORD = re.compile(r"\w+")
_MIX = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class AlignParams:
    """The aligner's knobs (defaults chosen by argument, see the module docstring)."""

    n: int = 4  # words per seed
    max_df: int = 50  # a seed in more documents than this is boilerplate
    min_seeds: int = 3  # distinct shared seeds a document pair needs
    gap: int = 20  # words a passage may skip on either side between two seeds
    min_words: int = 12  # shortest passage, on both sides
    min_density: float = 0.3  # matched words / passage words, on the shorter side


DEFAULT_ALIGN = AlignParams()


@dataclass(frozen=True)
class Passage:
    """One copied passage: character spans in ``a`` and ``b``, words on each side, density."""

    a_chars: tuple[int, int]
    b_chars: tuple[int, int]
    a_words: int
    b_words: int
    similarity: float


def words(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Word ids, character starts and ends of every word of ``texts``, and each text's first word."""
    vocab: dict[str, int] = {}
    ids, starts, ends, first = [], [], [], [0]
    for text in texts:
        for m in _WORD.finditer(text):
            ids.append(vocab.setdefault(m.group().casefold(), len(vocab)))
            starts.append(m.start())
            ends.append(m.end())
        first.append(len(ids))
    return (np.array(ids, dtype=np.uint64), np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64),
            np.array(first, dtype=np.int64))


def seeds(ids: np.ndarray, first: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stage 1: ``(key, doc, position)`` of every ``n``-word run inside one document."""
    total = ids.shape[0]
    if total < n:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    key = np.zeros(total - n + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k in range(n):
            key = (key ^ (ids[k:total - n + 1 + k] + np.uint64(k + 1))) * _MIX
    doc = np.searchsorted(first, np.arange(total - n + 1), side="right") - 1
    inside = np.arange(total - n + 1) + n <= first[doc + 1]
    pos = np.arange(total - n + 1) - first[doc]
    return key[inside], doc[inside], pos[inside]


@njit(cache=True)
def _seed_pairs(key, doc, pos, max_df):
    """Stage 2 kernel: cross-document occurrence pairs of every key found in 2..max_df documents."""
    n = key.shape[0]
    out_a = []
    out_b = []
    out_pa = []
    out_pb = []
    lo = 0
    while lo < n:
        hi = lo
        while hi < n and key[hi] == key[lo]:
            hi += 1
        docs = 1
        for i in range(lo + 1, hi):
            if doc[i] != doc[i - 1]:
                docs += 1
        if 2 <= docs <= max_df and hi - lo <= 4 * max_df:
            for i in range(lo, hi):
                for j in range(i + 1, hi):
                    if doc[i] != doc[j]:
                        out_a.append(doc[i])
                        out_b.append(doc[j])
                        out_pa.append(pos[i])
                        out_pb.append(pos[j])
        lo = hi
    return np.array(out_a, dtype=np.int64), np.array(out_b, dtype=np.int64), \
        np.array(out_pa, dtype=np.int64), np.array(out_pb, dtype=np.int64)


def seed_pairs(key: np.ndarray, doc: np.ndarray, pos: np.ndarray, params: AlignParams):
    """Stage 2: seed matches ``(a, b, pa, pb)`` with ``a < b``, sorted, of pairs with enough seeds."""
    order = np.lexsort((pos, doc, key))
    a, b, pa, pb = _seed_pairs(key[order], doc[order], pos[order], params.max_df)
    order = np.lexsort((pb, pa, b, a))  # keys were sorted by doc, so a < b already
    a, b, pa, pb = a[order], b[order], pa[order], pb[order]
    if a.shape[0] == 0:
        return a, b, pa, pb
    pair = a * (int(b.max()) + 1) + b
    starts = np.r_[0, np.flatnonzero(np.diff(pair)) + 1]
    count = np.diff(np.r_[starts, pair.shape[0]])
    keep = np.repeat(count >= params.min_seeds, count)
    return a[keep], b[keep], pa[keep], pb[keep]


@njit(cache=True)
def _chain(pa, pb, n, gap):
    """Stage 3 kernel for one document pair: passages ``(a_lo, a_hi, b_lo, b_hi, matched)`` in words."""
    out = []
    m = pa.shape[0]
    used = np.zeros(m, dtype=np.bool_)
    for s in range(m):  # every match starts or joins one chain, in order of position in a
        if used[s]:
            continue
        used[s] = True
        a_lo, a_hi, b_lo, b_hi = pa[s], pa[s] + n, pb[s], pb[s] + n
        last_a, last_b, matched = pa[s], pb[s], 1
        for t in range(s + 1, m):
            if pa[t] - last_a > gap:
                break
            if not used[t] and pa[t] >= last_a and abs(pb[t] - last_b) <= gap + (pa[t] - last_a):
                used[t] = True
                a_hi = max(a_hi, pa[t] + n)
                b_lo = min(b_lo, pb[t])
                b_hi = max(b_hi, pb[t] + n)
                last_a, last_b = pa[t], pb[t]
                matched += 1
        out.append((a_lo, a_hi, b_lo, b_hi, matched))
    # one copy is one passage: merge passages that are close in both documents
    out.sort()
    merged = []
    for p in out:
        if merged:
            q = merged[-1]
            if p[0] <= q[1] + gap and p[2] <= q[3] + gap and p[3] >= q[2] - gap:
                merged[-1] = (q[0], max(q[1], p[1]), min(q[2], p[2]), max(q[3], p[3]), q[4] + p[4])
                continue
        merged.append(p)
    return merged


def align(texts: Sequence[str], params: AlignParams = DEFAULT_ALIGN) -> list[tuple[int, int, list[Passage]]]:
    """Every pair of ``texts`` that shares a copied passage: ``(a, b, passages)`` with ``a < b``."""
    ids, starts, ends, first = words(texts)
    key, doc, pos = seeds(ids, first, params.n)
    a, b, pa, pb = seed_pairs(key, doc, pos, params)
    found = []
    if a.shape[0] == 0:
        return found
    cut = np.r_[0, np.flatnonzero((np.diff(a) != 0) | (np.diff(b) != 0)) + 1, a.shape[0]]
    for lo, hi in zip(cut[:-1].tolist(), cut[1:].tolist()):
        da, db = int(a[lo]), int(b[lo])
        passages = []
        for a_lo, a_hi, b_lo, b_hi, matched in _chain(pa[lo:hi], pb[lo:hi], params.n, params.gap):
            aw, bw = a_hi - a_lo, b_hi - b_lo
            density = min(1.0, (matched + params.n - 1) / max(min(aw, bw), 1))
            if min(aw, bw) < params.min_words or density < params.min_density:
                continue
            ga, gb = first[da], first[db]
            passages.append(Passage((int(starts[ga + a_lo]), int(ends[ga + a_hi - 1])),
                                    (int(starts[gb + b_lo]), int(ends[gb + b_hi - 1])), aw, bw, round(density, 4)))
        if passages:
            found.append((da, db, passages))
    return found
