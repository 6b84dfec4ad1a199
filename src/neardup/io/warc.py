"""WARC crawl files (``.warc``, ``.warc.gz``): every HTML response is one page.

Read with `warcio <https://github.com/webrecorder/warcio>`_ (the Webrecorder project's
reader, streaming, record by record).  A ``response`` record whose HTTP Content-Type is
HTML becomes a page: id = ``WARC-Target-URI``, fields ``url`` and ``date``
(``WARC-Date``), the body decoded like any page (declared charset checked, detection when
it fails).  Every other record is not a page: it is *skipped*, counted apart from the
rejections by what it is (never silently dropped, never an error with ``--strict``): request,
metadata, warcinfo and revisit records by their type ("WARC request"), responses with an
HTTP status of 300 or more by their status ("HTTP 404 (error)", "HTTP 301 (redirect)": an
error page or a redirect is not an article), responses of other types (images, PDFs,
scripts) as "not HTML".  A response that should be a page and is not usable (no URL, an
empty or undecodable body) is a rejection.  The record number in messages counts WARC
records from 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from .decode import decode_page, mostly_replacement
from .records import FILE_FAULTS, Record, Rejection, describe_fault

#: Largest response body read; a larger one is a rejection, not read into memory.
MAX_BODY_BYTES = 64 << 20


def read_warc(path: Path) -> Iterator[Record | Rejection]:
    """Pages of a WARC file, and a rejection for each record that is not one."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    source = str(path)
    number = 0
    try:
        with open(path, "rb") as fh:
            for rec in ArchiveIterator(fh):
                number += 1
                yield _page(rec, source, number)
    except (ArchiveLoadFailed, *FILE_FAULTS, ValueError) as exc:
        yield Rejection(source, number + 1, "unreadable file", describe_fault(exc))
        return
    if number == 0:
        yield Rejection(source, None, "empty input", "no WARC records")


def _status(rec) -> int | None:
    """The HTTP status code of a response record, None when it has none (or an unreadable one)."""
    try:
        return int(rec.http_headers.get_statuscode()) if rec.http_headers else None
    except (TypeError, ValueError):
        return None


def _page(rec, source: str, number: int) -> Record | Rejection:
    """One WARC record as a page, or why it is not one."""
    url = rec.rec_headers.get_header("WARC-Target-URI") or ""
    if rec.rec_type != "response":
        return Rejection(source, number, f"WARC {rec.rec_type}", url, skipped=True)
    status = _status(rec)
    if status is not None and status >= 300:
        kind = "redirect" if status < 400 else "error"
        return Rejection(source, number, f"HTTP {status} ({kind})", url, skipped=True)
    ctype = (rec.http_headers.get_header("Content-Type") if rec.http_headers else None) or ""
    if "html" not in ctype.lower():
        return Rejection(source, number, "not HTML", f"{ctype or 'no Content-Type'} {url}".strip(), skipped=True)
    if not url:
        return Rejection(source, number, "missing id", "no WARC-Target-URI")
    body = rec.content_stream().read(MAX_BODY_BYTES + 1)
    if len(body) > MAX_BODY_BYTES:
        return Rejection(source, number, "unreadable file", f"response body over {MAX_BODY_BYTES >> 20} MiB")
    html, encoding = decode_page(body)
    if not html or html.isspace():
        return Rejection(source, number, "empty text", url)
    if mostly_replacement(html):
        return Rejection(source, number, "undecodable", url)
    date = rec.rec_headers.get_header("WARC-Date")
    return Record(url, None, html, source, number, {"id": url, "url": url, "date": date, "html": html}, encoding)
