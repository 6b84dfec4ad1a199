"""The compiled kernels of seed-and-extend alignment (:mod:`.aligner`), one group per stage.

Each kernel is a map or a reduce over key/value arrays, so an engine other than the
local one (:class:`~.aligner.Aligner`) can run the same stages on partitions:

* :func:`.words.tokens` -- texts to words with character offsets (map over documents);
* :func:`seed_keys` -- words to ``(key, doc, pos)`` seed records (map);
* :func:`shared_seeds` -- the reduce of the inverted index: keys of 2..``max_df``
  documents (over records sorted by key, documents in order within a key);
* :func:`pair_counts`, :func:`sieve_pairs` -- seed pairs ``(a, b, pa, pb)`` of one range
  of ``a`` documents, only those of document pairs with ``min_seeds`` of them, in order
  (the counts size the ranges);
* :func:`chain_pairs` -- the reduce by document pair: the matches that can be copied
  text (:func:`.runs.kept_matches`), chains, merged passages, validation and coverage
  (:func:`.cover.side_cover`).

One module of kernels, one group per stage, so another engine imports the stages whole (the
words, a map of their own, are in :mod:`.words`; which matches are kept, in :mod:`.runs`; how
much of each document the passages hold, in :mod:`.cover`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cover import dense, side_cover, trim_holes
from .echoes import drop_echoes, repeats
from .runs import first_in_a, kept_matches

#: One seed occurrence: its key, document and word position (16 bytes).
SEED_RECORD = np.dtype([("key", "<u8"), ("doc", "<i4"), ("pos", "<i4")])

_MIX = np.uint64(0x9E3779B97F4A7C15)


# ---------------------------------------------------------------------------- seeds


def seed_keys(hashes: np.ndarray, first: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stage 1's map: ``(key, doc, position)`` of every ``n``-word run inside one document."""
    total = hashes.shape[0]
    if total < n:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    m = total - n + 1
    key = np.zeros(m, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for k in range(n):
            key = (key ^ (hashes[k:m + k] + np.uint64(k + 1))) * _MIX
    doc = np.searchsorted(first, np.arange(m), side="right") - 1
    inside = np.arange(m) + n <= first[doc + 1]
    return key[inside], doc[inside], (np.arange(m) - first[doc])[inside]


@njit(cache=True, nogil=True)
def shared_seeds(key, doc, max_df):
    """Stage 1's reduce over records sorted by key: indices of the records of keys found in
    2..``max_df`` documents (and at most ``4 max_df`` times), and the start of each kept
    key's group in that selection (plus the end)."""
    n = key.shape[0]
    keep = np.empty(n, dtype=np.int64)
    starts = np.empty(n + 1, dtype=np.int64)
    k = g = 0
    lo = 0
    while lo < n:
        hi = lo + 1
        docs = 1
        while hi < n and key[hi] == key[lo]:
            if doc[hi] != doc[hi - 1]:
                docs += 1
            hi += 1
        if 2 <= docs <= max_df and hi - lo <= 4 * max_df:
            starts[g] = k
            g += 1
            for i in range(lo, hi):
                keep[k] = i
                k += 1
        lo = hi
    starts[g] = k
    return keep[:k], starts[:g + 1]


# ---------------------------------------------------------------------------- seed pairs


@njit(cache=True)
def _walk_pairs(doc, groups, counts):
    """Every occurrence of a key with every later one of another document, counted per ``a``."""
    for g in range(groups.shape[0] - 1):
        g1 = groups[g + 1]
        i = groups[g]
        while i < g1:
            j = i
            while j < g1 and doc[j] == doc[i]:
                j += 1
            counts[doc[i]] += (j - i) * (g1 - j)
            i = j


def pair_counts(doc: np.ndarray, groups: np.ndarray, n_docs: int) -> np.ndarray:
    """How many seed pairs each document makes as ``a`` (the earlier document of the pair)."""
    counts = np.zeros(n_docs, dtype=np.int64)
    _walk_pairs(doc, groups, counts)
    return counts


@njit(cache=True)
def _by_document(doc, pos, groups, starts, order, ends):
    """:func:`by_document`'s order (``ends`` follows it): by document, then each one's records by position."""
    fill = starts[:-1].copy()
    for g in range(groups.shape[0] - 1):
        for i in range(groups[g], groups[g + 1]):
            order[fill[doc[i]]] = i
            ends[fill[doc[i]]] = groups[g + 1]
            fill[doc[i]] += 1
    for d in range(starts.shape[0] - 1):
        lo, hi = starts[d], starts[d + 1]
        if hi - lo > 1:
            by_pos = np.argsort(pos[order[lo:hi]])  # positions are distinct within a document
            order[lo:hi] = order[lo:hi].copy()[by_pos]
            ends[lo:hi] = ends[lo:hi].copy()[by_pos]


def by_document(doc: np.ndarray, pos: np.ndarray, groups: np.ndarray,
                n_docs: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The shared seeds document by document: record indices in order of ``(doc, pos)`` (4 bytes
    each while they fit), each document's first place in that order (plus the end), and in that
    order the end of each record's key group (``groups``: their starts, plus the end), found in
    this pass over the groups: a binary search among all groups per record cost more than the sieve."""
    starts = np.r_[0, np.cumsum(np.bincount(doc, minlength=n_docs))].astype(np.int64)
    order, ends = (np.empty(doc.shape[0], np.int32 if doc.shape[0] < 2**31 else np.int64) for _ in range(2))
    _by_document(doc, pos, groups, starts, order, ends)
    return order, starts, ends


@njit(cache=True)
def _later(doc, x, g1):
    """The first record after record ``x``'s document's run in its key group (which ends at ``g1``)."""
    j = x + 1
    while j < g1 and doc[j] == doc[x]:
        j += 1
    return j


@njit(cache=True, nogil=True)
def _sieve(doc, pos, order, ends, starts, lo, hi, min_seeds, n_docs, a_out, b_out, pa_out, pb_out):
    """:func:`sieve_pairs`' loop: for each ``a`` in ``[lo, hi)``, its seeds in order of position
    counted against every later document ``b`` of their key groups, then written again only for
    the ``b`` met ``min_seeds`` times, each ``b``'s rows at its place in ``b`` order."""
    count = np.zeros(n_docs, np.int64)
    at = np.zeros(n_docs, np.int64)  # where b's next row goes; -1: too few seeds
    touched = np.empty(n_docs, np.int64)
    n = 0
    for a in range(lo, hi):
        t = 0
        for r in range(starts[a], starts[a + 1]):
            x, g1 = order[r], ends[r]
            for y in range(_later(doc, x, g1), g1):
                b = doc[y]
                if count[b] == 0:
                    touched[t] = b
                    t += 1
                count[b] += 1
        if t == 0:
            continue
        met = np.sort(touched[:t])
        for b in met:
            if count[b] >= min_seeds:
                at[b] = n
                n += count[b]
            else:
                at[b] = -1
        for r in range(starts[a], starts[a + 1]):
            x, g1 = order[r], ends[r]
            for y in range(_later(doc, x, g1), g1):
                b = doc[y]
                k = at[b]
                if k >= 0:
                    a_out[k], b_out[k], pa_out[k], pb_out[k] = a, b, pos[x], pos[y]
                    at[b] = k + 1
        for b in met:
            count[b] = 0
    return n


def sieve_pairs(doc: np.ndarray, pos: np.ndarray, by_doc: tuple[np.ndarray, np.ndarray, np.ndarray], lo: int,
                hi: int, total: int, min_seeds: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Stage 2: the seed pairs ``(a, b, pa, pb)`` with ``lo <= a < hi`` of the document pairs that
    have ``min_seeds`` of them, sorted by ``(a, b, pa, pb)`` (what :func:`chain_pairs` takes);
    ``total``: how many seed pairs those ``a`` make in all (:func:`pair_counts`), ``by_doc``:
    :func:`by_document`.

    Made document by document, not key by key: the seed pairs of one ``a`` are counted per ``b``
    first, so a pair of documents that share fewer seeds than a passage needs (most pairs met
    through a stock phrase) is never written, and each ``b``'s rows are written at their place,
    so nothing is sorted.  The answer of :func:`chain_pairs` is that of every seed pair sorted,
    since it skips a document pair with fewer than ``min_seeds`` seed pairs."""
    order, starts, ends = by_doc
    a, b, pa, pb = (np.empty(total, dtype=np.int32) for _ in range(4))
    n = _sieve(doc, pos, order, ends, starts, lo, hi, min_seeds, starts.shape[0] - 1, a, b, pa, pb)
    return a[:n], b[:n], pa[:n], pb[:n]


# ---------------------------------------------------------------------------- chains


@njit(cache=True)
def _chain_one(pa, pb, twin, n, gap, min_words, seen_a, seen_b):
    """Passages ``(a_lo, a_hi, b_lo, b_hi, matched, distinct)`` of one pair's matches (sorted by
    pa, pb); ``matched``: the words of ``a`` inside the passage's seeds, ``distinct``: of those,
    the words of seeds not met earlier in their chain.  And the passages' holes
    ``(passage, side, lo, hi)`` (side 0: in ``a``, 1: in ``b``), in order of passage, and the
    matches of each passage (``by[at[j]:at[j + 1]]``: passage ``j``'s).

    A chain moves forward in both documents, each step skipping at most ``gap`` words
    (in ``b``, ``gap`` more than in ``a``).  Chains close in both documents are then merged
    (one copy is one passage): a chain that goes on forward in ``b`` always, one that
    goes back (a reordered sentence) only when it is a passage of ``min_words`` on its own,
    so stray phrases of a same-story text in another order do not add up to a passage.  The
    words a reordered chain skips to join (in either document) are a hole of the passage: a
    sentence moved in a copy skips none, but two quoted sentences in the other order skip the
    sentence between them in the source, which is no more shared than the text around them.
    So are the words a piece going on forward skips in one document only, more than ``n`` past
    what the other skips (a sentence a quote leaves out, text a copy inserts); an edit skips
    about as many words on both sides and leaves no hole.
    ``twin``: per match, the first position of ``a`` whose seed is the one matched (it equals
    the match's own position unless the seed occurs earlier in ``a``); a match whose seed
    occurs earlier inside its chain adds no distinct words, so a phrase both documents print
    twice (a headline repeated as the lede's first words) is evidence once.
    A chain whose words in one document are all words the passage's seeds already match
    there, and whose words in the other lie past the passage, is an echo (:mod:`.echoes`): it
    does not join.  ``seen_a``, ``seen_b``: zeroed scratch over the word positions of ``a`` and
    ``b`` (``n`` past the last match), left zeroed.
    """
    m = pa.shape[0]
    used = np.zeros(m, dtype=np.bool_)
    raw = np.empty((m, 6), dtype=np.int64)
    seq = np.empty(m, dtype=np.int64)  # the matches chain by chain: chain c's are seq[cs[c]:cs[c + 1]]
    cs = np.empty(m + 1, dtype=np.int64)
    k = 0
    cs[0] = e = 0
    for s in range(m):  # every match starts or joins one chain, in order of position in a
        if used[s]:
            continue
        used[s] = True
        seq[e] = s
        e += 1
        a_lo, a_hi, b_lo, b_hi = pa[s], pa[s] + n, pb[s], pb[s] + n
        last_a, last_b, matched, distinct = pa[s], pb[s], n, n
        for t in range(s + 1, m):
            if pa[t] - last_a > gap:
                break
            if not used[t] and pa[t] > last_a and 0 < pb[t] - last_b <= gap + (pa[t] - last_a):
                used[t] = True
                seq[e] = t
                e += 1
                new = min(n, max(0, pa[t] + n - a_hi))  # the seed's words not yet matched
                matched += new
                if not a_lo <= twin[t] < pa[t]:  # a seed met earlier in the chain is no new evidence
                    distinct += new
                a_hi = max(a_hi, pa[t] + n)
                b_hi = max(b_hi, pb[t] + n)
                last_a, last_b = pa[t], pb[t]
        raw[k, 0], raw[k, 1], raw[k, 2], raw[k, 3], raw[k, 4], raw[k, 5] = a_lo, a_hi, b_lo, b_hi, matched, distinct
        k += 1
        cs[k] = e
    raw = raw[:k]
    order = np.argsort(raw[:, 0] * (np.int64(1) << 32) + raw[:, 2], kind="mergesort")
    out = np.empty((k, 6), dtype=np.int64)
    holes = np.empty((4 * k, 4), dtype=np.int64)  # a merge adds two, and splits one a side, at most
    h = 0
    first = 0  # the current passage's first hole
    by = np.empty(m, dtype=np.int64)  # the matches passage by passage: passage j's are by[at[j]:at[j + 1]]
    at = np.empty(k + 1, dtype=np.int64)
    at[0] = e = 0
    j = -1
    for i in order:
        p, own = raw[i], seq[cs[i]:cs[i + 1]]
        close = j >= 0 and p[0] <= out[j, 1] + gap and p[2] <= out[j, 3] + gap and p[3] >= out[j, 2] - gap
        forward = j >= 0 and p[2] >= out[j, 3] - n
        echo = close and ((p[2] >= out[j, 3] or p[3] <= out[j, 2]) and out[j, 0] <= p[0] and p[1] <= out[j, 1]
                          and repeats(seen_a, pa, by[at[j]:e], own, n)
                          or p[0] >= out[j, 1] and out[j, 2] <= p[2] and p[3] <= out[j, 3]
                          and repeats(seen_b, pb, by[at[j]:e], own, n))
        if close and not echo and (forward or min(p[1] - p[0], p[3] - p[2]) >= min_words):
            h = trim_holes(holes, h, first, 0, p[0], p[1])
            h = trim_holes(holes, h, first, 1, p[2], p[3])
            ga, gb = p[0] - out[j, 1], p[2] - out[j, 3]  # the words skipped to reach the piece
            if ga > (max(gb, 0) + n if forward else 0):
                h = _hole(holes, h, j, 0, out[j, 1], p[0])
            if forward and gb > max(ga, 0) + n:
                h = _hole(holes, h, j, 1, out[j, 3], p[2])
            if not forward and p[3] < out[j, 2]:
                h = _hole(holes, h, j, 1, p[3], out[j, 2])
            out[j, 1] = max(out[j, 1], p[1])
            out[j, 2] = min(out[j, 2], p[2])
            out[j, 3] = max(out[j, 3], p[3])
            out[j, 4] += p[4]
            out[j, 5] += p[5]
        else:
            j += 1
            out[j] = p
            first = h
        at[j + 1] = e = e + own.shape[0]
        by[e - own.shape[0]:e] = own
    return out[:j + 1], holes[:h], by, at[:j + 2]


@njit(cache=True)
def _hole(holes, h, passage, side, lo, hi):
    """Adds the hole ``[lo, hi)`` of ``passage`` on ``side`` as row ``h``; returns the row count."""
    holes[h, 0], holes[h, 1], holes[h, 2], holes[h, 3] = passage, side, lo, hi
    return h + 1


@njit(cache=True, nogil=True)
def chain_pairs(a, b, pa, pb, words, n, gap, min_seeds, min_words, min_density, keep_coverage):
    """Stages 3-4 over seed pairs sorted by ``(a, b, pa, pb)``: the valid passages of every
    document pair with ``min_seeds`` matches, chained from the matches :func:`.runs.kept_matches`
    keeps.  Valid: ``min_words`` matched words (inside seeds) and so many on both sides, and
    ``min_density`` of the shorter side matched; of a document shorter than ``min_words`` (a
    headline, a one-line item: an identical copy was never a passage), all its words instead.  A pair whose passages hold less than
    ``keep_coverage`` of either document (not a copy by coverage: it only shares text) is
    reported only if they are dense: ``min_words`` at their density (distinct matched words
    squared >= ``min_words`` x their words on the shorter side), as a paraphrased sentence that
    shares two stock phrases is not, nor a stock phrase that both documents print twice.

    A pair is chained from the document in which the shared text comes first (the smaller sum
    of its matches' positions; of two equal sums, the first in the input), so the passages of
    two texts do not depend on which comes first in the input: chaining lets the second
    document skip more than the first.

    Returns ``out`` rows ``(a, b, a_lo, a_hi, b_lo, b_hi)`` (word positions, ``hi``
    exclusive) and ``cov`` rows ``(density, coverage of a, coverage of b, longest run of a,
    of b)``: a document's coverage is the share of its words inside the pair's reported
    passages (valid, echoes left out), its longest run the most consecutive words it has
    outside them.
    """
    m = a.shape[0]
    # a valid passage holds min_words matched words, at most n per seed: so many seeds at least (a
    # shorter pair's one passage holds all of a document, after min_seeds seeds)
    rows = m // max(1, (min_words + n - 1) // n) + 1
    out = np.empty((rows, 6), dtype=np.int64)
    cov = np.empty((rows, 5), dtype=np.float64)
    k = 0
    lo = 0
    top = max(pa.max(), pb.max()) + n + 1 if m else n + 1  # scratch over word positions of either side
    best, count = np.zeros(top, dtype=np.int64), np.zeros(top, dtype=np.int64)  # of kept_matches
    earliest = np.zeros(top, dtype=np.int64)  # of first_in_a
    seen_a, visit_a = np.zeros(top, dtype=np.int64), np.zeros(top, dtype=np.int64)  # of the echoes
    seen_b, visit_b = np.zeros(top, dtype=np.int64), np.zeros(top, dtype=np.int64)
    while lo < m:
        hi = lo + 1
        while hi < m and a[hi] == a[lo] and b[hi] == b[lo]:
            hi += 1
        if hi - lo >= min_seeds:
            xa, xb, wa, wb = pa[lo:hi].astype(np.int64), pb[lo:hi].astype(np.int64), words[a[lo]], words[b[lo]]
            mw = min(min_words, wa, wb)  # a document shorter than a passage is one whole (then at most one)
            flip = xb.sum() < xa.sum()
            if flip:  # chained from b, whose shared text comes first
                xa, xb, wa, wb = xb, xa, wb, wa
                o = np.argsort(xa * top + xb, kind="mergesort")
                xa, xb = xa[o], xb[o]
            twin = first_in_a(xa, xb, earliest)
            kept = kept_matches(xa, xb, best, count)
            if kept.shape[0]:
                xa, xb, twin = xa[kept], xb[kept], twin[kept]
            passages, holes, by, at = _chain_one(xa, xb, twin, n, gap, mw, seen_a, seen_b)
            valid = np.zeros(passages.shape[0], dtype=np.bool_)
            for i in range(passages.shape[0]):
                p = passages[i]
                aw, bw = p[1] - p[0], p[3] - p[2]
                valid[i] = p[4] >= mw and min(aw, bw) >= mw and p[4] / max(min(aw, bw), 1) >= min_density
            shown = drop_echoes(passages, valid, by, at, xa, xb, n, seen_a, seen_b, visit_a, visit_b)
            first = k
            for i in np.argsort(passages[:, 2 if flip else 0], kind="mergesort"):  # in the order of a
                if not shown[i]:
                    continue
                p = passages[i]
                aw, bw = p[1] - p[0], p[3] - p[2]
                density = min(1.0, p[4] / max(min(aw, bw), 1))
                out[k, 0], out[k, 1] = a[lo], b[lo]
                if flip:
                    out[k, 2], out[k, 3], out[k, 4], out[k, 5] = p[2], p[3], p[0], p[1]
                else:
                    out[k, 2], out[k, 3], out[k, 4], out[k, 5] = p[0], p[1], p[2], p[3]
                cov[k, 0] = density
                k += 1
            if k > first:  # the pair's coverage: its reported passages' words on each side
                ca, ra = side_cover(passages, shown, holes, 0, wa)
                cb, rb = side_cover(passages, shown, holes, 1, wb)
                if max(ca / max(wa, 1), cb / max(wb, 1)) < keep_coverage and not dense(passages, shown, mw):
                    k = first  # it only shares text, and its passages are not dense: not reported
                if flip:
                    ca, cb, ra, rb, wa, wb = cb, ca, rb, ra, wb, wa
                for i in range(first, k):
                    cov[i, 1], cov[i, 2] = ca / max(wa, 1), cb / max(wb, 1)
                    cov[i, 3], cov[i, 4] = ra, rb
        lo = hi
    return out[:k], cov[:k]
