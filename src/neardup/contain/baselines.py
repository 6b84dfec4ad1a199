"""The four containment baselines of varol2011 (section 4), on CoDet's words.

The paper adapts near-duplicate methods to containment, on the same preprocessed words
as CoDet (stopwords removed, words cut to 5 letters); so do these, each returning
directed pairs ``(container, contained, score)`` over document indices:

* **FFP** (full fingerprinting): every word 4-gram of a document hashed; ``d_C``
  contains ``d_A`` when it holds at least 60% of ``d_A``'s hashes.  Pairs come from
  neardup's exact set-similarity join (:mod:`neardup.index.inverted`), which returns
  every pair whose larger one-sided containment passes; each direction is then judged
  on its own.
* **DSC**: "every three overlapping substrings of size four are hashed": the 4-grams at
  positions 0, 3, 6, ... (one in three, by position, as the paper words it), then the
  same 60% test.
* **I-Match**: a document's distinct words ranked by IDF, the first two skipped, the next
  ten fingerprinted (XXH64 of their sorted hashes, where the paper used SHA1); equal
  fingerprints are containment, in both directions (score 1).
* **SimHash**: the distinct words without the two of highest IDF vote with their IDF on
  64 bits; a Hamming distance below three is containment, both directions (score
  ``1 - d / 64``).

A document's words are the concatenation of its sentences' words (text order).
"""

from __future__ import annotations

import numpy as np

from ..features.sets import HashedSets
from ..index.hamming import hamming_pairs
from ..index.inverted import InvertedIndex
from ..sentences.tokens import set_fingerprints
from ..sketch.simhash import SimHasher

BASELINES = ("ffp", "dsc", "imatch", "simhash")

#: varol2011's settings: 4-grams, 60% containment, one in three for DSC, I-Match skips
#: the top 2 IDF words and keeps 10, SimHash skips 2 and accepts Hamming distance < 3.
GRAM, SHARE, DSC_EVERY, SKIP_TOP, IMATCH_TERMS, SIMHASH_DISTANCE = 4, 0.6, 3, 2, 10, 2


def share_pairs(sets: HashedSets, share: float = SHARE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Directed ``(container, contained, |A∩C| / |A|)`` with the share at least ``share``."""
    a, b, sim = InvertedIndex(sets).pairs(share, "containment")
    size = sets.sizes()
    inter = np.rint(sim * np.minimum(size[a], size[b]))
    with np.errstate(divide="ignore", invalid="ignore"):
        in_b = inter / size[a]  # share of a found in b: b contains a
        in_a = inter / size[b]
    fwd, back = in_b >= share, in_a >= share
    return (np.concatenate([b[fwd], a[back]]), np.concatenate([a[fwd], b[back]]),
            np.concatenate([in_b[fwd], in_a[back]]))


def _ranked(sets: HashedSets, idf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each document's words by IDF, highest first (ties by hash): order, document, rank."""
    doc = np.repeat(np.arange(len(sets)), sets.sizes())
    order = np.lexsort((sets.hashes, -idf, doc))
    d = doc[order]
    rank = np.arange(d.shape[0]) - np.searchsorted(d, d, side="left")
    return order, d, rank


def _both_ways(a: np.ndarray, b: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.concatenate([a, b]), np.concatenate([b, a]), np.concatenate([score, score])


def imatch_pairs(sets: HashedSets, idf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Directed pairs of documents with equal I-Match fingerprints (both directions, score 1)."""
    order, d, rank = _ranked(sets, idf)
    chosen = (rank >= SKIP_TOP) & (rank < SKIP_TOP + IMATCH_TERMS)
    mask = np.zeros(sets.hashes.shape[0], dtype=bool)
    mask[order[chosen]] = True
    fp = set_fingerprints(sets.subset(mask))
    docs = np.flatnonzero(fp)
    by = docs[np.argsort(fp[docs], kind="stable")]
    f = fp[by]
    starts = np.flatnonzero(np.r_[True, f[1:] != f[:-1]])
    sizes = np.diff(np.r_[starts, f.shape[0]])
    a_parts, b_parts = [], []
    for s, n in zip(starts[sizes > 1].tolist(), sizes[sizes > 1].tolist()):
        i, j = np.triu_indices(n, k=1)
        a_parts.append(by[s + i])
        b_parts.append(by[s + j])
    a = np.concatenate(a_parts) if a_parts else np.zeros(0, np.int64)
    b = np.concatenate(b_parts) if b_parts else np.zeros(0, np.int64)
    return _both_ways(a, b, np.ones(a.shape[0]))


def simhash_pairs(sets: HashedSets, idf: np.ndarray, seed: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Directed pairs within Hamming distance 2 of 64-bit IDF SimHash (both directions)."""
    order, d, rank = _ranked(sets, idf)
    keep = np.zeros(sets.hashes.shape[0], dtype=bool)
    keep[order[rank >= SKIP_TOP]] = True
    sub = sets.subset(keep)
    fp = SimHasher(64, seed).sketch(sub, idf[keep])
    has = np.flatnonzero(sub.sizes() > 0)
    a, b = hamming_pairs(fp[has], SIMHASH_DISTANCE)
    a, b = has[a], has[b]
    dist = np.unpackbits((fp[a, 0] ^ fp[b, 0]).view(np.uint8)).reshape(-1, 64).sum(axis=1)
    return _both_ways(a, b, 1.0 - dist / 64.0)
