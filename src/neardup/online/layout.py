"""A method's per-document sketch row as bytes, and back: what the online index stores per document.

:class:`Sketches` keep one row per document in ``columns`` (fixed size: signatures,
sizes) and a slice of the CSR ``lists`` (feature hashes, counts).  :class:`SketchLayout`
records their names, dtypes (little-endian, explicit) and per-row shapes -- in the
index's manifest, under its format version -- and turns rows into two byte strings
(``numpy.tobytes``) and back.  No pickle: a row is plain little-endian numbers, readable
by any program that reads the manifest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..errors import UserError
from ..methods.base import Sketches


def _le(dtype: np.dtype) -> str:
    """The dtype spelled little-endian (``'<u4'``; one-byte types have no order)."""
    return np.dtype(dtype).newbyteorder("<").str


@dataclass(frozen=True)
class SketchLayout:
    """Names, dtypes and per-row shapes of a method's sketch columns and lists."""

    columns: tuple[tuple[str, str, tuple[int, ...]], ...]
    lists: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, sk: Sketches) -> "SketchLayout":
        """The layout of finished sketches ``sk`` (one document is enough to learn it)."""
        cols = tuple((name, _le(a.dtype), tuple(a.shape[1:])) for name, a in sorted(sk.columns.items()))
        lists = tuple((name, _le(a.dtype)) for name, a in sorted(sk.lists.items()))
        return cls(cols, lists)

    def as_json(self) -> dict[str, Any]:
        return {"columns": [[n, d, list(s)] for n, d, s in self.columns], "lists": [[n, d] for n, d in self.lists]}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "SketchLayout":
        return cls(tuple((n, d, tuple(s)) for n, d, s in obj["columns"]), tuple((n, d) for n, d in obj["lists"]))

    @property
    def row_dtype(self) -> np.dtype:
        return np.dtype([(n, d, s) for n, d, s in self.columns])

    @property
    def item_dtype(self) -> np.dtype:
        return np.dtype([(n, d) for n, d in self.lists])

    def encode(self, sk: Sketches) -> tuple[list[bytes], list[bytes]]:
        """Each row's column bytes and list bytes (empty when the method keeps no lists)."""
        if SketchLayout.of(sk) != self:
            raise UserError(f"sketch layout changed: index has {self.as_json()}, method makes {SketchLayout.of(sk).as_json()}")
        n = len(sk)
        rows = np.empty(n, dtype=self.row_dtype)
        for name, _, _ in self.columns:
            rows[name] = sk.columns[name]
        width = self.row_dtype.itemsize
        buf = rows.tobytes()
        cols = [buf[i * width:(i + 1) * width] for i in range(n)]
        if not self.lists:
            return cols, [b""] * n
        assert sk.offsets is not None  # a method that keeps lists has their offsets
        items = np.empty(int(sk.offsets[-1]), dtype=self.item_dtype)
        for name, _ in self.lists:
            items[name] = sk.lists[name]
        lbuf = items.tobytes()
        at = (sk.offsets * self.item_dtype.itemsize).tolist()
        return cols, [lbuf[at[i]:at[i + 1]] for i in range(n)]

    def decode(self, cols: Sequence[bytes], lists: Sequence[bytes]) -> Sketches:
        """The finished sketches of stored rows (every stored document is usable)."""
        n = len(cols)
        width = self.row_dtype.itemsize
        raw = b"".join(cols)
        if len(raw) != n * width:
            raise UserError("index damaged: a stored sketch row has the wrong size")
        columns = {}
        if width:
            rows = np.frombuffer(raw, dtype=self.row_dtype)
            columns = {name: np.ascontiguousarray(rows[name]).astype(np.dtype(d).newbyteorder("="), copy=False)
                       for name, d, _ in self.columns}
        out = Sketches(np.ones(n, dtype=bool), columns)
        if self.lists:
            size = self.item_dtype.itemsize
            lengths = np.fromiter((len(b) for b in lists), dtype=np.int64, count=n)
            if (lengths % size).any():
                raise UserError("index damaged: a stored feature list has the wrong size")
            items = np.frombuffer(b"".join(lists), dtype=self.item_dtype)
            out.lists = {name: np.ascontiguousarray(items[name]).astype(np.dtype(d).newbyteorder("="), copy=False)
                         for name, d in self.lists}
            out.offsets = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(lengths // size, out=out.offsets[1:])
        return out
