"""PDC-MR's three jobs (zhang2010, section 4) as map / shuffle / reduce over numpy records.

Each stage takes and returns key/value records held as parallel numpy arrays
(:class:`Records`): the *map* emits records, the *shuffle* is a stable sort by key (what
a MapReduce engine's group-by does), the *reduce* folds each run of equal keys.  A
distributed engine can run the same stages on partitions of the records; here they
run in one process, with compiled kernels where a loop is needed.

1. **Index** (:func:`index`): map every sentence to ``(signature, sentence)``; shuffle;
   the runs are the inverted index ``signature -> [sentences]`` and their lengths the
   signatures' document frequencies.
2. **Sentence duplicates** (:func:`sentence_duplicates`): for each posting list, the
   pairs of sentences of different documents whose sizes pass the Jaccard upper bound
   ``min(|A|, |B|) / max(|A|, |B|) >= tau``; shuffle by sentence pair; the reduce
   keeps pairs with ``Jaccard >= tau`` and re-keys them by document pair.  Instead of
   every posting list, only each sentence's *prefix* is indexed (its
   ``|A| - ceil(tau |A|) + 1`` rarest signatures, by the stage-1 frequencies): two
   sets with Jaccard at least ``tau`` always share a signature of their prefixes, so
   the result is exactly the paper's while common signatures ("said in a statement")
   no longer produce quadratic candidate lists.  The reduce therefore computes the
   Jaccard from the two sentences' signature sets (a side input) rather than from
   the count of shared signatures in its group.
3. **Sequence matching** (:func:`sequence_matching`): shuffle the duplicated sentence
   pairs by document pair; per pair, the dot plot's diagonals (``i_a - i_b`` constant)
   are followed in order, bridging up to ``gap`` missing sentences (an edited sentence
   inside a copied run), and every diagonal run covering at least ``gamma`` sentences
   becomes a span ``(a_start, b_start, length)``.  Each duplicated pair belongs to one
   diagonal, so it is used once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..errors import UserError
from ..features.sets import HashedSets, exact_jaccard


@dataclass(frozen=True)
class Records:
    """Key/value records: ``key`` and value columns of equal length."""

    key: np.ndarray
    values: dict[str, np.ndarray]

    def __len__(self) -> int:
        return self.key.shape[0]

    def shuffle(self) -> "Records":
        """The records sorted by key (stable), as a MapReduce shuffle groups them."""
        order = np.argsort(self.key, kind="stable")
        return Records(self.key[order], {k: v[order] for k, v in self.values.items()})

    def runs(self) -> np.ndarray:
        """Start of each run of equal keys, plus the end (of a shuffled record set)."""
        if not len(self):
            return np.zeros(1, np.int64)
        return np.r_[np.flatnonzero(np.r_[True, self.key[1:] != self.key[:-1]]), len(self)].astype(np.int64)


@dataclass(frozen=True)
class Sentences:
    """The side input: every sentence's signature set, document and position in it."""

    sets: HashedSets
    doc: np.ndarray
    local: np.ndarray


# ---------------------------------------------------------------------------- stage 1


def index(sentences: Sentences) -> Records:
    """Job 1: the inverted index ``signature -> sentence`` (shuffled: equal signatures adjacent)."""
    sent = np.repeat(np.arange(len(sentences.sets), dtype=np.int64), sentences.sets.sizes())
    return Records(sentences.sets.hashes, {"sentence": sent}).shuffle()


# ---------------------------------------------------------------------------- stage 2


def prefix_size(size: np.ndarray, tau: float) -> np.ndarray:
    """How many of a set's rarest signatures any partner with Jaccard >= tau must share."""
    need = np.ceil(tau * size - 1e-9).astype(np.int64)
    return np.where(size > 0, size - np.maximum(need, 1) + 1, 0)


def _prefix_postings(inverted: Records, sentences: Sentences, tau: float) -> Records:
    """Map of job 2: ``(signature, sentence)`` for the signatures in the sentence's prefix."""
    runs = inverted.runs()
    df = np.repeat(np.diff(runs), np.diff(runs))
    sent = inverted.values["sentence"]
    order = np.lexsort((inverted.key, df, sent))  # per sentence: rarest first, ties by signature
    s = sent[order]
    rank = np.arange(s.shape[0]) - np.searchsorted(s, s, side="left")
    keep = rank < prefix_size(sentences.sets.sizes(), tau)[s]
    return Records(inverted.key[order][keep], {"sentence": s[keep]}).shuffle()


@njit(cache=True)
def _candidate_pairs(sent, runs, size, doc, tau, out_x, out_y):
    """Pairs within each run of ``sent`` from different documents passing the size bound."""
    n = 0
    write = out_x.shape[0] > 0
    for r in range(runs.shape[0] - 1):
        for i in range(runs[r], runs[r + 1]):
            x = sent[i]
            for j in range(i + 1, runs[r + 1]):
                y = sent[j]
                if doc[x] == doc[y]:
                    continue
                lo, hi = min(size[x], size[y]), max(size[x], size[y])
                if lo < tau * hi - 1e-9:
                    continue
                if write:
                    out_x[n] = min(x, y)
                    out_y[n] = max(x, y)
                n += 1
    return n


def sentence_duplicates(inverted: Records, sentences: Sentences, tau: float) -> Records:
    """Job 2: duplicated sentence pairs keyed by document pair (``doc_a < doc_b``)."""
    post = _prefix_postings(inverted, sentences, tau)
    runs = post.runs()
    sent, size, doc = post.values["sentence"], sentences.sets.sizes(), sentences.doc
    n = _candidate_pairs(sent, runs, size, doc, tau, np.zeros(0, np.int64), np.zeros(0, np.int64))
    x, y = np.empty(n, np.int64), np.empty(n, np.int64)
    _candidate_pairs(sent, runs, size, doc, tau, x, y)
    # shuffle by sentence pair, reduce: one record per pair, kept at Jaccard >= tau
    n_sent = max(len(sentences.sets), 1)
    pairs = np.unique(x * n_sent + y)
    x, y = pairs // n_sent, pairs % n_sent
    sim = exact_jaccard(sentences.sets.hashes, sentences.sets.offsets, x, y)
    ok = sim >= tau - 1e-9
    x, y = x[ok], y[ok]
    n_doc = int(doc.max()) + 1 if doc.shape[0] else 1
    key = doc[x] * n_doc + doc[y]
    return Records(key, {"a": sentences.local[x], "b": sentences.local[y]})


# ---------------------------------------------------------------------------- stage 3


@njit(cache=True)
def _diagonals(key, a, b, runs, gap, gamma, out):
    """Spans ``(key, a_start, b_start, length)`` of each key's diagonals; returns how many."""
    n = 0
    for r in range(runs.shape[0] - 1):
        lo, hi = runs[r], runs[r + 1]
        diag = a[lo:hi] - b[lo:hi]
        order = np.argsort(diag * (np.int64(1) << 32) + a[lo:hi])
        i = 0
        m = hi - lo
        while i < m:
            first = lo + order[i]
            last = first
            j = i + 1
            while j < m:
                nxt = lo + order[j]
                if diag[order[j]] != diag[order[i]] or a[nxt] - a[last] > gap + 1:
                    break
                last = nxt
                j += 1
            length = a[last] - a[first] + 1
            if length >= gamma:
                if out.shape[0] > 0:
                    out[n, 0] = key[lo]
                    out[n, 1] = a[first]
                    out[n, 2] = b[first]
                    out[n, 3] = length
                n += 1
            i = j
    return n


def sequence_matching(duplicates: Records, gap: int = 1, gamma: int = 3) -> np.ndarray:
    """Job 3: ``(doc pair key, a_start, b_start, length)`` rows of every span, by key then position."""
    if gap < 0 or gamma < 1:
        raise UserError(f"gap must be at least 0 and gamma at least 1, got {gap} and {gamma}")
    d = duplicates.shuffle()
    runs = d.runs()
    a, b = d.values["a"].astype(np.int64), d.values["b"].astype(np.int64)
    n = _diagonals(d.key, a, b, runs, gap, gamma, np.zeros((0, 4), np.int64))
    out = np.empty((n, 4), np.int64)
    _diagonals(d.key, a, b, runs, gap, gamma, out)
    return out[np.lexsort((out[:, 2], out[:, 1], out[:, 0]))] if n else out


def jaccard_threshold_ok(tau: float) -> None:
    """Reject a Jaccard threshold outside (0, 1]."""
    if not 0 < tau <= 1 or math.isnan(tau):
        raise UserError(f"tau must be in (0, 1], got {tau}")
