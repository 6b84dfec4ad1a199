"""Containment detection: CoDet (varol2011) and its baselines, over sentences.

:class:`ContainmentDetector` is the Python API behind ``neardup contain``; the corpus
tree is :mod:`.tree`, the decision :mod:`.codet`, the baselines :mod:`.baselines`, the
evaluation against simulated ground truth :mod:`.evaluate`.
"""

from .detector import Containment, ContainmentDetector, ContainResult

__all__ = ["Containment", "ContainmentDetector", "ContainResult"]
