"""The detection pipeline: read -> extract -> method (features, sketch, index, verify) -> cluster.

:class:`Deduplicator` is the Python API behind ``neardup dedup``.  It streams records
in batches through the chosen extractor and method, so memory grows with the
signatures, not with the text, and it accounts for every input: documents read, kept
and rejected (with reasons), which the run summary reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from .cluster import CLUSTERINGS
from .engines import Engine, get_engine
from .errors import UserError
from .extract import DEFAULT_EXTRACTOR
from .input_stage import batches, progress_bar
from .io.readers import FIELDS, Fields, Rejection
from .job import RunStats, run_report
from .methods import DEFAULT_METHOD, get_method

#: A cluster holding more than this share of the kept documents (of at least
#: ``LARGE_CLUSTER_MIN_DOCS``) is reported as a warning: stories merged by chaining.
LARGE_CLUSTER_SHARE, LARGE_CLUSTER_MIN_DOCS = 0.2, 50

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
    With ``strict`` the first rejected input raises :class:`InputError`.  ``engine`` runs
    the stages (:mod:`neardup.engines`): ``"local"`` (default), ``"spark"`` or an engine
    object such as ``SparkEngine(master="local[2]")``; every engine gives the same result.
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
        engine: str | Engine = "local",
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
        self.engine = get_engine(engine) if isinstance(engine, str) else engine
        self.engine.check(get_method(method, **params))  # parameters, and what the engine runs, before reading

    def run(self, docs: Iterable[Any]) -> DedupResult:
        """Detect near-duplicates among ``docs`` (see :func:`as_records` for accepted items)."""
        method = get_method(self.method_name, **self.params)
        stats = RunStats()
        ids: list[str] = []
        where: list[tuple[str, int | None]] = []
        bar = progress_bar(self.progress)

        def texts() -> Iterator[list[str]]:
            for batch in batches(docs, self.extract, stats, self.strict, self.fields, self.batch_bytes):
                ids.extend(batch.ids)
                where.extend(batch.where(i) for i in range(len(batch)))
                bar.update(len(batch))
                yield batch.texts

        found = self.engine.dedup(method, texts(), stats, self.cluster)
        bar.close()
        good, a, b, scores = found.usable, found.a, found.b, found.scores
        for i in np.flatnonzero(~good):
            stats.reject(Rejection(*where[i], "no words", ids[i]), self.strict)
        stats.kept = int(good.sum())
        params = {"method": self.method_name, "extract": self.extract, "cluster": self.cluster, **method.applied_params(),
                  **found.info}
        if self.engine.name != "local":
            params["engine"] = self.engine.name
        return DedupResult(ids, a, b, scores, found.groups, good, found.candidate_pairs, stats, params)
