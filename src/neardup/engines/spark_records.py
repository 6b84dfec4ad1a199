"""The records stage's task (:mod:`.spark_input`, stage 2): what one reading task runs on Spark's executors.

A task reads its units with the local readers and judges each record by the local per-record
rules; every item becomes one row keyed by ``(unit, pos)``.  Given the method's sketching (a
method that needs no collection statistics: :func:`~.spark_stages.sketcher`), the task also
sketches its own documents, batch by batch, into columns beside their texts: the sketches are
then made in the pass that reads the texts, not in a second pass that reads them back from
Parquet (the rows are numbered afterwards, and the sketches given theirs as the texts are).
Without it the task needs no compiled kernel (no numba in a worker that only reads).  When no
later stage reads the texts (``keep_texts`` false: the sketches made here, no relations to align)
they are not stored: their column is null, and the task hands Spark only numbers and ids.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, NamedTuple

import numpy as np

from ..io.readers import Fields, Rejection

if TYPE_CHECKING:
    import pandas as pd

#: Items a reading task hands to Spark at once (and at most this many characters of text).
FLUSH_ROWS, FLUSH_CHARS = 2_000, 8 << 20

DOCUMENT, REJECTED, FAILED, SKIPPED, META = 0, 1, 2, 3, 4
#: The records stage's rows.  ``kind``: a document (passed every check but the unique id), a
#: rejection before the id was seen, a rejection after it (the id still counts as seen), a
#: skipped item, or the unit's own row (``line``: lines read; ``k``: 1 when it held a record).
RECORDS = ("unit int, pos int, kind byte, k int, id string, text string, source string, line long, "
           "reason string, detail string, encoding string, html_note boolean, site string, script string")
#: With a job's own checks (``admit``), after :data:`RECORDS`: an admitted record's time (NaN: none)
#: and its place among the items its unit read (1 for the first; skipped items not counted), null
#: in the other rows -- a document, or a rejection that ``admit.words`` made after admitting it.
ADMITTED = "time double, place long"


class Sketching(NamedTuple):
    """What a reading task makes of a batch of its documents' texts beside them: ``make(texts, None)``,
    a frame of the ``columns`` (Spark DDL) -- the sketch stage's (:func:`~.spark_stages.sketcher`,
    :func:`~.spark_stages.sketch_columns`)."""

    make: Callable[[list[str], None], "pd.DataFrame"]
    columns: str

    @property
    def names(self) -> list[str]:
        return [part.split()[0] for part in self.columns.split(", ")]


def read_units(prefer_html: bool, fields: Fields, extract: str, by_task: list[list[tuple]],
               sketching: Sketching | None = None, keep_texts: bool = True, admit: Any = None) -> Any:
    """The ``mapInPandas`` function of the records stage (executors): task numbers in (``id``), the
    rows of the items of each task's units (``by_task[task]``: ``(unit, what, path, arg, start, end,
    detail)``) out -- :data:`RECORDS`' columns, then with ``admit`` :data:`ADMITTED`'s, then with
    ``sketching`` the columns it makes of a batch's documents (null in the other rows); without
    ``keep_texts`` the texts' column null.  ``admit`` (a job's checks of each record that passed the
    input stage's, as :class:`neardup.contain.arrival.Arrival`): ``admit.time(record)``, a time or a
    rejection, then ``admit.words(record, text)``, a rejection or None."""

    def run(frames: Iterator["pd.DataFrame"]) -> Iterator["pd.DataFrame"]:
        import pandas as pd

        from ..extract import get_extractor
        from ..input_stage import record_problem, text_of_record
        from ..io.readers import Record, read_document_file, read_jsonl, read_record_file
        from ..io.records import site_of
        from ..text.scripts import document_scripts

        extractor = get_extractor(extract)
        names = _NAMES if admit is None else _NAMES + _ADMITTED  # a row's last two cells: ADMITTED's
        rows: list[tuple] = []
        chars = 0

        def flush() -> "pd.DataFrame":
            nonlocal rows, chars
            cols = list(zip(*rows))
            frame = pd.DataFrame({name: list(col) for name, col in zip(names, cols)})
            docs = frame["kind"] == DOCUMENT
            texts = frame.loc[docs, "text"].tolist()
            if texts:
                frame.loc[docs, "script"] = document_scripts(texts)
            if sketching is not None:
                made = sketching.make(texts, None) if texts else None
                at = np.flatnonzero(docs.to_numpy())
                for name in sketching.names:
                    frame[name] = None if made is None else _spread(made[name], at, len(frame))
            if not keep_texts:
                frame["text"] = None
            rows, chars = [], 0
            return frame.astype({"unit": "int32", "pos": "int32", "kind": "int8", "k": "int32", "line": "int64",
                                 **({} if admit is None else {"time": "float64", "place": "Int64"})})

        for tasks in frames:
            for unit, what, path, arg, start, end, detail in (u for t in tasks["id"].tolist() for u in by_task[t]):
                seen = [0, 0]
                if what == "records" and end >= 0:
                    items: Any = read_jsonl(Path(path), prefer_html, fields, start, end, seen)
                elif what == "records":
                    items = read_record_file(Path(path), arg, prefer_html, fields)
                elif what == "document":
                    items = iter([read_document_file(Path(path), arg)])
                else:
                    items = iter([Rejection(path, None, arg, detail or "")])
                k = place = 0
                for pos, item in enumerate(items):
                    line = -1 if item.line is None else int(item.line)
                    if isinstance(item, Rejection):
                        kind = SKIPPED if item.skipped else REJECTED
                        place += kind == REJECTED
                        rows.append((unit, pos, kind, -1, None, None, item.source, line, item.reason,
                                     item.detail, None, False, None, None, None, None))
                        continue
                    assert isinstance(item, Record)
                    place += 1
                    bad = record_problem(item, depth=False)
                    if bad is not None:
                        rows.append((unit, pos, REJECTED, -1, None, None, bad.source, line, bad.reason,
                                     bad.detail, None, False, None, None, None, None))
                        continue
                    got = text_of_record(item, extractor)
                    when: float | None = None  # the time ``admit`` gave (None: no admit, or not admitted)
                    if admit is not None and not isinstance(got, Rejection):
                        judged = admit.time(item)
                        if isinstance(judged, Rejection):
                            got = judged
                        else:
                            when = judged
                            got = admit.words(item, got[1]) or got
                    if isinstance(got, Rejection):  # after the id's checks: the id counts as seen
                        at = (None, None) if when is None else (when, place)
                        rows.append((unit, pos, FAILED, -1, item.id, None, got.source, line, got.reason,
                                     got.detail, None, False, None, None, *at))
                        continue
                    text = got[1]
                    rows.append((unit, pos, DOCUMENT, k, item.id, text, None, line, None, None,
                                 item.encoding, bool(item.html_in_text), site_of(item), None, when, place))
                    k += 1
                    chars += len(text)
                    if len(rows) >= FLUSH_ROWS or chars >= FLUSH_CHARS:
                        yield flush()
                rows.append((unit, 1 << 30, META, seen[0], None, None, None, seen[1], None, None, None, False,
                             None, None, None, None))
            if rows:
                yield flush()

    return run


_NAMES = [part.split()[0] for part in RECORDS.split(", ")]
_ADMITTED = [part.split()[0] for part in ADMITTED.split(", ")]


def _spread(column: "pd.Series", at: np.ndarray, n: int) -> "pd.Series":
    """``column``'s values at the positions ``at`` of ``n`` rows, null at the others; integers and
    booleans stay exact (pandas' nullable arrays: a plain column with nulls would be floats, and a
    64-bit key is not a float)."""
    import pandas as pd

    kind = column.dtype.kind
    if kind in "iub":
        values = np.zeros(n, dtype=column.dtype)
        values[at] = column.to_numpy()
        missing = np.ones(n, dtype=bool)
        missing[at] = False
        return pd.Series(pd.arrays.BooleanArray(values, missing) if kind == "b"
                         else pd.arrays.IntegerArray(values, missing))
    cells = np.full(n, None, dtype=object)
    cells[at] = column.to_numpy(dtype=object)
    return pd.Series(cells)
