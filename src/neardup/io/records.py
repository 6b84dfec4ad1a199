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

#: Longest id accepted (characters): an id is repeated in every match naming it, so a
#: 10 MB id would be copied into every later answer.  Long URLs fit (browsers stop near 2,000).
MAX_ID_CHARS = 4096

#: Characters shown escaped wherever neardup prints text it was given (ids, snippets):
#: C0/C1 controls (a terminal obeys ESC sequences), bidirectional overrides (they reorder
#: what is shown) and lone surrogates (not Unicode; they cannot be written as UTF-8).
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with control characters, bidi overrides and lone surrogates written as escapes (``\\x1b``)."""
    if text.isascii() and text.isprintable():
        return text
    return _UNPRINTABLE.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text)


def lone_surrogate(text: str) -> int | None:
    """Where ``text`` holds a lone surrogate (the JSON escape ``\\udc80``: not a character, no UTF-8), else None."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def id_problem(rid: str, source: str, line: int | None) -> "Rejection | None":
    """Why ``rid`` cannot be an id (too long, not Unicode), or None."""
    if len(rid) > MAX_ID_CHARS:
        return Rejection(source, line, "id too long", f"{len(rid):,} characters, at most {MAX_ID_CHARS:,}: "
                                                      f"{rid[:60]}...")
    at = lone_surrogate(rid)
    if at is not None:
        return Rejection(source, line, "invalid Unicode", f"id {rid[:60]!r}: a lone surrogate at character {at}")
    return None


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
        return printable(f"{where}: {self.reason}" + (f" ({self.detail})" if self.detail else ""))


def located(item: Record | Rejection) -> str:
    """Where an input unit came from, as the errors that name a page say it: ``FILE, line N``."""
    return item.source if item.line is None else f"{item.source}, line {item.line}"


def record_from_mapping(obj: Any, source: str, line: int, prefer_html: bool = False,
                        fields: Fields = FIELDS, unicode_checked: bool = False) -> Record | Rejection:
    """A record from a JSON object, Parquet or CSV row, or why it cannot be one.

    ``fields`` names the id, text and HTML fields.  A record with both text and HTML uses
    the text unless ``prefer_html``; one with HTML alone uses it, unless the text field was
    named (not the default ``text``): a record without the field named is then missing its
    text, as it would be missing its id, rather than read from its HTML unasked (a mistyped
    ``--text-field`` would otherwise switch every record to HTML silently).  A text that looks
    like a web page (:func:`looks_like_html`) is read as HTML, so markup is extracted, never compared.
    ``unicode_checked``: its strings are known to hold no lone surrogate (orjson refuses them
    when it parses bytes), so the text is not encoded again to look for one (a page's worth of
    encoding saved per record).
    """
    if not isinstance(obj, dict):
        return Rejection(source, line, "not a JSON object")
    rid = obj.get(fields.id)
    wrong = _id_fault(rid, fields.id, obj)
    if wrong:
        return Rejection(source, line, "missing id", wrong)
    text, html = obj.get(fields.text), obj.get(fields.html)
    if prefer_html and html is not None:
        text = None
    elif text is None and html is not None and fields.text != FIELDS.text:
        return Rejection(source, line, "missing text", f"{_absent(fields.text, obj)}: the text field asked for; "
                                                        f"'{fields.html}' is not read in its place", row=obj)
    if text is None and html is None:
        return Rejection(source, line, "missing text", f"a record needs a '{fields.text}' or '{fields.html}' field",
                         row=obj)
    body = text if text is not None else html
    if not isinstance(body, str):
        return Rejection(source, line, "text is not a string", type(body).__name__, row=obj)
    if not body or body.isspace():
        return Rejection(source, line, "empty text", row=obj)
    bad = id_problem(str(rid), source, line)
    if bad is not None:
        return bad
    at = None if unicode_checked else lone_surrogate(body)
    if at is not None:
        which = fields.text if text is not None else fields.html
        return Rejection(source, line, "invalid Unicode", f"'{which}' holds a lone surrogate "
                                                          f"(U+{ord(body[at]):04X}) at character {at}")
    if text is not None and looks_like_html(text):
        return Record(str(rid), None, text, source, line, obj, html_in_text=True)
    return Record(str(rid), text if text is not None else None, None if text is not None else html, source, line, obj)


def _absent(name: str, obj: dict) -> str:
    """Why the field ``name`` of ``obj`` gives no value: it is not there, or it is null."""
    return f"no '{name}' field" if name not in obj else f"'{name}' is null"


def _id_fault(rid: Any, name: str, obj: dict) -> str | None:
    """Why ``rid``, the value of the id field ``name`` of ``obj``, is no id (absent, null, empty, a
    boolean, a list, an object: JSON's names), else None."""
    if rid is None:
        return _absent(name, obj)
    if rid == "":
        return f"'{name}' is empty"
    if isinstance(rid, bool):
        return f"'{name}' is {'true' if rid else 'false'}, not a string or number"
    if isinstance(rid, (list, dict)):
        return f"'{name}' is {'a list' if isinstance(rid, list) else 'an object'}, not a string or number"
    return None


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


def site_of(record: object) -> str:
    """A record's site (lower case; ``""``: none known): its ``site`` field, else the host of its
    ``url`` field, else the host of its id when the id is a URL.  The codes only tell sites
    apart, so any engine may number them its own way."""
    fields = getattr(record, "fields", None) or {}
    site = fields.get("site")
    if not isinstance(site, str) or not site:
        url = fields.get("url")
        url = url if isinstance(url, str) else str(getattr(record, "id", ""))
        site = _host(url)
    return site.lower() if site else ""


def _host(url: str) -> str:
    """The host of an http(s) URL (``www.`` dropped), or ``""``."""
    if not url.startswith(("http://", "https://")):
        return ""
    from urllib.parse import urlsplit

    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return ""
    return host[4:] if host.startswith("www.") else host
