"""CSV and TSV inputs: a header row names the fields, each further row is one record.

Rows become records exactly as JSONL objects do (:func:`~neardup.io.readers.record_from_mapping`,
with the same ``--id-field/--text-field/--html-field``), and reading streams (the csv module
reads line by line).  Quoted fields may hold newlines; line numbers in messages are the row's
first line in the file.  Nothing malformed is kept as if it were fine: the csv module parses
strictly (a quote never closed before the end of the file, text after a closing quote), a row
with more fields than the header is a rejection (a trailing empty one aside: spreadsheets write
them), and a header naming a field twice refuses the file.  A row with fewer fields lacks the
last ones, as a JSON object may: a missing id or text is rejected as such.  Encodings are those
of JSONL: UTF-8, a file with a UTF-16/32 byte-order mark decoded by it, and a row whose bytes
are not UTF-8 decoded by :func:`~.decode.decode` (charset detection), its encoding reported.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path
from typing import Iterator

from .decode import decode
from .lines import open_record_file
from .records import (
    FILE_FAULTS, FIELDS, Fields, Record, Rejection, describe_fault, lone_surrogate, record_from_mapping,
)

# Article texts are long: the csv module's default limit (128 KiB per field) would reject them;
# 64 MiB, the cap of a document file and a JSONL record, is the limit instead.
csv.field_size_limit(64 << 20)


def read_table(path: Path, delimiter: str, prefer_html: bool = False,
               fields: Fields = FIELDS) -> Iterator[Record | Rejection]:
    """Records of a CSV (``delimiter`` ``,``) or TSV (``\\t``) file with a header row."""
    source = str(path)
    rows = 0
    line = 1  # the first line of the row being read
    try:
        opened = open_record_file(path)
        # UTF-8 (its mark dropped), bytes that are not UTF-8 kept as escapes for _Legacy; or a mark's UTF-16/32
        with io.TextIOWrapper(opened.stream, encoding=opened.wide or "utf-8-sig",
                              errors="replace" if opened.wide else "surrogateescape", newline="") as fh:
            reader = csv.reader(fh, delimiter=delimiter, strict=True)
            legacy = _Legacy(opened.wide)
            try:
                header = next((row for row in reader if row), None)  # blank lines before it aside
            except csv.Error as exc:
                yield Rejection(source, 1, "invalid CSV header", _fault(exc, 1, reader.line_num))
                return
            if header is None:
                yield Rejection(source, None, "empty input", "no header row")
                return
            header = legacy.decoded(header)[0]
            twice = _named_twice(header)
            if twice:
                yield Rejection(source, reader.line_num, "invalid CSV header", twice)
                return
            while True:
                line = reader.line_num + 1
                try:
                    row = next(reader)
                except StopIteration:
                    break
                except csv.Error as exc:
                    rows += 1
                    yield Rejection(source, line, "invalid CSV row", _fault(exc, line, reader.line_num))
                    continue
                if not row:  # a blank line
                    continue
                rows += 1
                if len(row) > len(header) and any(row[len(header):]):
                    yield Rejection(source, line, "invalid CSV row",
                                    f"{len(row)} fields, the header names {len(header)}")
                    continue
                values, encoding = legacy.decoded(row)
                item = record_from_mapping(dict(zip(header, values)), source, line, prefer_html, fields,
                                           unicode_checked=True)
                if encoding and isinstance(item, Record):
                    item.encoding = encoding
                yield item
    except FILE_FAULTS as exc:
        yield Rejection(source, line, "unreadable file", describe_fault(exc))
        return
    if rows == 0:
        yield Rejection(source, None, "empty input", "no rows after the header")


class _Legacy:
    """The encoding of a table's rows: its byte-order mark's (``wide``), else UTF-8, and the bytes of
    a row that are not UTF-8 (read as escapes: lone surrogates) decoded by :func:`~.decode.decode`.
    The encoding detected on the file's first such row is tried first on the later ones, so the
    detector runs once per file rather than once per row; a row it does not decode is detected anew."""

    def __init__(self, wide: str | None) -> None:
        self.wide = wide
        self.encoding: str | None = None

    def decoded(self, values: list[str]) -> tuple[list[str], str | None]:
        """``values`` with their escapes decoded, and the encoding used (None: UTF-8).  None of the
        values returned holds a lone surrogate."""
        if self.wide:  # decoded with U+FFFD for invalid code units: no surrogate
            return values, self.wide
        raw = {i: v.encode("utf-8", "surrogateescape") for i, v in enumerate(values) if lone_surrogate(v) is not None}
        if not raw:
            return values, None
        out = list(values)
        if self.encoding:
            try:
                for i, data in raw.items():
                    out[i] = data.decode(self.encoding)
                return out, self.encoding
            except UnicodeDecodeError:
                pass
        self.encoding = decode(b"\n".join(raw.values()))[1] or "utf-8"
        for i, data in raw.items():
            out[i] = data.decode(self.encoding, errors="replace")
        return out, self.encoding


def _named_twice(header: list[str]) -> str | None:
    """What is wrong with a header that names a field twice (unnamed columns aside), else None."""
    counts = Counter(name for name in header if name)
    name = next((n for n in header if counts[n] > 1), None)
    if name is None:
        return None
    *before, last = [str(i + 1) for i, n in enumerate(header) if n == name]
    return f"field {name!r} named {len(before) + 1} times: columns {', '.join(before)} and {last}"


def _fault(exc: csv.Error, first: int, last: int) -> str:
    """A csv module error in words, with the lines a quote never closed swallowed."""
    if "unexpected end of data" in str(exc):
        lines = f"line {first}" if last <= first else f"lines {first}-{last}"
        return f"a quote is never closed: the file ends inside a quoted field, {lines} read as this row"
    return str(exc)
