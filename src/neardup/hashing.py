"""The one stable 64-bit hash of neardup: XXH64, compiled with numba.

Every feature neardup hashes (tokens, shingles, band keys) goes through XXH64 so that
signatures are identical across runs, processes, machines and engines (Python's
built-in ``hash()`` is salted per process and must never be used).  The kernels here
are bit-exact with the reference implementation in the ``xxhash`` package, which the
tests check:

* :func:`xxh64_bytes` hashes a slice of a ``uint8`` buffer (a UTF-8 token);
* :func:`xxh64_lanes` hashes a run of ``uint64`` values as their little-endian bytes
  (a shingle is the XXH64 of its tokens' hashes).

Outside compiled code, :func:`hash_str` gives the same token hash through ``xxhash``.
"""

from __future__ import annotations

import numpy as np
import xxhash
from numba import njit

P1 = np.uint64(0x9E3779B185EBCA87)
P2 = np.uint64(0xC2B2AE3D27D4EB4F)
P3 = np.uint64(0x165667B19E3779F9)
P4 = np.uint64(0x85EBCA77C2B2AE63)
P5 = np.uint64(0x27D4EB2F165667C5)
_ZERO = np.uint64(0)


@njit(inline="always", cache=True)
def _rotl(x, r):
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


@njit(inline="always", cache=True)
def _round(acc, lane):
    acc = acc + lane * P2
    acc = _rotl(acc, 31)
    return acc * P1


@njit(inline="always", cache=True)
def _merge(acc, val):
    acc = acc ^ _round(_ZERO, val)
    return acc * P1 + P4


@njit(inline="always", cache=True)
def _avalanche(h):
    h = h ^ (h >> np.uint64(33))
    h = h * P2
    h = h ^ (h >> np.uint64(29))
    h = h * P3
    return h ^ (h >> np.uint64(32))


@njit(inline="always", cache=True)
def _converge(v1, v2, v3, v4):
    h = _rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)
    h = _merge(h, v1)
    h = _merge(h, v2)
    h = _merge(h, v3)
    return _merge(h, v4)


@njit(inline="always", cache=True)
def _read64(buf, p):
    v = np.uint64(0)
    for i in range(8):
        v |= np.uint64(buf[p + i]) << np.uint64(8 * i)
    return v


@njit(inline="always", cache=True)
def _read32(buf, p):
    v = np.uint64(0)
    for i in range(4):
        v |= np.uint64(buf[p + i]) << np.uint64(8 * i)
    return v


@njit(cache=True)
def xxh64_bytes(buf, start, end, seed):
    """XXH64 of ``buf[start:end]`` (a ``uint8`` array) with a ``uint64`` seed."""
    length = end - start
    p = start
    if length >= 32:
        v1 = seed + P1 + P2
        v2 = seed + P2
        v3 = seed
        v4 = seed - P1
        limit = end - 32
        while p <= limit:
            v1 = _round(v1, _read64(buf, p))
            v2 = _round(v2, _read64(buf, p + 8))
            v3 = _round(v3, _read64(buf, p + 16))
            v4 = _round(v4, _read64(buf, p + 24))
            p += 32
        h = _converge(v1, v2, v3, v4)
    else:
        h = seed + P5
    h = h + np.uint64(length)
    while p + 8 <= end:
        h = h ^ _round(_ZERO, _read64(buf, p))
        h = _rotl(h, 27) * P1 + P4
        p += 8
    if p + 4 <= end:
        h = h ^ (_read32(buf, p) * P1)
        h = _rotl(h, 23) * P2 + P3
        p += 4
    while p < end:
        h = h ^ (np.uint64(buf[p]) * P5)
        h = _rotl(h, 11) * P1
        p += 1
    return _avalanche(h)


@njit(cache=True)
def xxh64_lanes(vals, start, end, seed):
    """XXH64 of ``vals[start:end]`` (``uint64``) read as little-endian bytes."""
    n = end - start
    p = start
    if n >= 4:
        v1 = seed + P1 + P2
        v2 = seed + P2
        v3 = seed
        v4 = seed - P1
        while p + 4 <= end:
            v1 = _round(v1, vals[p])
            v2 = _round(v2, vals[p + 1])
            v3 = _round(v3, vals[p + 2])
            v4 = _round(v4, vals[p + 3])
            p += 4
        h = _converge(v1, v2, v3, v4)
    else:
        h = seed + P5
    h = h + np.uint64(8 * n)
    while p < end:
        h = h ^ _round(_ZERO, vals[p])
        h = _rotl(h, 27) * P1 + P4
        p += 1
    return _avalanche(h)


def hash_str(token: str, seed: int = 0) -> int:
    """The token hash of ``token`` as the compiled tokenizer computes it (XXH64 of UTF-8)."""
    return xxhash.xxh64_intdigest(token.encode("utf-8"), seed=seed)
