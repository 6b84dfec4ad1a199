"""The detection pipeline: read -> extract -> method (features, sketch, index, verify) -> cluster.

:class:`Deduplicator` is the Python API behind ``neardup dedup``.  It streams records
in batches through the chosen extractor and method, so memory grows with the
signatures, not with the text, and it accounts for every input: documents read, kept
and rejected (with reasons), which the run summary reports.
"""

from __future__ import annotations

import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from .cluster import CLUSTERINGS, clusters_from_pairs
from .errors import UserError
from .extract import DEFAULT_EXTRACTOR
from .input_stage import batches, progress_bar
from .io.readers import FIELDS, Fields, Rejection
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

    def run(self, docs: Iterable[Any]) -> DedupResult:
        """Detect near-duplicates among ``docs`` (see :func:`as_records` for accepted items)."""
        method = get_method(self.method_name, **self.params)
        stats = RunStats()
        ids: list[str] = []
        where: list[tuple[str, int | None]] = []
        bar = progress_bar(self.progress)
        t = time.perf_counter()
        # The method sketches batches in one worker thread, in order; its kernels release
        # the GIL.  This thread reads, parses and prepares (the GIL-bound part of
        # sketching) up to READ_AHEAD batches ahead.
        parts = []
        with ThreadPoolExecutor(max_workers=1) as worker:
            pending: deque[Future] = deque()
            for batch in batches(docs, self.extract, stats, self.strict, self.fields, self.batch_bytes):
                if len(pending) > READ_AHEAD:
                    parts.append(pending.popleft().result())
                pending.append(worker.submit(method.sketch, method.prepare(batch.texts)))
                ids.extend(batch.ids)
                where.extend(batch.where(i) for i in range(len(batch)))
                bar.update(len(batch))
            while pending:
                parts.append(pending.popleft().result())
        bar.close()
        t = stats.timed("read_and_sketch", t)
        good = np.concatenate([p.usable for p in parts]) if parts else np.zeros(0, bool)
        sk = method.finish(parts)
        del parts
        t = stats.timed("finalize", t)
        cands = method.candidate_pairs(sk)
        t = stats.timed("candidates", t)
        scores = cands.scores if cands.scores is not None else method.score(sk, cands.a, cands.b)
        hit = scores >= method.decision_threshold()
        a, b, scores = cands.a[hit], cands.b[hit], scores[hit]
        t = stats.timed("verify", t)
        for i in np.flatnonzero(~good):
            stats.reject(Rejection(*where[i], "no words", ids[i]), self.strict)
        groups = clusters_from_pairs(len(ids), a, b, scores, self.cluster)
        stats.timed("cluster", t)
        stats.kept = int(good.sum())
        params = {"method": self.method_name, "extract": self.extract, "cluster": self.cluster, **method.applied_params(),
                  **sk.info}
        return DedupResult(ids, a, b, scores, groups, good, int(hit.shape[0]), stats, params)
