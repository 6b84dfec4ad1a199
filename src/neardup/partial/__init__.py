"""Partial duplicates with located spans: the ``neardup partial`` task.

Two algorithms find them: seed-and-extend alignment (:mod:`neardup.align`, the default)
and PDC-MR (:mod:`neardup.pdc`); :mod:`.run` is the file job around either, :mod:`.evaluate`
measures spans against simulated ground truth.
"""

from ..pdc.detector import PartialDetector, PartialPair, PartialResult, Span

__all__ = ["PartialDetector", "PartialPair", "PartialResult", "Span"]
