"""Partial duplicates with located spans: seed-and-extend alignment (the default) and PDC-MR.

:mod:`.align` is the aligner behind ``neardup partial`` (:class:`~.align.Aligner`, the
local engine of the stages whose kernels are in :mod:`.seeds`; :func:`~.align.align` for
a list of texts); :class:`PartialDetector` is PDC-MR (zhang2010) over sentences behind
``neardup partial --method pdc``, :mod:`.stages` holding the paper's three jobs over
key/value records; :mod:`.evaluate` measures spans against simulated ground truth.
"""

from .detector import PartialDetector, PartialPair, PartialResult, Span

__all__ = ["PartialDetector", "PartialPair", "PartialResult", "Span"]
