"""The interface every document-level detection method implements: parameters and pure stages.

A method holds only its parameters (set in ``__init__``, validated there, never changed by
the work: scikit-learn's rule) and, for a method that learns, what :meth:`Method.fit`
learned.  The work is a chain of stages over :class:`Sketches` -- per-document columns in
plain numpy arrays -- that any engine can run: the in-process pipeline, the online index,
a Spark job::

    part = method.sketch(method.prepare(texts))   # per batch, pure: features -> sketch
    sk = method.finish([part, ...])                # corpus level: merge the batches' statistics
                                                   # (document frequencies ...) and apply them,
                                                   # a piece at a time (Method.apply_in_pieces)
    cands = method.candidate_pairs(sk)                  # index: pairs worth verifying (rows of sk),
                                                   # already scored when the method verifies there
    s = method.score(sk, a, b)                     # verify: the method's similarity of given pairs

``prepare`` is the part of sketching that holds the interpreter (text normalization and
encoding); the pipeline runs it in its reading thread and ``sketch`` in a worker, so the
compiled kernels never wait for the GIL.  ``finish`` of the concatenation of any batching
of the same documents gives the same sketches, so results do not depend on batch sizes
(``tests/test_batching.py``).  Methods whose candidates come from shared keys (LSH bands,
I-Match signatures) also expose them by :meth:`Method.keys`, which is what a group-by engine
or a persistent index stores.

:class:`Collection` keeps the stages' state for callers that add documents over time
(the evaluation harness, ``explain``): ``add`` batches, ``finalize`` once, then query.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, NamedTuple, Sequence, get_args, get_type_hints

import numpy as np

from ..errors import UserError
from ..features.sets import HashedSets, pieces
from ..params import Params

#: Entries (a document's feature) to which the collection's statistics are applied at a time
#: (:meth:`Method.apply_in_pieces`): what weighing and signing them allocates (weights, lookups,
#: tens of bytes an entry) exists for one piece only, never for the collection.
PIECE_ENTRIES = 1 << 18


@dataclass
class Sketches:
    """What a method made of some documents: per-document columns, rows in input order.

    ``columns`` hold one row per document (signatures, sizes, flags); ``lists`` hold the
    concatenated per-document lists (feature hashes, their weights or counts), all split
    by the one ``offsets`` array (CSR).  ``stats`` is a batch's mergeable corpus statistic
    (e.g. document frequencies) and ``features`` a batch's features in a method's own
    structure (with a ``concat``), both consumed by :meth:`Method.finish`; ``info`` records
    what ``finish`` derived from the corpus (e.g. the antecedents SpotSigs picked), for reports.
    """

    usable: np.ndarray
    columns: dict[str, np.ndarray] = field(default_factory=dict)
    lists: dict[str, np.ndarray] = field(default_factory=dict)
    offsets: np.ndarray | None = None
    stats: Any = None
    info: dict[str, Any] = field(default_factory=dict)
    features: Any = None

    def __len__(self) -> int:
        return self.usable.shape[0]

    def list_sizes(self) -> np.ndarray:
        """Length of each document's lists (0 when the method keeps none)."""
        return np.diff(self.offsets) if self.offsets is not None else np.zeros(len(self), np.int64)

    def take(self, rows: np.ndarray) -> "Sketches":
        """The sketches of ``rows`` only, in that order (finished sketches: no ``stats``/``features``)."""
        rows = np.asarray(rows, dtype=np.int64)
        columns = {k: v[rows] for k, v in self.columns.items()}
        lists, offsets = {}, None
        if self.offsets is not None:
            starts, sizes = self.offsets[rows], self.list_sizes()[rows]
            offsets = np.zeros(rows.shape[0] + 1, dtype=np.int64)
            np.cumsum(sizes, out=offsets[1:])
            index = np.repeat(starts - offsets[:-1], sizes) + np.arange(int(offsets[-1]))
            lists = {k: v[index] for k, v in self.lists.items()}
        return Sketches(self.usable[rows], columns, lists, offsets, None, dict(self.info))

    def rows(self, lo: int, hi: int) -> "Sketches":
        """Documents ``lo`` to ``hi`` (views of the columns and lists, offsets from 0; no ``stats``
        or ``features``): a piece of a batch, read from its file when the batch was spilled."""
        lists, offsets = {}, None
        if self.offsets is not None:
            a, b = int(self.offsets[lo]), int(self.offsets[hi])
            lists = {k: v[a:b] for k, v in self.lists.items()}
            offsets = self.offsets[lo : hi + 1] - a
        columns = {k: v[lo:hi] for k, v in self.columns.items()}
        return Sketches(self.usable[lo:hi], columns, lists, offsets, None, dict(self.info))

    def pieces(self, limit: int) -> list[tuple[int, int]]:
        """Consecutive row ranges ``(lo, hi)`` of at most ``limit`` list entries each (a document
        with more is a range alone; no lists: one range of every row)."""
        if self.offsets is None:
            return [(0, len(self))] if len(self) else []
        return pieces(self.offsets, limit)

    @staticmethod
    def concat(parts: Sequence["Sketches"]) -> "Sketches":
        """The rows of ``parts`` in order, in one :class:`Sketches` (``stats`` are not merged here)."""
        if len(parts) == 1:
            p = parts[0]
            return Sketches(p.usable, dict(p.columns), dict(p.lists), p.offsets, None, dict(p.info))
        if not parts:
            return Sketches(np.zeros(0, bool))
        first = parts[0]
        columns = {k: np.concatenate([p.columns[k] for p in parts]) for k in first.columns}
        lists = {k: np.concatenate([p.lists[k] for p in parts]) for k in first.lists}
        offsets = None
        if first.offsets is not None:
            sizes = np.concatenate([p.list_sizes() for p in parts])
            offsets = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
            np.cumsum(sizes, out=offsets[1:])
        return Sketches(np.concatenate([p.usable for p in parts]), columns, lists, offsets, None, dict(first.info))


def sets_of(sk: Sketches, name: str = "hashes") -> HashedSets:
    """The per-document feature sets kept in ``sk.lists[name]`` (none: sketches of no batch)."""
    if sk.offsets is None:
        return HashedSets(np.zeros(0, np.uint64), np.zeros(len(sk) + 1, np.int64))
    return HashedSets(sk.lists[name], sk.offsets)


class Candidates(NamedTuple):
    """Pairs ``(a, b)``, ``a < b``, rows of the sketches; ``scores`` when already verified."""

    a: np.ndarray
    b: np.ndarray
    scores: np.ndarray | None = None


def no_pairs() -> Candidates:
    return Candidates(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float64))


#: The kinds of :class:`CandidatePlan`.
PLAN_KINDS = ("keys", "set_join", "hamming")


@dataclass(frozen=True)
class CandidatePlan:
    """How a method's candidates can be found by code that is not the method's own (a Spark
    stage, a persistent index): what the method declares, so no engine or index asks its name.

    * ``keys`` -- documents sharing at least ``min_shared`` of :meth:`Method.keys` at one slot
      (LSH bands, supershingles, I-Match signatures);
    * ``set_join`` -- an exact join of the feature sets ``sk.lists["hashes"]`` at the threshold
      under ``measure`` (``jaccard`` or ``containment``); the candidates are the answer;
    * ``hamming`` -- documents whose fingerprints ``sk.columns[column]`` (``bits`` wide) differ in
      at most ``radius`` bits; ``blocks`` of Manku's permuted tables when the user chose them
      (:func:`neardup.index.hamming.table_keys`: every such pair shares one table's key).
    """

    kind: str
    min_shared: int = 1
    measure: str = ""
    column: str = ""
    bits: int = 0
    radius: int = 0
    blocks: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in PLAN_KINDS:
            raise ValueError(f"candidate plan kind must be one of {', '.join(PLAN_KINDS)}, got {self.kind!r}")


class Method(Params, ABC):
    """A near-duplicate detection method: parameters (:class:`~neardup.params.Params`: ``get_params``,
    ``clone``) plus the stages that do the work."""

    name: ClassVar[str]
    #: One line for ``neardup methods`` and the README.
    summary: ClassVar[str]
    #: Help text of each ``__init__`` parameter (the CLI makes an option of each).
    param_help: ClassVar[dict[str, str]] = {}
    #: Allowed values of the parameters that take one of a few.
    param_choices: ClassVar[dict[str, tuple[str, ...]]] = {}
    #: ``candidates`` returns exactly the pairs at or above the threshold, with their scores
    #: (exact joins, Hamming searches): an engine need not score them again.
    verifies: ClassVar[bool] = False

    def __init__(self, threshold: float | None, seed: int) -> None:
        """``threshold`` None: the method decides it (:meth:`decision_threshold`)."""
        if threshold is not None and not 0.0 <= threshold <= 1.0:
            raise UserError(f"threshold must be between 0 and 1, got {threshold}")
        self.threshold = threshold
        self.seed = seed

    def check_choices(self, **values: str) -> None:
        """Reject a parameter value that is not among the method's :attr:`param_choices`."""
        for name, value in values.items():
            allowed = self.param_choices[name]
            if value not in allowed:
                raise UserError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")

    def applied_params(self) -> dict[str, Any]:
        """:meth:`get_params` with the threshold actually applied (what a run report records)."""
        return {**self.get_params(), "threshold": self.decision_threshold()}

    def decision_threshold(self) -> float:
        """The threshold pairs are kept at: the one given, or the method's own choice."""
        if self.threshold is None:
            raise NotImplementedError(f"method {self.name} needs a threshold")
        return self.threshold

    # -- capabilities (read by engines and indexes instead of the method's name) --------
    def corpus_statistics(self) -> str | None:
        """Why this method's sketches need statistics of the whole collection, or ``None``.

        The rule, stated once: a method is *corpus dependent* when :meth:`finish` applies
        statistics merged from every batch (document frequencies, the most frequent words),
        so one document sketched alone does not get the row a run over the collection gives
        it.  An online index cannot serve such a method; an engine must compute the
        statistics over the whole input before it signs a document.  The answer (a phrase
        naming the statistic) is what their messages quote.
        """
        return None

    @property
    def corpus_dependent(self) -> bool:
        """Whether :meth:`corpus_statistics` names any (see there)."""
        return self.corpus_statistics() is not None

    def candidate_plan(self) -> CandidatePlan:
        """How the candidates of :meth:`candidate_pairs` are found (:class:`CandidatePlan`)."""
        raise NotImplementedError(f"method {self.name} declares no candidate plan")

    def apply_statistics(self, sk: Sketches, stats: Any) -> Sketches:
        """A corpus-dependent method's finished sketches of ``sk`` (the concatenated batches, or
        any one of them) under ``stats``, the merge of every batch's ``Sketches.stats``.

        :meth:`finish` is this over all batches; it works row by row given ``stats``, so an engine
        that merges the statistics elsewhere (a distributed stage exchanging their
        ``tables()``) and applies them batch by batch gets the same rows.  The result's
        ``info`` depends on ``stats`` only (what the run reports).  By default
        :meth:`apply_in_pieces` of the one batch."""
        return self.apply_in_pieces([sk], stats)

    def statistics_applier(self, stats: Any) -> Callable[[Sketches], Sketches]:
        """The function that finishes the sketches of a piece of documents under ``stats`` (what a
        method derives from ``stats`` alone, a cutoff or a band, computed here once for every piece);
        a method that implements it gets :meth:`apply_statistics` and :meth:`apply_in_pieces`."""
        raise NotImplementedError(f"method {self.name} applies no corpus statistics")

    def apply_in_pieces(self, parts: Sequence[Sketches], stats: Any) -> Sketches:
        """The finished sketches of the documents of ``parts`` (consecutive batches, their features
        in ``lists``) under ``stats``: :meth:`statistics_applier` of a piece of at most
        :data:`PIECE_ENTRIES` entries at a time, then only the finished pieces' columns and lists
        joined.

        So no batch's features are joined with another's, and what applying the statistics
        allocates (weights, lookups) exists for one piece at a time; a batch the engine spilled is
        read from its file a piece at a time.  The rows do not depend on the pieces: the statistics
        apply row by row."""
        apply = self.statistics_applier(stats)
        done = [apply(p.rows(lo, hi)) for p in parts for lo, hi in p.pieces(PIECE_ENTRIES)]
        if not done:  # no document: the rows of none (empty columns of the right shapes)
            return apply(Sketches.concat(parts))
        return Sketches.concat(done)

    # -- learning ----------------------------------------------------------------------
    @property
    def learns(self) -> bool:
        """Whether the method learns from labeled clusters (:meth:`fit`); the evaluation
        harness then trains a clone on the development side of every split."""
        return False

    def fit(self, texts: Sequence[str], clusters: np.ndarray) -> "Method":
        """Learn from ``texts`` labeled with ``clusters`` (negative: a singleton); returns self."""
        raise NotImplementedError(f"method {self.name} does not learn")

    # -- stages ------------------------------------------------------------------------
    def prepare(self, texts: Sequence[str]) -> Any:
        """The GIL-bound first part of sketching (normalizing, encoding); by default nothing."""
        return texts

    @abstractmethod
    def sketch(self, prepared: Any) -> Sketches:
        """The sketches of one prepared batch, and the batch's part of any corpus statistic."""

    def finish(self, parts: Sequence[Sketches]) -> Sketches:
        """The collection's sketches from its batches' (corpus-level work: statistics)."""
        return Sketches.concat(parts)

    @abstractmethod
    def candidate_pairs(self, sk: Sketches) -> Candidates:
        """Pairs worth verifying, without comparing all pairs (scored when :attr:`verifies`)."""

    @abstractmethod
    def score(self, sk: Sketches, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The method's similarity in [0, 1] of each pair of rows ``(a[i], b[i])``."""

    def pairable(self, sk: Sketches) -> np.ndarray:
        """The rows that may be candidates at all (default: the usable ones; a method whose usable
        rows can still never pair says which), whatever finds the candidates: its own
        :meth:`candidate_pairs` or an engine grouping its :meth:`keys`."""
        return sk.usable

    def keys(self, sk: Sketches) -> tuple[np.ndarray, int] | None:
        """``(n, k)`` candidate keys and the keys a candidate pair must share, for methods whose
        candidates are documents sharing keys (a group-by engine and a persistent index use
        them); None for methods with another index."""
        return None

    def verify(self, sk: Sketches, cands: Candidates) -> Candidates:
        """The ``cands`` at or above :meth:`decision_threshold`, scored (unless they already are)."""
        scores = cands.scores if cands.scores is not None else self.score(sk, cands.a, cands.b)
        hit = scores >= self.decision_threshold()
        return Candidates(cands.a[hit], cands.b[hit], scores[hit])

    def verified(self, sk: Sketches) -> Candidates:
        """The pairs at or above :meth:`decision_threshold`, scored: candidates, verified."""
        return self.verify(sk, self.candidate_pairs(sk))


class Collection:
    """A method's sketches of a growing collection: :meth:`add` batches, :meth:`finalize` once, query.

    The stateful form of the stages, for callers that add documents over time (the
    evaluation harness, ``explain``, tests).  Adding after :meth:`finalize` raises: the
    finished sketches would not include the new documents.
    """

    def __init__(self, method: Method) -> None:
        self.method = method
        self._parts: list[Sketches] = []
        self.sketches_: Sketches | None = None

    def __len__(self) -> int:
        done = self.sketches_
        return len(done) if done is not None else sum(len(p) for p in self._parts)

    def add(self, texts: Sequence[str]) -> np.ndarray:
        """Sketch a batch; returns which of its documents have any feature at all."""
        if self.sketches_ is not None:
            raise RuntimeError("documents added after finalize(): build a new Collection")
        part = self.method.sketch(self.method.prepare(texts))
        self._parts.append(part)
        return part.usable

    def finalize(self) -> Sketches:
        """The collection's sketches (computed once)."""
        if self.sketches_ is None:
            self.sketches_ = self.method.finish(self._parts)
            self._parts = []
        return self.sketches_

    def candidate_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        a, b, _ = self.method.candidate_pairs(self.finalize())
        return a, b

    def pairs(self) -> Candidates:
        """The verified pairs at the method's threshold."""
        return self.method.verified(self.finalize())

    def score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self.method.score(self.finalize(), np.asarray(a, np.int64), np.asarray(b, np.int64))


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a method: what the CLI, ``neardup methods`` and reports show."""

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[str, ...] | None = None


def method_params(cls: type[Method]) -> list[ParamSpec]:
    """The parameters of ``cls.__init__`` with their types, defaults and help."""
    hints = get_type_hints(cls.__init__)
    specs = []
    for p in list(inspect.signature(cls.__init__).parameters.values())[1:]:
        kinds = [t for t in get_args(hints[p.name]) or (hints[p.name],) if t is not type(None)]
        specs.append(
            ParamSpec(p.name, kinds[0], p.default, cls.param_help.get(p.name, ""), cls.param_choices.get(p.name))
        )
    return specs
