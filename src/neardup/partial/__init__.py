"""Partial duplicates with located spans: PDC-MR (zhang2010) over sentences.

:class:`PartialDetector` is the Python API behind ``neardup partial``; :mod:`.stages`
holds the paper's three jobs over key/value records; :mod:`.evaluate` measures spans
against simulated ground truth.
"""

from .detector import PartialDetector, PartialPair, PartialResult, Span

__all__ = ["PartialDetector", "PartialPair", "PartialResult", "Span"]
