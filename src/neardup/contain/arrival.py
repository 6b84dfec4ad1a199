"""When each document arrived, for ``contain``'s windows: the per-record rule and the sequential one.

Arrival order is time order (see :mod:`.detector`): a record's ``time`` field when it has one,
else its place among the records read; a time earlier than one already seen is the latest time
seen (the document is late, not from the past) and counted.  The rule is cut in two so that
either engine applies it without reading the input in one process:

* :class:`Arrival` judges one record by itself -- its time (NaN: none given), or why it is refused
  (a time that cannot be read; none under a duration window); whether its text has a word -- the
  local input stage calls it record by record, Spark's reading tasks on the executors
  (:mod:`neardup.engines.spark_records`);
* :func:`arrival_times` is the sequential part, over every admitted record in input order at
  once (a running maximum): Spark's driver applies it to the times the executors read, one number
  per document, as it holds one id per document.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..io.readers import Record, Rejection
from ..io.records import record_time
from ..windows import TIME_WINDOW

_HAS_WORD = re.compile(r"\w")


@dataclass(frozen=True)
class Arrival:
    """The per-record checks of ``contain``'s input for a window of kind ``window_kind``
    (:mod:`neardup.windows`); picklable, for the executors."""

    window_kind: int

    def time(self, record: Record) -> float | Rejection:
        """The record's time in seconds (NaN: it has none, its place in the input stands in), or why
        it is refused."""
        try:
            when = record_time(record)
        except ValueError as exc:
            return Rejection(record.source, record.line, "invalid time", str(exc))
        if when is None:
            if self.window_kind == TIME_WINDOW:
                return Rejection(record.source, record.line, "no time", "a duration window needs a 'time' field")
            return math.nan
        return when

    @staticmethod
    def words(record: Record, text: str) -> Rejection | None:
        """Why an admitted record is not compared (no word: nothing to contain or be contained, as
        CoDet has it), or None.  Checked after :meth:`time`: its time still counts in the order."""
        return None if _HAS_WORD.search(text) else Rejection(record.source, record.line, "no words", record.id)


def arrival_times(times: np.ndarray, places: np.ndarray) -> tuple[np.ndarray, int]:
    """The arrival time of each admitted record, given in input order its own time (``times``, NaN
    for none) and its place among the records read (``places``, 1 for the first), and how many
    arrived late (earlier than a time already seen)."""
    given = np.where(np.isnan(times), places.astype(np.float64), times)
    arrived = np.maximum.accumulate(given) if given.size else given
    return arrived, int(np.count_nonzero(given < arrived))
