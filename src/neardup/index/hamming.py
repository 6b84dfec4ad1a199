"""All pairs of f-bit fingerprints within Hamming distance k: Manku et al.'s permuted tables.

Manku, Jain and Das Sarma (WWW 2007) split the f bits into ``B > k`` blocks.  Two
fingerprints at most k bits apart differ in at most k blocks, so they agree exactly on
at least ``B - k`` of them.  One table per choice of ``B - k`` blocks (``C(B, k)``
tables) keys every fingerprint by those blocks -- their paper permutes the bits so the
chosen blocks lead and sorts; here the key is the XXH64 of the fingerprint masked to
the chosen blocks, which is the same exact-match grouping -- and only fingerprints with
equal keys are compared, by their true Hamming distance.  Every pair within k bits is
therefore found (a hash collision only adds a comparison), without comparing all pairs.

A pair that agrees on more than ``B - k`` blocks matches in several tables; it is
emitted only by the first of them in the tables' (lexicographic) order, the one whose
blocks are the first ``B - k`` blocks the pair agrees on, so no pair is reported twice.

:func:`choose_blocks` picks ``B`` for a collection of ``n`` fingerprints by Manku's
trade-off: more blocks make longer keys (fewer fingerprints per key, about
``n / 2^key_bits``) but more tables; it minimizes ``tables x (n + n^2 / 2^(key_bits+1))``
under random fingerprints.  When the radius is so wide that even the best tables key on a few
bits (a learned cosine threshold of 0.5 is 158 bits of 384), the tables compare the same pairs
over and over, and comparing every pair once costs less: :func:`hamming_pairs` then does that,
with the same answer.  Fingerprints are ``(n, f / 64)`` ``uint64`` arrays, bit
``i`` in word ``i // 64``; any ``f`` that is a multiple of 64 works (64 and 384 in the
papers).
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
from numba import njit, prange

from ..errors import UserError
from ..hashing import xxh64_lanes

#: Above this many tables the search for the number of blocks stops.
MAX_TABLES = 20000


@njit(inline="always", cache=True)
def popcount64(x):
    """Number of set bits of a ``uint64`` (SWAR)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(inline="always", cache=True)
def _distance(fp, x, y):
    d = 0
    for w in range(fp.shape[1]):
        d += popcount64(fp[x, w] ^ fp[y, w])
    return d


@njit(parallel=True, nogil=True, cache=True)
def hamming_distances(fp, a, b):
    """Hamming distance between fingerprints ``fp[a[i]]`` and ``fp[b[i]]``."""
    out = np.empty(a.shape[0], dtype=np.int64)
    for i in prange(a.shape[0]):
        out[i] = _distance(fp, a[i], b[i])
    return out


@njit(parallel=True, nogil=True, cache=True)
def _table_keys(fp, mask, seed):
    n, words = fp.shape
    keys = np.empty(n, dtype=np.uint64)
    for d in prange(n):
        lanes = np.empty(words, dtype=np.uint64)
        for w in range(words):
            lanes[w] = fp[d, w] & mask[w]
        keys[d] = xxh64_lanes(lanes, 0, words, seed)
    return keys


@njit(inline="always", cache=True)
def _emitted(fp, x, y, k, mask, differ):
    """Whether pair ``(x, y)`` is within ``k`` bits and this table is its first match."""
    for w in range(fp.shape[1]):
        if (fp[x, w] ^ fp[y, w]) & mask[w]:
            return False  # equal keys by a hash collision only
    if _distance(fp, x, y) > k:
        return False
    for j in range(differ.shape[0]):
        same = True
        for w in range(fp.shape[1]):
            if (fp[x, w] ^ fp[y, w]) & differ[j, w]:
                same = False
                break
        if same:
            return False  # agrees on an earlier block: an earlier table emits it
    return True


@njit(parallel=True, nogil=True, cache=True)
def _run_pairs(order, run_starts, fp, k, mask, differ, counts, out_a, out_b, starts):
    """Pairs within each run of equal keys (count, or fill at ``starts`` when out_a is given)."""
    write = out_a.shape[0] > 0
    for r in prange(run_starts.shape[0] - 1):
        lo, hi = run_starts[r], run_starts[r + 1]
        found = 0
        for p in range(lo, hi):
            for q in range(p + 1, hi):
                x, y = order[p], order[q]
                if _emitted(fp, x, y, k, mask, differ):
                    if write:
                        out_a[starts[r] + found] = min(x, y)
                        out_b[starts[r] + found] = max(x, y)
                    found += 1
        counts[r] = found


def block_bounds(bits: int, blocks: int) -> np.ndarray:
    """``blocks + 1`` bit positions cutting ``bits`` into near-equal blocks (wider first)."""
    widths = np.full(blocks, bits // blocks, dtype=np.int64)
    widths[: bits % blocks] += 1
    return np.concatenate([[0], np.cumsum(widths)])


def block_masks(bits: int, blocks: int) -> np.ndarray:
    """``(blocks, bits // 64)`` ``uint64`` masks of the bits of each block."""
    bounds = block_bounds(bits, blocks)
    bit = np.arange(bits)
    owner = np.searchsorted(bounds, bit, side="right") - 1
    masks = np.zeros((blocks, bits // 64), dtype=np.uint64)
    for j in range(blocks):
        sel = bit[owner == j]
        np.bitwise_or.at(masks[j], sel // 64, np.left_shift(np.uint64(1), (sel % 64).astype(np.uint64)))
    return masks


def choose_blocks(bits: int, k: int, n: int) -> int:
    """Number of blocks minimizing the expected work for ``n`` random fingerprints."""
    return _best_blocks(bits, k, n)[0]


def _best_blocks(bits: int, k: int, n: int) -> tuple[int, float]:
    """:func:`choose_blocks` and its expected work (fingerprints keyed plus pairs compared)."""
    best, best_cost = k + 1, float("inf")
    for blocks in range(k + 1, bits + 1):
        tables = comb(blocks, k)
        if tables > MAX_TABLES and best_cost < float("inf"):
            break
        widths = np.sort(np.diff(block_bounds(bits, blocks)))
        key_bits = int(widths[: blocks - k].sum())  # the shortest keys dominate
        cost = tables * (n + n * n / 2.0 ** (key_bits + 1))
        if cost < best_cost:
            best, best_cost = blocks, cost
    return best, best_cost


@njit(parallel=True, nogil=True, cache=True)
def _all_pairs(fp, k, chunks, counts, out_a, out_b, starts):
    """Every pair within ``k`` bits, each compared once (count, or fill at ``starts`` when
    ``out_a`` is given); a chunk takes every ``chunks``-th fingerprint, so the chunks, of
    rows of every length, are equal work."""
    n = fp.shape[0]
    write = out_a.shape[0] > 0
    for c in prange(chunks):
        for x in range(c, n, chunks):
            found = 0
            for y in range(x + 1, n):
                if _distance(fp, x, y) <= k:
                    if write:
                        out_a[starts[x] + found] = x
                        out_b[starts[x] + found] = y
                    found += 1
            counts[x] = found


def _every_pair_within(fp: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`hamming_pairs` by comparing every pair once (in order of ``(a, b)``)."""
    n = fp.shape[0]
    chunks = min(n, 64)
    counts = np.zeros(n, dtype=np.int64)
    none = np.zeros(0, np.int64)
    _all_pairs(fp, k, chunks, counts, none, none, counts)
    starts = np.zeros(n, dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    out_a = np.empty(int(counts.sum()), dtype=np.int64)
    out_b = np.empty(out_a.shape[0], dtype=np.int64)
    if out_a.shape[0]:
        _all_pairs(fp, k, chunks, np.zeros(n, np.int64), out_a, out_b, starts)
    return out_a, out_b


def check_bits(bits: int) -> None:
    """Reject fingerprint lengths that are not a positive multiple of 64."""
    if bits < 64 or bits % 64:
        raise UserError(f"bits must be a positive multiple of 64 (fingerprint bits), got {bits}")


def hamming_pairs(
    fp: np.ndarray, k: int, blocks: int | None = None, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Index arrays ``(a, b)``, ``a < b`` sorted, of every pair within ``k`` bits.

    ``blocks`` (more than ``k``, at most the number of bits) defaults to
    :func:`choose_blocks`, or to none when comparing every pair is less work (see the module).  With ``k`` at or above the number of bits every pair
    qualifies and all pairs are returned.
    """
    fp = np.ascontiguousarray(fp, dtype=np.uint64)
    n, words = fp.shape
    bits = 64 * words
    check_bits(bits)
    if k < 0 or n < 2:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if k >= bits:
        a, b = np.triu_indices(n, k=1)
        return a.astype(np.int64), b.astype(np.int64)
    if blocks is None:
        blocks, cost = _best_blocks(bits, k, n)
        if n * (n - 1) / 2 <= cost:  # the tables' keys would be a few bits: compare every pair once
            return _every_pair_within(fp, k)
    if not k < blocks <= bits:
        raise UserError(f"blocks must be more than k = {k} and at most {bits}, got {blocks}")
    masks = block_masks(bits, blocks)
    found_a, found_b = [], []
    for table in combinations(range(blocks), blocks - k):
        mask = np.bitwise_or.reduce(masks[list(table)], axis=0)
        differ = masks[[j for j in range(table[-1]) if j not in table]].reshape(-1, words)
        keys = _table_keys(fp, mask, np.uint64(seed))
        order = np.argsort(keys, kind="stable")
        sorted_keys = keys[order]
        bounds = np.concatenate([[0], np.flatnonzero(sorted_keys[1:] != sorted_keys[:-1]) + 1, [n]])
        lengths = np.diff(bounds)
        multi = lengths > 1
        if not multi.any():
            continue
        members, run_starts = _runs(order, bounds[:-1][multi], lengths[multi])
        counts = np.zeros(run_starts.shape[0] - 1, dtype=np.int64)
        none = np.zeros(0, np.int64)
        _run_pairs(members, run_starts, fp, k, mask, differ, counts, none, none, counts)
        total = int(counts.sum())
        if not total:
            continue
        starts = np.zeros_like(counts)
        np.cumsum(counts[:-1], out=starts[1:])
        out_a = np.empty(total, dtype=np.int64)
        out_b = np.empty(total, dtype=np.int64)
        _run_pairs(members, run_starts, fp, k, mask, differ, np.zeros_like(counts), out_a, out_b, starts)
        found_a.append(out_a)
        found_b.append(out_b)
    if not found_a:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    a, b = np.concatenate(found_a), np.concatenate(found_b)
    order = np.lexsort((b, a))
    return a[order], b[order]


def _runs(order: np.ndarray, lo: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The members of the runs ``order[lo[r] : lo[r] + lengths[r]]`` end to end, and run starts."""
    starts = np.zeros(lengths.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    idx = np.repeat(lo - starts[:-1], lengths) + np.arange(int(starts[-1]))
    return order[idx], starts


def table_keys(fp: np.ndarray, k: int, blocks: int, seed: int = 0) -> np.ndarray:
    """``(n, C(blocks, k))`` keys of every fingerprint in each of the permuted tables of :func:`hamming_pairs`.

    Two fingerprints within ``k`` bits share the key of at least one table (the same
    column), so a persistent index that stores these keys finds every such pair by exact
    key lookups; a shared key is only a candidate (compare the true distance).
    """
    fp = np.ascontiguousarray(fp, dtype=np.uint64)
    n, words = fp.shape
    bits = 64 * words
    if not k < blocks <= bits:
        raise UserError(f"blocks must be more than k = {k} and at most {bits}, got {blocks}")
    masks = block_masks(bits, blocks)
    tables = list(combinations(range(blocks), blocks - k))
    out = np.empty((n, len(tables)), dtype=np.uint64)
    for j, table in enumerate(tables):
        out[:, j] = _table_keys(fp, np.bitwise_or.reduce(masks[list(table)], axis=0), np.uint64(seed))
    return out
