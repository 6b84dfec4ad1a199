"""The online index's window, applied per document of a batch: whom each new document sees, what it evicts.

Why a module of its own: an index adds a batch in one transaction, but its answers must be
those of adding the documents one at a time (docs/commands.md), so the window's rule is
worked out per document of the batch -- vectorised, with no Python loop over documents --
and :meth:`.checker.Checker.check` and :func:`.passages.find_passages` both ask it.

**Time window** of ``w`` seconds.  Let ``H(i)`` be the newest time among the documents the
index held before the batch and the batch's documents up to ``i`` (a running maximum;
``H(-1)``: the newest held).  Document ``i`` of the batch

* *sees* document ``d`` (held before the batch, or earlier in the batch) when ``d`` is still
  held when ``i`` arrives, ``time_d >= H(i-1) - w``, and ``d`` is inside ``i``'s window
  both ways, ``|time_i - time_d| <= w``;
* is *late* when ``time_i < H(i-1) - w``: it is checked (it gets its matches) but not kept,
  as it would be evicted at once; no later document sees it;
* evicts, once checked, the documents with ``time < H(i) - w``.

``H`` only grows, so a document is seen by the batch rows ``start <= i < stop`` (held
before the batch: ``start`` 0; row ``j``: ``j + 1``, or nothing when it is late), which is
what the ``--partial`` document-frequency counts use.  A document without a time is placed
at its arrival by the caller; a NaN time neither evicts nor is evicted.

**Count window** of ``n`` documents: ``i`` sees ``d`` when ``seq_i - seq_d <= n``
(arrival order); the last ``n`` are kept.  No document is late.

**Query** (``adding`` False): the rows see the held documents by the same rule with ``H``
the newest held, and not each other.
"""

from __future__ import annotations

import numpy as np

from ..windows import COUNT_WINDOW, TIME_WINDOW


class Held:
    """The window's rule for one batch of ``len(times)`` documents, numbered from ``first``."""

    def __init__(self, kind: int, size: float, first: int, times: np.ndarray, newest: float | None,
                 adding: bool = True) -> None:
        n = times.shape[0]
        self.kind, self.size, self.n, self.times, self.adding = kind, size, n, times, adding
        #: the seq each row ``i`` gets, and after the last one the next (length ``n + 1``)
        self.arrival = first + np.arange(n + 1, dtype=np.int64) if adding else np.full(n + 1, first, np.int64)
        self.seqs = self.arrival[:n]
        self.late = np.zeros(n, dtype=bool)
        if kind == TIME_WINDOW:
            base = -np.inf if newest is None or np.isnan(newest) else float(newest)
            #: ``H(i-1)`` for ``i`` in ``0..n``: the newest time when row ``i`` arrives (NaN times are skipped)
            self.horizon = np.fmax.accumulate(np.r_[base, times]) if adding else np.full(n + 1, base)
            if adding:
                self.late = times < self.horizon[:n] - size
        rows = np.arange(1, n + 1, dtype=np.int64)
        #: the batch rows that see row ``j``: ``row_start[j] <= i < row_stop[j]``
        self.row_start = rows if adding else np.full(n, n + 1, np.int64)
        self.row_stop = np.where(self.late | (not adding), self.row_start, self.stop(self.seqs, times))
        #: rows still held after the batch (to be stored; adding only)
        self.kept = (self.row_stop > n) & adding

    def stop(self, seqs: np.ndarray, times: np.ndarray) -> np.ndarray:
        """The first batch row (``0..n``, ``n + 1``: none) that no longer sees documents ``seqs``/``times``."""
        if self.kind == COUNT_WINDOW:
            return np.searchsorted(self.arrival, seqs + self.size, side="right")
        if self.kind == TIME_WINDOW:
            at = np.searchsorted(self.horizon, times + self.size, side="right")
            return np.where(np.isnan(times), self.n + 1, at)
        return np.full(seqs.shape[0], self.n + 1, np.int64)

    def sees(self, rows: np.ndarray, start: np.ndarray | int, stop: np.ndarray, times: np.ndarray) -> np.ndarray:
        """Whether batch row ``rows[k]`` sees the document seen by rows ``start[k]..stop[k]-1`` dated ``times[k]``."""
        ok = (start <= rows) & (rows < stop)
        if self.kind == TIME_WINDOW:
            ok &= ~(np.abs(self.times[rows] - times) > self.size)  # both ways; NaN never excludes
        return ok

    def gone_by(self, row: int) -> tuple[str, float] | None:
        """``(column, bound)``: the documents held before the batch that row ``row`` (``n``: the next
        document, after the batch) no longer sees are those whose ``column < bound``; None: all seen."""
        if self.kind == COUNT_WINDOW:
            return "seq", float(self.arrival[row] - self.size)
        if self.kind == TIME_WINDOW and np.isfinite(self.horizon[row]):
            return "time", float(self.horizon[row] - self.size)
        return None
