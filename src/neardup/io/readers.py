"""Readers: JSONL, Parquet, CSV/TSV, WARC and folders of documents or shards, gzip or not.

Every input becomes a stream of :class:`Record` (a document) and :class:`Rejection`
(something that could not become one, with the file, the line or row, and the reason).
Nothing is dropped silently: the caller counts both, and ``--strict`` turns the first
rejection into an error.  Faults are contained per file: a file that cannot be read,
decompressed or decoded (a truncated gzip, a damaged Parquet page, an unreadable folder)
is a rejection naming it (and the line or row reached), and the run goes on; special
files (FIFOs, devices) are skipped and counted, never opened.  Records keep all their
original fields, so ``--unique`` can write them back unchanged.
"""

from __future__ import annotations

import gzip
import os
import stat
from pathlib import Path
from typing import Iterable, Iterator

import orjson

from ..errors import InputError
from .decode import decode, decode_html, decode_page, mostly_replacement, wide_unicode
from .lines import numbered_lines, open_record_file
from .records import (
    FIELDS, FILE_FAULTS, Fields, Record, Rejection, describe_fault, looks_like_html, record_from_mapping,
)

__all__ = ["FIELDS", "Fields", "InputError", "Record", "Rejection", "decode_html", "looks_like_html",
           "mostly_replacement", "read_input", "read_inputs", "record_from_mapping"]

TEXT_SUFFIXES = (".txt",)
HTML_SUFFIXES = (".htm", ".html")
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
PARQUET_SUFFIXES = (".parquet", ".pq")
TABLE_SUFFIXES = (".csv", ".tsv")
WARC_SUFFIXES = (".warc",)
#: Files that hold many records: read as records when found inside a folder (shards).
RECORD_FILE_SUFFIXES = JSONL_SUFFIXES + PARQUET_SUFFIXES + TABLE_SUFFIXES + WARC_SUFFIXES

#: Largest document file read (after decompression); larger ones are rejected, not read into memory.
MAX_DOCUMENT_BYTES = 64 << 20
#: Longest JSONL line read (bytes): a longer record is skipped unread and rejected, as a file would be.
MAX_RECORD_BYTES = MAX_DOCUMENT_BYTES
#: Read buffer of a plain JSONL file: a long line (a web page) in few reads, not 8 KB at a time.
READ_BUFFER = 1 << 20

def _strip_gz(path: Path) -> str:
    name = path.name.lower()
    return name[:-3] if name.endswith(".gz") else name


def _read_bytes(path: Path) -> bytes:
    """The bytes of one document file, decompressed; ``ValueError`` beyond :data:`MAX_DOCUMENT_BYTES`."""
    with open(path, "rb") as fh:
        gzipped = fh.read(2) == b"\x1f\x8b"
        fh.seek(0)
        with (gzip.GzipFile(fileobj=fh) if gzipped else fh) as raw:
            data = raw.read(MAX_DOCUMENT_BYTES + 1)
    if len(data) > MAX_DOCUMENT_BYTES:
        raise ValueError(f"larger than {MAX_DOCUMENT_BYTES >> 20} MiB")
    return data


def _path_id(name: str) -> str:
    """A file name as an id: bytes that are not UTF-8 (kept by Python as lone surrogates) written as ``\\xff``."""
    if name.isascii():
        return name
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _special_file(path: Path) -> str | None:
    """What ``path`` is when it is not a regular file (a FIFO, a device, a socket), else None."""
    mode = path.stat().st_mode
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    for test, what in ((stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket")):
        if test(mode):
            return what
    return "special file"


def read_jsonl(path: Path, prefer_html: bool = False, fields: Fields = FIELDS, start: int = 0,
               end: int | None = None, seen: list[int] | None = None) -> Iterator[Record | Rejection]:
    """Records of a JSONL file (one JSON object per line, blank lines ignored).

    ``start`` / ``end``: only the lines beginning in that byte range (line numbers from 1 within
    it; :func:`~.lines.numbered_lines`); ``seen``: given, the "empty input" verdict is left to the
    caller (who reads the other ranges): ``seen[0]`` is set when the range holds a record and
    ``seen[1]`` to the lines read (to number the next range's lines).  A file that starts with a
    UTF-16/32 byte-order mark is decoded by it, and its records say so (:attr:`Record.encoding`).
    """
    source = str(path)
    seen_any = False
    number = 0
    try:
        opened = open_record_file(path, READ_BUFFER)
    except FILE_FAULTS as exc:  # a damaged gzip header: nothing of the file can be read
        yield Rejection(source, 1, "unreadable file", describe_fault(exc))
        return
    lines = numbered_lines(opened, MAX_RECORD_BYTES, start, end)
    while True:
        try:
            number, raw = next(lines)
        except StopIteration:
            break
        except FILE_FAULTS as exc:  # truncated or corrupt gzip, a read error: the rest of the file is lost
            yield Rejection(source, number + 1, "unreadable file", describe_fault(exc))
            return
        if seen is not None:
            seen[1] = number
        if raw is not None and (not raw or raw.isspace()):  # blank line (or a byte-order mark alone)
            continue
        seen_any = True
        if seen is not None:
            seen[0] = 1
        item = jsonl_record(raw, source, number, prefer_html, fields)
        if opened.wide and isinstance(item, Record):
            item.encoding = opened.wide
        yield item
    if not seen_any and seen is None:
        yield Rejection(source, None, "empty input", "no records")


def jsonl_record(raw: bytes | None, source: str, number: int, prefer_html: bool = False,
                 fields: Fields = FIELDS) -> Record | Rejection:
    """The record of one JSONL line (``None``: a line over :data:`MAX_RECORD_BYTES`, skipped unread).

    A line in a legacy encoding (JSON should be UTF-8; cp1252 exports exist) is decoded first.
    """
    if raw is None:
        return Rejection(source, number, "record too large", f"line over {MAX_RECORD_BYTES >> 20} MiB")
    encoding = None
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if not _bad_utf8(raw):
            return Rejection(source, number, "invalid JSON", str(exc).split(":")[0])
        try:
            text, encoding = decode(raw)
            obj = orjson.loads(text)
        except orjson.JSONDecodeError as again:
            return Rejection(source, number, "invalid JSON", f"{str(again).split(':')[0]}, decoded as {encoding}")
    item = record_from_mapping(obj, source, number, prefer_html, fields, unicode_checked=encoding is None)
    if encoding and isinstance(item, Record):
        item.encoding = encoding
    return item


def _bad_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def read_parquet(path: Path, prefer_html: bool = False, fields: Fields = FIELDS) -> Iterator[Record | Rejection]:
    """Records of a Parquet file with the same columns as JSONL (row numbers from 1)."""
    import pyarrow.parquet as pq

    source = str(path)
    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        yield Rejection(source, None, "unreadable Parquet", str(exc))
        return
    row = 0
    for group in range(pf.num_row_groups):  # a damaged row group is one rejection; the others are read
        end = row + pf.metadata.row_group(group).num_rows
        batches = pf.iter_batches(batch_size=4096, row_groups=[group])
        while True:
            try:
                batch = next(batches)
            except StopIteration:
                break
            except Exception as exc:  # a damaged page or column chunk: pyarrow raises several types
                yield Rejection(source, row + 1, "unreadable Parquet",
                                f"row group {group}, rows {row + 1}-{end} lost: {describe_fault(exc)}")
                break
            for obj in batch.to_pylist():
                row += 1
                yield record_from_mapping(obj, source, row, prefer_html, fields)
        row = end
    if row == 0:
        yield Rejection(source, None, "empty input", "no records")


def read_document_file(path: Path, rid: str) -> Record | Rejection:
    """One ``.txt`` / ``.htm`` / ``.html`` file (optionally ``.gz``) as one document (a ``.txt`` holding a
    web page is read as one, as a record's text field is: :func:`~.records.looks_like_html`)."""
    source = str(path)
    try:
        special = _special_file(path)
        if special:
            return Rejection(source, None, "special file", f"a {special}, not read")
        data = _read_bytes(path)
    except FILE_FAULTS + (ValueError,) as exc:
        return Rejection(source, None, "unreadable file", describe_fault(exc))
    is_html = _strip_gz(path).endswith(HTML_SUFFIXES)
    if b"\x00" in data[:8192] and not data.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        encoding = wide_unicode(data)
        if encoding is None:
            return Rejection(source, None, "binary file")
        body = data.decode(encoding, errors="replace")
    else:
        body, encoding = decode_page(data) if is_html else decode(data)
    if not body or body.isspace():
        return Rejection(source, None, "empty text", row={"id": rid, "html" if is_html else "text": body})
    if mostly_replacement(body):
        return Rejection(source, None, "undecodable", f"mostly U+FFFD after decoding as {encoding or 'utf-8'}")
    if not is_html and looks_like_html(body):  # as a record's text field holding a page: extracted, never compared
        return Record(rid, None, body, source, None, {}, encoding, html_in_text=True)
    return Record(rid, None if is_html else body, body if is_html else None, source, None, {}, encoding)


def read_directory(root: Path, prefer_html: bool = False, fields: Fields = FIELDS,
                   prefix: str = "") -> Iterator[Record | Rejection]:
    """Every document and record file below ``root`` in sorted order.

    A text/HTML file is one document, its id ``prefix`` + its path relative to ``root``;
    a JSONL, Parquet, CSV/TSV or WARC file (a shard) is read as records with their own ids.
    """
    return read_entries(walk_directory(root, prefix), prefer_html, fields)


def read_entries(entries: Iterable[WalkEntry], prefer_html: bool = False,
                 fields: Fields = FIELDS) -> Iterator[Record | Rejection]:
    """The records of walked ``entries``: a record file's records, a document file as one, a rejection as is."""
    for entry in entries:
        if isinstance(entry, Rejection):
            yield entry
        elif entry[0] == "records":
            yield from read_record_file(entry[1], entry[2], prefer_html, fields)
        else:
            yield read_document_file(entry[1], entry[2])


#: What :func:`walk_directory` finds: a rejection, ``("records", path, kind)`` (a record file;
#: ``kind``: its name without ``.gz``) or ``("document", path, id)`` (a text or HTML file).
WalkEntry = Rejection | tuple[str, Path, str]


def walk_directory(root: Path, prefix: str = "") -> Iterator[WalkEntry]:
    """The files below ``root`` in the order :func:`read_directory` reads them, unread: what
    each is (or why it is not read).  The Spark engine's executors read the files this lists
    (:mod:`neardup.engines.spark_input`), so both engines see a folder the same way."""
    found = False
    unreadable: list[OSError] = []
    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable.append):
        while unreadable:  # a folder that vanished or cannot be listed: named and counted
            exc = unreadable.pop()
            found = True
            yield Rejection(str(exc.filename or dirpath), None, "unreadable folder", describe_fault(exc))
        dirnames.sort()
        for name in dirnames:
            if os.path.islink(os.path.join(dirpath, name)):  # os.walk does not enter it: say so
                found = True
                yield Rejection(os.path.join(dirpath, name), None, "symlinked folder", "not followed: links can loop")
        for name in sorted(filenames):
            path = Path(dirpath) / name
            found = True
            kind = _strip_gz(path)
            if path.is_symlink() and not path.exists():
                yield Rejection(str(path), None, "broken link", f"it names {os.readlink(path)}, which does not exist")
            elif kind.endswith(RECORD_FILE_SUFFIXES):
                yield ("records", path, kind)
            elif kind.endswith(TEXT_SUFFIXES + HTML_SUFFIXES):
                yield ("document", path, _path_id(prefix + path.relative_to(root).as_posix()))
            else:
                yield Rejection(str(path), None, "unsupported file type")
    for exc in unreadable:  # the last folder's error comes after the walk
        found = True
        yield Rejection(str(exc.filename), None, "unreadable folder", describe_fault(exc))
    if not found:
        yield Rejection(str(root), None, "empty input", "no files")


def read_record_file(p: Path, kind: str, prefer_html: bool, fields: Fields) -> Iterator[Record | Rejection]:
    """Records of a JSONL, Parquet, CSV/TSV or WARC file (``kind``: its name without ``.gz``; an entry
    ``("records", path, kind)`` of :func:`walk_directory`)."""
    if kind.endswith(JSONL_SUFFIXES):
        yield from read_jsonl(p, prefer_html, fields)
    elif kind.endswith(PARQUET_SUFFIXES):
        yield from read_parquet(p, prefer_html, fields)
    elif kind.endswith(TABLE_SUFFIXES):
        from .tabular import read_table

        yield from read_table(p, "\t" if kind.endswith(".tsv") else ",", prefer_html, fields)
    else:
        from .warc import read_warc

        yield from read_warc(p)


def read_input(path: str | os.PathLike[str], prefer_html: bool = False, fields: Fields = FIELDS,
               prefix: str = "") -> Iterator[Record | Rejection]:
    """Records of one input, by what it is: a folder, JSONL, Parquet, CSV/TSV, WARC, or one document.

    ``prefer_html``: records with both fields are read from ``html`` (e.g. to run the
    extractor on simulated pages whose clean ``text`` is also stored).  ``fields``: the
    names of the id, text and HTML fields.  ``prefix``: put before the ids of documents
    found in a folder (see :func:`read_inputs`).
    """
    return read_entries(input_entries(path, prefix), prefer_html, fields)


def input_entries(path: str | os.PathLike[str], prefix: str = "") -> Iterator[WalkEntry]:
    """What one input holds, unread (:func:`walk_directory`'s entries): a folder's files, or the
    file itself; an input that cannot be read at all raises :class:`InputError`."""
    text_url = str(path)
    if "://" in text_url:
        raise InputError(f"{text_url}: URLs are not read by the local engine; copy the data to a local path")
    p = Path(path)
    if p.is_dir():
        yield from walk_directory(p, prefix)
        return
    if not p.exists():
        raise InputError(f"{p}: no such file or directory")
    special = _special_file(p)
    if special:
        raise InputError(f"{p}: a {special}, not a file neardup reads")
    name = _strip_gz(p)
    if name.endswith(RECORD_FILE_SUFFIXES):
        yield ("records", p, name)
    elif name.endswith(TEXT_SUFFIXES + HTML_SUFFIXES):
        yield ("document", p, _path_id(str(path) if prefix else p.name))
    else:
        raise InputError(f"{p}: unknown input type (expected a folder, .jsonl, .parquet, .csv, .tsv, .warc, "
                         ".txt or .html)")


#: How documents read from files (a folder's ``.html``/``.txt``, a single page) are named:
#: ``given`` -- the input as given, then the path inside it (``crawl/day1/index.html``);
#: ``absolute`` -- the same from the absolute path; ``relative`` -- the path inside the folder
#: (a single file: its name); ``auto`` -- ``given`` with two or more inputs, else ``relative``.
FILE_IDS = ("auto", "given", "absolute", "relative")


def read_inputs(
    paths: Iterable[str | os.PathLike[str]], prefer_html: bool = False, fields: Fields = FIELDS,
    file_ids: str = "auto",
) -> Iterator[Record | Rejection]:
    """Records of several inputs, in the order given.

    With two or more inputs, the ids of documents found in folders start with the input
    as given (``a/x.html``, ``b/x.html``), so two folders holding the same relative path
    give two documents; one folder alone keeps ids relative to it.  ``file_ids`` (one of
    :data:`FILE_IDS`) chooses otherwise: the persistent index names files ``given`` by
    default, so folders added in separate runs never collide.  Records of record files
    (JSONL, Parquet, CSV, WARC) keep their own ids.
    """
    for path, prefix in _prefixed(paths, file_ids):
        yield from read_input(path, prefer_html, fields, prefix)


def inputs_entries(paths: Iterable[str | os.PathLike[str]], file_ids: str = "auto") -> Iterator[WalkEntry]:
    """The entries (:func:`input_entries`) of several inputs, in the order :func:`read_inputs` reads them."""
    for path, prefix in _prefixed(paths, file_ids):
        yield from input_entries(path, prefix)


def _prefixed(paths: Iterable[str | os.PathLike[str]], file_ids: str) -> Iterator[tuple[str | os.PathLike[str], str]]:
    """Each input with the prefix of the ids of its files (see :func:`read_inputs`)."""
    if file_ids not in FILE_IDS:
        raise ValueError(f"file_ids must be one of {', '.join(FILE_IDS)}, not {file_ids!r}")
    paths = list(paths)
    prefixed = file_ids in ("given", "absolute") or (file_ids == "auto" and len(paths) > 1)
    for path in paths:
        if file_ids == "absolute" and "://" not in str(path):
            path = Path(path).absolute()
        yield path, str(path).rstrip("/\\") + "/" if prefixed else ""
