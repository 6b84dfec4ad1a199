"""What every engine is: the :class:`Engine` protocol and what its ``dedup`` returns (:class:`Found`).

Kept apart from the package's :func:`~neardup.engines.get_engine` so the engines import it
without importing the package that imports them (no import cycle).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
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


@dataclass(frozen=True)
class Destination:
    """Where an engine whose executors write the outputs puts ``dedup``'s pairs and clusters: the job's
    output folder (its temporary form, placed whole when the job ends well), the format, and
    ``coalesce``: one file per table (``True``), part files (``False``), or one file when small (``None``)."""

    folder: Path
    fmt: str = "jsonl"
    coalesce: bool | None = None


@dataclass
class Written:
    """What an engine found when its executors wrote the pairs and clusters (:class:`Destination`):
    counts only, from aggregates -- no per-document or per-pair array.

    ``unusable``: how many rows have no feature, ``named``: the first of them (rows, in order; at
    most the rejections a summary lists), ``pairs``/``candidate_pairs`` as :class:`Found`'s,
    ``clusters``, ``in_clusters`` (documents in clusters), ``largest`` (the largest cluster's size).
    """

    n: int
    unusable: int
    named: np.ndarray
    pairs: int
    candidate_pairs: int
    clusters: int
    in_clusters: int
    largest: int
    info: dict[str, Any] = field(default_factory=dict)
    #: With relations (:class:`Relating`): the summary's entries of them, ``duplicates_removable`` to ``aligned``.
    typed: dict[str, Any] | None = None


@dataclass(frozen=True)
class Relating:
    """What an engine whose executors write the outputs needs to type ``dedup``'s pairs there
    (:mod:`neardup.relations`): the aligner (the engine's own, given the input), the clustering of
    the copies, the coverage that makes a copy and the one that lets a document go, the relations listed."""

    aligner: Any
    cluster: str
    min_coverage: float
    unique_coverage: float
    listed: tuple[str, ...]


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
