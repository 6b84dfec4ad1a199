"""The local engine: every stage in this process (what ``neardup dedup`` did before engines).

Batches are sketched in one worker thread, in order, while this thread reads, parses and
prepares up to :data:`READ_AHEAD` batches ahead (the method's compiled kernels release the
GIL); then the method's ``finish``, ``candidate_pairs`` and ``score`` run over the whole
collection and the pairs are clustered by :func:`neardup.cluster.clusters_from_pairs`.

A batch's text is dropped once sketched, so memory grows with what the method keeps per
document: its sketch (MinHash, SpotSigs: a signature or set), and for a method that needs the
collection's statistics (simhash and wsample IDF weights, I-Match lexicons, ANDD) its features
until those are known -- which grow with the document's distinct words (``docs/scale.md``,
"Memory per method").  Sketches past ``memory_budget`` bytes (default: an eighth of the memory
available at the start) are spilled to files and memory-mapped (:mod:`.spill`), the features
kept for the collection's statistics too (their statistics are merged in memory; ``finish``
reads the features a piece at a time), so a corpus too large for memory runs slower instead of
being killed.
"""

from __future__ import annotations

import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Iterable, Sequence

import numpy as np

from ..cluster import clusters_from_pairs
from ..job import RunStats
from ..methods.base import Method
from .base import Found
from .spill import PartStore

#: Batches read and waiting while one is sketched: reading goes on while numba starts up
#: on the first batch and while a batch takes longer than usual.
READ_AHEAD = 3


class LocalEngine:
    """In-process engine (see the module docstring)."""

    name = "local"

    def __init__(self, memory_budget: int | None = None, spill_dir: str | None = None) -> None:
        self.memory_budget = memory_budget
        self.spill_dir = spill_dir

    def check(self, method: Method) -> None:
        """Every method runs locally."""

    def aligner(self, params: Any) -> Any:
        """The in-process :class:`~neardup.align.aligner.Aligner` (dedup's relations)."""
        from ..align.aligner import Aligner

        # seed pairs a range at a time: 1 M (16 bytes each, made in order and chained) keep the
        # aligner's peak near the sketches' when large clusters make tens of millions; the ranges do
        # not change the answer (docs/defaults.md: what the relations cost)
        return Aligner(params, pair_budget=1_000_000)

    def dedup(self, method: Method, batches: Iterable[Sequence[str]], stats: RunStats, cluster: str | None) -> Found:
        t = time.perf_counter()
        store = PartStore(self.memory_budget, self.spill_dir)
        try:
            with ThreadPoolExecutor(max_workers=1) as worker:
                pending: deque[Future] = deque()
                for texts in batches:
                    if len(pending) > READ_AHEAD:
                        store.add(pending.popleft().result())
                    pending.append(worker.submit(method.sketch, method.prepare(texts)))
                while pending:
                    store.add(pending.popleft().result())
            t = stats.timed("read_and_sketch", t)
            if store.spilled:
                stats.notes["MB of sketches spilled to disk (memory-mapped)"] += round(store.spilled_bytes / 1e6)
            parts = store.parts()
            good = np.concatenate([p.usable for p in parts]) if parts else np.zeros(0, bool)
            sk = method.finish(parts)
            del parts
            t = stats.timed("finalize", t)
            return self._pairs(method, sk, good, stats, cluster, t)
        finally:
            store.close()

    def _pairs(self, method: Method, sk: Any, good: np.ndarray, stats: RunStats, cluster: str | None,
               t: float) -> Found:
        """Candidates, verification and clusters (none when ``cluster`` is ``None``) of the finished sketches ``sk``."""
        cands = method.candidate_pairs(sk)
        t = stats.timed("candidates", t)
        a, b, scores = method.verify(sk, cands)
        assert scores is not None  # verify scores every pair
        t = stats.timed("verify", t)
        groups = [] if cluster is None else clusters_from_pairs(good.shape[0], a, b, scores, cluster)
        if cluster is not None:
            stats.timed("cluster", t)
        return Found(good, a, b, scores, int(cands.a.shape[0]), groups, dict(sk.info))
