"""Batches' sketches held in memory up to a budget, then spilled to disk and memory-mapped.

The local engine keeps every document's sketch (MinHash: 4 bytes x ``num_perm``; ffp: 8
bytes per shingle) until the corpus is read.  Past :func:`default_budget` (an eighth of the
memory available when the run starts) :class:`PartStore` appends the batches' arrays to
files instead, and hands the method one part whose arrays map those files: the operating
system pages them in and out, so a corpus whose sketches exceed memory runs slower
instead of being killed.  The budget is an eighth of the memory available at the start: the
sketches are about a third of what the engine holds per document (ids, provenance and
band keys are the rest) and joining the batches doubles them for a moment, so they spill
well before memory runs out; spilling costs little (the mapped pages stay in the page
cache while there is room).  The result is the same: ``finish`` of one part is that part,
without a copy.

A corpus-dependent method's batches spill too: their features, held until the collection's
statistics are known, are arrays -- in ``lists`` (simhash's and I-Match's word hashes, wsample's
phrases) or in ``features`` that can be written as arrays (``arrays()``, rebuilt by
``from_arrays``: ANDD's k-grams) -- and go to the files like the sketches, while the batches'
``stats`` (mergeable, the size of the collection's vocabulary, not of its text) are merged here as
they come and stay in memory.  ``finish`` then gets one part whose features map the files, with
the merged statistics, and reads them a piece at a time (``Method.apply_in_pieces``; ANDD's own
loop; wsample applies its statistics to the whole mapped part at once).  Parts whose ``features``
are not arrays stay in memory.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

import numpy as np

from ..methods.base import Sketches


def default_budget() -> int:
    """An eighth of the memory available now (1 GiB when the system does not say)."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 8
    except (ValueError, OSError, AttributeError):
        return 1 << 30


def nbytes(part: Sketches) -> int:
    """Bytes of a part's per-document arrays (its features' too)."""
    arrays = [part.usable, *part.columns.values(), *part.lists.values()]
    held = sum(a.nbytes for a in arrays) + (part.offsets.nbytes if part.offsets is not None else 0)
    return held + int(getattr(part.features, "nbytes", 0))


def spillable(part: Sketches) -> bool:
    """Whether ``part`` can go to files: its features, if any, are arrays, and its corpus statistic,
    if any, merges (it is then merged in memory)."""
    if part.features is not None:
        return hasattr(part.features, "arrays") and part.stats is not None
    return part.stats is None or hasattr(part.stats, "merge")


class PartStore:
    """The sketched batches, in order: in memory until ``budget`` bytes, then in files under ``folder``."""

    def __init__(self, budget: int | None = None, folder: str | None = None) -> None:
        self.budget = default_budget() if budget is None else budget
        self.folder = folder
        self.held: list[Sketches] = []
        self.held_bytes = 0
        self.path: str | None = None
        self.files: dict[str, Any] = {}
        self.layout: dict[str, tuple[np.dtype, tuple[int, ...]]] = {}
        self.rows = 0
        self.spilled_bytes = 0
        self.info: dict[str, Any] = {}
        self.stats: Any = None  # the spilled parts' statistics, merged
        self.features: Any = None  # the type of the spilled parts' features

    @property
    def spilled(self) -> bool:
        return self.path is not None

    def add(self, part: Sketches) -> None:
        """Keep ``part`` (the next batch's sketches)."""
        if self.spilled:
            self._append(part)
            return
        self.held.append(part)
        self.held_bytes += nbytes(part)
        if self.held_bytes > self.budget and all(spillable(p) for p in self.held):
            self.path = tempfile.mkdtemp(prefix="neardup-spill-", dir=self.folder)
            held, self.held = self.held, []
            for p in held:
                self._append(p)

    def _append(self, part: Sketches) -> None:
        assert self.path is not None  # only once spilled
        if not self.files:
            self.info = dict(part.info)
        fields = {"usable": part.usable, **{f"c_{k}": v for k, v in part.columns.items()},
                  **{f"l_{k}": v for k, v in part.lists.items()}}
        if part.features is not None:
            self.features = type(part.features)
            fields.update({f"f_{k}": v for k, v in part.features.arrays().items()})
        if part.stats is not None:
            self.stats = part.stats if self.stats is None else self.stats.merge(part.stats)
        if part.offsets is not None:
            fields["sizes"] = part.list_sizes().astype(np.int64)
        for name, values in fields.items():
            if name not in self.files:
                self.files[name] = open(os.path.join(self.path, name), "wb")  # noqa: SIM115 - closed in parts()
                self.layout[name] = (values.dtype, tuple(values.shape[1:]))
            np.ascontiguousarray(values).tofile(self.files[name])
            self.spilled_bytes += values.nbytes
        self.rows += len(part)

    def parts(self) -> list[Sketches]:
        """The batches' sketches: as added, or one part mapping the spilled files (handed over: the
        store keeps no reference, so ``finish`` can free the batches as it joins them)."""
        if not self.spilled:
            held, self.held = self.held, []
            return held
        assert self.path is not None
        for f in self.files.values():
            f.close()
        arrays = {}
        for name, (dtype, shape) in self.layout.items():
            count = os.path.getsize(os.path.join(self.path, name)) // dtype.itemsize
            mapped = np.memmap(os.path.join(self.path, name), dtype=dtype, mode="r+", shape=(count,)) if count else \
                np.zeros(0, dtype)
            arrays[name] = np.asarray(mapped).reshape((-1, *shape))
        offsets = None
        if "sizes" in arrays:
            offsets = np.zeros(self.rows + 1, dtype=np.int64)
            np.cumsum(arrays.pop("sizes"), out=offsets[1:])
        columns = {k[2:]: v for k, v in arrays.items() if k.startswith("c_")}
        lists = {k[2:]: v for k, v in arrays.items() if k.startswith("l_")}
        features = None
        if self.features is not None:
            features = self.features.from_arrays({k[2:]: v for k, v in arrays.items() if k.startswith("f_")})
        return [Sketches(arrays["usable"], columns, lists, offsets, self.stats, self.info, features)]

    def close(self) -> None:
        """Remove the spilled files (the mapped arrays must no longer be used)."""
        for f in self.files.values():
            f.close()
        if self.path is not None:
            shutil.rmtree(self.path, ignore_errors=True)
