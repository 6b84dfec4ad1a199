"""Engines: where the stages of a job run.  The stages (:mod:`neardup.methods.base`) do not know.

* ``local`` (default): in this process, batches sketched in a worker thread while the next
  ones are read; the index, verification and clustering over numpy arrays
  (:mod:`.local`).
* ``spark``: the same stages as Apache Spark stages -- sketches by ``mapInPandas`` calling
  the same compiled kernels, candidates by ``groupBy`` on keys or a prefix-filtered join,
  verification by the method's own ``score``, connected components by large-star /
  small-star, then the local clustering per component (:mod:`.spark`; needs the optional
  extra ``neardup[spark]``: pyspark 4 and Java 17+).

An engine's ``dedup`` takes the method and the input stage's text batches and returns a
:class:`Found`: what :class:`neardup.pipeline.Deduplicator` turns into its result.  The
Spark engine also runs ``partial`` (``partial_detector`` for PDC) and the aligner of
``partial`` and ``contain`` (``aligner``: the local :class:`~neardup.partial.align.Aligner`'s
``add`` / ``pairs`` on Spark); the local engine's are those classes themselves.  Every
engine gives byte-identical pairs and clusters for the same input and seed.  Importing
this package imports neither engine's machinery (the command line's start-up stays lean).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Protocol, Sequence

import numpy as np

from ..errors import UserError

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

    def dedup(self, method: "Method", batches: Iterable[Sequence[str]], stats: "RunStats", cluster: str) -> Found:
        """Sketch the text ``batches`` (in input order), find, verify and cluster the pairs."""
        ...


def get_engine(name: str = ENGINES[0], **options: Any) -> Engine:
    """The engine called ``name`` with its ``options`` (local: memory_budget, spill_dir; spark: master, connect, ...)."""
    if name == "local":
        from .local import LocalEngine

        return LocalEngine(**options)
    if name == "spark":
        from .spark import SparkEngine

        return SparkEngine(**options)
    raise UserError(f"unknown engine {name!r}; choose from {', '.join(ENGINES)}")
