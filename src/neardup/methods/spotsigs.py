"""SpotSigs (Theobald, Siddharth and Paepcke, SIGIR 2008): Jaccard of spot signatures, exact join.

A document becomes the set of its spot signatures (:mod:`neardup.features.spots`): at
each occurrence of an antecedent word, the antecedent and a chain of the following
content words.  Because antecedents are common function words, the signatures come
from running prose -- the article -- far more than from navigation, link lists and
ads, which is what makes the method robust on raw news pages.  Similarity is the exact
Jaccard of the signature sets, and the pairs at or above the threshold are found
exactly by SpotSigs' length-partitioned inverted index with early pruning
(:mod:`neardup.index.inverted`): no all-pairs scan and no sampling error.

Paper knobs and defaults:

* ``antecedents`` -- comma-separated words, default ``is,the,said,was`` (the best
  GoldSet run, Max F1 0.87, reported by Alonso et al. 2013); or ``top:N`` for the N most
  frequent words of the input collection (counted over all documents, so the sets are
  made at :meth:`finalize`, and the token hashes are kept until then);
* ``distance`` d and ``chain`` c -- the chain is the d-th, 2d-th, ... c·d-th content word
  after the antecedent (best: c = 3, d = 2; see :mod:`neardup.features.spots` for this
  reading of the spot distance);
* ``stopwords`` -- what is *not* a content word: ``english`` (the module's small list of
  English function words), ``none``, or comma-separated words;
* ``with_antecedent`` -- the signature starts with its antecedent, as in the paper's
  notation (``the:carolina:obama:president``); off = chain only, as in the authors' code;
* ``threshold`` tau -- Jaccard at or above which a pair is a near-duplicate.  The papers
  give no value for the GoldSet; 0.3 was chosen as the best B3 F1 (the clusters ``dedup``
  writes) on one half of goldset-dev (``cluster_folds(..., 2, seed 0)``, fold 0, whole-page
  text) and checked on the other half.  Pairwise Max F1 on whole pages peaks much lower
  (0.03-0.08): rewrites by different outlets share few signatures, but such a low
  threshold chains unrelated stories together in the transitive clusters.

Not reproduced: the authors' package also drops signatures outside an IDF band and
documents with fewer than a minimum number of signatures, and counts repeated
signatures (a multiset Jaccard); here, as Alonso et al. describe SpotSigs, each
signature counts once (set Jaccard).  A
document with no signature (no antecedent followed by a content word) cannot be
compared and is reported unusable; with ``top:N`` that is known only at the end, so
``add`` reports every document with words as usable.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import UserError
from ..features.sets import HashedSets, exact_jaccard
from ..features.spots import (
    DEFAULT_ANTECEDENTS, TokenBatch, check_spot_params,
    spot_sets, word_hashes,
)
from ..text.stopwords import ENGLISH_STOPWORDS
from ..index.inverted import InvertedIndex
from ..stats.df import DocumentFrequencies
from .base import CandidatePlan, Candidates, Method, Sketches, sets_of


def _words(spec: str, what: str) -> list[str]:
    words = [w.strip() for w in spec.split(",") if w.strip()]
    if not words:
        raise UserError(f"{what}: give comma-separated words, got {spec!r}")
    return words


class SpotSigsMethod(Method):
    """Spot signatures, exact Jaccard, exact all pairs by length-partitioned inverted index."""

    verifies = True

    name = "spotsigs"
    summary = "Jaccard of stopword-anchored spot signatures; exact join via inverted index (Theobald)."
    param_help = {
        "threshold": "similarity at or above which a pair is a near-duplicate",
        "antecedents": "comma-separated antecedent words, or top:N (the N most frequent words)",
        "distance": "spot distance d: chain the d-th, 2d-th, ... content word after the antecedent",
        "chain": "chain length c: content words per spot signature",
        "stopwords": "non-content words: english (built-in list), none, or comma-separated words",
        "with_antecedent": "start each signature with its antecedent word (off: chain only)",
        "seed": "seed of the signature hash (results do not depend on it)",
    }

    def __init__(
        self,
        threshold: float = 0.3,
        antecedents: str = ",".join(DEFAULT_ANTECEDENTS),
        distance: int = 2,
        chain: int = 3,
        stopwords: str = "english",
        with_antecedent: bool = True,
        seed: int = 1,
    ) -> None:
        super().__init__(threshold, seed)
        check_spot_params(distance, chain)
        self.antecedents = antecedents
        self.distance = distance
        self.chain = chain
        self.stopwords = stopwords
        self.with_antecedent = with_antecedent
        spec = antecedents.strip()
        if spec.lower().startswith("top:"):
            try:
                self._top = int(spec[4:])
            except ValueError:
                raise UserError(f"antecedents: top:N needs a whole number, got {antecedents!r}") from None
            if self._top < 1:
                raise UserError(f"antecedents: top:N needs N >= 1, got {antecedents!r}")
            self._ante = np.zeros(0, np.uint64)
        else:
            self._top = 0
            self._ante = word_hashes(_words(spec, "antecedents"))
        low = stopwords.strip().lower()
        if low == "english":
            self._stop = word_hashes(sorted(ENGLISH_STOPWORDS))
        elif low == "none":
            self._stop = np.zeros(0, np.uint64)
        else:
            self._stop = word_hashes(_words(stopwords, "stopwords"))

    def _spot_sets(self, tokens: TokenBatch, antecedents: np.ndarray) -> HashedSets:
        sets, _ = spot_sets(tokens, antecedents, self._stop, self.distance, self.chain, self.with_antecedent, self.seed)
        return sets

    def sketch(self, texts: Sequence[str]) -> Sketches:
        """The batch's signature sets; with ``top:N`` its tokens (signed at :meth:`finish`)."""
        tokens = TokenBatch.from_texts(texts)
        if self._top:
            tokens = tokens.compact()
            offsets = np.zeros(tokens.counts.shape[0] + 1, np.int64)
            np.cumsum(tokens.counts, out=offsets[1:])
            words, occurrences = np.unique(tokens.hashes, return_counts=True)
            counts = DocumentFrequencies.from_counts(words, occurrences, len(texts))
            return Sketches(tokens.counts > 0, {}, {"tokens": tokens.hashes}, offsets, counts)
        sets = self._spot_sets(tokens, self._ante)
        return Sketches(sets.sizes() > 0, {}, {"hashes": sets.hashes}, sets.offsets)

    def finish(self, parts: Sequence[Sketches]) -> Sketches:
        """Join the batches (with ``top:N``: pick the antecedents, then make the sets)."""
        sk = Sketches.concat(parts)
        if not self._top:
            if sk.offsets is None:  # no batch at all
                sk.lists, sk.offsets = {"hashes": np.zeros(0, np.uint64)}, np.zeros(1, np.int64)
            return sk
        return self.apply_statistics(sk, DocumentFrequencies.merged([p.stats for p in parts]))

    def apply_statistics(self, sk: Sketches, stats: DocumentFrequencies) -> Sketches:
        """The signature sets of the rows of ``sk`` anchored at the ``top:N`` words of ``stats`` (the
        collection's word occurrences; ties: the smaller hash)."""
        stats.compact()
        ante = np.sort(stats.keys[np.lexsort((stats.keys, -stats.counts))[:self._top]])
        tokens = TokenBatch(sk.lists.get("tokens", np.zeros(0, np.uint64)), sk.offsets[:-1] if sk.offsets is not None
                            else np.zeros(0, np.int64), sk.list_sizes())
        sets = self._spot_sets(tokens, ante)
        info = {"antecedent_hashes": [int(h) for h in ante]}
        return Sketches(sets.sizes() > 0, {}, {"hashes": sets.hashes}, sets.offsets, None, info)

    def corpus_statistics(self) -> str | None:
        """With ``top:N`` antecedents: the words' frequencies over the whole collection."""
        if not self._top:
            return None
        return "antecedents top:N are the N most frequent words of the whole collection"

    def candidate_plan(self) -> CandidatePlan:
        """An exact Jaccard join of the signature sets."""
        return CandidatePlan("set_join", measure="jaccard")

    def candidate_pairs(self, sk: Sketches) -> Candidates:
        """Exactly the pairs with Jaccard at or above the threshold, with their Jaccard."""
        return Candidates(*InvertedIndex(sets_of(sk)).pairs(self.decision_threshold(), "jaccard"))

    def score(self, sk: Sketches, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return exact_jaccard(sk.lists["hashes"], sk.offsets, a, b)
