"""How two documents are related, from the passages they share: copy, contains, shares.

A similarity score and a threshold cannot tell a copy from two stories that share a quote
or a site's "About us" paragraph: both score alike.  The passages the aligner finds
(:mod:`neardup.align.aligner`) can: they say how much of *each* document lies inside text
the other also holds.  A document ``x`` is **covered** by ``y`` when the passages they
share hold at least ``min_coverage`` of ``x``'s words (0.5: most of it).  Then

* ``duplicate`` -- each covers the other (a copy, copy-edited or re-headlined);
* ``contains`` -- ``a`` covers ``b``, not the reverse (``b`` is a trim, a brief, a part of ``a``);
* ``contained`` -- the reverse;
* ``shares`` -- a passage in common, neither covers the other (a quote, a pasted paragraph,
  a shared boilerplate paragraph);
* ``similar`` -- the method scored the pair, but no passage is shared (a rewrite, or
  words in common scattered over both): no copy, and not listed unless asked for.

Only the copy relations (``duplicate``, ``contains``, ``contained``) make clusters
(:func:`copy_edges`), and a clustered document is removed from a deduplicated set only
when the document kept for it covers at least ``unique_coverage`` of it
(:func:`removals`): ``--unique`` never drops text that no kept document holds.

Every loop over pairs is compiled or a numpy operation; relations are symmetric by
construction (``contains`` for ``(a, b)`` is ``contained`` for ``(b, a)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np
from numba import njit

from .io.records import site_of

if TYPE_CHECKING:
    from .align.aligner import AlignParams

#: Relation names by code; the first four are listed by default.
RELATIONS = ("duplicate", "contains", "contained", "shares", "similar")
DUPLICATE, CONTAINS, CONTAINED, SHARES, SIMILAR = range(5)
DEFAULT_RELATIONS = RELATIONS[:4]
#: The relations that make clusters.
COPY_RELATIONS = RELATIONS[:3]

#: Share of a document's words the other must hold for it to be covered ("most" of it).
DEFAULT_MIN_COVERAGE = 0.5
#: Share of a removed document's words the document kept for it must hold (``--unique``).
DEFAULT_UNIQUE_COVERAGE = 0.8
#: A seed in more documents than this counts for nothing (as ``contain``: a story syndicated
#: to hundreds of sites is still a story; templates are caught per site, see ``SITE_MAX_DF``).
DEDUP_MAX_DF = 1000
#: A seed in more documents of one site than this is the site's boilerplate (template
#: text, an "About us" paragraph, a disclaimer), whatever its count elsewhere.
SITE_MAX_DF = 4


def dedup_align_params(site_max_df: int = SITE_MAX_DF, min_coverage: float = DEFAULT_MIN_COVERAGE) -> "AlignParams":
    """The aligner's parameters for the relations (``dedup``, and ``eval``'s copy columns): a
    pair covering ``min_coverage`` of a document is a copy, kept however sparse its passages."""
    from .align.aligner import AlignParams

    return AlignParams(max_df=DEDUP_MAX_DF, site_max_df=site_max_df, keep_coverage=min_coverage)


def parse_relations(spec: str | Sequence[str] | None) -> tuple[str, ...]:
    """Relation names from ``"duplicate,contains"`` (or a sequence); ``None``: the default four."""
    from .errors import UserError

    if spec is None:
        return DEFAULT_RELATIONS
    names = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec) if s.strip()]
    bad = [s for s in names if s not in RELATIONS]
    if bad or not names:
        raise UserError(f"unknown relation {', '.join(bad) or '(none given)'}; choose from {', '.join(RELATIONS)}")
    return tuple(r for r in RELATIONS if r in names)


@dataclass
class Coverage:
    """Every document pair ``a < b`` sharing a valid aligned passage, sorted by ``(a, b)``:
    the share of each one's words inside the shared passages and the longest passage in words."""

    a: np.ndarray
    b: np.ndarray
    cov_a: np.ndarray
    cov_b: np.ndarray
    longest: np.ndarray
    #: The most consecutive words of each document outside the shared passages (text of its own).
    new_a: np.ndarray
    new_b: np.ndarray

    @classmethod
    def empty(cls) -> "Coverage":
        z = np.zeros(0, np.int64)
        return cls(z, z.copy(), np.zeros(0), np.zeros(0), z.copy(), z.copy(), z.copy())

    @classmethod
    def from_chains(cls, chunks: Iterable[tuple[np.ndarray, np.ndarray]]) -> "Coverage":
        """From :func:`~neardup.align.seeds.chain_pairs` output chunks ``(out, cov)`` (passages of
        one pair contiguous): one row per pair, the longest passage by words on either side."""
        parts = []
        for out, cov in chunks:
            if not out.shape[0]:
                continue
            starts = np.flatnonzero(np.r_[True, (out[1:, 0] != out[:-1, 0]) | (out[1:, 1] != out[:-1, 1])])
            words = np.maximum(out[:, 3] - out[:, 2], out[:, 5] - out[:, 4])
            parts.append((out[starts, 0], out[starts, 1], cov[starts, 1], cov[starts, 2],
                          np.maximum.reduceat(words, starts), cov[starts, 3], cov[starts, 4]))
        if not parts:
            return cls.empty()
        a, b, ca, cb, lg, na, nb = (np.concatenate(c) for c in zip(*parts))
        order = np.lexsort((b, a))
        return cls(a[order].astype(np.int64), b[order].astype(np.int64), ca[order].astype(np.float64),
                   cb[order].astype(np.float64), lg[order].astype(np.int64), na[order].astype(np.int64),
                   nb[order].astype(np.int64))

    def take(self, rows: np.ndarray) -> "Coverage":
        """The pairs of ``rows`` (a mask or indices), in order."""
        return Coverage(self.a[rows], self.b[rows], self.cov_a[rows], self.cov_b[rows], self.longest[rows],
                        self.new_a[rows], self.new_b[rows])

    def __len__(self) -> int:
        return int(self.a.shape[0])

    def within(self, docs: np.ndarray) -> "Coverage":
        """The pairs of two documents where the boolean ``docs`` is true, renumbered in that subset
        (the aligner's answer for those documents alone, as long as no seed reaches its
        document-frequency cap: removing documents only lowers a seed's count)."""
        new_index = np.cumsum(docs) - 1
        sub = self.take(docs[self.a] & docs[self.b])
        sub.a, sub.b = new_index[sub.a], new_index[sub.b]
        return sub

    def find(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Row of each pair ``(a[i], b[i])`` (``a < b``) here, or -1."""
        want = _pair_key(np.asarray(a, np.int64), np.asarray(b, np.int64))
        if not len(self):
            return np.full(want.shape[0], -1, np.int64)
        key = _pair_key(self.a, self.b)
        at = np.minimum(np.searchsorted(key, want), key.shape[0] - 1)
        return np.where(key[at] == want, at, -1)


def _pair_key(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One sortable int64 per pair of row numbers (rows below 2**31)."""
    return (a.astype(np.int64) << np.int64(31)) | b.astype(np.int64)


@dataclass
class Related:
    """The method's pairs (``a < b``) with their relation codes, coverages and longest passage."""

    relation: np.ndarray
    cov_a: np.ndarray
    cov_b: np.ndarray
    longest: np.ndarray

    def counts(self) -> dict[str, int]:
        """Pairs per relation name (every relation, zeros included)."""
        got = np.bincount(self.relation, minlength=len(RELATIONS))
        return {name: int(got[k]) for k, name in enumerate(RELATIONS)}


def relation_codes(cov_a: np.ndarray, cov_b: np.ndarray, shared: np.ndarray, min_coverage: float,
                   new_a: np.ndarray | None = None, new_b: np.ndarray | None = None,
                   max_new: int | None = None) -> np.ndarray:
    """Relation code of pairs with coverages ``cov_a``, ``cov_b``; ``shared``: a passage is shared.

    With ``max_new``, a document is covered only when it also has no run of more than
    ``max_new`` consecutive words of its own (``new_a``, ``new_b``) outside the shared passages."""
    a_covered, b_covered = cov_a >= min_coverage, cov_b >= min_coverage
    if max_new is not None and new_a is not None and new_b is not None:
        a_covered &= new_a <= max_new
        b_covered &= new_b <= max_new
    rel = np.where(a_covered & b_covered, DUPLICATE,
                   np.where(b_covered, CONTAINS, np.where(a_covered, CONTAINED, SHARES)))
    return np.where(shared, rel, SIMILAR).astype(np.int64)


def relation_name(cov_a: float, cov_b: float, min_coverage: float = DEFAULT_MIN_COVERAGE) -> str:
    """The relation of one pair sharing a passage, from the share of each inside it (``explain``, the index)."""
    return RELATIONS[int(relation_codes(np.array([cov_a]), np.array([cov_b]), np.array([True]), min_coverage)[0])]


def relate(a: np.ndarray, b: np.ndarray, coverage: Coverage, min_coverage: float = DEFAULT_MIN_COVERAGE,
           max_new: int | None = None) -> Related:
    """The relation of each pair ``(a[i], b[i])`` (``a < b``) from the aligned ``coverage``
    (``max_new``: see :func:`relation_codes`)."""
    row = coverage.find(a, b)
    shared = row >= 0
    safe = np.where(shared, row, 0)

    def take(values: np.ndarray, empty: float | int) -> np.ndarray:
        if not values.shape[0]:
            return np.full(row.shape[0], empty, dtype=values.dtype)
        return np.where(shared, values[safe], empty)

    cov_a, cov_b, longest = take(coverage.cov_a, 0.0), take(coverage.cov_b, 0.0), take(coverage.longest, 0)
    codes = relation_codes(cov_a, cov_b, shared, min_coverage, take(coverage.new_a, 0), take(coverage.new_b, 0),
                           max_new)
    return Related(codes, cov_a, cov_b, longest)


def copy_pairs(related: Related) -> np.ndarray:
    """Mask of the pairs whose relation is a copy (they cluster)."""
    return related.relation <= CONTAINED


def copy_edges(a: np.ndarray, b: np.ndarray, coverage: Coverage,
               min_coverage: float = DEFAULT_MIN_COVERAGE) -> tuple[Related, np.ndarray, np.ndarray]:
    """What clusters in ``dedup``: the relation of each pair ``(a[i], b[i])``, the mask of the
    copies, and each copy's edge weight (the larger of its two coverages)."""
    related = relate(a, b, coverage, min_coverage)
    copy = copy_pairs(related)
    return related, copy, np.maximum(related.cov_a, related.cov_b)[copy]


@njit(cache=True)
def _greedy(order, label, n_clusters, start, src, val):
    """Documents in ``order``: dropped when a kept one covers them (``src``/``val``: in-edges of
    each document, CSR ``start``), kept otherwise; see :func:`removals`."""
    n = order.shape[0]
    rank = np.empty(n, np.int64)
    for r in range(n):
        rank[order[r]] = r
    kept = np.zeros(n, np.bool_)
    rep = np.full(n_clusters, -1, np.int64)
    kept_for = np.full(n, -1, np.int64)
    coverage = np.zeros(n, np.float64)
    for r in range(n):
        v = order[r]
        if label[v] < 0:
            continue
        best, best_cov = -1, -1.0
        for t in range(start[v], start[v + 1]):
            u = src[t]
            if kept[u] and (val[t] > best_cov or (val[t] == best_cov and rank[u] < rank[best])):
                best, best_cov = u, val[t]
        if best >= 0:
            kept_for[v], coverage[v] = best, best_cov
        else:
            kept[v] = True
            if rep[label[v]] < 0:
                rep[label[v]] = v
    return kept_for, coverage, rep


def removals(n: int, groups: Sequence[np.ndarray], coverage: Coverage,
             unique_coverage: float = DEFAULT_UNIQUE_COVERAGE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which clustered documents a deduplicated set may drop, and for which kept one.

    Cluster by cluster, documents are taken in order of how many members they cover (at least
    ``unique_coverage`` of the member's words), then input order: one is dropped when an
    already kept member covers it that far (the one covering it most; ties: the first taken),
    and is kept otherwise.  The first taken is the cluster's representative.  Returns
    ``kept_for`` (the kept document's row, -1 for kept documents and documents in no
    cluster), the coverage of each dropped document by it, and each cluster's representative.
    """
    label = np.full(n, -1, np.int64)
    if groups:
        label[np.concatenate(groups)] = np.repeat(np.arange(len(groups)), [g.shape[0] for g in groups])
    a, b = coverage.a, coverage.b
    inside = (label[a] >= 0) & (label[a] == label[b]) if a.shape[0] else np.zeros(0, bool)
    a_over_b = inside & (coverage.cov_b >= unique_coverage)  # a covers b
    b_over_a = inside & (coverage.cov_a >= unique_coverage)
    src = np.concatenate([a[a_over_b], b[b_over_a]])
    dst = np.concatenate([b[a_over_b], a[b_over_a]])
    val = np.concatenate([coverage.cov_b[a_over_b], coverage.cov_a[b_over_a]])
    by_dst = np.argsort(dst, kind="stable")
    start = np.r_[0, np.cumsum(np.bincount(dst, minlength=n))].astype(np.int64)
    covers = np.bincount(src, minlength=n)
    order = np.lexsort((np.arange(n), -covers, label))
    return _greedy(order, label, len(groups), start, src[by_dst].astype(np.int64), val[by_dst].astype(np.float64))


def aligned_counts(shared: int, counts: dict[str, int]) -> dict[str, int]:
    """What the aligner found, as a summary reports it: the ``shared`` pairs sharing a passage and,
    from its ``counts``, the seeds shared and those ignored as a site's boilerplate, in this order
    whichever engine counted them first."""
    return {"pairs_sharing_a_passage": shared,
            **{k: counts[k] for k in ("shared_seeds", "site_boilerplate_seeds") if k in counts}}


class SiteCodes:
    """Each record's site as a small integer, for per-site boilerplate: its ``site`` field, else
    the host of its ``url`` field, else the host of its id when the id is a URL (a WARC
    record's); -1 when none says.  Codes are given in order of first appearance."""

    def __init__(self) -> None:
        self.codes: dict[str, int] = {}

    def of(self, records: Sequence[object]) -> np.ndarray:
        """Site codes of a batch of :class:`~neardup.io.records.Record` (one dict look-up each)."""
        return np.fromiter((self.code(r) for r in records), np.int64, len(records))

    def code(self, record: object) -> int:
        """The site code of one record."""
        site = site_of(record)
        if not site:
            return -1
        return self.codes.setdefault(site, len(self.codes))

