"""Copied passages online (``index create --partial``): the aligner's stages against the stored seeds.

An index made with ``--partial`` also keeps, per document, what seed-and-extend
alignment (:mod:`neardup.align.aligner`) needs -- never the text: its seeds
``(key, word position)`` in an inverted index (table ``seeds``) and its words'
character offsets (table ``align``).  For each new document:

1. its seeds (:func:`~neardup.align.words.tokens`, :func:`~neardup.align.seeds.seed_keys`,
   as ``neardup partial`` makes them) are looked up in the stored seeds;
2. the document-frequency cap of ``neardup partial`` (a seed in more than ``max_df``
   documents, or found more than ``4 max_df`` times, is boilerplate) is applied over
   **the documents the index holds when the document arrives, plus the earlier ones of
   its batch, plus itself** -- with a window, those it sees (:mod:`.window`: still held when
   it arrives; evicted ones, even earlier in the same batch, no longer count) -- computed
   per document with sorted searches, so the batch size never changes an answer;
3. the seed pairs it makes with every earlier document it sees (and, with a time window,
   inside its window both ways) go through
   the aligner's own kernels: :func:`~neardup.align.seeds.chain_pairs` (chains,
   merged passages, validation, coverage) and :func:`~neardup.align.aligner.report_pairs`
   (character spans), with the earlier document as ``a``, exactly as ``neardup partial``
   orders a pair.

So a new document's passages are the passages ``neardup partial`` finds between it and
each stored document when run on the documents the index held plus it.  The index
grows, so a seed may pass ``max_df`` only later: answers given before then still used
it.  When no seed passes the caps in the whole corpus (any corpus of at most ``max_df``
documents whose seeds repeat at most 4 times each, such as ``examples/sample.jsonl``),
adding a corpus one at a time (or in any batches) gives exactly ``neardup partial``'s
pairs and passages (``tests/test_online.py``).

Answers (:class:`Partial`) name ``a`` the **new** document and ``b`` the stored one
(``neardup partial``'s ``a`` is the earlier document, so its sides are swapped here).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..align.aligner import OFFSETS, AlignParams, Passage, report_pairs
from ..align.seeds import chain_pairs, seed_keys
from ..align.words import tokens
from .matches import Partial
from .storage import Store
from .window import Held

#: Seeds are stored as little-endian uint64 keys, one per word position.
_KEY = np.dtype("<u8")


class Seeds:
    """What the aligner needs of a batch of new documents: words (character offsets) and seeds.

    ``words``: words per document; ``offsets``: every word's ``start``/``end``, documents one
    after another; ``keys``: every seed key (``n`` words each), documents one after another,
    word positions ascending from 0 (``seed_first[r]``: row ``r``'s first).
    """

    def __init__(self, words: np.ndarray, offsets: np.ndarray, keys: np.ndarray, n: int) -> None:
        self.words, self.offsets, self.keys, self.n = words.astype(np.int64), offsets, keys.astype(np.uint64), n
        self.seed_counts = np.maximum(self.words - n + 1, 0)
        self.seed_first = np.r_[0, np.cumsum(self.seed_counts)].astype(np.int64)

    @classmethod
    def of(cls, texts: Sequence[str], n: int) -> "Seeds":
        """The words and seeds of ``texts`` (as ``neardup partial`` makes them)."""
        hashes, starts, ends, counts = tokens(texts)
        key, _, _ = seed_keys(hashes, np.r_[0, np.cumsum(counts)].astype(np.int64), n)
        off = np.empty(starts.shape[0], OFFSETS)
        off["start"], off["end"] = starts, ends
        return cls(counts, off, key, n)

    def rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Each seed's row and word position."""
        row = np.repeat(np.arange(self.words.shape[0], dtype=np.int64), self.seed_counts)
        return row, np.arange(self.keys.shape[0], dtype=np.int64) - self.seed_first[row]

    def take(self, rows: np.ndarray) -> "Seeds":
        """The documents ``rows`` (in that order)."""
        word_first = np.r_[0, np.cumsum(self.words)].astype(np.int64)
        return Seeds(self.words[rows], self.offsets[_ranges(word_first, rows)],
                     self.keys[_ranges(self.seed_first, rows)], self.n)

    def as_bytes(self) -> tuple[list[bytes], list[bytes]]:
        """Per document: its word offsets and its seed keys, as little-endian bytes."""
        word_first = np.r_[0, np.cumsum(self.words)].astype(np.int64)
        wb = self.offsets.astype(OFFSETS, copy=False).tobytes()
        kb = self.keys.astype(_KEY, copy=False).tobytes()
        w, k = (word_first * OFFSETS.itemsize).tolist(), (self.seed_first * _KEY.itemsize).tolist()
        return [wb[w[i]:w[i + 1]] for i in range(len(w) - 1)], [kb[k[i]:k[i + 1]] for i in range(len(k) - 1)]


def _ranges(first: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Indices ``first[r]:first[r + 1]`` of every row ``r`` of ``rows``, one after another."""
    lo, counts = first[rows], first[rows + 1] - first[rows]
    ends = np.cumsum(counts)
    return np.repeat(lo - (ends - counts), counts) + np.arange(int(ends[-1]) if ends.size else 0)


def stored_seeds(blobs: Sequence[bytes], seqs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(key, seq, pos)`` of the seeds of stored documents ``seqs`` from their ``seeds`` bytes."""
    counts = np.fromiter((len(b) // _KEY.itemsize for b in blobs), np.int64, count=len(blobs))
    keys = np.frombuffer(b"".join(blobs), dtype=_KEY).astype(np.uint64)
    first = np.r_[0, np.cumsum(counts)]
    seq_of = np.repeat(seqs, counts)
    return keys, seq_of, np.arange(keys.shape[0], dtype=np.int64) - np.repeat(first[:-1], counts)


def _held_pairs(key: np.ndarray, doc: np.ndarray, start: np.ndarray, stop: np.ndarray, m: int, max_df: int
                ) -> tuple[np.ndarray, np.ndarray]:
    """Seed pairs ``(earlier index, new index)`` of records sorted by ``(key, doc, pos)``.

    ``doc`` numbers the local documents: the stored ones (``< m``), then the batch's rows in
    arrival order (``m + i`` for row ``i``); batch row ``i`` sees document ``d`` when
    ``start[d] <= i < stop[d]`` (:class:`~.window.Held`).  Every record of a batch row pairs with
    the records of the same key of the documents it sees.  A key counts for row ``i`` only
    while, over the documents it sees plus itself, it is in at most ``max_df`` documents and
    ``4 max_df`` records -- ``shared_seeds``' caps -- counted per row, for every row at once
    (runs of a key ``(key, doc)`` as intervals of rows, found by sorted search).
    """
    n = key.shape[0]
    if not n:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    at = np.arange(n, dtype=np.int64)
    group = np.r_[True, key[1:] != key[:-1]]
    run = group | np.r_[True, doc[1:] != doc[:-1]]
    g_start = np.maximum.accumulate(np.where(group, at, 0))
    # runs (one key of one document): their group, document, length; the batch rows' runs ask
    run_at = np.flatnonzero(run)
    run_len = np.diff(np.r_[run_at, n])
    run_g = (np.cumsum(group) - 1)[run_at]
    run_doc = doc[run_at]
    ask = np.flatnonzero(run_doc >= m)
    q_g, q_row = run_g[ask], run_doc[ask] - m
    span = int(max(start.max(), stop.max())) + 2

    def up_to(bound: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per asking run: the runs of its key with ``bound <= row`` -- how many, and their records."""
        code = run_g * span + bound[run_doc]
        order = np.argsort(code, kind="stable")
        code, records = code[order], np.r_[0, np.cumsum(run_len[order])]
        lo = np.searchsorted(code, q_g * span, "left")
        hi = np.searchsorted(code, q_g * span + q_row, "right")
        return hi - lo, records[hi] - records[lo]

    begun_docs, begun_records = up_to(start)
    ended_docs, ended_records = up_to(stop)  # start <= stop: an ended run has begun
    ok_run = np.zeros(run_at.shape[0], dtype=bool)
    ok_run[ask] = ((begun_docs - ended_docs + 1 <= max_df)
                   & (begun_records - ended_records + run_len[ask] <= 4 * max_df))
    ok = np.repeat(ok_run, run_len)
    r_start = np.maximum.accumulate(np.where(run, at, 0))
    counts = np.where(ok, r_start - g_start, 0)  # every earlier record of the key; those not seen go next
    ends = np.cumsum(counts)
    total = int(ends[-1])
    new = np.repeat(at, counts)
    earlier = np.repeat(g_start - (ends - counts), counts) + np.arange(total, dtype=np.int64)
    row = doc[new] - m
    seen = (start[doc[earlier]] <= row) & (row < stop[doc[earlier]])
    return earlier[seen], new[seen]


def _fetch_limit(db: Any, held: Held, keys: np.ndarray, max_df: int) -> int:
    """How many stored seeds of a key to fetch so the caps are exact for every row of the batch.

    A key with more than ``4 max_df`` records is boilerplate, so ``4 max_df + 1`` records
    settle it -- unless some are of stored documents that a later row of the batch no longer
    sees (the window evicts them inside the batch): as many more as those hold of one key.
    """
    limit = 4 * max_df + 1
    gone = held.gone_by(held.n - 1) if held.n else None
    if gone is None:
        return limit
    column, bound = gone
    leaving = np.array([r[0] for r in db.execute(f"SELECT seq FROM docs WHERE {column} < ?", (bound,))], np.int64)
    if not leaving.size:
        return limit
    a_seq, _, blobs = Store.fetch_align(db, leaving, "seeds")
    theirs, _, _ = stored_seeds(blobs, a_seq)
    theirs = theirs[np.isin(theirs, keys)]
    return limit + (int(np.unique(theirs, return_counts=True)[1].max()) if theirs.size else 0)


def find_passages(db: Any, new: Seeds, held: Held, ids: Sequence[str], params: AlignParams
                  ) -> list[list[tuple[int, Partial]]]:
    """Each new document's passages with the documents it sees (stored ones and, adding, earlier ones
    of the batch: ``held``), as ``(seq of the earlier document, Partial)`` in order of that seq (see the
    module docstring)."""
    n_new = new.words.shape[0]
    out: list[list[tuple[int, Partial]]] = [[] for _ in range(n_new)]
    if not new.keys.size:
        return out
    s_key, s_seq, s_pos = Store.seed_matches(db, new.keys, _fetch_limit(db, held, new.keys, params.max_df))
    u_seq = np.unique(s_seq)
    m = u_seq.shape[0]
    head_seq, _, head_time = Store.doc_heads(db, u_seq)
    stored_time = np.full(m, np.nan)
    stored_time[np.searchsorted(u_seq, head_seq)] = head_time
    row, pos = new.rows()
    key = np.concatenate([s_key, new.keys])
    doc = np.concatenate([np.searchsorted(u_seq, s_seq), m + row])
    pos = np.concatenate([s_pos, pos])
    order = np.lexsort((pos, doc, key))
    key, doc, pos = key[order], doc[order], pos[order]
    # local documents: the stored candidates (by seq), then the batch's rows; the rows that see each
    loc_seq = np.concatenate([u_seq, held.seqs])
    loc_time = np.concatenate([stored_time, held.times])
    loc_start = np.concatenate([np.zeros(m, np.int64), held.row_start])
    loc_stop = np.concatenate([held.stop(u_seq, stored_time), held.row_stop])
    x, y = _held_pairs(key, doc, loc_start, loc_stop, m, params.max_df)
    a, b, pa, pb = doc[x], doc[y], pos[x], pos[y]
    ok = held.sees(b - m, loc_start[a], loc_stop[a], loc_time[a])  # and inside b's window both ways
    a, b, pa, pb = a[ok], b[ok], pa[ok], pb[ok]
    width = m + n_new
    codes, counts = np.unique(a * width + b, return_counts=True)
    wanted = np.unique(codes[counts >= params.min_seeds] // width)
    wanted = wanted[wanted < m]
    f_seq, f_ids, f_words = Store.fetch_align(db, u_seq[wanted])
    words = np.zeros(width, dtype=np.int64)
    local = np.searchsorted(u_seq, f_seq)
    f_len = np.fromiter((len(w) // OFFSETS.itemsize for w in f_words), np.int64, count=len(f_words))
    words[local] = f_len
    words[m:] = new.words
    stored_offsets = np.frombuffer(b"".join(f_words), dtype=OFFSETS)
    offsets = np.concatenate([stored_offsets, new.offsets.astype(OFFSETS, copy=False)])
    first = np.r_[0, np.cumsum(words)].astype(np.int64)
    names = [""] * m + list(ids)
    for i, d in zip(local.tolist(), f_ids):
        names[i] = d
    order = np.lexsort((pb, pa, b, a))
    chained, cov = chain_pairs(a[order].astype(np.int32), b[order].astype(np.int32), pa[order].astype(np.int32),
                               pb[order].astype(np.int32), words, *params.chain_args())
    for pair in report_pairs(chained, cov, first, offsets):  # one object per reported pair (the output)
        swapped = [Passage(q.b_chars, q.a_chars, q.b_words, q.a_words, q.similarity) for q in pair.passages]
        out[pair.b - m].append((int(loc_seq[pair.a]), Partial(names[pair.a], swapped, pair.coverage_b, pair.coverage_a)))
    return out  # report_pairs goes by (a, b): each document's partners in arrival order
