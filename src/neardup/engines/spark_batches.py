"""How the Spark stages' Python meets Spark's Arrow batches: functions for ``mapInPandas`` that call a
stage's numpy work once per batch (or per batch of whole runs of a key, however many batches a run
spans), compiled kernels on one thread per task, and the batch size of the stages whose rows are a
few numbers."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Callable, Iterator

import numpy as np
import pandas as pd

#: Rows of an Arrow batch to and from Python in the stages whose rows are a few numbers (keys,
#: candidates, pairs: about 1.5 MB); the text and sketch stages keep Spark's setting.
NARROW_BATCH_ROWS = 1 << 16
_ARROW_BATCH = "spark.sql.execution.arrow.maxRecordsPerBatch"
_ARROW_BYTES, _UNBOUNDED = "spark.sql.execution.arrow.maxBytesPerBatch", (1 << 31) - 1


@contextmanager
def narrow_batches(spark: Any) -> Iterator[None]:
    """Arrow batches of at least :data:`NARROW_BATCH_ROWS` rows for the jobs run inside, bounded by
    their rows only (both restored after).  Spark's default (10,000), or the smaller batch chosen for
    texts, sends millions of narrow rows a few thousand at a time: the conversions per batch cost
    more than the rows.  And a byte bound (Spark's default: 64 MB) makes the JVM add up its Arrow
    buffers' sizes after every row it writes (docs/scale.md, fifteenth part); rows of a few numbers
    are bounded by their count, and ``2**31 - 1`` is the value under which Spark skips that check."""
    before = spark.conf.get(_ARROW_BATCH), spark.conf.get(_ARROW_BYTES)
    spark.conf.set(_ARROW_BATCH, str(max(NARROW_BATCH_ROWS, int(before[0]))))
    spark.conf.set(_ARROW_BYTES, str(_UNBOUNDED))
    try:
        yield
    finally:
        spark.conf.set(_ARROW_BATCH, before[0])
        spark.conf.set(_ARROW_BYTES, before[1])


def one_thread() -> None:
    """Compiled kernels in a Spark task use one thread: a task is one core's work."""
    import numba

    numba.set_num_threads(1)


def each_batch(fn: Callable[[pd.DataFrame], pd.DataFrame | None]) -> Callable[[Iterator[pd.DataFrame]], Iterator[pd.DataFrame]]:
    """A ``mapInPandas`` function applying ``fn`` to each non-empty Arrow batch."""

    def run(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        one_thread()
        for frame in frames:
            if len(frame):
                out = fn(frame)
                if out is not None and len(out):
                    yield out

    return run


def whole_runs(keys: list[str], fn: Callable[[pd.DataFrame], pd.DataFrame | None]) -> Callable[[Iterator[pd.DataFrame]], Iterator[pd.DataFrame]]:
    """A ``mapInPandas`` function applying ``fn`` to frames of whole runs of ``keys`` (:func:`complete_runs`)
    of a partition sorted by them: one call per Arrow batch, not per key."""
    run = each_batch(fn)

    def apply(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        return run(complete_runs(frames, keys))

    return apply


def complete_runs(frames: Iterator[pd.DataFrame], keys: list[str]) -> Iterator[pd.DataFrame]:
    """The Arrow batches of a partition sorted by ``keys``, re-cut so that no run of equal
    keys is split: each frame yielded holds whole runs (a run's rows, however many
    batches it spans, come in one frame)."""
    held: list[pd.DataFrame] = []
    for frame in frames:
        if not len(frame):
            continue
        cols = [frame[k].to_numpy() for k in keys]
        same = np.ones(len(frame), dtype=bool)
        for c in cols:
            same &= c == c[-1]
        differ = np.flatnonzero(~same)
        cut = int(differ[-1]) + 1 if differ.shape[0] else 0  # start of the frame's last run
        if cut == 0 and held and all(held[-1][k].iloc[-1] == frame[k].iloc[0] for k in keys):
            held.append(frame)  # the held run goes on through this whole frame
            continue
        done = held + [frame.iloc[:cut]] if cut else held
        if done:
            yield pd.concat(done, ignore_index=True)
        held = [frame.iloc[cut:]]
    if held:
        yield pd.concat(held, ignore_index=True)
