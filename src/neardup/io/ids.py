"""Ids held as one Arrow string array (:class:`ArrowIds`): what a driver keeps of a corpus it did not read.

The Spark engine's executors read the inputs (:mod:`neardup.engines.spark_input`); the driver
needs every id only to write them into the outputs.  A Python list of short ids costs about 66
bytes each (the object and its pointer); an Arrow array, the id's bytes and an offset.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence, overload


class ArrowIds(Sequence[str]):
    """Ids held as one Arrow string array: their bytes and an offset each, no Python object per id
    (a list of short ids costs about 66 bytes each: the driver's largest per-document holding).
    Indexed, iterated and compared as the list of :class:`str` it stands for."""

    def __init__(self, array: Any) -> None:
        self.array = array

    def __len__(self) -> int:
        return len(self.array)

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return self.array[i].to_pylist()
        return self.array[int(i)].as_py()

    def __iter__(self) -> Iterator[str]:
        for lo in range(0, len(self.array), 1 << 16):
            yield from self.array[lo:lo + (1 << 16)].to_pylist()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str) or len(other) != len(self):
            return NotImplemented if not isinstance(other, Sequence) else False
        return all(x == y for x, y in zip(self, other))

    __hash__ = None  # type: ignore[assignment]
