"""Tables already in memory as inputs of the API: pandas DataFrames and Hugging Face datasets.

Both become the same stream of row dicts a JSONL file gives, read in chunks (a DataFrame
is not copied whole into Python objects; a ``datasets.Dataset`` is read batch by batch
from its Arrow files), so ``Deduplicator(...).run(df)`` and
``Deduplicator(fields=Fields(text="body")).run(dataset)`` work like ``neardup dedup``
on the same rows.  Neither library is imported here: an object is recognized by what it
has.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

#: Rows turned into Python dicts at a time.
CHUNK = 4096


def is_frame(obj: Any) -> bool:
    """A pandas DataFrame (or anything with its ``iloc`` and ``to_dict``)."""
    return hasattr(obj, "iloc") and hasattr(obj, "to_dict") and hasattr(obj, "columns")


def is_dataset(obj: Any) -> bool:
    """A Hugging Face ``datasets.Dataset`` (or anything with its ``iter`` and ``column_names``)."""
    return hasattr(obj, "column_names") and callable(getattr(obj, "iter", None))


def rows_of(docs: Any) -> Iterable[Any]:
    """Row dicts of a DataFrame or Dataset; anything else is returned as it is."""
    if is_frame(docs):
        return _frame_rows(docs)
    if is_dataset(docs):
        return _dataset_rows(docs)
    return docs


def _frame_rows(df: Any) -> Iterator[dict[str, Any]]:
    """Rows as dicts, a missing value (NaN, ``pd.NA``, ``NaT``) as None: a Parquet file of the frame
    holds a null there, which the readers take for a missing id or text (NaN was the id "nan")."""
    for lo in range(0, len(df), CHUNK):
        chunk = df.iloc[lo:lo + CHUNK].astype(object)
        yield from chunk.where(chunk.notna(), None).to_dict("records")


def _dataset_rows(ds: Any) -> Iterator[dict[str, Any]]:
    for batch in ds.iter(batch_size=CHUNK):
        names = list(batch)
        for values in zip(*(batch[n] for n in names)):
            yield dict(zip(names, values))
