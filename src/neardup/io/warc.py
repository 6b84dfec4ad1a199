"""WARC crawl files (``.warc``, ``.warc.gz``): every HTML response is one page.

Read with `warcio <https://github.com/webrecorder/warcio>`_ (the Webrecorder project's
reader, streaming, record by record).  A ``response`` record whose HTTP Content-Type is
HTML becomes a page: id = ``WARC-Target-URI``, fields ``url`` and ``date``
(``WARC-Date``), the body decoded like any page (the charset of the HTTP ``Content-Type``,
then the ``<meta>`` one, each checked; detection when they fail).  Every other record is not a page: it is *skipped*, counted apart from the
rejections by what it is (never silently dropped, never an error with ``--strict``): request,
metadata, warcinfo and revisit records by their type ("WARC request"), responses with an
HTTP status of 300 or more by their status ("HTTP 404 (error)", "HTTP 301 (redirect)": an
error page or a redirect is not an article), responses of other types (images, PDFs,
scripts) as "not HTML".  A response that should be a page and is not usable (no URL, an
empty or undecodable body) is a rejection.  The record number in messages counts WARC
records from 1.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path
from typing import Iterator

from .decode import content_type_charset, decode_page, mostly_replacement
from .records import FILE_FAULTS, Record, Rejection, describe_fault, id_problem

#: The rejection of a WARC file cut short: a record whose block ends early, or bytes that are not one.
TRUNCATED = "truncated file"

#: Largest response body read; a larger one is a rejection, not read into memory.
MAX_BODY_BYTES = 64 << 20


def read_warc(path: Path) -> Iterator[Record | Rejection]:
    """Pages of a WARC file, and a rejection for each record that is not one.  A truncated file (a
    crawl cut short, a partial copy) is named (:data:`TRUNCATED`): its last record, cut off, is not a page, and
    bytes after the last whole record are a rejection too (warcio itself stops quietly there).  A
    file gzipped as a whole (``gzip crawl.warc``, where WARC tools gzip record by record) is read
    as one gzip stream: warcio reads only the first record of it."""
    from warcio.archiveiterator import ArchiveIterator
    from warcio.exceptions import ArchiveLoadFailed

    source = str(path)
    number = 0
    whole = False
    while True:
        seen = 0
        try:
            with (gzip.open(path, "rb") if whole else open(path, "rb")) as fh:
                records = ArchiveIterator(fh)
                _tolerate_missing_uri(records)
                item = rec = None
                for rec in records:
                    seen += 1
                    if seen <= number:  # read before the file was found gzipped as a whole
                        continue
                    number += 1
                    item = _page(rec, source, number)
                    yield item
                size = fh.seek(0, os.SEEK_END)
                last_cut = 0 if rec is None or (isinstance(item, Rejection) and item.reason == TRUNCATED) else _cut(rec)
        except ArchiveLoadFailed as exc:
            if not whole and _NON_CHUNKED in str(exc):
                whole = True
                continue
            yield Rejection(source, number + 1, "unreadable file", _short(describe_fault(exc)))
            return
        except EOFError:  # a whole-file gzip cut short
            yield Rejection(source, number + 1, TRUNCATED, "the gzip stream ends early")
            return
        except (*FILE_FAULTS, ValueError) as exc:
            yield Rejection(source, number + 1, "unreadable file", _short(describe_fault(exc)))
            return
        break
    if last_cut:
        yield Rejection(source, number, TRUNCATED, f"the file ends {last_cut:,} bytes into WARC record {number}")
    elif records.offset < size:
        yield Rejection(source, number + 1, TRUNCATED,
                        f"the last {size - records.offset:,} bytes are not a whole WARC record")
    elif number == 0:
        yield Rejection(source, None, "empty input", "no WARC records")


#: What warcio says of a file gzipped as a whole rather than record by record.
_NON_CHUNKED = "non-chunked gzip file"


def _short(detail: str, most: int = 120) -> str:
    """``detail`` in at most ``most`` characters: warcio quotes a bad record's first line, which in a
    damaged file is hundreds of bytes of binary (a rejection's message escapes what is not printable)."""
    return detail if len(detail) <= most else detail[: most - 3] + "..."


def _cut(rec) -> int:
    """How many bytes of ``rec``'s block are missing (0: whole), once its block was read to the end."""
    while rec.raw_stream.read(1 << 16):
        pass
    return int(rec.raw_stream.limit)


def _status(rec) -> int | None:
    """The HTTP status code of a response record, None when it has none (or an unreadable one)."""
    try:
        return int(rec.http_headers.get_statuscode()) if rec.http_headers else None
    except (TypeError, ValueError):
        return None


def _tolerate_missing_uri(records) -> None:
    """Let warcio read a record without ``WARC-Target-URI``: it tests ``uri.startswith`` to decide
    whether to parse HTTP headers, and raises ``AttributeError`` on None, ending the file.  Given
    "" instead, it reads the record on, and :func:`_page` rejects it by name."""
    loader = records.loader
    load = loader.load_http_headers

    def load_http_headers(rec_type, uri, stream, length):
        return load(rec_type, uri or "", stream, length)

    loader.load_http_headers = load_http_headers


def _page(rec, source: str, number: int) -> Record | Rejection:
    """One WARC record as a page, or why it is not one."""
    url = rec.rec_headers.get_header("WARC-Target-URI") or ""
    if rec.rec_type != "response":
        return Rejection(source, number, f"WARC {rec.rec_type}", url, skipped=True)
    status = _status(rec)
    if status is not None and status >= 300:
        kind = "redirect" if status < 400 else "error"
        return Rejection(source, number, f"HTTP {status} ({kind})", url, skipped=True)
    if not url:  # before the content type: warcio reads no HTTP headers of a response without a URI
        record_id = rec.rec_headers.get_header("WARC-Record-ID") or "no WARC-Record-ID"
        return Rejection(source, number, "missing id", f"a response without WARC-Target-URI ({record_id})")
    ctype = (rec.http_headers.get_header("Content-Type") if rec.http_headers else None) or ""
    if "html" not in ctype.lower():
        return Rejection(source, number, "not HTML", f"{ctype or 'no Content-Type'} {url}".strip(), skipped=True)
    bad = id_problem(url, source, number)
    if bad is not None:
        return bad
    body = rec.content_stream().read(MAX_BODY_BYTES + 1)
    if len(body) > MAX_BODY_BYTES:
        return Rejection(source, number, "unreadable file", f"response body over {MAX_BODY_BYTES >> 20} MiB")
    cut = _cut(rec)
    if cut:  # a page cut off mid-body is not the page
        return Rejection(source, number, TRUNCATED, f"the file ends {cut:,} bytes into this record ({url})")
    html, encoding = decode_page(body, content_type_charset(ctype))
    if not html or html.isspace():
        return Rejection(source, number, "empty text", url)
    if mostly_replacement(html):
        return Rejection(source, number, "undecodable", url)
    date = rec.rec_headers.get_header("WARC-Date")
    return Record(url, None, html, source, number, {"id": url, "url": url, "date": date, "html": html}, encoding)
