"""The input stage every job shares: records in, documents with their text out.

:func:`documents` turns what the readers yield (or what the API is given: tuples, dicts,
DataFrames, datasets) into ``(record, text)`` -- HTML extracted, ids unique -- and counts
every record that cannot be used, with its reason, in the run's
:class:`~neardup.job.RunStats`.  ``dedup``, ``contain``, ``partial``, ``stats build`` and
``eval`` all read through it, so they accept and reject the same inputs.  It knows no
method, so the methods (and their statistics) can use it without an import cycle.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Iterator, Protocol, TextIO, cast

from .extract import get_extractor
from .extract.guard import TooDeep, html_depth_over
from .io.frames import rows_of
from .io.readers import FIELDS, Fields, Record, Rejection, mostly_replacement, record_from_mapping
from .io.records import id_problem, located, lone_surrogate
from .job import RunStats
from .text.normalize import has_words


def as_records(docs: Iterable[Any] | Any, fields: Fields = FIELDS) -> Iterator[Record | Rejection]:
    """Accept records, rejections, ``(id, text)`` tuples, dicts (``fields`` names their id,
    text and HTML fields), or a pandas DataFrame / Hugging Face Dataset of such rows."""
    for n, doc in enumerate(rows_of(docs), start=1):
        if isinstance(doc, (Record, Rejection)):
            yield doc
        elif isinstance(doc, tuple) and len(doc) == 2:
            yield record_from_mapping({"id": doc[0], "text": doc[1]}, "<api>", n)
        elif isinstance(doc, dict):
            yield record_from_mapping(doc, "<api>", n, fields=fields)
        else:
            raise TypeError(f"document {n}: expected (id, text), a dict or a Record, got {type(doc).__name__}")


def documents(
    records: Iterable[Any], extract: str, stats: RunStats, strict: bool = False, fields: Fields = FIELDS
) -> Iterator[tuple[Record, str]]:
    """The input stage: records with their text (extracted from HTML), ids unique.

    Every record that cannot be used is counted in ``stats`` with its reason (or, with
    ``strict``, raised as :class:`InputError`): a page the extractor fails on is one
    rejection ("extraction failed", naming the error), never the end of the run, and a
    text that is mostly U+FFFD (bytes no encoding explained) is "undecodable", never compared.
    """
    from functools import partial

    from .workers import in_order, workers

    extractor = get_extractor(extract)
    seen: set[str] = set()

    def looked() -> Iterator[tuple[Record | Rejection, Any]]:
        """Each item with what is known of it before its page is extracted (in input order)."""
        for item in as_records(records, fields):
            yield item, _first_look(item, extractor, seen) if isinstance(item, Record) else item

    def page(looked_item: tuple[Record | Rejection, Any]) -> Record | None:
        """The record whose page is to be extracted (without its other fields: they stay here)."""
        item, known = looked_item
        return replace(item, fields={}) if known is None and isinstance(item, Record) else None

    n = workers()
    pages = partial(pages_text, extractor if n == 1 else extract)  # a worker looks the extractor up by name
    for (item, known), got in in_order(looked(), page, pages, _page_chars, n, _where):
        if isinstance(item, Rejection) and item.skipped:
            stats.reject(item)  # not a document: counted apart, never read
            continue
        stats.read += 1
        if isinstance(item, Record):
            read: tuple[Record, str] | Rejection = (  # got: the page's text, or why it has none
                known if known is not None else got if isinstance(got, Rejection) else (item, cast(str, got)))
            if isinstance(read, Rejection):
                stats.reject(read, strict)
                continue
            if read[0].encoding:
                stats.encodings[read[0].encoding] += 1
            if read[0].html_in_text:
                stats.notes["text fields that held a web page, extracted as HTML"] += 1
            yield read
            continue
        stats.reject(item, strict)


def _page_chars(record: Record) -> int:
    return len(record.html or "")


def _where(looked_item: tuple[Record | Rejection, Any]) -> str:
    return located(looked_item[0])


@dataclass
class Batch:
    """Consecutive documents of the input stage: their records, texts and what ``admit`` said of each."""

    records: list[Record] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    values: list[Any] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.texts)

    @property
    def ids(self) -> list[str]:
        return [r.id for r in self.records]

    def where(self, i: int) -> tuple[str, int | None]:
        """File and line of document ``i`` (to name it in a rejection)."""
        return self.records[i].source, self.records[i].line


#: What a job checks of each record beyond the input stage (a time field, ...): a
#: :class:`Rejection`, or the value the job keeps with the record (``Batch.values``).
Admit = Callable[[Record], Any]


def batches(
    records: Iterable[Any], extract: str, stats: RunStats, strict: bool = False, fields: Fields = FIELDS,
    batch_bytes: int | None = 4 << 20, batch_docs: int | None = None, admit: Admit | None = None,
) -> Iterator[Batch]:
    """The documents of :func:`documents` in batches of about ``batch_bytes`` characters of
    text, or of ``batch_docs`` documents: the one batcher of every job.

    The script of every batched document is counted in ``stats.scripts`` (the summaries'
    ``scripts``).  ``admit`` sees each record in input order; a :class:`Rejection` it returns is counted
    (or raised in strict mode) like the input stage's own, anything else is kept in ``values``.
    """
    from .text.scripts import document_scripts

    batch, size = Batch(), 0
    for record, text in documents(records, extract, stats, strict, fields):
        value = None if admit is None else admit(record)
        if isinstance(value, Rejection):
            stats.reject(value, strict)
            continue
        batch.records.append(record)
        batch.texts.append(text)
        batch.values.append(value)
        size += len(text)
        if (batch_bytes is not None and size >= batch_bytes) or len(batch.texts) == batch_docs:
            stats.scripts.update(document_scripts(batch.texts))
            yield batch
            batch, size = Batch(), 0
    if batch.texts:
        stats.scripts.update(document_scripts(batch.texts))
        yield batch


def _first_look(record: Record, extractor: Any, seen: set[str]) -> tuple[Record, str] | Rejection | None:
    """``record`` with its text, or why it has none usable (see :func:`documents`); None when its
    page is still to be extracted (by :func:`text_of_record`, maybe in a worker process)."""
    bad = record_problem(record, depth=False)  # the extractor's parser refuses deep pages itself (TooDeep)
    if bad is not None:
        return bad
    if record.id in seen:
        return Rejection(record.source, record.line, "duplicate id", record.id)
    seen.add(record.id)
    return text_of_record(record, extractor) if record.text is not None else None


def text_of_record(record: Record, extractor: Any) -> tuple[Record, str] | Rejection:
    """``record`` with its text (extracted from its page), or why it has none usable: the
    checks of :func:`documents` after the id's (:func:`record_problem` and the unique id, which
    the Spark engine's reader checks over the whole input, :mod:`neardup.engines.spark_input`)."""
    if record.text is not None:
        text = record.text
    else:
        try:
            text = extractor(record.html or "")
        except TooDeep as exc:
            return Rejection(record.source, record.line, "HTML nested too deeply", str(exc))
        except Exception as exc:  # one page, whatever went wrong in a parser, is one rejection
            return Rejection(record.source, record.line, "extraction failed", f"{type(exc).__name__}: {exc}"[:200])
    if not text or text.isspace():
        return Rejection(record.source, record.line, "no text after extraction")
    if mostly_replacement(text):
        return Rejection(record.source, record.line, "undecodable", "mostly U+FFFD replacement characters")
    if not has_words(text):  # punctuation, symbols, zero-width characters: nothing any job can compare
        return Rejection(record.source, record.line, "no words", record.id)
    return record, text


def pages_text(extractor: Any, records: list[Any]) -> list[Any]:
    """The input stage's work on each record's page: its text, or the :class:`Rejection` that says
    why it has none (:func:`neardup.input_stage.text_of_record`).  ``extractor``: the extractor, or
    its name in a worker (which looks it up once per chunk)."""
    if isinstance(extractor, str):
        extractor = get_extractor(extractor)
    out = []
    for record in records:
        read = text_of_record(record, extractor)
        out.append(read if not isinstance(read, tuple) else read[1])
    return out


def record_problem(record: Record, depth: bool = True) -> Rejection | None:
    """What makes ``record`` unusable before any work is spent on it, or None: an id too long or
    not Unicode, a text or page holding a lone surrogate, a page nested too deeply to parse in time.

    Cheap (the server checks every document of a request with it before the request may join a
    group commit).
    """
    bad = id_problem(record.id, record.source, record.line)
    if bad is not None:
        return bad
    body = record.text if record.text is not None else record.html or ""
    at = lone_surrogate(body)
    if at is not None:
        return Rejection(record.source, record.line, "invalid Unicode",
                         f"{'text' if record.text is not None else 'page'} holds a lone surrogate "
                         f"(U+{ord(body[at]):04X}) at character {at}")
    if depth and record.html is not None:
        why = html_depth_over(record.html)
        if why is not None:
            return Rejection(record.source, record.line, "HTML nested too deeply", why)
    return None


class Progress(Protocol):
    """What a long job reports its progress to (:func:`progress_bar`): documents read, then the
    stages that follow reading."""

    def update(self, n: int) -> Any: ...

    def stage(self, what: str) -> Any: ...

    def close(self) -> Any: ...


class _NoProgress:
    """What :func:`progress_bar` returns when the bar is off: accepts updates, shows nothing."""

    def update(self, n: int) -> None:
        pass

    def stage(self, what: str) -> None:
        pass

    def close(self) -> None:
        pass


class _Bar:
    """A tqdm bar counting documents while they are read; then, from :meth:`stage` on, the bar
    stays as reading left it (its rate that of reading) and one line below it names the stage
    running and when it started, rewritten in place; :meth:`close` clears that line, so the
    summary (or an error) follows the bar."""

    def __init__(self, out: TextIO) -> None:
        from tqdm import tqdm

        self.out = out
        self.docs: Any = tqdm(desc="documents", unit="doc", file=out, dynamic_ncols=True)
        self.staged = False

    def update(self, n: int) -> None:
        if self.docs is not None:
            self.docs.update(n)

    def stage(self, what: str) -> None:
        if self.docs is not None:
            self.docs.close()
            self.docs = None
        self.out.write(f"\r{what} ... (since {time.strftime('%H:%M:%S')})\x1b[K")
        self.out.flush()
        self.staged = True

    def close(self) -> None:
        if self.docs is not None:
            self.docs.close()
            self.docs = None
        if self.staged:
            self.out.write("\r\x1b[K")
            self.out.flush()
            self.staged = False


def progress_bar(enabled: bool) -> Progress:
    """A bar counting documents on stderr, then naming the stages after reading (:class:`_Bar`),
    or a silent stand-in.

    tqdm is imported only to show a bar: a quiet run does not pay for its import.
    """
    if not enabled:
        return _NoProgress()
    return _Bar(sys.stderr)
