"""SimHash (Charikar 2002) over IDF-weighted words, Hamming search by permuted tables (Manku et al. 2007).

A document's features -- its distinct words, or word k-shingles -- vote on every bit of
an f-bit fingerprint with their IDF weight (:mod:`neardup.sketch.simhash`).  Similarity
is the share of equal bits, ``1 - hamming / f``; the threshold is in those units, and the
Hamming radius searched is the largest k with ``1 - k / f >= threshold`` (the default
61/64 = 0.953 is Manku's k = 3 of 64 bits; Henzinger's 384 bits with at least 355 equal
is ``--bits 384 --threshold 0.9244``).  Candidates come from Manku's permuted tables
(:mod:`neardup.index.hamming`), which find every pair within k bits exactly, so the
candidates already pass the threshold.

Paper knobs and defaults:

* ``bits`` f -- fingerprint length, a multiple of 64 (64: Manku; 384: Henzinger, ANDD);
* ``shingle_size`` -- 1 = words (Charikar, Manku, Henzinger), k > 1 = word k-shingles;
* ``weighting`` -- ``idf`` (``log(N / df)`` over the input collection, counted with
  :class:`~neardup.stats.DocumentFrequencies`; a word found in every document weighs 0),
  ``tfidf`` (times the count in the document) or ``uniform``;
* ``blocks`` -- blocks the f bits are cut into for the tables (must exceed the Hamming
  radius, else ignored); off = chosen by Manku's cost trade-off;
* ``seed`` -- seed of the feature-to-bits hash.

IDF needs the whole collection, so the feature sets are kept until :meth:`finish`, which
fingerprints them a piece at a time and keeps only the fingerprints.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..errors import UserError
from ..features.sets import HashedSets
from ..features.shingles import check_shingle_size, word_shingle_counts, word_shingles
from ..index.hamming import check_bits, hamming_pairs
from ..sketch.simhash import SimHasher, max_distance, similarity
from ..stats.df import DocumentFrequencies
from .base import CandidatePlan, Candidates, Method, Sketches, sets_of

WEIGHTINGS = ("idf", "tfidf", "uniform")




class SimHashMethod(Method):
    """IDF-weighted SimHash fingerprints, permuted-table Hamming search, share of equal bits."""

    name = "simhash"
    summary = "Share of equal bits of IDF-weighted SimHash fingerprints; Manku's permuted tables (Charikar)."
    param_help = {
        "threshold": "share of equal bits (1 - Hamming distance / bits) at or above which a pair is a near-duplicate; "
                     "Manku's distance 3 of 64 bits is 0.953125",
        "bits": "fingerprint bits f, a multiple of 64",
        "shingle_size": "words per shingle, k",
        "weighting": "feature weight: idf, tf x idf, or uniform",
        "blocks": "blocks per fingerprint in the permuted tables (> Hamming radius); off = by cost",
        "seed": "random seed of the hash functions",
    }
    param_choices = {"weighting": WEIGHTINGS}

    def __init__(
        self,
        threshold: float = 61 / 64,
        bits: int = 64,
        shingle_size: int = 1,
        weighting: str = "idf",
        blocks: int | None = None,
        seed: int = 1,
    ) -> None:
        super().__init__(threshold, seed)
        check_bits(bits)
        check_shingle_size(shingle_size)
        self.check_choices(weighting=weighting)
        if blocks is not None and not 1 <= blocks <= bits:
            raise UserError(f"blocks must be between 1 and bits = {bits}, got {blocks}")
        self.bits = bits
        self.shingle_size = shingle_size
        self.weighting = weighting
        self.blocks = blocks

    def sketch(self, texts: Sequence[str]) -> Sketches:
        """The batch's shingle sets (with counts for tf x idf) and its document frequencies."""
        if self.weighting == "tfidf":
            sets, counts = word_shingle_counts(texts, self.shingle_size)
            lists = {"hashes": sets.hashes, "counts": counts}
        else:
            sets, _ = word_shingles(texts, self.shingle_size)
            lists = {"hashes": sets.hashes}
        return Sketches(sets.sizes() > 0, {}, lists, sets.offsets, DocumentFrequencies.of(sets))

    def finish(self, parts: Sequence[Sketches]) -> Sketches:
        """Weigh the features by the collection's IDF and fingerprint every document (a piece at a
        time: :meth:`~neardup.methods.base.Method.apply_in_pieces`; only the fingerprints are joined)."""
        df = DocumentFrequencies.merged([p.stats for p in parts]) if self.corpus_dependent else None
        return self.apply_in_pieces(parts, df)

    def statistics_applier(self, stats: DocumentFrequencies | None) -> Callable[[Sketches], Sketches]:
        """Fingerprints of the rows of a piece, features weighed by the IDF of ``stats`` (None: uniform)."""
        hasher = SimHasher(self.bits, self.seed)

        def fingerprinted(sk: Sketches) -> Sketches:
            sets = sets_of(sk) if sk.offsets is not None else HashedSets.concat([])
            if stats is None:
                weights = np.ones(sets.hashes.shape[0], dtype=np.float64)
            else:
                weights = stats.idf(sets.hashes)
                if self.weighting == "tfidf" and "counts" in sk.lists:
                    weights = weights * sk.lists["counts"]
            return Sketches(sets.sizes() > 0, {"fingerprints": hasher.sketch(sets, weights)})

        return fingerprinted

    def max_distance(self) -> int:
        """Hamming radius searched at the current threshold."""
        return max_distance(self.decision_threshold(), self.bits)

    def corpus_statistics(self) -> str | None:
        """IDF weights (``idf``, ``tfidf``): the features' document frequencies over the whole collection."""
        if self.weighting == "uniform":
            return None
        return (f"--weighting {self.weighting} weighs features by their IDF in the whole collection "
                "(--weighting uniform does not)")

    def candidate_plan(self) -> CandidatePlan:
        """Fingerprints within the Hamming radius of the threshold."""
        blocks = self.blocks if self.blocks is not None and self.blocks > self.max_distance() else None
        return CandidatePlan("hamming", column="fingerprints", bits=self.bits, radius=self.max_distance(),
                             blocks=blocks)

    def candidate_pairs(self, sk: Sketches) -> Candidates:
        """Every pair of usable documents within the Hamming radius."""
        usable = np.flatnonzero(sk.usable)
        plan = self.candidate_plan()
        a, b = hamming_pairs(sk.columns["fingerprints"][usable], plan.radius, plan.blocks, self.seed)
        return Candidates(usable[a], usable[b])

    def score(self, sk: Sketches, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = similarity(sk.columns["fingerprints"], a, b)
        out[~(sk.usable[a] & sk.usable[b])] = 0.0
        return out
