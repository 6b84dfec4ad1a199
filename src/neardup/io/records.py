"""What the readers produce: records, rejections, and how a row of fields becomes a record.

Shared by every reader (:mod:`.readers` for JSONL, Parquet and folders, :mod:`.tabular`
for CSV/TSV, :mod:`.warc` for crawl files), so they turn rows into records and name
faults the same way.
"""

from __future__ import annotations

import math
from datetime import datetime

import re
import zlib
from dataclasses import dataclass, field
from typing import Any

#: What reading, decompressing or decoding one damaged file can raise.
FILE_FAULTS = (OSError, EOFError, zlib.error, UnicodeError)


@dataclass
class Record:
    """One input document: ``text`` or ``html`` (exactly one is set), plus its source."""

    id: str
    text: str | None
    html: str | None
    source: str
    line: int | None
    fields: dict[str, Any] = field(default_factory=dict)
    encoding: str | None = None  # the encoding detected or declared, when the bytes were not UTF-8
    html_in_text: bool = False  # its text field held a web page, read as HTML


@dataclass(frozen=True)
class Fields:
    """Which fields of a record (JSONL, Parquet, CSV, API dicts) hold its id, text and HTML."""

    id: str = "id"
    text: str = "text"
    html: str = "html"


FIELDS = Fields()

#: A text that starts like a web page, or holds many block tags early on, is a page.
_PAGE_START = re.compile(r"\s*(?:<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>])", re.I)
_BLOCK_TAG = re.compile(r"</?(?:p|div|br|span|a|li|ul|table|tr|td|h[1-6]|script|style|meta|link|img)\b[^>]*>", re.I)


def looks_like_html(text: str) -> bool:
    """Whether a text field holds a web page rather than text (cheap: the first 4,000 characters)."""
    head = text[:4000]
    if "<" not in head:  # plain text, the common case: no regex pass
        return False
    if _PAGE_START.match(head):
        return True
    # eight block tags need eight '<' (a text quoting "<AMERICAN EXPRESS CO>" has one or two)
    return head.count("<") >= 8 and len(_BLOCK_TAG.findall(head)) >= 8


@dataclass
class Rejection:
    """An input unit that was not turned into a document, and why."""

    source: str
    line: int | None
    reason: str
    detail: str = ""
    #: the record as read, when it is one (it has an id) rejected for its content: what
    #: ``dedup --unique`` writes back, since it duplicates nothing
    row: dict | None = field(default=None, compare=False, repr=False)
    #: not a document at all (a WARC request record, an image, an HTTP error page): counted
    #: apart as *skipped*, never as a rejection, and never an error in ``--strict`` mode
    skipped: bool = False

    def message(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.reason}" + (f" ({self.detail})" if self.detail else "")


def record_from_mapping(obj: Any, source: str, line: int, prefer_html: bool = False,
                        fields: Fields = FIELDS) -> Record | Rejection:
    """A record from a JSON object, Parquet or CSV row, or why it cannot be one.

    ``fields`` names the id, text and HTML fields.  A record with both text and HTML uses
    the text unless ``prefer_html``; a text that looks like a web page
    (:func:`looks_like_html`) is read as HTML, so markup is extracted, never compared.
    """
    if not isinstance(obj, dict):
        return Rejection(source, line, "not a JSON object")
    rid = obj.get(fields.id)
    if rid is None or isinstance(rid, (dict, list, bool)) or rid == "":
        return Rejection(source, line, "missing id", f"no '{fields.id}' field")
    text, html = obj.get(fields.text), obj.get(fields.html)
    if prefer_html and html is not None:
        text = None
    if text is None and html is None:
        return Rejection(source, line, "missing text", f"a record needs a '{fields.text}' or '{fields.html}' field",
                         row=obj)
    body = text if text is not None else html
    if not isinstance(body, str):
        return Rejection(source, line, "text is not a string", type(body).__name__, row=obj)
    if not body or body.isspace():
        return Rejection(source, line, "empty text", row=obj)
    if text is not None and looks_like_html(text):
        return Record(str(rid), None, text, source, line, obj, html_in_text=True)
    return Record(str(rid), text if text is not None else None, None if text is not None else html, source, line, obj)


def describe_fault(exc: BaseException) -> str:
    """What went wrong reading a file, in a few words (the type when the message is empty)."""
    text = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def record_time(record: Record) -> float | None:
    """Seconds since the epoch of a record's ``time`` field (or the ``date`` a WARC record keeps);
    None when it has neither.  Raises ValueError for a value that is neither a finite number nor
    ISO 8601.  What time windows (``contain --window``, the online index) order documents by.
    """
    fields = record.fields or {}
    value = fields.get("time", fields.get("date"))
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.strip().replace("Z", "+00:00")).timestamp()
        except ValueError:
            pass
    raise ValueError(f"time {value!r} is neither ISO 8601 nor a number")
