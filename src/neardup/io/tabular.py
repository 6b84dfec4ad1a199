"""CSV and TSV inputs: a header row names the fields, each further row is one record.

Rows become records exactly as JSONL objects do (:func:`~neardup.io.readers.record_from_mapping`,
with the same ``--id-field/--text-field/--html-field``); a row that does not parse is one
named rejection, and reading streams (the csv module reads line by line).  Quoted fields
may hold newlines; line numbers in messages are the row's first line in the file.
"""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path
from typing import Iterator

from .records import FILE_FAULTS, FIELDS, Fields, Record, Rejection, describe_fault, record_from_mapping

# Article texts are long: the csv module's default limit (128 KiB per field) would reject them;
# 64 MiB, the cap of a document file and a JSONL record, is the limit instead.
csv.field_size_limit(64 << 20)


def read_table(path: Path, delimiter: str, prefer_html: bool = False,
               fields: Fields = FIELDS) -> Iterator[Record | Rejection]:
    """Records of a CSV (``delimiter`` ``,``) or TSV (``\\t``) file with a header row."""
    source = str(path)
    with open(path, "rb") as probe:
        gzipped = probe.read(2) == b"\x1f\x8b"
    raw = gzip.open(path, "rb") if gzipped else open(path, "rb")
    rows = 0
    line = 1
    try:
        with io.TextIOWrapper(raw, encoding="utf-8-sig", errors="replace", newline="") as fh:
            reader = csv.DictReader(fh, delimiter=delimiter)
            while True:
                try:
                    row = next(reader)
                except StopIteration:
                    break
                except csv.Error as exc:
                    yield Rejection(source, reader.line_num, "invalid CSV row", str(exc))
                    continue
                rows += 1
                yield record_from_mapping(dict(row), source, line + 1, prefer_html, fields)
                line = reader.line_num
    except FILE_FAULTS as exc:
        yield Rejection(source, line + 1, "unreadable file", describe_fault(exc))
        return
    if rows == 0:
        yield Rejection(source, None, "empty input", "no rows after the header")
