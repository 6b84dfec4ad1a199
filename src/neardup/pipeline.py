"""The detection pipeline: read -> extract -> method (features, sketch, index, verify) -> cluster.

:class:`Deduplicator` is the Python API behind ``neardup dedup``.  It streams records
in batches through the chosen extractor and method, so memory grows with the
signatures, not with the text, and it accounts for every input: documents read, kept
and rejected (with reasons), which the run summary reports.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Protocol, Sequence

import numpy as np

from .cluster import CLUSTERINGS, clusters_from_pairs
from .errors import UserError
from .extract import DEFAULT_EXTRACTOR, get_extractor
from .io.frames import rows_of
from .io.readers import FIELDS, Fields, Record, Rejection, mostly_replacement, record_from_mapping
from .job import RunStats, run_report
from .methods import DEFAULT_METHOD, get_method

#: A cluster holding more than this share of the kept documents (of at least
#: ``LARGE_CLUSTER_MIN_DOCS``) is reported as a warning: stories merged by chaining.
LARGE_CLUSTER_SHARE, LARGE_CLUSTER_MIN_DOCS = 0.2, 50

#: Batches read and waiting while one is sketched: reading goes on while numba starts up
#: on the first batch (0.15 s) and while a batch takes longer than usual.
READ_AHEAD = 3


@dataclass
class Pair:
    """A near-duplicate pair: ids in input order and the method's similarity."""

    a: str
    b: str
    score: float


@dataclass
class Cluster:
    """A group of two or more near-duplicates and the one to keep."""

    cluster: int
    ids: list[str]
    representative: str


@dataclass
class DedupResult:
    """Output of a run: documents kept (ids, in input order), pairs, clusters, stats."""

    ids: list[str]
    a: np.ndarray
    b: np.ndarray
    scores: np.ndarray
    groups: list[np.ndarray]
    usable: np.ndarray
    candidate_pairs: int
    stats: RunStats
    params: dict[str, Any]

    # The index arrays are turned into lists first: a list indexed by numpy integers is
    # several times slower, 0.06 s for the clusters of 20,000 documents.

    @property
    def pairs(self) -> list[Pair]:
        ids = self.ids
        return [Pair(ids[i], ids[j], s) for i, j, s in zip(self.a.tolist(), self.b.tolist(), self.scores.tolist())]

    @property
    def clusters(self) -> list[Cluster]:
        ids = self.ids
        members = [g.tolist() for g in self.groups]
        return [Cluster(n, [ids[i] for i in m], ids[m[0]]) for n, m in enumerate(members)]

    def dropped_ids(self, keep_rejected: bool = False) -> set[str]:
        """Ids not in the unique output: non-representatives, and documents without words unless ``keep_rejected``."""
        ids = self.ids
        dropped = {ids[i] for g in self.groups for i in g[1:].tolist()}
        if not keep_rejected:
            dropped.update(ids[i] for i in np.flatnonzero(~self.usable).tolist())
        return dropped

    def warnings(self) -> list[str]:
        """What a user should look at: a cluster holding a large share of the input (chaining)."""
        kept = int(self.usable.sum())
        largest = max((g.shape[0] for g in self.groups), default=0)
        if kept >= LARGE_CLUSTER_MIN_DOCS and largest > LARGE_CLUSTER_SHARE * kept:
            return [f"one cluster holds {largest:,} of {kept:,} documents ({largest / kept:.0%}): if these are not "
                    f"all one story, raise --threshold or use --cluster propagation"]
        return []

    def results(self) -> dict[str, Any]:
        """What was found, in numbers (the job-specific part of the run report)."""
        return {
            "candidate_pairs": self.candidate_pairs,
            "pairs": int(self.a.shape[0]),
            "clusters": len(self.groups),
            "documents_in_clusters": int(sum(g.shape[0] for g in self.groups)),
            "duplicates_removable": int(sum(g.shape[0] - 1 for g in self.groups)),
            "largest_cluster": max((int(g.shape[0]) for g in self.groups), default=0),
            "warnings": self.warnings(),
        }

    def summary(self, inputs: Sequence[Any] = (), total: float | None = None, **extra: Any) -> dict[str, Any]:
        """The run report (:func:`neardup.job.run_report`) of this result, with ``extra`` results."""
        return run_report(self.stats, inputs, self.params, total, **self.results(), **extra)


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
    extractor = get_extractor(extract)
    seen: set[str] = set()
    for item in as_records(records, fields):
        stats.read += 1
        if isinstance(item, Record):
            item = _text_of(item, extractor, seen)
            if not isinstance(item, Rejection):
                if item[0].encoding:
                    stats.encodings[item[0].encoding] += 1
                if item[0].html_in_text:
                    stats.notes["text fields that held a web page, extracted as HTML"] += 1
                yield item
                continue
        stats.reject(item, strict)


def _text_of(record: Record, extractor: Any, seen: set[str]) -> tuple[Record, str] | Rejection:
    """``record`` with its text, or why it has none usable (see :func:`documents`)."""
    if record.id in seen:
        return Rejection(record.source, record.line, "duplicate id", record.id)
    seen.add(record.id)
    if record.text is not None:
        text = record.text
    else:
        try:
            text = extractor(record.html or "")
        except Exception as exc:  # one page, whatever went wrong in a parser, is one rejection
            return Rejection(record.source, record.line, "extraction failed", f"{type(exc).__name__}: {exc}"[:200])
    if not text or text.isspace():
        return Rejection(record.source, record.line, "no text after extraction")
    if mostly_replacement(text):
        return Rejection(record.source, record.line, "undecodable", "mostly U+FFFD replacement characters")
    return record, text


class Progress(Protocol):
    """What a long job reports its progress to (:func:`progress_bar`)."""

    def update(self, n: int) -> Any: ...

    def close(self) -> Any: ...


class _NoProgress:
    """What :func:`progress_bar` returns when the bar is off: accepts updates, shows nothing."""

    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(enabled: bool) -> Progress:
    """A tqdm bar counting documents on stderr, or a silent stand-in.

    tqdm is imported only to show a bar: its import costs every quiet run 5-10 ms.
    """
    if not enabled:
        return _NoProgress()
    from tqdm import tqdm

    return tqdm(desc="documents", unit="doc", file=sys.stderr, dynamic_ncols=True)


class Deduplicator:
    """Finds near-duplicate pairs and clusters in a stream of documents.

    >>> dd = Deduplicator(method="minhash", threshold=0.8, shingle_size=3)
    >>> result = dd.run([("a", "the cat sat on the mat today"), ("b", "the cat sat on the mat today!")])
    >>> [(p.a, p.b) for p in result.pairs]
    [('a', 'b')]

    ``method`` names a registered method; remaining keyword arguments are its
    parameters.  ``extract`` names the HTML extractor used for records with ``html``.
    ``cluster`` names how pairs become clusters (:mod:`neardup.cluster`): label
    ``propagation`` (default), ``leader`` or connected ``components``.  ``fields`` names
    the id, text and HTML fields of dict rows; ``run`` also takes a pandas DataFrame or a
    Hugging Face Dataset.
    With ``strict`` the first rejected input raises :class:`InputError`.
    """

    def __init__(
        self,
        method: str = DEFAULT_METHOD,
        extract: str = DEFAULT_EXTRACTOR,
        strict: bool = False,
        progress: bool = False,
        batch_bytes: int = 4 << 20,
        cluster: str = CLUSTERINGS[0],
        fields: Fields = FIELDS,
        **params: Any,
    ) -> None:
        if cluster not in CLUSTERINGS:
            raise UserError(f"unknown clustering {cluster!r}; choose from {', '.join(CLUSTERINGS)}")
        self.cluster = cluster
        self.fields = fields
        self.method_name = method
        self.extract = extract
        self.strict = strict
        self.progress = progress
        self.batch_bytes = batch_bytes
        self.params = params
        get_method(method, **params)  # validate parameters now, not after reading

    def _batches(
        self, docs: Iterable[Any], stats: RunStats, where: list[tuple[str, int | None]]
    ) -> Iterator[tuple[list[str], list[str]]]:
        """Documents grouped into batches of about ``batch_bytes`` characters of text.

        Appends each document's file and line to ``where`` (to name it if it has no words).
        """
        ids: list[str] = []
        texts: list[str] = []
        size = 0
        for record, text in documents(docs, self.extract, stats, self.strict, self.fields):
            ids.append(record.id)
            where.append((record.source, record.line))
            texts.append(text)
            size += len(text)
            if size >= self.batch_bytes:
                yield ids, texts
                ids, texts, size = [], [], 0
        if ids:
            yield ids, texts

    def run(self, docs: Iterable[Any]) -> DedupResult:
        """Detect near-duplicates among ``docs`` (see :func:`as_records` for accepted items)."""
        method = get_method(self.method_name, **self.params)
        stats = RunStats()
        ids: list[str] = []
        where: list[tuple[str, int | None]] = []
        usable: list[np.ndarray] = []
        bar = progress_bar(self.progress)
        t = time.perf_counter()
        # The method adds batches in one worker thread, in order; its kernels release the
        # GIL.  This thread reads, parses and prepares (the GIL-bound part of adding) up to
        # READ_AHEAD batches ahead.
        with ThreadPoolExecutor(max_workers=1) as worker:
            pending: deque[Future] = deque()
            for batch_ids, batch_texts in self._batches(docs, stats, where):
                if len(pending) > READ_AHEAD:
                    usable.append(pending.popleft().result())
                pending.append(worker.submit(method.add_prepared, method.prepare(batch_texts)))
                ids.extend(batch_ids)
                bar.update(len(batch_ids))
            while pending:
                usable.append(pending.popleft().result())
        bar.close()
        t = stats.timed("read_and_sketch", t)
        method.finalize()
        t = stats.timed("finalize", t)
        a, b = method.candidate_pairs()
        t = stats.timed("candidates", t)
        scores = method.score(a, b)
        hit = scores >= method.threshold
        a, b, scores = a[hit], b[hit], scores[hit]
        t = stats.timed("verify", t)
        good = np.concatenate(usable) if usable else np.zeros(0, bool)
        for i in np.flatnonzero(~good):
            stats.reject(Rejection(*where[i], "no words", ids[i]), self.strict)
        groups = clusters_from_pairs(len(ids), a, b, scores, self.cluster)
        stats.timed("cluster", t)
        stats.kept = int(good.sum())
        params = {"method": self.method_name, "extract": self.extract, "cluster": self.cluster, **method.get_params()}
        return DedupResult(ids, a, b, scores, groups, good, int(hit.shape[0]), stats, params)
