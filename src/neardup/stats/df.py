"""Exact document frequencies of hashed features, built in one streaming pass.

Methods that weigh features by how common they are (I-Match lexicons, SimHash and
weighted-sampling IDF weights, CoDet's word order, Broder's common-shingle filter) all
need ``df(feature)`` over some collection: the input itself or a large reference
corpus.  :class:`DocumentFrequencies` counts the distinct 64-bit feature hashes of each
document (a :class:`~neardup.features.sets.HashedSets` batch at a time), merges the
counts, answers vectorized look-ups by binary search, and saves to / loads from an
``.npz`` file so one reference collection serves many runs.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

import numpy as np

from ..errors import UserError
from ..features.sets import HashedSets
from ..io.writers import atomic_file


#: Pending hashes a merge leaves uncounted: past this and past the table's own size, :meth:`DocumentFrequencies.merge`
#: counts them, so merging many batches joins at most about the table's size at a time (amortized: the
#: pending part counted is at least the table it joins) instead of every batch's hashes at the end.
PENDING_FLOOR = 1 << 16


def check_counts(keys: np.ndarray, counts: np.ndarray, n_docs: int, what: str = "features") -> None:
    """Raise ValueError unless ``keys``/``counts`` are a document-frequency table over ``n_docs`` documents:
    1-D, as long as each other, keys unsigned 64-bit and strictly increasing (lookups binary-search them),
    every count between 1 and ``n_docs``.  What a tampered or foreign statistics file fails."""
    if n_docs < 0:
        raise ValueError(f"n_docs is {n_docs}")
    if keys.ndim != 1 or counts.ndim != 1 or keys.shape != counts.shape:
        raise ValueError(f"{what}: {keys.shape[0] if keys.ndim else 0:,} keys but counts of shape {counts.shape}")
    if keys.dtype != np.uint64 or counts.dtype.kind not in "iu":
        raise ValueError(f"{what}: keys of type {keys.dtype}, counts of type {counts.dtype}")
    if keys.shape[0] > 1 and not (keys[1:] > keys[:-1]).all():
        raise ValueError(f"{what}: keys not sorted and unique")
    if counts.shape[0] and (counts.min() < 1 or counts.max() > n_docs):
        raise ValueError(f"{what}: document frequencies {counts.min()}..{counts.max()} outside 1..{n_docs} "
                         "(the file's own document count); the file is inconsistent")


#: Keys past which :func:`_positions` sorts what it looks up: a table larger than the CPU's caches.
SORTED_LOOKUP = 1 << 17


def _positions(keys: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """``np.searchsorted(keys, hashes)``.  In a large table the hashes are looked up in sorted order
    (and the positions put back): hashes in the order of their documents fall at random in the table,
    a cache miss at nearly every step of every search, where sorted ones walk it once."""
    if keys.shape[0] < SORTED_LOOKUP or hashes.ndim != 1:
        return np.searchsorted(keys, hashes)
    order = np.argsort(hashes)
    pos = np.empty(hashes.shape[0], dtype=np.int64)
    pos[order] = np.searchsorted(keys, hashes[order])
    return pos


def _merged(keys: np.ndarray, counts: np.ndarray, keys2: np.ndarray, counts2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique keys of two sorted count tables, with their counts added.

    A linear merge: each key of the second table is found in the first by binary search and either
    adds to its count or is placed among its keys, so nothing is sorted again and the memory beyond
    the result is a position per key of the second table (a concatenate-and-sort merge allocated
    several times both tables: the peak of weighted sampling's phrase statistics)."""
    if not keys.shape[0] or not keys2.shape[0]:
        return (keys, counts) if keys.shape[0] else (keys2, counts2.astype(np.int64))
    pos = np.searchsorted(keys, keys2)
    found = pos < keys.shape[0]
    found[found] = keys[pos[found]] == keys2[found]
    out_counts = counts.astype(np.int64)  # a copy: the tables merged are left as they were
    out_counts[pos[found]] += counts2[found]  # the keys are unique, so are their positions
    new = ~found
    n_new = int(np.count_nonzero(new))
    if not n_new:
        return keys, out_counts
    placed = np.zeros(keys.shape[0] + n_new, dtype=bool)
    placed[pos[new] + np.arange(n_new)] = True  # a new key goes after the old keys below it and the new keys before it
    merged_keys = np.empty(placed.shape[0], dtype=np.uint64)
    merged_keys[placed], merged_keys[~placed] = keys2[new], keys
    merged_counts = np.empty(placed.shape[0], dtype=np.int64)
    merged_counts[placed], merged_counts[~placed] = counts2[new], out_counts
    return merged_keys, merged_counts


class DocumentFrequencies:
    """Document frequency of each feature hash over ``n_docs`` documents."""

    def __init__(self) -> None:
        self.n_docs = 0
        self.keys = np.zeros(0, dtype=np.uint64)
        self.counts = np.zeros(0, dtype=np.int64)
        self._pending: list[np.ndarray] = []  # hashes of documents counted since the last compact
        self._pending_size = 0

    @classmethod
    def of(cls, sets: HashedSets) -> "DocumentFrequencies":
        """The document frequencies of one batch (cheap: counted when first asked)."""
        out = cls()
        out.update(sets)
        return out

    def update(self, sets: HashedSets) -> None:
        """Count the features of a batch of documents (each set already unique)."""
        self.n_docs += len(sets)
        self._pending.append(sets.hashes)
        self._pending_size += sets.hashes.shape[0]
        if self._pending_size > 1 << 24:
            self.compact()

    def merge(self, other: "DocumentFrequencies") -> "DocumentFrequencies":
        """Counts over both collections, as a new object (statistics of batches merge)."""
        out = DocumentFrequencies()
        out.n_docs = self.n_docs + other.n_docs
        out.keys, out.counts = _merged(self.keys, self.counts, other.keys, other.counts)
        out._pending = self._pending + other._pending
        out._pending_size = self._pending_size + other._pending_size
        if out._pending_size > max(PENDING_FLOOR, out.keys.shape[0]):
            out.compact()  # a fold over many batches holds (and at the end joins) no more than the table
        return out

    @classmethod
    def from_counts(cls, keys: np.ndarray, counts: np.ndarray, n_docs: int) -> "DocumentFrequencies":
        """A table of given ``counts`` of unique ``keys`` (any order) over ``n_docs`` documents.

        Its counts are whatever was counted (document frequencies, or occurrences: merging adds
        them either way)."""
        out = cls()
        order = np.argsort(keys, kind="stable")
        out.n_docs, out.keys, out.counts = n_docs, keys[order].astype(np.uint64), counts[order].astype(np.int64)
        return out

    def tables(self) -> "dict[str, DocumentFrequencies]":
        """The count tables of this statistic, by name (one): what a distributed engine sums."""
        self.compact()
        return {"df": self}

    def from_tables(self, tables: "dict[str, DocumentFrequencies]") -> "DocumentFrequencies":
        """The statistic made of ``tables`` (as :meth:`tables` names them) summed over a collection."""
        return tables["df"]

    @classmethod
    def merged(cls, parts: "list[DocumentFrequencies]") -> "DocumentFrequencies":
        """The counts of all ``parts`` (none: an empty collection)."""
        out = cls()
        for p in parts:
            out = out.merge(p)
        return out

    def compact(self) -> None:
        """Merge the pending batches into the sorted ``keys`` / ``counts`` arrays."""
        if not self._pending:
            return
        hashes = np.concatenate(self._pending)
        self._pending, self._pending_size = [], 0
        hashes.sort()  # in place: np.unique would sort a copy
        starts = np.flatnonzero(np.r_[hashes.shape[0] > 0, hashes[1:] != hashes[:-1]])  # no hashes: no key
        counts = np.diff(np.r_[starts, hashes.shape[0]])
        keys = hashes[starts]
        del hashes
        self.keys, self.counts = _merged(self.keys, self.counts, keys, counts)

    def df(self, hashes: np.ndarray) -> np.ndarray:
        """Document frequency of each hash (0 for hashes never seen)."""
        self.compact()
        if not self.keys.shape[0]:
            return np.zeros(hashes.shape, dtype=np.int64)
        pos = np.minimum(_positions(self.keys, hashes), self.keys.shape[0] - 1)
        return np.where(self.keys[pos] == hashes, self.counts[pos], 0)

    def idf(self, hashes: np.ndarray) -> np.ndarray:
        """``log(N / df)``, with unseen features counted as found once."""
        return np.log(max(self.n_docs, 1) / np.maximum(self.df(hashes), 1))

    def most_common(self, share: float) -> np.ndarray:
        """The ``share`` of distinct features with the highest document frequency.

        Ties at the cut are broken by hash value, so the result is deterministic.
        """
        self.compact()
        k = int(np.ceil(share * self.keys.shape[0]))
        order = np.lexsort((self.keys, -self.counts))
        return np.sort(self.keys[order[:k]])

    def save(self, path: str | Path) -> None:
        """Write to an ``.npz`` file."""
        self.compact()
        with atomic_file(path) as tmp, open(tmp, "wb") as fh:  # a file handle: savez adds .npz to bare names
            np.savez_compressed(fh, n_docs=np.int64(self.n_docs), keys=self.keys, counts=self.counts)

    @classmethod
    def load(cls, path: str | Path) -> "DocumentFrequencies":
        """Read a file written by :meth:`save`."""
        try:
            with np.load(path) as data:
                out = cls()
                out.n_docs = int(data["n_docs"])
                out.keys, out.counts = data["keys"], data["counts"]
                check_counts(out.keys, out.counts, out.n_docs)
                if "phrase_keys" in data:  # a full statistics file: its phrase table must hold too
                    check_counts(data["phrase_keys"], data["phrase_counts"], out.n_docs, "phrases")
                    if int(data["phrase_size"]) < 1:
                        raise ValueError(f"phrase size {int(data['phrase_size'])}")
                out.counts = out.counts.astype(np.int64)
        except (OSError, EOFError, KeyError, ValueError, TypeError, IndexError, zipfile.BadZipFile, zlib.error) as exc:
            raise UserError(f"{path}: not a neardup statistics file, or damaged ({type(exc).__name__}: {exc})") from None
        return out


class CountTables:
    """Named count tables counted together over one collection, for a method whose sketches need
    more than one statistic (ANDD: the k-grams' and the words' document frequencies).

    Merges table by table, as a single :class:`DocumentFrequencies` does."""

    def __init__(self, tables: dict[str, DocumentFrequencies]) -> None:
        self._tables = dict(tables)

    def __getitem__(self, name: str) -> DocumentFrequencies:
        return self._tables[name]

    def merge(self, other: "CountTables") -> "CountTables":
        """Counts over both collections, as a new object."""
        return CountTables({k: v.merge(other[k]) for k, v in self._tables.items()})

    def tables(self) -> dict[str, DocumentFrequencies]:
        """The tables, by name (what a distributed engine sums)."""
        for table in self._tables.values():
            table.compact()
        return dict(self._tables)

    def from_tables(self, tables: dict[str, DocumentFrequencies]) -> "CountTables":
        """Tables of the same names made of ``tables`` summed over a collection."""
        return CountTables({k: tables[k] for k in self._tables})
