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
``partial`` and ``contain`` (``aligner``: the local :class:`~neardup.align.aligner.Aligner`'s
``add`` / ``pairs`` on Spark); the local engine's are those classes themselves.  Every
engine gives byte-identical pairs and clusters for the same input and seed.  Importing
this package imports neither engine's machinery (the command line's start-up stays lean).
"""

from __future__ import annotations

from typing import Any

from ..errors import UserError
from .base import ENGINES, Engine, Found

__all__ = ["ENGINES", "Engine", "Found", "get_engine"]


def get_engine(name: str = ENGINES[0], **options: Any) -> Engine:
    """The engine called ``name`` with its ``options`` (local: memory_budget, spill_dir; spark: master, connect, ...)."""
    if name == "local":
        from .local import LocalEngine

        return LocalEngine(**options)
    if name == "spark":
        from .spark import SparkEngine

        return SparkEngine(**options)
    raise UserError(f"unknown engine {name!r}; choose from {', '.join(ENGINES)}")
