"""Streaming loaders of real article texts (Reuters-21578, BBC News, JSONL).

Every loader yields plain dicts with at least ``id``, ``title`` and ``text``, where
``text`` is the article body *without* its title, paragraphs separated by ``"\\n\\n"``
and whitespace inside a paragraph collapsed to single spaces.  These clean texts are the
raw material the syndication simulator (:mod:`neardup.evaluate.synth`) turns into labeled
web-page corpora, and are small enough to be read on every run, so nothing is cached.

Loaders never hold a whole corpus: they read one file at a time and yield.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

from ..errors import UserError
from ..io.readers import Rejection
from ..job import RunStats

__all__ = [
    "ReutersStats",
    "iter_reuters",
    "iter_bbc",
    "iter_jsonl_texts",
    "load_texts",
]

# --------------------------------------------------------------------------- helpers

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # keeps "\n" (0x0a)
_SPACES = re.compile(r"\s+")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def _collapse(s: str) -> str:
    """Single-space a paragraph and strip it."""
    return _SPACES.sub(" ", s).strip()


def _paragraphs_from_blocks(text: str) -> str:
    """Blank-line separated blocks -> paragraphs joined by ``"\\n\\n"``."""
    paras = (_collapse(b) for b in _BLANK_LINE.split(text))
    return "\n\n".join(p for p in paras if p)


def _read_text(path: Path) -> str:
    """Decode a file as UTF-8, falling back to latin-1 (which never fails)."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


# --------------------------------------------------------------------------- Reuters

_REUTERS = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.S)
_NEWID = re.compile(r'\bNEWID="(\d+)"')
_TITLE = re.compile(r"<TITLE>(.*?)</TITLE>", re.S)
_BODY = re.compile(r"<BODY>(.*?)</BODY>", re.S)
_DATE = re.compile(r"<DATE>(.*?)</DATE>", re.S)
_DATELINE = re.compile(r"<DATELINE>(.*?)</DATELINE>", re.S)
_TOPICS = re.compile(r"<TOPICS>(.*?)</TOPICS>", re.S)
_PLACES = re.compile(r"<PLACES>(.*?)</PLACES>", re.S)
_D = re.compile(r"<D>(.*?)</D>", re.S)
# The wire marker ending a body: " Reuter\n&#3;" (also REUTER, reuter, REUTER..., twice).
_REUTER_TAIL = re.compile(r"(?:\s*\breuter\b[\W_]*)+\Z", re.I)


@dataclass
class ReutersStats:
    """Counts filled in by :func:`iter_reuters` when passed as ``stats=``.

    ``stories`` counts every ``<REUTERS>`` element; ``with_body`` those yielded;
    ``without_body`` those skipped (``TYPE="BRIEF"`` title-only items and
    ``TYPE="UNPROC"`` unparsed ones): ``stories == with_body + without_body``.
    """

    files: int = 0
    stories: int = 0
    with_body: int = 0
    without_body: int = 0


def _sgml_text(s: str) -> str:
    """Decode SGML entities (``&lt;``, ``&#3;``) and drop control characters."""
    return _CONTROL.sub("", html.unescape(s.replace("\r", "")))


def _reuters_paragraphs(body: str) -> str:
    """Rebuild paragraphs from the 1987 wire layout.

    Bodies are hard-wrapped at ~70 columns and a new paragraph starts with an indented
    line (``"    The dry period..."``) or after a blank line; wrapped lines are joined
    with a space.  Tables come out as one paragraph per indented row, which is fine for
    texts used as raw material.
    """
    paras: list[list[str]] = []
    new = True
    for line in body.split("\n"):
        if not line.strip():
            new = True
            continue
        if new or line[:1].isspace():
            paras.append([])
        paras[-1].append(line.strip())
        new = False
    return "\n\n".join(p for p in (_collapse(" ".join(ls)) for ls in paras) if p)


def _one(rx: re.Pattern[str], s: str) -> str:
    m = rx.search(s)
    return _sgml_text(m.group(1)) if m else ""


def _list(rx: re.Pattern[str], s: str) -> list[str]:
    m = rx.search(s)
    return [_sgml_text(d).strip() for d in _D.findall(m.group(1))] if m else []


def iter_reuters(path: str | Path, stats: ReutersStats | None = None) -> Iterator[dict]:
    """Yield the Reuters-21578 stories that have a ``<BODY>``, in file and file order.

    ``path`` is the folder holding ``reut2-000.sgm`` ... ``reut2-021.sgm`` (or one such
    file).  Each element is parsed with regular expressions (the files are not valid
    XML), decoded as latin-1, entities unescaped and control characters dropped.

    Yields ``{"id": "reuters-<NEWID>", "title", "text", "date", "dateline", "topics",
    "places", "topic"}`` where ``text`` is the body without the trailing ``Reuter``
    marker and ``topic`` is the first topic or ``None``.  Stories without a body (2,535
    of 21,578) are skipped and counted in ``stats`` if one is given.  Note that the
    collection holds a few hundred exact resends: deduplicate before using stories as
    distinct sources.
    """
    path = Path(path)
    files = sorted(path.glob("reut2-*.sgm")) if path.is_dir() else [path]
    for f in files:
        if stats is not None:
            stats.files += 1
        raw = f.read_bytes().decode("latin-1")
        for m in _REUTERS.finditer(raw):
            attrs, inner = m.group(1), m.group(2)
            if stats is not None:
                stats.stories += 1
            body_m = _BODY.search(inner)
            if body_m is None:
                if stats is not None:
                    stats.without_body += 1
                continue
            body = _REUTER_TAIL.sub("", _sgml_text(body_m.group(1)))
            newid = _NEWID.search(attrs)
            topics = _list(_TOPICS, inner)
            if stats is not None:
                stats.with_body += 1
            yield {
                "id": f"reuters-{newid.group(1) if newid else _fallback_id(f, m)}",
                "title": _collapse(_one(_TITLE, inner)),
                "text": _reuters_paragraphs(body),
                "date": _one(_DATE, inner).strip(),
                "dateline": _collapse(_one(_DATELINE, inner)).rstrip(" -").strip(),
                "topics": topics,
                "places": _list(_PLACES, inner),
                "topic": topics[0] if topics else None,
            }


def _fallback_id(f: Path, m: re.Match[str]) -> str:
    """Id for an element without NEWID (never in the real data): file stem + offset."""
    return f"{f.stem}-{m.start()}"


# --------------------------------------------------------------------------- BBC


def iter_bbc(path: str | Path) -> Iterator[dict]:
    """Yield the BBC News articles (Greene & Cunningham 2006) of a folder.

    ``path`` holds one subfolder per topic (``business``, ``sport``...), each with
    ``.txt`` files: the title on the first line, then paragraphs separated by blank
    lines.  Files are read as UTF-8, falling back to latin-1 (a few are not UTF-8).

    Yields ``{"id": "bbc-<topic>-<stem>", "title", "text", "topic"}`` in sorted order.
    """
    path = Path(path)
    for topic_dir in sorted(p for p in path.iterdir() if p.is_dir()):
        for f in sorted(topic_dir.glob("*.txt")):
            raw = _read_text(f).replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
            title, _, rest = raw.strip().partition("\n")
            yield {
                "id": f"bbc-{topic_dir.name}-{f.stem}",
                "title": _collapse(title),
                "text": _paragraphs_from_blocks(rest),
                "topic": topic_dir.name,
            }


# --------------------------------------------------------------------------- JSONL


def iter_jsonl_texts(path: str | Path, rejected: RunStats | None = None) -> Iterator[dict]:
    """Yield records of a JSONL file that have a non-empty string ``text``.

    ``id`` defaults to ``"<file stem>-<line number>"`` and ``title`` to ``""``; all other
    fields are passed through unchanged.  Blank lines are skipped; lines that are not
    such a record are counted in ``rejected`` (file:line and why) and skipped.
    """
    path = Path(path)
    rejected = rejected if rejected is not None else RunStats()
    with path.open("rb") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            rejected.read += 1
            try:
                rec = orjson.loads(line.removeprefix(b"\xef\xbb\xbf") if lineno == 1 else line)
            except orjson.JSONDecodeError as exc:
                rejected.reject(Rejection(str(path), lineno, "invalid JSON", str(exc).split(":")[0]))
                continue
            if not isinstance(rec, dict) or not isinstance(rec.get("text"), str) or not rec["text"].strip():
                rejected.reject(Rejection(str(path), lineno, "no text", "needs a non-empty string 'text'"))
                continue
            rejected.kept += 1
            rec["id"] = str(rec["id"]) if rec.get("id") is not None else f"{path.stem}-{lineno}"
            rec["title"] = str(rec.get("title") or "")
            yield rec


# --------------------------------------------------------------------------- dispatch


def shipped_articles() -> Iterator[dict]:
    """The made-up articles that ship with neardup (``neardup/data/articles.jsonl``)."""
    from importlib import resources

    raw = resources.files("neardup").joinpath("data/articles.jsonl").read_bytes()
    for line in raw.splitlines():
        if line.strip():
            yield orjson.loads(line)


def load_texts(spec: str | Path, rejected: RunStats | None = None) -> Iterator[dict]:
    """Pick a loader from what ``spec`` is and return its iterator.

    - a folder holding ``reut2-*.sgm`` (or one such file) -> :func:`iter_reuters`
    - a folder whose subfolders hold ``.txt`` files -> :func:`iter_bbc`
    - a ``.jsonl`` file -> :func:`iter_jsonl_texts`
    """
    p = Path(spec)
    if p.is_dir():
        if any(p.glob("reut2-*.sgm")):
            return iter_reuters(p)
        if any(any(d.glob("*.txt")) for d in p.iterdir() if d.is_dir()):
            return iter_bbc(p)
    elif p.is_file():
        if p.name.startswith("reut2-") and p.suffix == ".sgm":
            return iter_reuters(p)
        if p.suffix == ".jsonl":
            return iter_jsonl_texts(p, rejected)
    raise UserError(f"don't know how to read article texts from {spec!r}")
