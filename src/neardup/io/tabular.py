"""CSV and TSV inputs: a header row names the fields, each further row is one record.

Rows become records exactly as JSONL objects do (:func:`~neardup.io.readers.record_from_mapping`,
with the same ``--id-field/--text-field/--html-field``), and reading streams (the csv module
reads line by line).  Quoted fields may hold newlines; line numbers in messages are the row's
first line in the file.  Nothing malformed is kept as if it were fine: the csv module parses
strictly (a quote never closed before the end of the file, text after a closing quote), a row
with more fields than the header is a rejection (a trailing empty one aside: spreadsheets write
them), and a header naming a field twice refuses the file.  A row with fewer fields lacks the
last ones, as a JSON object may: a missing id or text is rejected as such.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path
from typing import Iterator

from .lines import open_record_file
from .records import FILE_FAULTS, FIELDS, Fields, Record, Rejection, describe_fault, record_from_mapping

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
        with io.TextIOWrapper(open_record_file(path).stream, encoding="utf-8-sig", errors="replace",
                              newline="") as fh:
            reader = csv.reader(fh, delimiter=delimiter, strict=True)
            try:
                header = next((row for row in reader if row), None)  # blank lines before it aside
            except csv.Error as exc:
                yield Rejection(source, 1, "invalid CSV header", _fault(exc, 1, reader.line_num))
                return
            if header is None:
                yield Rejection(source, None, "empty input", "no header row")
                return
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
                yield record_from_mapping(dict(zip(header, row)), source, line, prefer_html, fields)
    except FILE_FAULTS as exc:
        yield Rejection(source, line, "unreadable file", describe_fault(exc))
        return
    if rows == 0:
        yield Rejection(source, None, "empty input", "no rows after the header")


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
