"""The Spark engine as its stages use it: the session, the work folder, the documents, the inputs.

:class:`~.spark.SparkEngine` is the engine a job talks to (dedup, the aligner, the detectors); the
stage modules it hands work to (:mod:`.spark_align`, :mod:`.spark_input`, :mod:`.spark_partial`)
need only this much of it, so they name this and not the engine: the engine imports them, they
never import it.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol, Sequence

from ..job import RunStats


class SparkRuntime(Protocol):
    """What a stage asks of the Spark engine (:class:`~.spark.SparkEngine` is one)."""

    #: Spark's shuffle partitions as given (``None``: Spark's own), and the seed that scrambles
    #: the documents over them (tests of order independence; ``None``: in input order).
    partitions: int | None
    shuffle_seed: int | None
    #: Whether the executors read the input files (else the driver hands them the texts).
    executors_read: bool
    #: Bytes of the run's input, when known before the session starts (its driver's memory).
    input_bytes: int

    def running(self) -> AbstractContextManager[Any]:
        """The watched Spark session, inside which every stage runs."""

    def workdir(self) -> AbstractContextManager[str]:
        """The folder of the stages' Parquet."""

    def documents(self, spark: Any, source: Any) -> Any:
        """The ``(row, text)`` DataFrame of stored shards or of the input the executors read."""

    def read_files(self, inputs: Sequence[str], extract: str, stats: RunStats, strict: bool = False,
                   fields: Any = None, prefer_html: bool = False, method: Any = None, texts: bool = True,
                   admit: Any = None) -> Any:
        """The input stage on the executors."""
