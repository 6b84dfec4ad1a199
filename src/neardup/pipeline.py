"""The detection pipeline: read -> extract -> method (features, sketch, index, verify) -> relate -> cluster.

:class:`Deduplicator` is the Python API behind ``neardup dedup``.  It streams records
in batches through the chosen extractor and method, so memory grows with the
signatures, not with the text, and it accounts for every input: documents read, kept
and rejected (with reasons), which the run summary reports.  The same batches go to the
aligner (:mod:`neardup.align.aligner`), whose passages type each pair the method found
(:mod:`neardup.relations`: duplicate, contains, contained, shares); only copies cluster,
and a document is dropped from the deduplicated set only when the one kept for it covers it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from .cluster import CLUSTERINGS
from .engines import Engine, get_engine
from .engines.base import Destination, Relating, Written
from .errors import UserError
from .extract import DEFAULT_EXTRACTOR
from .input_stage import Progress, batches, progress_bar
from .io.dedup_rows import Cluster, Pair, pairs_of, removed_of
from .io.readers import FIELDS, Fields, Rejection, read_inputs
from .job import RunStats, run_report
from .methods import DEFAULT_METHOD, get_method
from .relations import (DEFAULT_MIN_COVERAGE, DEFAULT_UNIQUE_COVERAGE, DEDUP_MAX_DF, RELATIONS, SITE_MAX_DF,
                        Coverage, Related, parse_relations)

#: A cluster holding more than this share of the kept documents (of at least
#: ``LARGE_CLUSTER_MIN_DOCS``) is reported as a warning: stories merged by chaining.
LARGE_CLUSTER_SHARE, LARGE_CLUSTER_MIN_DOCS = 0.2, 50

#: What to try, by the clustering in effect, when one cluster holds a large share of the input: a
#: clustering that chains less (leader's members are each a near-duplicate of their representative;
#: propagation resists a few bridging pairs, components none), never the one that made the cluster.
LARGE_CLUSTER_ADVICE = {
    "propagation": "raise --threshold or use --cluster leader",
    "leader": "raise --threshold",
    "components": "raise --threshold or use --cluster propagation (the default) or leader",
}


def cluster_warnings(kept: int, largest: int, clustering: str) -> list[str]:
    """What a user should look at: a cluster holding a large share (``largest`` of ``kept``) of the input
    (chaining), with the advice for the ``clustering`` that made it."""
    if kept >= LARGE_CLUSTER_MIN_DOCS and largest > LARGE_CLUSTER_SHARE * kept:
        return [f"one cluster holds {largest:,} of {kept:,} documents ({largest / kept:.0%}): if these are not "
                f"all one story, {LARGE_CLUSTER_ADVICE[clustering]}"]
    return []


class Reported:
    """A dedup result's run report: :meth:`summary` of its ``stats``, ``params`` and :meth:`results`."""

    stats: RunStats
    params: dict[str, Any]

    def results(self) -> dict[str, Any]:
        """What was found, in numbers (the job-specific part of the run report)."""
        raise NotImplementedError

    def summary(self, inputs: Sequence[Any] = (), total: float | None = None, **extra: Any) -> dict[str, Any]:
        """The run report (:func:`neardup.job.run_report`) of this result, with ``extra`` results."""
        return run_report(self.stats, inputs, self.params, total, **self.results(), **extra)


@dataclass
class WrittenResult(Reported):
    """A run whose pairs and clusters the engine's executors wrote into the output folder themselves
    (Spark: :mod:`neardup.engines.spark_output`): the account, the parameters and the counts
    (``written``) -- no id, pair or cluster in this process.  Its summary is the one a
    :class:`DedupResult` of the same run would give."""

    stats: RunStats
    params: dict[str, Any]
    written: Written

    def results(self) -> dict[str, Any]:
        w = self.written
        return {"candidate_pairs": w.candidate_pairs, "pairs": w.pairs, "clusters": w.clusters,
                "documents_in_clusters": w.in_clusters,
                **(w.typed if w.typed is not None else {"duplicates_removable": w.in_clusters - w.clusters}),
                "largest_cluster": w.largest,
                "warnings": cluster_warnings(self.stats.kept, w.largest, self.params["cluster"])}


@dataclass
class DedupResult(Reported):
    """Output of a run: documents kept (ids, in input order: a list, or an Arrow-backed sequence when
    the Spark engine's executors read the input), pairs, clusters, stats."""

    ids: Sequence[str]
    a: np.ndarray
    b: np.ndarray
    scores: np.ndarray
    groups: list[np.ndarray]
    usable: np.ndarray
    candidate_pairs: int
    stats: RunStats
    params: dict[str, Any]
    #: The relation of every pair (``None``: relations off, the method's score alone).
    related: Related | None = None
    #: Relations listed in ``pairs`` (all pairs when relations are off).
    listed: tuple[str, ...] = RELATIONS
    #: Per document: the row of the kept document covering it (-1: kept), and that coverage.
    kept_for: np.ndarray | None = None
    kept_coverage: np.ndarray | None = None
    #: Each cluster's representative (row).
    representatives: np.ndarray | None = None
    #: What the aligner found (pairs sharing a passage, boilerplate seeds ignored, ...).
    align_counts: dict[str, int] = field(default_factory=dict)

    # The index arrays are turned into lists first: a list indexed by numpy integers is
    # several times slower, 0.06 s for the clusters of 20,000 documents.

    def listed_rows(self) -> np.ndarray:
        """Rows of ``a``/``b`` whose relation is listed (every row when relations are off)."""
        if self.related is None:
            return np.arange(self.a.shape[0])
        codes = [RELATIONS.index(r) for r in self.listed]
        return np.flatnonzero(np.isin(self.related.relation, codes))

    @property
    def pairs(self) -> list[Pair]:
        return list(self.iter_pairs())

    def iter_pairs(self, chunk: int = 4096) -> Iterator[Pair]:
        """The listed pairs in order, made ``chunk`` at a time (a writer holds one chunk, not every pair)."""
        rows = self.listed_rows()
        for lo in range(0, rows.shape[0], chunk):
            yield from self._pairs_of(rows[lo:lo + chunk])

    def _pairs_of(self, rows: np.ndarray) -> list[Pair]:
        ids = self.ids
        a, b = [ids[i] for i in self.a[rows].tolist()], [ids[i] for i in self.b[rows].tolist()]
        if self.related is None:
            return pairs_of(a, b, self.scores[rows].tolist())
        r = self.related
        return pairs_of(a, b, self.scores[rows].tolist(), [RELATIONS[k] for k in r.relation[rows].tolist()],
                        r.cov_a[rows], r.cov_b[rows], r.longest[rows])

    @property
    def clusters(self) -> list[Cluster]:
        return list(self.iter_clusters())

    def iter_clusters(self) -> Iterator[Cluster]:
        """The clusters in order, made one at a time (no list per document: a writer holds one cluster)."""
        ids = self.ids
        if self.kept_for is None or self.representatives is None or self.kept_coverage is None:
            for n, g in enumerate(self.groups):
                m = g.tolist()
                yield Cluster(n, [ids[i] for i in m], ids[m[0]])
            return
        for n, g in enumerate(self.groups):
            members = [ids[i] for i in g.tolist()]
            kept = [ids[k] if k >= 0 else None for k in self.kept_for[g].tolist()]
            yield Cluster(n, members, ids[int(self.representatives[n])],
                          removed_of(members, kept, self.kept_coverage[g]))

    def dropped_ids(self, keep_rejected: bool = False) -> set[str]:
        """Ids not in the unique output: clustered documents covered by the one kept for them (with
        relations off: every non-representative), and documents without words unless ``keep_rejected``."""
        ids = self.ids
        if self.kept_for is None:
            dropped = {ids[i] for g in self.groups for i in g[1:].tolist()}
        else:
            dropped = {ids[i] for i in np.flatnonzero(self.kept_for >= 0).tolist()}
        if not keep_rejected:
            dropped.update(ids[i] for i in np.flatnonzero(~self.usable).tolist())
        return dropped

    def warnings(self) -> list[str]:
        """What a user should look at: a cluster holding a large share of the input (chaining)."""
        return cluster_warnings(int(self.usable.sum()), max((g.shape[0] for g in self.groups), default=0),
                                self.params["cluster"])

    def results(self) -> dict[str, Any]:
        """What was found, in numbers (the job-specific part of the run report)."""
        out: dict[str, Any] = {
            "candidate_pairs": self.candidate_pairs,
            "pairs": int(self.listed_rows().shape[0]),
            "clusters": len(self.groups),
            "documents_in_clusters": int(sum(g.shape[0] for g in self.groups)),
        }
        if self.kept_for is None or self.kept_coverage is None:
            out["duplicates_removable"] = int(sum(g.shape[0] - 1 for g in self.groups))
        else:
            removed = self.kept_for >= 0
            out["duplicates_removable"] = int(removed.sum())
            out["smallest_removed_coverage"] = round(float(self.kept_coverage[removed].min()), 4) if removed.any() else None
        if self.related is not None:
            out["relations"] = self.related.counts()
            out["relations_listed"] = list(self.listed)
            out["aligned"] = self.align_counts
        out["largest_cluster"] = max((int(g.shape[0]) for g in self.groups), default=0)
        out["warnings"] = self.warnings()
        return out


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

    Relations (:mod:`neardup.relations`, on unless ``relations=False``): a document covers
    another when their shared passages hold ``min_coverage`` of the other's words; pairs get
    ``duplicate``/``contains``/``contained``/``shares`` (``similar``: no passage), ``listed``
    names the ones reported (default: the first four); only copies cluster, and
    ``unique_coverage`` is how much of a dropped document the kept one must hold.  A seed in
    more than ``site_max_df`` documents of one site is that site's boilerplate.
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
        relations: bool = True,
        min_coverage: float = DEFAULT_MIN_COVERAGE,
        unique_coverage: float = DEFAULT_UNIQUE_COVERAGE,
        listed: str | Sequence[str] | None = None,
        site_max_df: int = SITE_MAX_DF,
        **params: Any,
    ) -> None:
        if cluster not in CLUSTERINGS:
            raise UserError(f"unknown clustering {cluster!r}; choose from {', '.join(CLUSTERINGS)}")
        if isinstance(batch_bytes, bool) or not isinstance(batch_bytes, int) or batch_bytes < 1:
            raise UserError(f"batch_bytes must be a whole number of bytes, at least 1; got {batch_bytes!r}")
        for option, value, ok, must in (("--min-coverage", min_coverage, 0 < min_coverage <= 1, "above 0, at most 1"),
                                        ("--unique-coverage", unique_coverage, 0 < unique_coverage <= 1, "above 0, at most 1"),
                                        ("--site-max-df", site_max_df, site_max_df >= 0, "at least 0 (0: off)")):
            if not ok:
                raise UserError(f"{option} must be {must}; got {value}")
        self.relations, self.min_coverage, self.unique_coverage = relations, min_coverage, unique_coverage
        self.listed, self.site_max_df = parse_relations(listed), site_max_df
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

    def _aligner(self) -> Any:
        """The aligner of the relations, on this run's engine (``None`` with relations off)."""
        if not self.relations:
            return None
        from .relations import dedup_align_params

        return self.engine.aligner(dedup_align_params(self.site_max_df, self.min_coverage))

    def run(self, docs: Iterable[Any]) -> DedupResult:
        """Detect near-duplicates among ``docs`` (see :func:`as_records` for accepted items)."""
        from .relations import SiteCodes

        method = get_method(self.method_name, **self.params)
        stats = RunStats()
        ids: list[str] = []
        where: list[tuple[str, int | None]] = []
        bar = progress_bar(self.progress)
        aligner, sites = self._aligner(), SiteCodes()

        def texts() -> Iterator[list[str]]:
            for batch in batches(docs, self.extract, stats, self.strict, self.fields, self.batch_bytes):
                ids.extend(batch.ids)
                where.extend(batch.where(i) for i in range(len(batch)))
                if aligner is not None:
                    aligner.add(batch.texts, sites.of(batch.records) if self.site_max_df else None)
                bar.update(len(batch))
                yield batch.texts
            bar.stage("finding candidate pairs and scoring them")

        try:
            found = self.engine.dedup(method, texts(), stats, None if aligner is not None else self.cluster)
            for i in np.flatnonzero(~found.usable):
                stats.reject(Rejection(*where[i], "no words", ids[i]), self.strict)
            return self._result(method, found, ids, stats, aligner, bar)
        finally:
            bar.close()
            if aligner is not None:
                aligner.close()

    def run_files(self, inputs: Sequence[str], prefer_html: bool = False,
                  into: Destination | None = None) -> DedupResult | WrittenResult:
        """Detect near-duplicates among the records of the files ``inputs`` (as :meth:`run` of
        :func:`~neardup.io.readers.read_inputs`); an engine that reads files itself (Spark's
        executors: ``read_files``) reads them, with the same rows, rejections and account.  With
        ``into``, an engine whose executors also write (``writes_outputs``) writes the pairs and clusters
        there, typing them there with relations on (:class:`~neardup.engines.base.Relating`): the answer is then a :class:`WrittenResult`."""
        read = getattr(self.engine, "read_files", None)
        if read is None or not getattr(self.engine, "executors_read", False):
            return self.run(read_inputs(inputs, prefer_html, self.fields))
        from .job import MAX_LISTED_REJECTIONS

        method = get_method(self.method_name, **self.params)
        stats = RunStats()
        aligner = self._aligner()
        listed = 1 if self.strict else MAX_LISTED_REJECTIONS
        given = None
        try:
            given = read(inputs, self.extract, stats, self.strict, self.fields, prefer_html, method=method,
                         texts=aligner is not None)
            engine: Any = self.engine
            if aligner is not None:
                aligner.use_input(given)
            if into is not None and getattr(engine, "writes_outputs", False):
                relating = None if aligner is None else Relating(aligner, self.cluster, self.min_coverage,
                                                                 self.unique_coverage, self.listed)
                written: Written = engine.dedup_into(method, given, stats, self.cluster, into, listed, relating)
                self._no_words(stats, given, written.named, written.unusable)
                stats.kept = written.n - written.unusable
                params = self._params(method, written.info)
                if aligner is not None:
                    params.update(self._relation_params())
                return WrittenResult(stats, params, written)
            found = self.engine.dedup(method, given, stats, None if aligner is not None else self.cluster)
            unusable = np.flatnonzero(~found.usable)
            self._no_words(stats, given, unusable[:listed], unusable.shape[0])
            return self._result(method, found, given.ids(), stats, aligner, progress_bar(False))
        finally:
            if aligner is not None:
                aligner.close()
            if given is not None:
                given.close()

    def _no_words(self, stats: RunStats, given: Any, named: np.ndarray, unusable: int) -> None:
        """Account for the ``unusable`` documents without words of the input ``given``, naming the rows
        ``named`` (the first of them) as the local input stage does."""
        for source, line, rid in given.where(named):
            stats.reject(Rejection(source, line, "no words", rid), self.strict)
        stats.reasons["no words"] += unusable - named.shape[0]
        if not stats.reasons["no words"]:
            del stats.reasons["no words"]

    def _params(self, method: Any, info: dict[str, Any]) -> dict[str, Any]:
        """The run's parameters in its summary: the method's as applied, what it derived (``info``), the engine."""
        params = {"method": self.method_name, "extract": self.extract, "cluster": self.cluster,
                  **method.applied_params(), **info}
        if self.engine.name != "local":
            params["engine"] = self.engine.name
        return params

    def _result(self, method: Any, found: Any, ids: Sequence[str], stats: RunStats, aligner: Any, bar: Progress) -> DedupResult:
        """The run's result from what the engine ``found`` (relations typed when ``aligner``, shown on ``bar``)."""
        good, a, b, scores = found.usable, found.a, found.b, found.scores
        stats.kept = int(good.sum())
        result = DedupResult(ids, a, b, scores, found.groups, good, found.candidate_pairs, stats,
                             self._params(method, found.info))
        if aligner is not None:
            bar.stage("aligning the passages each pair shares")
            t = time.perf_counter()
            coverage = Coverage.from_chains(aligner.chains())
            t = stats.timed("align", t)
            self._relate(result, coverage, aligner.counts)
            stats.timed("relate", t)
        return result

    def _relate(self, result: DedupResult, coverage: Coverage, counts: dict[str, int]) -> None:
        """Type ``result``'s pairs by ``coverage``, cluster the copies, choose what may be dropped."""
        from .cluster import clusters_from_pairs
        from .relations import aligned_counts, copy_edges, removals

        n = len(result.ids)
        related, copy, weight = copy_edges(result.a, result.b, coverage, self.min_coverage)
        groups = clusters_from_pairs(n, result.a[copy], result.b[copy], weight, self.cluster)
        kept_for, kept_cov, reps = removals(n, groups, coverage, self.unique_coverage)
        result.groups, result.related, result.listed = groups, related, self.listed
        result.kept_for, result.kept_coverage, result.representatives = kept_for, kept_cov, reps
        result.align_counts = aligned_counts(len(coverage), counts)
        result.params.update(self._relation_params())

    def _relation_params(self) -> dict[str, Any]:
        """The relations' parameters in a summary."""
        return {"relations": True, "min_coverage": self.min_coverage, "unique_coverage": self.unique_coverage,
                "site_max_df": self.site_max_df, "align_max_df": DEDUP_MAX_DF}
