"""Approximate counting for collections too large to count every phrase exactly.

A count-min sketch (Cormode and Muthukrishnan 2005) keeps ``depth`` rows of ``width``
counters; item ``x`` adds to one counter per row, chosen by a row's hash of ``x``, and
its estimate is the least of its counters.  The estimate never falls below the true
count, and exceeds it by at most ``e / width`` of the total count with probability at
least ``1 - exp(-depth)``.  With *conservative update* (Estan and Varghese 2002) an
item raises only the counters that are below its new estimate, which keeps the upper
bound and cuts the error of skewed data (a few very common phrases, a long tail of
phrases seen once) by a large factor.

The update here takes a whole batch at once in numpy: items of the batch are counted
(``np.unique``), every item's estimate is read from the table as it was before the
batch, and each of its counters is raised to at least ``estimate + count``
(``np.maximum.at``).  Sequential conservative update would let items of one batch
see each other's increments; the batch form raises counters a little more often, but
it still never under-estimates: every counter of ``x`` ends at least at ``x``'s
previous estimate (itself at least its true previous count) plus its count in the
batch.  And it never over-counts a plain count-min sketch, whose counters hold the
sum of everything hashed there.

Used by ``neardup stats build --approximate`` for the document frequencies of phrases:
each document adds its distinct phrases once, and the phrases whose estimate passes a
threshold while streaming are recorded as the "common" (heavy-hitter) set, which
weighted sampling needs (alonso2013: phrases in more than 42 documents are common;
"fuzzier counts would suffice" for that binary decision).
"""

from __future__ import annotations

import numpy as np

from ..errors import UserError

_MASK32 = np.uint64(0xFFFFFFFF)


class CountMinSketch:
    """``depth x width`` counters with conservative update; keys are 64-bit hashes."""

    def __init__(self, width: int = 1 << 22, depth: int = 4, seed: int = 0) -> None:
        if width < 1 or width & (width - 1):
            raise UserError(f"width must be a power of two, got {width}")
        if depth < 1:
            raise UserError(f"depth must be at least 1, got {depth}")
        self.width = width
        self.depth = depth
        self.seed = seed
        self.total = 0
        self.table = np.zeros((depth, width), dtype=np.uint32)
        rng = np.random.Generator(np.random.PCG64(seed))
        # multiply-shift hashing of the (already random) 64-bit keys, one odd multiplier per row
        self._a = rng.integers(0, 2**63, size=depth, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        self._b = rng.integers(0, 2**63, size=depth, dtype=np.uint64)
        self._shift = np.uint64(64 - int(width).bit_length() + 1)

    def _index(self, keys: np.ndarray) -> np.ndarray:
        """``(depth, len(keys))`` counter positions of ``keys``."""
        keys = np.asarray(keys, dtype=np.uint64)
        if self.width == 1:
            return np.zeros((self.depth, keys.shape[0]), dtype=np.int64)
        with np.errstate(over="ignore"):
            pos = (self._a[:, None] * keys[None, :] + self._b[:, None]) >> self._shift
        return pos.astype(np.int64)

    def update(self, keys: np.ndarray, counts: np.ndarray | None = None) -> None:
        """Add ``counts`` (default: one per occurrence) of each of ``keys``."""
        keys = np.asarray(keys, dtype=np.uint64)
        if counts is None:
            keys, counts = np.unique(keys, return_counts=True)
        else:
            counts = np.asarray(counts, dtype=np.int64)
        if not keys.shape[0]:
            return
        self.total += int(counts.sum())
        pos = self._index(keys)
        rows = np.arange(self.depth)[:, None]
        estimate = self.table[rows, pos].min(axis=0).astype(np.int64)
        target = np.minimum(estimate + counts, np.iinfo(np.uint32).max).astype(np.uint32)
        for r in range(self.depth):
            np.maximum.at(self.table[r], pos[r], target)

    def query(self, keys: np.ndarray) -> np.ndarray:
        """Estimated count of each key (never below the true count)."""
        keys = np.asarray(keys, dtype=np.uint64)
        if not keys.shape[0]:
            return np.zeros(0, dtype=np.int64)
        pos = self._index(keys)
        return self.table[np.arange(self.depth)[:, None], pos].min(axis=0).astype(np.int64)

    def error_bound(self) -> float:
        """Count-min's additive bound ``e / width * total``, held with prob. ``1 - exp(-depth)``."""
        return float(np.e / self.width * self.total)

    def to_arrays(self, prefix: str = "cms_") -> dict[str, np.ndarray | np.generic]:
        """The arrays that :meth:`from_arrays` rebuilds the sketch from."""
        return {
            prefix + "table": self.table,
            prefix + "seed": np.int64(self.seed),
            prefix + "total": np.int64(self.total),
        }

    @classmethod
    def from_arrays(cls, data, prefix: str = "cms_") -> "CountMinSketch":
        table = np.asarray(data[prefix + "table"])
        if table.ndim != 2 or table.dtype.kind not in "iu" or (table.size and table.min() < 0):
            raise ValueError(f"count-min table of shape {table.shape} and type {table.dtype}")
        table = table.astype(np.uint32)
        out = cls(width=table.shape[1], depth=table.shape[0], seed=int(data[prefix + "seed"]))
        out.table = table.copy()
        out.total = int(data[prefix + "total"])
        return out
