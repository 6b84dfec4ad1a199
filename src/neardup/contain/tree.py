"""CoDet's corpus tree (varol2011, section 3.2), compiled, with a sliding time window.

The tree as the paper describes it: a virtual root; every other node has a label (a
word) and a *document list* of the documents whose sentences passed through it.  A
sentence is inserted from the root with its words sorted by IDF (highest first); at
depth ``k`` the child labeled ``w_k`` is followed if it exists (every earlier sentence
in its list shares the first ``k`` words, and the pair gains ``k * idf(w_k)``, formula
2) or created.  ``depth`` (DT) caps the words inserted per sentence, ``suffixes``
(PSC) inserts the sentence's first suffixes too.

Representation, and why.  Nodes are identified by their path: a child's key is XXH64
of (parent key, label), so "follow or create the child labeled ``w``" is one look-up
in a hash table (open addressing, linear probing, in two numpy arrays) from node key
to the node's document list, and no pointer lists are stored.  A document list is a
singly linked list of postings ``(document, sentence)``, newest first, held in ring
buffers (power-of-two sizes, indexed by masking): postings are appended in arrival
order, which is time order, so the window drops them oldest first by moving one
cursor, and a walk down a list stops at the first posting older than the cursor.  A
node whose newest posting has left is dead; the table is rebuilt with the live nodes
only when it would become half full.  Memory thus follows the window's content, not
the stream's length.

The alternative, sorting all sentences' path keys at once and joining equal keys, is
a batch computation: it cannot report a new document against the window as it arrives
nor forget old documents, so the tree is built by a compiled insertion loop instead
(one dict look-up per inserted word, no Python per word).

A batch is inserted document by document (:func:`insert_batch`): before a document,
postings of documents outside its window are dropped; each posting of another document
met on the way down is a *hit* ``(earlier document, its sentence, this sentence,
k * idf)``; postings of the same document add to its self-containment similarity (SCS,
formula 1 applied to the document itself: every pair of its sentences, so pairs of
different sentences count twice).  When the document is in, its hits are summed per
sentence pair and per earlier document (``CS``) and only the documents passing ETL in
either direction are returned, with their sentence pairs (:mod:`.codet` decides).
:class:`CorpusTree` owns the buffers and grows them before a batch so the kernel never
runs out of room.

Length: the compiled tree (hash table, ring buffers, insertion walk) is one data structure.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import UserError
from ..hashing import xxh64_lanes
from ..windows import COUNT_WINDOW, NO_WINDOW, TIME_WINDOW


@njit(cache=True)
def _evict(state, docs_time, docs_cap, p_doc, p_cap, doc_seq, doc_time, kind, size):
    """Drop postings (and documents) that are outside the window of a document arriving now."""
    if kind == COUNT_WINDOW:
        oldest = doc_seq - np.int64(size)
    elif kind == TIME_WINDOW:
        oldest = state[3]
        while oldest < doc_seq and docs_time[oldest & (docs_cap - 1)] < doc_time - size:
            oldest += 1
    else:
        return
    if oldest > state[3]:
        state[3] = oldest
    while state[1] < state[0] and p_doc[state[1] & (p_cap - 1)] < state[3]:
        state[1] += 1


@njit(cache=True)
def _reduce_document(first, n, n_sent, h_c, h_sc, h_sa, h_w, scs_a, docs_scs, d_cap, etl, pair_c, pair_cs, n_pairs):
    """Sum the hits ``[first, first + n)`` of a new document per sentence pair and per earlier document.

    An earlier document ``c`` passes when ``CS >= etl * SCS`` of either document; its
    ``(c, CS)`` is appended to ``pair_c``/``pair_cs`` at ``n_pairs`` and its summed
    sentence pairs are kept, compacted at ``first``.  Returns ``(entries kept, pairs added)``.
    """
    if n == 0:
        return 0, 0
    lo_c = h_c[first]
    hi_c = h_c[first]
    hi_s = 0
    for i in range(first, first + n):
        lo_c = min(lo_c, h_c[i])
        hi_c = max(hi_c, h_c[i])
        hi_s = max(hi_s, h_sc[i])
    key = np.empty(n, np.int64)
    for i in range(n):
        j = first + i
        key[i] = ((h_c[j] - lo_c) * (hi_s + 1) + h_sc[j]) * n_sent + h_sa[j]
    order = np.argsort(key)
    c_out = np.empty(n, np.int64)
    sc_out = np.empty(n, np.int64)
    sa_out = np.empty(n, np.int64)
    w_out = np.empty(n, np.float64)
    m = 0
    for i in range(n):
        j = first + order[i]
        if m > 0 and key[order[i]] == key[order[i - 1]]:
            w_out[m - 1] += h_w[j]
        else:
            c_out[m] = h_c[j]
            sc_out[m] = h_sc[j]
            sa_out[m] = h_sa[j]
            w_out[m] = h_w[j]
            m += 1
    kept = 0
    added = 0
    g = 0
    while g < m:
        e = g
        total = 0.0
        while e < m and c_out[e] == c_out[g]:
            total += w_out[e]
            e += 1
        c = c_out[g]
        if total >= etl * scs_a or total >= etl * docs_scs[c & (d_cap - 1)]:
            pair_c[n_pairs + added] = c
            pair_cs[n_pairs + added] = total
            added += 1
            for i in range(g, e):
                h_c[first + kept] = c_out[i]
                h_sc[first + kept] = sc_out[i]
                h_sa[first + kept] = sa_out[i]
                h_w[first + kept] = w_out[i]
                kept += 1
        g = e
    return kept, added


@njit(cache=True)
def insert_batch(keys, heads, state, p_doc, p_sent, p_next, docs_time, docs_scs, sents_self,
                 words, word_off, idf, sent_off, times, depth, suffixes, kind, size, etl):
    """Insert a batch of documents; return what passed ETL.

    ``keys``/``heads`` is the node table (``heads[i]`` the newest posting of node
    ``keys[i]``, -1 for a free slot); ``state`` = [next posting seq, oldest live
    posting seq, next document seq, oldest document in the window, next sentence seq,
    used table slots, most live postings after any document].  Documents of the batch get the next
    sequence numbers; ``sent_off`` (per document) and ``word_off`` (per sentence) index
    ``words``/``idf``; ``times`` are the documents' times.  ``docs_scs`` and
    ``sents_self`` receive each document's SCS and each sentence's self-similarity.

    Returns ``(pair_a, pair_c, pair_cs, e_a, e_c, e_sa, e_sc, e_cs)``: every pair of a
    new document ``a`` and an earlier one ``c`` with ``CS / SCS >= etl`` in either
    direction, and the summed ``cs`` of each of their sentence pairs.
    """
    p_cap = p_doc.shape[0]
    d_cap = docs_time.shape[0]
    s_cap = sents_self.shape[0]
    cap = 1024
    h_a = np.empty(cap, np.int64)
    h_c = np.empty(cap, np.int64)
    h_sa = np.empty(cap, np.int64)
    h_sc = np.empty(cap, np.int64)
    h_w = np.empty(cap, np.float64)
    n_hits = 0
    pcap = 256
    pair_a = np.empty(pcap, np.int64)
    pair_c = np.empty(pcap, np.int64)
    pair_cs = np.empty(pcap, np.float64)
    n_pairs = 0
    lanes = np.empty(2, np.uint64)
    for d in range(sent_off.shape[0] - 1):
        a = state[2]
        t = times[d]
        _evict(state, docs_time, d_cap, p_doc, p_cap, a, t, kind, size)
        docs_time[a & (d_cap - 1)] = t
        first_sent = state[4]
        first_hit = n_hits
        self_total = 0.0
        cross = 0.0
        for j in range(sent_off[d], sent_off[d + 1]):
            local = j - sent_off[d]
            lo, hi = word_off[j], word_off[j + 1]
            own = 0.0
            for p in range(min(suffixes, hi - lo)):
                key = np.uint64(0)
                for k in range(1, min(depth, hi - lo - p) + 1):
                    lanes[0] = key
                    lanes[1] = words[lo + p + k - 1]
                    key = xxh64_lanes(lanes, 0, 2, np.uint64(0))
                    weight = k * idf[lo + p + k - 1]
                    own += weight
                    at = _slot(keys, heads, key)
                    head = heads[at]
                    s = head
                    while s >= state[1]:
                        slot = s & (p_cap - 1)
                        c = p_doc[slot]
                        if c == a:
                            cross += weight
                        else:
                            if n_hits == cap:
                                cap *= 2
                                h_a, h_c, h_sa, h_sc = _grow_i(h_a, cap), _grow_i(h_c, cap), _grow_i(h_sa, cap), _grow_i(h_sc, cap)
                                h_w = _grow_f(h_w, cap)
                            h_c[n_hits] = c
                            h_sa[n_hits] = local
                            h_sc[n_hits] = p_sent[slot]
                            h_w[n_hits] = weight
                            n_hits += 1
                        s = p_next[slot]
                    seq = state[0]
                    slot = seq & (p_cap - 1)
                    p_doc[slot] = a
                    p_sent[slot] = local
                    p_next[slot] = head
                    if head < 0:
                        keys[at] = key
                        state[5] += 1
                    heads[at] = seq
                    state[0] = seq + 1
            sents_self[(first_sent + local) & (s_cap - 1)] = own
            self_total += own
        n_sent = sent_off[d + 1] - sent_off[d]
        state[4] = first_sent + n_sent
        scs = self_total + 2.0 * cross
        docs_scs[a & (d_cap - 1)] = scs
        state[2] = a + 1
        state[6] = max(state[6], state[0] - state[1])  # after each document: the same for any batching
        if n_pairs + (n_hits - first_hit) > pcap:
            pcap = 2 * (n_pairs + n_hits - first_hit)
            pair_a = _grow_i(pair_a, pcap)
            pair_c = _grow_i(pair_c, pcap)
            pair_cs = _grow_f(pair_cs, pcap)
        kept, added = _reduce_document(first_hit, n_hits - first_hit, max(n_sent, 1), h_c, h_sc, h_sa, h_w,
                                       scs, docs_scs, d_cap, etl, pair_c, pair_cs, n_pairs)
        pair_a[n_pairs:n_pairs + added] = a
        h_a[first_hit:first_hit + kept] = a
        n_pairs += added
        n_hits = first_hit + kept
    return (pair_a[:n_pairs], pair_c[:n_pairs], pair_cs[:n_pairs],
            h_a[:n_hits], h_c[:n_hits], h_sa[:n_hits], h_sc[:n_hits], h_w[:n_hits])


@njit(cache=True)
def _grow_i(x, cap):
    out = np.empty(cap, np.int64)
    out[: x.shape[0]] = x
    return out


@njit(cache=True)
def _grow_f(x, cap):
    out = np.empty(cap, np.float64)
    out[: x.shape[0]] = x
    return out


@njit(inline="always", cache=True)
def _slot(keys, heads, key):
    """The table slot holding ``key``, or the free slot where it would go."""
    mask = keys.shape[0] - 1
    i = np.int64(key >> np.uint64(1)) & mask
    while heads[i] >= 0 and keys[i] != key:
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _rehash(keys, heads, oldest, spare):
    """A new table with the live nodes (newest posting at least ``oldest``), room for ``spare`` more."""
    live = 0
    for i in range(heads.shape[0]):
        if heads[i] >= oldest:
            live += 1
    cap = 1024
    while cap < 2 * (live + spare):
        cap *= 2
    new_keys = np.zeros(cap, np.uint64)
    new_heads = np.full(cap, -1, np.int64)
    for i in range(heads.shape[0]):
        if heads[i] >= oldest:
            at = _slot(new_keys, new_heads, keys[i])
            new_keys[at] = keys[i]
            new_heads[at] = heads[i]
    return new_keys, new_heads, live


@njit(cache=True)
def _document_list(keys, heads, state, p_doc, p_sent, p_next, path):
    """Postings ``(doc, sentence)`` of the node reached by the word hashes ``path``, newest first."""
    mask = p_doc.shape[0] - 1
    lanes = np.empty(2, np.uint64)
    key = np.uint64(0)
    for w in path:
        lanes[0] = key
        lanes[1] = w
        key = xxh64_lanes(lanes, 0, 2, np.uint64(0))
    out = []
    s = heads[_slot(keys, heads, key)]
    while s >= state[1]:
        out.append((p_doc[s & mask], p_sent[s & mask]))
        s = p_next[s & mask]
    return out


def _pow2(n: int) -> int:
    """The smallest power of two at least ``n`` (and at least 64)."""
    return max(64, 1 << (max(n, 1) - 1).bit_length())


def _regrow(arr: np.ndarray, lo: int, hi: int, cap: int) -> np.ndarray:
    """A ring of ``cap`` slots holding the live entries ``lo <= seq < hi`` of ``arr``."""
    out = np.zeros(cap, dtype=arr.dtype)
    if hi > lo:
        seqs = np.arange(lo, hi)
        out[seqs % cap] = arr[seqs % arr.shape[0]]
    return out


class CorpusTree:
    """The corpus tree and its window; documents get sequence numbers 0, 1, 2, ... on arrival.

    ``window_kind`` is :data:`NO_WINDOW`, :data:`COUNT_WINDOW` (``window`` documents
    before the new one) or :data:`TIME_WINDOW` (documents at most ``window`` seconds
    older).
    """

    def __init__(self, depth: int = 5, suffixes: int = 1, window_kind: int = NO_WINDOW, window: float = 0) -> None:
        if depth < 1 or suffixes < 1:
            raise UserError("depth and suffixes must be at least 1")
        self.depth, self.suffixes = depth, suffixes
        self.window_kind, self.window = window_kind, float(window)
        self.keys = np.zeros(1024, np.uint64)
        self.heads = np.full(1024, -1, np.int64)
        self.state = np.zeros(7, dtype=np.int64)
        self.p_doc = np.zeros(1024, np.int64)
        self.p_sent = np.zeros(1024, np.int64)
        self.p_next = np.zeros(1024, np.int64)
        self.docs_time = np.zeros(64, np.float64)
        self.docs_scs = np.zeros(64, np.float64)
        self.sents_self = np.zeros(1024, np.float64)
        self.doc_first_sent = np.zeros(64, np.int64)

    # -- sizes -------------------------------------------------------------------------
    @property
    def live_postings(self) -> int:
        return int(self.state[0] - self.state[1])

    @property
    def peak_live_postings(self) -> int:
        """The most postings live after any document was inserted (whatever the batches were)."""
        return int(self.state[6])

    @property
    def oldest_document(self) -> int:
        """Sequence number of the oldest document still in the window."""
        return int(self.state[3])

    def __len__(self) -> int:
        """Number of live nodes (the root not counted)."""
        return int(np.count_nonzero(self.heads >= self.state[1]))

    def nbytes(self) -> int:
        """Bytes held by the node table and the ring buffers."""
        arrays = (self.keys, self.heads, self.p_doc, self.p_sent, self.p_next, self.docs_time, self.docs_scs,
                  self.sents_self, self.doc_first_sent)
        return sum(a.nbytes for a in arrays)

    def _reserve(self, docs: int, sentences: int, postings: int) -> None:
        """Grow the rings so a batch fits next to everything still alive."""
        s = self.state
        need = self.live_postings + postings
        if need > self.p_doc.shape[0]:
            cap = _pow2(max(need, 2 * self.p_doc.shape[0]))
            self.p_doc, self.p_sent, self.p_next = (_regrow(a, int(s[1]), int(s[0]), cap)
                                                    for a in (self.p_doc, self.p_sent, self.p_next))
        live_docs = int(s[2] - s[3])
        if live_docs + docs > self.docs_time.shape[0]:
            cap = _pow2(max(live_docs + docs, 2 * self.docs_time.shape[0]))
            self.docs_time, self.docs_scs, self.doc_first_sent = (
                _regrow(a, int(s[3]), int(s[2]), cap) for a in (self.docs_time, self.docs_scs, self.doc_first_sent))
        first_live_sent = int(self.doc_first_sent[s[3] % self.doc_first_sent.shape[0]]) if live_docs else int(s[4])
        live_sents = int(s[4]) - first_live_sent
        if live_sents + sentences > self.sents_self.shape[0]:
            cap = _pow2(max(live_sents + sentences, 2 * self.sents_self.shape[0]))
            self.sents_self = _regrow(self.sents_self, first_live_sent, int(s[4]), cap)
        if 2 * (int(s[5]) + postings) > self.keys.shape[0]:
            self.keys, self.heads, live = _rehash(self.keys, self.heads, s[1], postings)
            s[5] = live

    # -- insertion ---------------------------------------------------------------------
    def insert(self, words: np.ndarray, word_off: np.ndarray, idf: np.ndarray, sent_off: np.ndarray,
               times: np.ndarray, etl: float) -> tuple[np.ndarray, ...]:
        """Insert a batch of documents in order; return the pairs passing ``etl`` (see :func:`insert_batch`).

        ``sent_off`` (``n_docs + 1``) indexes the sentences of each document in
        ``word_off``, which indexes each sentence's IDF-sorted words in ``words``/``idf``.
        """
        n_docs = sent_off.shape[0] - 1
        n_sents = int(sent_off[-1] - sent_off[0])
        lengths = np.diff(word_off)
        postings = int(np.minimum(lengths, self.depth).sum()) * self.suffixes
        self._reserve(n_docs, n_sents, postings)
        first = int(self.state[2])
        seqs = np.arange(first, first + n_docs)
        self.doc_first_sent[seqs % self.doc_first_sent.shape[0]] = self.state[4] + sent_off[:-1] - sent_off[0]
        hits = insert_batch(self.keys, self.heads, self.state, self.p_doc, self.p_sent, self.p_next, self.docs_time,
                            self.docs_scs, self.sents_self, words, word_off, idf, sent_off - sent_off[0],
                            np.asarray(times, np.float64), self.depth, self.suffixes, self.window_kind,
                            self.window, etl)
        return hits

    # -- per-document values of documents in the window ----------------------------------
    def scs(self, docs: np.ndarray) -> np.ndarray:
        """Self-containment similarity of documents (sequence numbers in the window)."""
        return self.docs_scs[docs % self.docs_scs.shape[0]]

    def sentence_self(self, docs: np.ndarray, sents: np.ndarray) -> np.ndarray:
        """Self-similarity ``cs(s, s)`` of sentence ``sents[i]`` of document ``docs[i]``."""
        first = self.doc_first_sent[docs % self.doc_first_sent.shape[0]]
        return self.sents_self[(first + sents) % self.sents_self.shape[0]]

    def document_list(self, path: np.ndarray) -> list[tuple[int, int]]:
        """The live postings ``(doc, sentence)`` of the node at ``path`` (word hashes), newest first."""
        return _document_list(self.keys, self.heads, self.state, self.p_doc, self.p_sent, self.p_next,
                              np.asarray(path, np.uint64))
