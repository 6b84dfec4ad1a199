"""What the online index answers, and the vectorized key joins it finds candidates with.

:class:`Match`, :class:`Partial` and :class:`Checked` are the answers of :class:`~.index.Index` (and of the
server); :func:`join_keys` and :func:`shared_at_least` turn the keys of new documents and
the stored ones into candidate ``(row, seq)`` pairs by sorting, with no per-key Python loop.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

import numba
import numpy as np

if TYPE_CHECKING:
    from ..align.aligner import Passage

#: Below this many documents the compiled kernels run on the calling thread only: waking the
#: thread pool costs more than the work (docs/costs.md), and server threads call them concurrently.
SMALL_BATCH = 2000
#: A side holding at least this share of its features in the other is contained in it.
CONTAINED_SHARE = 0.6


@dataclass
class Match:
    """A stored (or earlier) document matching a new one, and how.

    ``score``: the method's similarity (what ``dedup`` writes).  ``new_in_match`` and
    ``match_in_new``: the share of each side's features found in the other (exact for
    ffp, spotsigs and minhash ``--exact``; estimated from the Jaccard and the set sizes for
    minhash; None for simhash).  ``relation``: in an index made with ``--partial``, the
    relation ``dedup`` reports, from the passages the two share (:mod:`neardup.relations`:
    ``duplicate``, ``contains``, ``contained``, ``shares``, ``similar`` when no passage is
    shared); otherwise from the features: ``duplicate`` (each holds 60%+ of the other),
    ``contained`` (the new document is 60%+ inside the match, not the other way),
    ``contains`` (the reverse), ``similar`` (neither).
    """

    id: str
    score: float
    relation: str
    new_in_match: float | None = None
    match_in_new: float | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "score": round(self.score, 6), "relation": self.relation}
        if self.new_in_match is not None and self.match_in_new is not None:
            out["new_in_match"] = round(self.new_in_match, 4)
            out["match_in_new"] = round(self.match_in_new, 4)
        return out


@dataclass
class Partial:
    """Passages a new document shares with an earlier one (``id``).

    Each passage's ``a_chars``/``a_words`` are the new document's, ``b_chars``/``b_words``
    the earlier one's; ``coverage_new``/``coverage_match``: the share of each one's words
    inside the passages.
    """

    id: str
    passages: list[Passage]
    coverage_new: float
    coverage_match: float

    @property
    def relation(self) -> str:
        """The relation of the new document to the earlier one, as ``dedup`` reports it."""
        from ..relations import relation_name

        return relation_name(self.coverage_new, self.coverage_match)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "relation": self.relation, "coverage_new": self.coverage_new,
                "coverage_match": self.coverage_match,
                "passages": [p.as_dict() for p in self.passages]}


@dataclass
class Checked:
    """A document checked against the index: its id, its matches (best first), whether it was added,
    (an index made with ``--partial``) the passages it shares with earlier documents, oldest first,
    and whether it was late: dated before a time window's horizon, so checked but not added
    (:mod:`.window`)."""

    id: str
    matches: list[Match] = field(default_factory=list)
    added: bool = False
    partials: list[Partial] | None = None
    late: bool = False

    def __post_init__(self) -> None:
        """With passages (an index made with ``--partial``), each match's relation is the aligned one."""
        if self.partials is None:
            return
        aligned = {p.id: p.relation for p in self.partials}
        for m in self.matches:
            m.relation = aligned.get(m.id, "similar")

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "added": self.added}
        if self.late:
            out["late"] = True
        out["matches"] = [m.as_dict() for m in self.matches]
        if self.partials is not None:
            out["partials"] = [p.as_dict() for p in self.partials]
        return out


@contextlib.contextmanager
def kernel_threads(n_docs: int) -> Iterator[None]:
    """Run the compiled kernels on this thread only for a small batch (see :data:`SMALL_BATCH`)."""
    if n_docs >= SMALL_BATCH:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(1)  # per calling thread in numba
    try:
        yield
    finally:
        numba.set_num_threads(before)


def join_keys(probe_key: np.ndarray, probe_slot: np.ndarray, probe_row: np.ndarray, found_key: np.ndarray,
          found_slot: np.ndarray, found_seq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(row, seq)`` for every probe and found entry with equal ``(key, slot)`` (vectorized sort-merge)."""
    keys = np.unique(probe_key)
    width = int(max(probe_slot.max(initial=0), found_slot.max(initial=0))) + 1
    probe_code = np.searchsorted(keys, probe_key).astype(np.int64) * width + probe_slot
    at = np.minimum(np.searchsorted(keys, found_key), keys.shape[0] - 1)
    found_code = np.where(keys[at] == found_key, at.astype(np.int64) * width + found_slot, -1)
    order = np.argsort(probe_code, kind="stable")
    sorted_code = probe_code[order]
    lo = np.searchsorted(sorted_code, found_code, "left")
    counts = np.searchsorted(sorted_code, found_code, "right") - lo
    total = int(counts.sum())
    if not total:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    ends = np.cumsum(counts)
    starts = np.repeat(lo - (ends - counts), counts) + np.arange(total)
    return probe_row[order[starts]], np.repeat(found_seq, counts)


def counted(rows: np.ndarray, seqs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct ``(row, seq)`` pairs, sorted, and how often each occurs."""
    width = int(seqs.max(initial=0)) + 1
    codes, counts = np.unique(rows.astype(np.int64) * width + seqs, return_counts=True)
    return codes // width, codes % width, counts


def shared_at_least(rows: np.ndarray, seqs: np.ndarray, min_shared: int) -> tuple[np.ndarray, np.ndarray]:
    r, s, c = counted(rows, seqs)
    ok = c >= min_shared
    return r[ok], s[ok]
