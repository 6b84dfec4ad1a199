"""The detection pipeline: read -> extract -> method (features, sketch, index, verify) -> cluster.

:class:`Deduplicator` is the Python API behind ``neardup dedup``.  It streams records
in batches through the chosen extractor and method, so memory grows with the
signatures, not with the text, and it accounts for every input: documents read, kept
and rejected (with reasons), which the run summary reports.
"""

from __future__ import annotations

import sys
import time
from collections import Counter, deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Protocol

import numpy as np

from .cluster import clusters_from_pairs
from .extract import DEFAULT_EXTRACTOR, get_extractor
from .io.readers import InputError, Record, Rejection, record_from_mapping
from .methods import get_method

#: Rejections listed one by one in the summary; beyond this they are only counted.
MAX_LISTED_REJECTIONS = 1000

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


def listed_rejections(messages: list[str], total: int, listed: int = 5, more: str = "") -> list[str]:
    """The first ``listed`` rejection messages as report lines, and how many more there were (``more``: where)."""
    lines = [f"  rejected {msg}" for msg in messages[:listed]]
    if total > listed:
        lines.append(f"  ... {total - listed:,} more rejections{more}")
    return lines


@dataclass
class RunStats:
    """What happened to the input: counts, rejections and time per stage."""

    read: int = 0
    kept: int = 0
    reasons: Counter = field(default_factory=Counter)
    rejections: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    def reject(self, rejection: Rejection, strict: bool = False) -> None:
        """Count ``rejection`` (and list it), or raise it in strict mode."""
        if strict:
            raise InputError(rejection.message())
        self.reasons[rejection.reason] += 1
        if len(self.rejections) < MAX_LISTED_REJECTIONS:
            self.rejections.append(rejection.message())

    def counts(self) -> dict[str, Any]:
        """Records read, kept and rejected (in all and by reason)."""
        return {
            "read": self.read,
            "kept": self.kept,
            "rejected": sum(self.reasons.values()),
            "rejected_by_reason": dict(sorted(self.reasons.items())),
        }

    def rejection_report(self, source: str, listed: int = 5) -> list[str]:
        """Lines telling what of ``source`` was rejected and why (none when nothing was)."""
        c = self.counts()
        if not c["rejected"]:
            return []
        why = ", ".join(f"{reason} {n:,}" for reason, n in c["rejected_by_reason"].items())
        head = f"{source}: read {c['read']:,} records, kept {c['kept']:,}, rejected {c['rejected']:,} ({why})"
        return [head] + listed_rejections(self.rejections, c["rejected"], listed)

    def timed(self, stage: str, start: float) -> float:
        now = time.perf_counter()
        self.seconds[stage] = self.seconds.get(stage, 0.0) + now - start
        return now


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

    def dropped_ids(self) -> set[str]:
        """Ids not in the unique output: non-representatives and documents without words."""
        ids = self.ids
        dropped = {ids[i] for g in self.groups for i in g[1:].tolist()}
        dropped.update(ids[i] for i in np.flatnonzero(~self.usable).tolist())
        return dropped

    def summary(self) -> dict[str, Any]:
        s = self.stats
        return {
            "documents": s.counts(),
            "candidate_pairs": self.candidate_pairs,
            "pairs": int(self.a.shape[0]),
            "clusters": len(self.groups),
            "documents_in_clusters": int(sum(g.shape[0] for g in self.groups)),
            "duplicates_removable": int(sum(g.shape[0] - 1 for g in self.groups)),
            "seconds": {k: round(v, 3) for k, v in s.seconds.items()},
            "parameters": self.params,
            "rejections": s.rejections,
        }


def as_records(docs: Iterable[Any]) -> Iterator[Record | Rejection]:
    """Accept records, rejections, ``(id, text)`` tuples or ``{"id", "text"}`` dicts."""
    for n, doc in enumerate(docs, start=1):
        if isinstance(doc, (Record, Rejection)):
            yield doc
        elif isinstance(doc, tuple) and len(doc) == 2:
            yield record_from_mapping({"id": doc[0], "text": doc[1]}, "<api>", n)
        elif isinstance(doc, dict):
            yield record_from_mapping(doc, "<api>", n)
        else:
            raise TypeError(f"document {n}: expected (id, text), a dict or a Record, got {type(doc).__name__}")


def documents(
    records: Iterable[Any], extract: str, stats: RunStats, strict: bool = False
) -> Iterator[tuple[Record, str]]:
    """The input stage: records with their text (extracted from HTML), ids unique.

    Every record that cannot be used is counted in ``stats`` with its reason (or, with
    ``strict``, raised as :class:`InputError`).
    """
    extractor = get_extractor(extract)
    seen: set[str] = set()
    for item in as_records(records):
        stats.read += 1
        if isinstance(item, Record):
            if item.id in seen:
                item = Rejection(item.source, item.line, "duplicate id", item.id)
            else:
                seen.add(item.id)
                text = item.text if item.text is not None else extractor(item.html or "")
                if text and not text.isspace():
                    yield item, text
                    continue
                item = Rejection(item.source, item.line, "no text after extraction")
        stats.reject(item, strict)


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
    With ``strict`` the first rejected input raises :class:`InputError`.
    """

    def __init__(
        self,
        method: str = "minhash",
        extract: str = DEFAULT_EXTRACTOR,
        strict: bool = False,
        progress: bool = False,
        batch_bytes: int = 4 << 20,
        **params: Any,
    ) -> None:
        self.method_name = method
        self.extract = extract
        self.strict = strict
        self.progress = progress
        self.batch_bytes = batch_bytes
        self.params = params
        get_method(method, **params)  # validate parameters now, not after reading

    def _batches(self, docs: Iterable[Any], stats: RunStats) -> Iterator[tuple[list[str], list[str]]]:
        """Documents grouped into batches of about ``batch_bytes`` characters of text."""
        ids: list[str] = []
        texts: list[str] = []
        size = 0
        for record, text in documents(docs, self.extract, stats, self.strict):
            ids.append(record.id)
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
        usable: list[np.ndarray] = []
        bar = progress_bar(self.progress)
        t = time.perf_counter()
        # The method adds batches in one worker thread, in order; its kernels release the
        # GIL.  This thread reads, parses and prepares (the GIL-bound part of adding) up to
        # READ_AHEAD batches ahead.
        with ThreadPoolExecutor(max_workers=1) as worker:
            pending: deque[Future] = deque()
            for batch_ids, batch_texts in self._batches(docs, stats):
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
            stats.reject(Rejection("<text>", None, "no words", ids[i]), self.strict)
        groups = clusters_from_pairs(len(ids), a, b)
        stats.timed("cluster", t)
        stats.kept = int(good.sum())
        params = {"method": self.method_name, "extract": self.extract, **method.get_params()}
        return DedupResult(ids, a, b, scores, groups, good, int(hit.shape[0]), stats, params)
