"""What a batch of new documents matches: candidates from the stored keys or postings, scored by the method.

The read side of :class:`~.index.Index`, shared by ``add`` and ``query``: for a :class:`Batch` of
sketched documents, :meth:`Checker.check` finds the stored documents each may match (key lookups, or
feature postings counted to the exact intersection), keeps the ones the window lets it see
(:class:`~.window.Held`), scores them with the method's own ``score`` on the stored sketch rows plus
the new ones -- so the scores are ``dedup``'s -- and, when adding, pairs the batch's documents with the
earlier ones of the batch; :meth:`Checker.passages` asks the aligner (:mod:`.passages`).  The relation
of a match without ``--partial`` comes from the two sides' feature shares (:meth:`Checker.match`).
It only reads: transactions, inserts and evictions are the index's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..align.aligner import AlignParams
from ..methods.base import Method, Sketches
from .layout import SketchLayout
from .matches import CONTAINED_SHARE, Match, Partial, counted, join_keys, kernel_threads, shared_at_least
from .passages import Seeds, find_passages
from .schemes import KeyScheme
from .storage import Store
from .window import Held


@dataclass
class Batch:
    """Documents of one batch that passed the input stage: ids, times, where they came from, sketches."""

    ids: list[str]
    times: np.ndarray
    where: list[tuple[str, int | None]]
    sk: Sketches
    seeds: Seeds | None = None  # an index made with --partial: words and seeds (:mod:`.passages`)

    def take(self, rows: np.ndarray) -> "Batch":
        """The documents ``rows`` (in that order)."""
        return Batch([self.ids[i] for i in rows.tolist()], self.times[rows], [self.where[i] for i in rows.tolist()],
                     self.sk.take(rows), self.seeds.take(rows) if self.seeds is not None else None)


class Checker:
    """Matching for one index: its method, key scheme, sketch layout and (``--partial``) aligner knobs."""

    def __init__(self, method: Method, scheme: KeyScheme, layout: SketchLayout, partial: AlignParams | None) -> None:
        self.method, self.scheme, self.layout, self.partial = method, scheme, layout, partial
        self.threshold = method.decision_threshold()

    def feature_sizes(self, sk: Sketches) -> np.ndarray | None:
        """Each row's feature count (what a match's shares are of), or None for a method without one (simhash)."""
        if "hashes" in sk.lists:
            return sk.list_sizes()
        sizes = sk.columns.get("sizes")
        return None if sizes is None else sizes.astype(np.int64)

    def _stored_candidates(self, db: Any, sk: Sketches) -> tuple[np.ndarray, np.ndarray]:
        """``(row, seq)``: stored documents that may match each row of ``sk`` (exact for postings)."""
        if self.scheme.kind == "keys":
            keys = self.scheme.keys(self.method, sk)
            n, slots = keys.shape
            k_key, k_slot, k_seq = Store.key_matches(db, keys)
            if not k_seq.size:
                return np.zeros(0, np.int64), np.zeros(0, np.int64)
            # join probe (row, slot, key) with found (key, slot, seq) on (key, slot)
            probe_key = keys.ravel()
            probe_slot = np.tile(np.arange(slots), n)
            probe_row = np.repeat(np.arange(n), slots)
            rows, seqs = join_keys(probe_key, probe_slot, probe_row, k_key, k_slot, k_seq)
            return shared_at_least(rows, seqs, self.scheme.min_shared)
        hashes, offsets = sk.lists["hashes"], sk.offsets
        assert offsets is not None  # a posting scheme's method keeps feature lists
        p_hash, p_seq = Store.posting_matches(db, hashes)
        if not p_seq.size:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        probe_row = np.repeat(np.arange(len(sk)), np.diff(offsets))
        zeros = np.zeros(hashes.shape[0], np.int64)
        rows, seqs = join_keys(hashes, zeros, probe_row, p_hash, np.zeros(p_hash.shape[0], np.int64), p_seq)
        rows, seqs, shared = counted(rows, seqs)
        head_seq, head_size, _ = Store.doc_heads(db, seqs)
        stored_size = head_size[np.searchsorted(head_seq, seqs)]
        need = self.scheme.shared_needed(self.threshold, sk.list_sizes()[rows], stored_size)
        ok = shared >= need
        return rows[ok], seqs[ok]

    def check(self, db: Any, batch: Batch, held: Held) -> list[list[tuple[int, Match]]]:
        """Each batch document's matches as ``(order key, Match)``: the stored ones it sees, then (adding)
        the earlier ones of the batch it sees (:class:`~.window.Held`)."""
        sk, n, seqs = batch.sk, len(batch.sk), held.seqs
        out: list[list[tuple[int, Match]]] = [[] for _ in range(n)]
        sizes_new = self.feature_sizes(sk)
        rows, cand = self._stored_candidates(db, sk)
        if cand.size:
            u_seq, u_ids, stored_times, u_cols, u_lists = Store.fetch(db, cand)
            present = np.isin(cand, u_seq)  # a document removed meanwhile is no candidate
            rows, cand = rows[present], cand[present]
            stored = self.layout.decode(u_cols, u_lists)
            at = np.searchsorted(u_seq, cand)
            ok = held.sees(rows, 0, held.stop(cand, stored_times[at]), stored_times[at])
            rows, cand, at = rows[ok], cand[ok], at[ok]
            m = len(stored)
            with kernel_threads(n):
                scores = self.method.score(Sketches.concat([stored, sk]), at, m + rows)
            hit = scores >= self.threshold
            sizes_old = self.feature_sizes(stored)
            for r, a, s, q in zip(rows[hit].tolist(), at[hit].tolist(), scores[hit].tolist(), cand[hit].tolist()):
                la = None if sizes_new is None else int(sizes_new[r])
                lb = None if sizes_old is None else int(sizes_old[a])
                out[r].append((q, self.match(u_ids[a], s, la, lb)))
        if held.adding and n > 1:
            with kernel_threads(n):
                a, b, verified = self.method.verified(sk)
            assert verified is not None  # verified pairs are scored
            scores = verified
            keep = held.sees(b, held.row_start[a], held.row_stop[a], batch.times[a])
            for x, y, s in zip(a[keep].tolist(), b[keep].tolist(), scores[keep].tolist()):
                la = None if sizes_new is None else int(sizes_new[y])
                lb = None if sizes_new is None else int(sizes_new[x])
                out[y].append((int(seqs[x]), self.match(batch.ids[x], s, la, lb)))
        return out

    def passages(self, db: Any, batch: Batch, held: Held) -> list[list[Partial] | None]:
        """Each batch document's copied passages with earlier ones (None per document without ``--partial``)."""
        if self.partial is None or batch.seeds is None:
            return [None] * len(batch.ids)
        found = find_passages(db, batch.seeds, held, batch.ids, self.partial)
        return [[p for _, p in f] for f in found]

    def match(self, other: str, score: float, la: int | None, lb: int | None) -> Match:
        """A match with the shares of each side in the other (``la``: the new side's feature count)."""
        if la is None or lb is None or not la or not lb:
            return Match(other, score, "similar")
        shared: float
        if self.scheme.measure == "containment":
            shared = round(score * min(la, lb))
        else:  # Jaccard (exact, or the MinHash estimate): |A & B| = J (|A| + |B|) / (1 + J)
            shared = score * (la + lb) / (1.0 + score)
        a_in_b, b_in_a = min(shared / la, 1.0), min(shared / lb, 1.0)
        if a_in_b >= CONTAINED_SHARE and b_in_a >= CONTAINED_SHARE:
            relation = "duplicate"
        elif a_in_b >= CONTAINED_SHARE:
            relation = "contained"
        elif b_in_a >= CONTAINED_SHARE:
            relation = "contains"
        else:
            relation = "similar"
        return Match(other, score, relation, a_in_b, b_in_a)

    @staticmethod
    def best_first(found: list[tuple[int, Match]]) -> list[Match]:
        """The matches by score, best first; ties by the match's order key (its sequence number: oldest first)."""
        return [m for _, m in sorted(found, key=lambda p: (-p[1].score, p[0]))]
