"""Sketches as table rows: one row per document, every column and list as bytes.

An engine that moves sketches between processes as tables (Spark, through Arrow and
Parquet) stores each document's :class:`~neardup.methods.base.Sketches` row as binary
cells: a column's row (a signature of ``num_perm`` values, a size) and a document's
segment of each list (its feature hashes).  :class:`SketchLayout` knows each field's dtype
and per-row shape (taken from a sketch of one probe document, so it follows whatever the
method keeps) and converts both ways without a Python loop over values; decoding the rows
of any documents, in any order, gives exactly the arrays the method made.  Pure numpy and
pandas: no Spark needed (tested without it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..methods.base import Method, Sketches

if TYPE_CHECKING:
    import pandas as pd

#: A short text every method can sketch: the layout's probe.
PROBE = "the quick brown fox jumps over the lazy dog while the cat is sleeping in the sun"


@dataclass(frozen=True)
class SketchLayout:
    """Dtype and per-row shape of each column, dtype of each list, of a method's sketches."""

    columns: tuple[tuple[str, str, tuple[int, ...]], ...]
    lists: tuple[tuple[str, str], ...]

    @staticmethod
    def of(sk: Sketches) -> "SketchLayout":
        columns = tuple((k, v.dtype.str, tuple(v.shape[1:])) for k, v in sk.columns.items())
        lists = tuple((k, v.dtype.str) for k, v in sk.lists.items())
        return SketchLayout(columns, lists)

    @staticmethod
    def probe(method: Method) -> "SketchLayout":
        """The layout of ``method``'s finished sketches, from one probe document."""
        return SketchLayout.of(probe_sketches(method))

    def fields(self, prefix: str = "") -> list[str]:
        return ([f"{prefix}usable"] + [f"{prefix}c_{k}" for k, _, _ in self.columns]
                + [f"{prefix}l_{k}" for k, _ in self.lists])

    def schema(self, prefix: str = "") -> str:
        """Spark DDL of the encoded columns (``row`` first)."""
        cols = [f"{prefix}row long", f"{prefix}usable boolean"]
        cols += [f"{f} binary" for f in self.fields(prefix)[1:]]
        return ", ".join(cols)

    def encode(self, rows: np.ndarray | None, sk: Sketches) -> "pd.DataFrame":
        """One table row per document of ``sk`` (``rows``: their global row numbers, a column
        ``row``; ``None``: no such column, the rows not known yet)."""
        import pandas as pd

        out: dict[str, object] = {} if rows is None else {"row": np.asarray(rows, np.int64)}
        out["usable"] = sk.usable.astype(bool)
        for k, _, _ in self.columns:
            out[f"c_{k}"] = _row_bytes(sk.columns[k])
        sizes = sk.list_sizes()
        for k, _ in self.lists:
            out[f"l_{k}"] = segment_bytes(sk.lists[k], sizes)
        return pd.DataFrame(out)

    def decode(self, frame: "pd.DataFrame", prefix: str = "") -> Sketches:
        """The :class:`Sketches` of the documents of ``frame``, in its order."""
        n = len(frame)
        usable = frame[f"{prefix}usable"].to_numpy(dtype=bool)
        columns = {k: joined(frame[f"{prefix}c_{k}"], dt).reshape((n, *shape)) for k, dt, shape in self.columns}
        lists, offsets = {}, None
        if self.lists:
            first = f"{prefix}l_{self.lists[0][0]}"
            itemsize = np.dtype(self.lists[0][1]).itemsize
            sizes = np.fromiter((len(b) // itemsize for b in frame[first]), dtype=np.int64, count=n)
            offsets = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(sizes, out=offsets[1:])
            lists = {k: joined(frame[f"{prefix}l_{k}"], dt) for k, dt in self.lists}
        return Sketches(usable, columns, lists, offsets)


def probe_sketches(method: Method) -> Sketches:
    """``method``'s finished sketches of the probe document (:data:`PROBE`): the shapes every document's have."""
    return method.finish([method.sketch(method.prepare([PROBE]))])


def joined(cells: "pd.Series", dtype: str) -> np.ndarray:
    """The ``bytes`` cells end to end as one writable array (compiled kernels get the dtypes they
    were compiled for, not read-only views that would compile again)."""
    return np.frombuffer(bytearray(b"".join(cells)), dtype=np.dtype(dtype))


def _row_bytes(values: np.ndarray) -> list[bytes]:
    """Each row of ``values`` (any trailing shape) as one ``bytes``."""
    n = values.shape[0]
    width = values.dtype.itemsize * int(np.prod(values.shape[1:], dtype=np.int64))
    if n == 0 or width == 0:
        return [b""] * n
    # numpy's stub types the items of a void array's tolist() as bytes or tuples; unstructured voids are bytes
    return np.ascontiguousarray(values).reshape(n, -1).view(np.dtype((np.void, width))).ravel().tolist()  # type: ignore[return-value]


def segment_bytes(values: np.ndarray, sizes: np.ndarray) -> list[bytes]:
    """Each document's segment of the flat list ``values`` as one ``bytes``."""
    raw = np.ascontiguousarray(values).tobytes()
    ends = np.cumsum(sizes) * values.dtype.itemsize
    starts = ends - sizes * values.dtype.itemsize
    return [raw[s:e] for s, e in zip(starts.tolist(), ends.tolist())]
