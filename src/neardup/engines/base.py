"""What every engine is: the :class:`Engine` protocol and what its ``dedup`` returns (:class:`Found`).

Kept apart from the package's :func:`~neardup.engines.get_engine` so the engines import it
without importing the package that imports them (no import cycle).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Protocol, Sequence

import numpy as np

if TYPE_CHECKING:
    from ..job import RunStats
    from ..methods.base import Method

#: Engines by name (``--engine``); the first is the default.
ENGINES = ("local", "spark")


@dataclass
class Found:
    """What an engine found in the documents (rows numbered in input order from 0).

    ``usable``: rows with any feature; ``a``, ``b``, ``scores``: the verified pairs, sorted
    by ``(a, b)``; ``candidate_pairs``: how many candidates were verified (for methods that
    verify in their index: the pairs); ``groups``: the clusters of two or more rows, each
    sorted, ordered by first member; ``info``: what the method derived from the corpus.
    """

    usable: np.ndarray
    a: np.ndarray
    b: np.ndarray
    scores: np.ndarray
    candidate_pairs: int
    groups: list[np.ndarray]
    info: dict[str, Any] = field(default_factory=dict)


class Engine(Protocol):
    """Runs a job's stages somewhere (see the module docstring)."""

    name: str

    def check(self, method: "Method") -> None:
        """Raise :class:`UserError` when this engine cannot run ``method`` (before anything is read)."""
        ...

    def dedup(self, method: "Method", batches: Iterable[Sequence[str]], stats: "RunStats",
              cluster: str | None) -> Found:
        """Sketch the text ``batches`` (in input order), find, verify and cluster the pairs (with the
        clustering ``cluster``; ``None``: no clusters, the caller clusters after typing the pairs)."""
        ...

    def aligner(self, params: Any) -> Any:
        """An aligner of documents (``add`` / ``pairs`` / ``counts`` / ``close``, as
        :class:`~neardup.align.aligner.Aligner`) whose stages run on this engine: dedup's relations."""
        ...
