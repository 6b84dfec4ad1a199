"""Readers: JSONL, Parquet and directories of text/HTML files, any of them gzip-compressed.

Every input becomes a stream of :class:`Record` (a document) and :class:`Rejection`
(something that could not become one, with the file, the line or row, and the reason).
Nothing is dropped silently: the caller counts both, and ``--strict`` turns the first
rejection into an error.  Records keep all their original fields, so ``--unique`` can
write them back unchanged.
"""

from __future__ import annotations

import gzip
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

import orjson

TEXT_SUFFIXES = (".txt",)
HTML_SUFFIXES = (".htm", ".html")
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
PARQUET_SUFFIXES = (".parquet", ".pq")
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)


@dataclass
class Record:
    """One input document: ``text`` or ``html`` (exactly one is set), plus its source."""

    id: str
    text: str | None
    html: str | None
    source: str
    line: int | None
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass
class Rejection:
    """An input unit that was not turned into a document, and why."""

    source: str
    line: int | None
    reason: str
    detail: str = ""

    def message(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.reason}" + (f" ({self.detail})" if self.detail else "")


class InputError(Exception):
    """Raised for a rejection in strict mode, or an input that cannot be opened at all."""


def _strip_gz(path: Path) -> str:
    name = path.name.lower()
    return name[:-3] if name.endswith(".gz") else name


def _read_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def _open_text_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    with open(path, "rb") as probe:
        gzipped = probe.read(2) == b"\x1f\x8b"
    with (gzip.open(path, "rb") if gzipped else open(path, "rb")) as fh:
        for number, line in enumerate(fh, start=1):
            yield number, line


def decode_html(data: bytes) -> str:
    """Decode page bytes: valid UTF-8 first, else the declared charset, else windows-1252.

    Bytes that decode as UTF-8 are almost never meant as anything else, while declared
    charsets are often stale (pages re-encoded to UTF-8 keep their old ``<meta charset>``);
    windows-1252 is HTML5's default for undeclared legacy pages.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    declared = _META_CHARSET.search(data[:4096])
    if declared:
        try:
            return data.decode(declared.group(1).decode("ascii"), errors="replace")
        except LookupError:
            pass
    return data.decode("cp1252", errors="replace")


def record_from_mapping(obj: Any, source: str, line: int, prefer_html: bool = False) -> Record | Rejection:
    """A record from a JSON object or Parquet row, or why it cannot be one.

    A record with both ``text`` and ``html`` uses ``text`` unless ``prefer_html``.
    """
    if not isinstance(obj, dict):
        return Rejection(source, line, "not a JSON object")
    rid = obj.get("id")
    if rid is None or isinstance(rid, (dict, list, bool)) or rid == "":
        return Rejection(source, line, "missing id")
    text, html = obj.get("text"), obj.get("html")
    if prefer_html and html is not None:
        text = None
    if text is None and html is None:
        return Rejection(source, line, "missing text", "a record needs a 'text' or 'html' field")
    body = text if text is not None else html
    if not isinstance(body, str):
        return Rejection(source, line, "text is not a string", type(body).__name__)
    if not body or body.isspace():
        return Rejection(source, line, "empty text")
    return Record(str(rid), text if text is not None else None, None if text is not None else html, source, line, obj)


def read_jsonl(path: Path, prefer_html: bool = False) -> Iterator[Record | Rejection]:
    """Records of a JSONL file (one JSON object per line, blank lines ignored)."""
    source = str(path)
    seen_any = False
    for number, raw in _open_text_lines(path):
        if raw.isspace():  # blank line (a line read from a file is never empty)
            continue
        seen_any = True
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            reason = "undecodable bytes" if _bad_utf8(raw) else "invalid JSON"
            yield Rejection(source, number, reason, str(exc).split(":")[0])
            continue
        yield record_from_mapping(obj, source, number, prefer_html)
    if not seen_any:
        yield Rejection(source, None, "empty input", "no records")


def _bad_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def read_parquet(path: Path, prefer_html: bool = False) -> Iterator[Record | Rejection]:
    """Records of a Parquet file with the same columns as JSONL (row numbers from 1)."""
    import pyarrow.parquet as pq

    source = str(path)
    try:
        pf = pq.ParquetFile(path)
    except Exception as exc:  # pyarrow raises several types for corrupt files
        yield Rejection(source, None, "unreadable Parquet", str(exc))
        return
    row = 0
    for batch in pf.iter_batches(batch_size=4096):
        for obj in batch.to_pylist():
            row += 1
            yield record_from_mapping(obj, source, row, prefer_html)
    if row == 0:
        yield Rejection(source, None, "empty input", "no records")


def read_document_file(path: Path, rid: str) -> Record | Rejection:
    """One ``.txt`` / ``.htm`` / ``.html`` file (optionally ``.gz``) as one document."""
    source = str(path)
    try:
        data = _read_bytes(path)
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        return Rejection(source, None, "unreadable file", str(exc))
    if b"\x00" in data[:8192]:
        return Rejection(source, None, "binary file")
    is_html = _strip_gz(path).endswith(HTML_SUFFIXES)
    if is_html:
        body = decode_html(data)
    else:
        try:
            body = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            return Rejection(source, None, "undecodable bytes", f"not UTF-8 at byte {exc.start}")
    if not body or body.isspace():
        return Rejection(source, None, "empty text")
    return Record(rid, None if is_html else body, body if is_html else None, source, None, {})


def read_directory(root: Path) -> Iterator[Record | Rejection]:
    """Every text/HTML file below ``root`` in sorted order; id = path relative to ``root``."""
    found = False
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            found = True
            if not _strip_gz(path).endswith(TEXT_SUFFIXES + HTML_SUFFIXES):
                yield Rejection(str(path), None, "unsupported file type")
                continue
            yield read_document_file(path, path.relative_to(root).as_posix())
    if not found:
        yield Rejection(str(root), None, "empty input", "no files")


def read_input(path: str | os.PathLike[str], prefer_html: bool = False) -> Iterator[Record | Rejection]:
    """Records of one input, by what it is: a directory, JSONL, Parquet, or one document file.

    ``prefer_html``: records with both fields are read from ``html`` (e.g. to run the
    extractor on simulated pages whose clean ``text`` is also stored).
    """
    p = Path(path)
    if p.is_dir():
        yield from read_directory(p)
        return
    if not p.exists():
        raise InputError(f"{p}: no such file or directory")
    name = _strip_gz(p)
    if name.endswith(JSONL_SUFFIXES):
        yield from read_jsonl(p, prefer_html)
    elif name.endswith(PARQUET_SUFFIXES):
        yield from read_parquet(p, prefer_html)
    elif name.endswith(TEXT_SUFFIXES + HTML_SUFFIXES):
        yield read_document_file(p, p.name)
    else:
        raise InputError(f"{p}: unknown input type (expected a directory, .jsonl, .parquet, .txt or .html)")


def read_inputs(
    paths: Iterable[str | os.PathLike[str]], prefer_html: bool = False
) -> Iterator[Record | Rejection]:
    """Records of several inputs, in the order given."""
    for path in paths:
        yield from read_input(path, prefer_html)
