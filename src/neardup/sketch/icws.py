"""Improved consistent weighted sampling (Ioffe 2010): MinHash for weighted sets.

A weighted set maps features to non-negative weights; the weighted Jaccard of two of
them is ``sum(min(W1, W2)) / sum(max(W1, W2))``.  Ioffe's ICWS draws, per hash
function, one sample ``(k, t)`` -- a feature and a quantized weight level -- such that
two sets draw the same sample with probability equal to their weighted Jaccard, in
constant time per feature.  For feature ``k`` of weight ``S_k`` and hash function ``j``:

    r, c ~ Gamma(2, 1),  beta ~ Uniform(0, 1)          (seeded by k and j only)
    t = floor(ln S_k / r + beta),  y = exp(r (t - beta)),  a = c / (y exp(r))

and the sample is the ``(k, t)`` of least ``a``.  (alonso2013 writes the same with
``r' = 1 / (u1 u2) = exp(r)``, ``t = floor(beta + log_r' w)``, ``y = r'^(t - beta)``,
``a = -ln(v1 v2) / (r' y)``; ``-ln(u1 u2)`` of two uniforms is Gamma(2, 1).)

The five uniforms of ``(k, j)`` come from three SplitMix64 mixes of the feature's
64-bit hash XOR a per-function key drawn from the seed, so samples depend only on the
feature, its weight and the seed: consistent across documents, runs and machines.  A
sample is stored as a 32-bit hash of ``(k, t)`` (as MinHash values are 32-bit), so a
signature is ``4 * num_samples`` bytes and the share of equal positions estimates the
weighted Jaccard (with a 2^-32 chance per position of an accidental match).  The
sketch is one compiled loop per document, run in parallel over documents.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..errors import UserError

EMPTY = np.uint32(0xFFFFFFFF)

_G = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LOW16 = np.uint64(0xFFFF)
_TWO16 = 1.0 / 65536.0
_TWO32 = 1.0 / 4294967296.0
_TWO53 = 1.0 / 9007199254740992.0


@njit(inline="always", cache=True)
def _mix(z):
    """SplitMix64's finalizer: a bijective 64-bit mix."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(inline="always", cache=True)
def _uniform32(high, low):
    """A uniform strictly inside (0, 1) from two 16-bit halves of a 32-bit integer."""
    return (np.float64(np.int64((high << np.uint64(16)) | low)) + 0.5) * _TWO32


@njit(inline="always", cache=True)
def _sample_id(x, t):
    """32-bit id of the sample (feature hash ``x``, level ``t``); never EMPTY."""
    v = _mix(x ^ _mix(np.uint64(t) + _G)) >> np.uint64(32)
    if v == np.uint64(0xFFFFFFFF):
        v = np.uint64(0xFFFFFFFE)
    return np.uint32(v)


@njit(inline="always", cache=True)
def _icws_row(hashes, weights, lo, hi, keys, best, best_x, best_t):
    """Run ICWS over features ``lo:hi``; returns how many had positive weight."""
    m = keys.shape[0]
    used = 0
    for p in range(lo, hi):
        w = weights[p]
        if not w > 0.0:
            continue
        used += 1
        lnw = np.log(w)
        x = hashes[p]
        inv_w = 1.0 / w
        for j in range(m):
            s = x ^ keys[j]
            # the 32-bit uniforms u1, u2, v1, v2 take their high 16 bits from one mix and
            # their low 16 bits from a second; the first alone bounds them to 2^-16
            hi = _mix(s + _G)
            # a >= c exp(-r) / w  (as t - beta <= ln w / r), with exp(-r) = u1 u2 and
            # c = -ln(v1 v2) >= 1 - v1 v2: most features are ruled out here, before any
            # second mix or logarithm
            u1_lo = np.float64(np.int64(hi >> np.uint64(48))) * _TWO16
            u2_lo = np.float64(np.int64((hi >> np.uint64(32)) & _LOW16)) * _TWO16
            v1_hi = np.float64(np.int64((hi >> np.uint64(16)) & _LOW16) + 1) * _TWO16
            v2_hi = np.float64(np.int64(hi & _LOW16) + 1) * _TWO16
            if (1.0 - v1_hi * v2_hi) * u1_lo * u2_lo * inv_w >= best[j]:
                continue
            lo = _mix(s + _G + _G)
            u1 = _uniform32(hi >> np.uint64(48), lo >> np.uint64(48))
            u2 = _uniform32((hi >> np.uint64(32)) & _LOW16, (lo >> np.uint64(32)) & _LOW16)
            v1 = _uniform32((hi >> np.uint64(16)) & _LOW16, (lo >> np.uint64(16)) & _LOW16)
            v2 = _uniform32(hi & _LOW16, lo & _LOW16)
            e = u1 * u2 * inv_w
            c = -np.log(v1 * v2)
            if c * e >= best[j]:
                continue
            beta = np.float64(np.int64(_mix(s + _G + _G + _G) >> np.uint64(11))) * _TWO53
            r = -np.log(u1 * u2)
            t = np.floor(lnw / r + beta)
            a = c * np.exp(-r * (t - beta + 1.0))
            if a < best[j]:
                best[j] = a
                best_x[j] = x
                best_t[j] = np.int64(t)
    return used


@njit(nogil=True, cache=True)
def _icws_doc(hashes, weights, lo, hi, keys, out_row):
    """Samples of one document into ``out_row``; returns its number of weighted features."""
    m = keys.shape[0]
    best = np.full(m, np.inf)
    best_x = np.zeros(m, dtype=np.uint64)
    best_t = np.zeros(m, dtype=np.int64)
    used = _icws_row(hashes, weights, lo, hi, keys, best, best_x, best_t)
    if used:
        for j in range(m):
            out_row[j] = _sample_id(best_x[j], best_t[j])
    return used


@njit(parallel=True, nogil=True, cache=True)
def _icws(hashes, offsets, weights, keys):
    n = offsets.shape[0] - 1
    out = np.full((n, keys.shape[0]), EMPTY, dtype=np.uint32)
    used = np.zeros(n, dtype=np.int64)
    for d in prange(n):
        used[d] = _icws_doc(hashes, weights, offsets[d], offsets[d + 1], keys, out[d])
    return out, used


@njit(parallel=True, nogil=True, cache=True)
def weighted_jaccard(hashes, offsets, weights, a, b):
    """Exact weighted Jaccard ``sum min / sum max`` of documents ``a[i]`` and ``b[i]``.

    Each document's ``hashes`` are sorted and unique, ``weights`` aligned with them.
    """
    out = np.empty(a.shape[0], dtype=np.float64)
    for i in prange(a.shape[0]):
        p, pe = offsets[a[i]], offsets[a[i] + 1]
        q, qe = offsets[b[i]], offsets[b[i] + 1]
        lo = 0.0
        hi = 0.0
        while p < pe or q < qe:
            if q >= qe or (p < pe and hashes[p] < hashes[q]):
                hi += max(weights[p], 0.0)
                p += 1
            elif p >= pe or hashes[q] < hashes[p]:
                hi += max(weights[q], 0.0)
                q += 1
            else:
                wa = max(weights[p], 0.0)
                wb = max(weights[q], 0.0)
                lo += min(wa, wb)
                hi += max(wa, wb)
                p += 1
                q += 1
        out[i] = lo / hi if hi > 0.0 else 0.0
    return out


class ICWSampler:
    """Draws ``num_samples`` ICWS samples per weighted set, seeded by ``seed``."""

    def __init__(self, num_samples: int = 128, seed: int = 1) -> None:
        if num_samples < 1:
            raise UserError(f"num_samples must be at least 1, got {num_samples}")
        self.num_samples = num_samples
        self.seed = seed
        rng = np.random.Generator(np.random.PCG64(seed))
        self._keys = rng.integers(0, 2**64 - 1, size=num_samples, dtype=np.uint64, endpoint=True)

    def sketch(self, hashes: np.ndarray, offsets: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(signatures, used)``: ``(n, num_samples)`` uint32 samples, and per document the
        number of features of positive weight (0: the row is all EMPTY)."""
        weights = np.ascontiguousarray(weights, dtype=np.float64)
        if weights.shape != hashes.shape:
            raise ValueError("weights must align with hashes")
        return _icws(np.ascontiguousarray(hashes, dtype=np.uint64), offsets, weights, self._keys)
