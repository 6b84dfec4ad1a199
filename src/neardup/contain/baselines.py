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

from ..features.sets import HashedSets, ranked_within_documents
from ..index.banding import candidate_pairs
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


def _both_ways(a: np.ndarray, b: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.concatenate([a, b]), np.concatenate([b, a]), np.concatenate([score, score])


def imatch_pairs(sets: HashedSets, idf: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Directed pairs of documents with equal I-Match fingerprints (both directions, score 1)."""
    ranked, rank = ranked_within_documents(sets, idf)
    mask = np.zeros(sets.hashes.shape[0], dtype=bool)
    mask[ranked[(rank >= SKIP_TOP) & (rank < SKIP_TOP + IMATCH_TERMS)]] = True
    fp = set_fingerprints(sets.subset(mask))
    docs = np.flatnonzero(fp)  # 0: no word left to fingerprint
    a, b = candidate_pairs(fp[docs, None])
    return _both_ways(docs[a], docs[b], np.ones(a.shape[0]))


def simhash_pairs(sets: HashedSets, idf: np.ndarray, seed: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Directed pairs within Hamming distance 2 of 64-bit IDF SimHash (both directions)."""
    ranked, rank = ranked_within_documents(sets, idf)
    keep = np.zeros(sets.hashes.shape[0], dtype=bool)
    keep[ranked[rank >= SKIP_TOP]] = True
    sub = sets.subset(keep)
    fp = SimHasher(64, seed).sketch(sub, idf[keep])
    has = np.flatnonzero(sub.sizes() > 0)
    a, b = hamming_pairs(fp[has], SIMHASH_DISTANCE)
    a, b = has[a], has[b]
    dist = np.unpackbits((fp[a, 0] ^ fp[b, 0]).view(np.uint8)).reshape(-1, 64).sum(axis=1)
    return _both_ways(a, b, 1.0 - dist / 64.0)
