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

from ..errors import UserError
from ..index import banding as lsh
from ..index.banding import Banding
from .base import CandidatePlan, Candidates, Sketches


def check_banding(values: int, values_name: str, supershingles: int | None, min_shared: int | None,
                  bands: int | None = None, rows: int | None = None) -> None:
    """Refuse band settings that cannot work, before any work: a pair must be able to share
    ``min_shared`` keys (at most as many as there are bands or supershingles), and the groups must
    fit the ``values`` signature values (``values_name``: the option giving them)."""
    if values < 1:
        raise UserError(f"{values_name} must be at least 1, got {values}")
    if supershingles is not None and not 1 <= supershingles <= values:
        raise UserError(f"supershingles must be between 1 and {values_name} ({values}), got {supershingles}")
    for name, value in (("bands", bands), ("rows", rows)):
        if value is not None and value < 1:
            raise UserError(f"{name} must be at least 1, got {value}")
    if (bands is None) != (rows is None):
        raise UserError(f"give both bands and rows (bands x rows at most {values_name} = {values}), or neither")
    if bands is not None and rows is not None and bands * rows > values:
        raise UserError(f"bands x rows = {bands * rows} exceeds {values_name} = {values}")
    if min_shared is not None:
        groups = supershingles if supershingles is not None else bands
        if min_shared < 1:
            raise UserError(f"min_shared must be at least 1, got {min_shared}")
        if groups is not None and min_shared > groups:
            raise UserError(f"min_shared {min_shared} exceeds the {groups} keys a document has: no pair could be a "
                            "candidate")


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
