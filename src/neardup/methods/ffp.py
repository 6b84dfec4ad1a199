"""Full fingerprinting (FFP): every word 4-gram hashed, resemblance or containment, exact join.

The exhaustive form of shingling that CoDet (Varol et al. 2011) uses as its strongest
containment baseline (best F1 0.85 in their study, "but quadratic"): a document is the
set of the hashes of *all* its word k-grams (k = 4), with no sampling, and pairs are
compared exactly.  Here the quadratic comparison is replaced by an exact set-similarity
join over an inverted index of the k-gram hashes (:mod:`neardup.index.inverted`): only
pairs sharing enough hashes to possibly pass the threshold are verified, and the pairs
returned are exactly those at or above it.

Paper knobs and defaults:

* ``shingle_size`` k -- words per gram (4);
* ``measure`` -- ``containment`` (default, CoDet's task): ``d_C`` contains ``d_A`` when a
  share ``|A∩C| / |A|`` of ``A``'s hashes is in ``C`` (CoDet: 60%).  That is one-sided;
  the score of a pair is the larger of its two directions, ``|A∩B| / min(|A|, |B|)``, so
  a pair passes when either document is contained in the other.  ``resemblance``: the
  Jaccard ``|A∩B| / |A∪B|`` (Broder);
* ``threshold`` -- CoDet's containment threshold is 0.6; neardup's default is 0.1, chosen for
  clusters on held-out news pages (docs/defaults.md).

Containment of a very short text in a long one is easily 1; use resemblance when only
whole-document copies count.  The sets are kept in memory (exact method).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..features.shingles import check_shingle_size, word_shingles
from ..index.inverted import InvertedIndex, set_similarity
from .base import CandidatePlan, Candidates, Method, Sketches, sets_of

MEASURE_NAMES = {"containment": "containment", "resemblance": "jaccard"}


class FullFingerprintMethod(Method):
    """All word k-gram hashes; exact containment or resemblance; inverted-index join."""

    name = "ffp"
    summary = "Full fingerprinting: all word 4-grams, exact containment or resemblance (CoDet's FFP)."
    param_help = {
        "threshold": "similarity at or above which a pair is a near-duplicate",
        "shingle_size": "words per shingle, k",
        "measure": "containment (max of the two one-sided shares) or resemblance (Jaccard)",
        "seed": "seed of the shingle hash (results do not depend on it)",
    }
    param_choices = {"measure": tuple(MEASURE_NAMES)}
    verifies = True

    def __init__(
        self,
        threshold: float = 0.1,
        shingle_size: int = 4,
        measure: str = "containment",
        seed: int = 1,
    ) -> None:
        super().__init__(threshold, seed)
        check_shingle_size(shingle_size)
        self.check_choices(measure=measure)
        self.shingle_size = shingle_size
        self.measure = measure

    def sketch(self, texts: Sequence[str]) -> Sketches:
        sets, _ = word_shingles(texts, self.shingle_size, seed=self.seed)
        return Sketches(sets.sizes() > 0, {}, {"hashes": sets.hashes}, sets.offsets)

    def candidate_plan(self) -> CandidatePlan:
        """An exact set join under the measure."""
        return CandidatePlan("set_join", measure=MEASURE_NAMES[self.measure])

    def candidate_pairs(self, sk: Sketches) -> Candidates:
        """Exactly the pairs at or above the threshold, with their similarity."""
        return Candidates(*InvertedIndex(sets_of(sk)).pairs(self.decision_threshold(), MEASURE_NAMES[self.measure]))

    def score(self, sk: Sketches, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return set_similarity(sets_of(sk), a, b, MEASURE_NAMES[self.measure])
