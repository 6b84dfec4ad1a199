"""Record files as streams: gzip or not, by their byte-order mark, and as numbered lines.

The JSONL reader (:mod:`.readers`, also by byte range for the Spark engine) and the CSV/TSV
reader (:mod:`.tabular`) open files here, so both see a gzipped file and a UTF-16/32 file
(its byte-order mark: Excel's "Unicode text", PowerShell's default) the same way.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path
from typing import BinaryIO, Callable, Iterator, NamedTuple

from .decode import wide_bom


class Opened(NamedTuple):
    """A record file opened for reading: its bytes (decompressed), whether it is gzipped and, when it
    starts with a UTF-16/32 byte-order mark, that encoding (``stream`` is then past the mark)."""

    stream: gzip.GzipFile | BinaryIO
    gzipped: bool
    wide: str | None


def open_record_file(path: Path, buffering: int = -1) -> Opened:
    """``path`` opened as :class:`Opened` (a gzip header and the first decompressed bytes are read:
    a damaged file raises one of :data:`~.records.FILE_FAULTS` here)."""
    with open(path, "rb") as probe:
        gzipped = probe.read(2) == b"\x1f\x8b"
    stream: gzip.GzipFile | BinaryIO = gzip.open(path, "rb") if gzipped else open(path, "rb", buffering=buffering)
    try:
        bom = wide_bom(stream.read(4))
        stream.seek(bom[1] if bom else 0)
    except BaseException:
        stream.close()
        raise
    return Opened(stream, gzipped, bom[0] if bom else None)


def by_byte_range(path: Path) -> bool:
    """Whether ``path`` can be read in byte ranges (:func:`numbered_lines`' ``start``/``end``): a plain
    file, neither gzipped nor UTF-16/32 (a newline is two or four bytes there)."""
    with open(path, "rb") as fh:
        head = fh.read(4)
    return not head.startswith(b"\x1f\x8b") and wide_bom(head) is None


def numbered_lines(opened: Opened, limit: int | None = None, start: int = 0,
                   end: int | None = None) -> Iterator[tuple[int, bytes | None]]:
    """Numbered lines of an opened file as UTF-8 bytes (the file is closed at the end); a UTF-8
    byte-order mark at the start is dropped, a UTF-16/32 file is decoded by its mark (invalid code
    units as U+FFFD) and only ``\\n`` ends a line in it, as in the bytes of a UTF-8 file.

    A line longer than ``limit`` (bytes; characters in a UTF-16/32 file) is never held in memory:
    it is read past in pieces and given as None (its number still counts).  ``start`` / ``end``
    (a plain UTF-8 file only): the lines that begin in that byte range, numbered from 1 within it
    -- a file read in pieces by several tasks (:mod:`neardup.engines.spark_input`) reads every
    line exactly once.
    """
    stream = opened.stream
    if (opened.gzipped or opened.wide) and (start or end is not None):
        stream.close()
        raise ValueError("a gzipped or UTF-16/32 file is read whole, not by byte range")
    source: gzip.GzipFile | BinaryIO | io.TextIOWrapper = stream  # what to close: the wrapper closes the file
    readline: Callable[[int], bytes] = stream.readline
    if opened.wide:
        text = io.TextIOWrapper(stream, encoding=opened.wide, errors="replace", newline="\n")
        source, readline = text, lambda size: text.readline(size).encode("utf-8")
    with source:
        number = 0
        if start:  # the line that began before the range belongs to the previous range
            stream.seek(start - 1)
            _read_past_line(readline)
        while True:
            if end is not None and stream.tell() >= end:
                return
            line = readline(-1 if limit is None else limit + 1)
            if not line:
                return
            number += 1
            if limit is not None and len(line) > limit and not line.endswith(b"\n"):
                del line
                _read_past_line(readline)
                yield number, None
                continue
            if number == 1 and start == 0 and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
            yield number, line


def _read_past_line(readline: Callable[[int], bytes]) -> None:
    """Read the rest of the current line, a MiB at a time (it may be long)."""
    while True:
        piece = readline(1 << 20)
        if not piece or piece.endswith(b"\n"):
            return
