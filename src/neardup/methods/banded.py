"""The candidate stages of a method whose sketch is a column of ``signatures`` banded into keys
(LSH bands or supershingles): MinHash and weighted consistent sampling share them.

The method says how its signatures are banded (:meth:`BandedSignatures.banding`, from its
threshold) and which rows may pair at all (:meth:`~.base.Method.pairable`); candidates are
then the rows sharing ``min_shared`` band keys, found by the same keys a group-by engine or a
persistent index stores.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..index import banding as lsh
from ..index.banding import Banding
from .base import CandidatePlan, Candidates, Sketches


class BandedSignatures:
    """Mixin of :class:`~.base.Method` subclasses with a ``signatures`` column and a ``seed``."""

    seed: int
    pairable: Callable[[Sketches], np.ndarray]  # Method's (wsample: rows with a weighted phrase)

    def banding(self) -> Banding:
        """The bands x rows (and matches needed) the index uses at this threshold."""
        raise NotImplementedError

    def candidate_plan(self) -> CandidatePlan:
        """Band keys; a pair shares ``min_shared`` of them (LSH: one band; supershingles: more)."""
        return CandidatePlan("keys", min_shared=self.banding().min_shared)

    def keys(self, sk: Sketches) -> tuple[np.ndarray, int]:
        """The band keys of every row, and how many a candidate pair shares."""
        banding = self.banding()
        return lsh.signature_keys(sk.columns["signatures"], banding, self.seed), banding.min_shared

    def candidate_pairs(self, sk: Sketches) -> Candidates:
        """The pairable rows sharing ``min_shared`` band keys."""
        return Candidates(*lsh.banded_candidates(sk.columns["signatures"], self.banding(), self.seed,
                                                 self.pairable(sk)))
