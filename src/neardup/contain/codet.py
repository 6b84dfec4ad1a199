"""CoDet's decision (varol2011, section 3): containment similarity from tree hits.

Inserting a document into the corpus tree (:mod:`.tree`) yields *hits*, one per
posting of an earlier document met on the way down, weighing ``k * idf(w_k)``.  Summed
per document pair they give ``CS(d_C, d_A)`` (formula 1: every pair of sentences, each
sharing a word prefix); summed per sentence pair, ``cs(s_i, s_j)`` (formula 2).  Then

    d_C contains d_A  when  CS(d_C, d_A) / SCS(d_A) >= ETL,

checked in both directions for each pair met, so near-duplicates come out as
containment both ways.  The score reported is that ratio.  For each reported
containment the sentence pairs that carry it are listed: for every sentence of the
contained document, the container's sentence with the largest ``cs`` (ties: the first),
kept when ``cs >= ETL * cs(s, s)``, i.e. the sentence itself passes the same test.

Everything is vectorized over a batch of hits (sorting and segment sums).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .tree import CorpusTree


@dataclass(frozen=True)
class Found:
    """A containment between documents known by sequence number: ``container`` ⊇ ``contained``."""

    container: int
    contained: int
    score: float
    sentences: np.ndarray  # rows (sentence of the container, sentence of the contained)


def _best_partners(pair: np.ndarray, sent_y: np.ndarray, sent_x: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """Indices of, per ``(pair, sent_y)``, the entry of largest ``cs`` (ties: smallest ``sent_x``)."""
    order = np.lexsort((sent_x, -cs, sent_y, pair))
    p, y = pair[order], sent_y[order]
    first = np.ones(order.shape[0], dtype=bool)
    first[1:] = (p[1:] != p[:-1]) | (y[1:] != y[:-1])
    return order[first]


def containments(tree: CorpusTree, found: tuple[np.ndarray, ...], etl: float) -> list[Found]:
    """The containments, both directions, of the pairs :meth:`CorpusTree.insert` returned.

    ``found`` = ``(pair_a, pair_c, CS, e_a, e_c, e_sa, e_sc, e_cs)``: pairs of a newer
    document ``a`` and an earlier ``c`` passing ETL in some direction, and their
    sentence pairs' ``cs`` (grouped by pair, in the same order).  SCS values are read
    from ``tree``.  Sorted by (newer document, older document, direction).
    """
    pa, pc, cs_pair, e_a, e_c, e_sa, e_sc, e_cs = found
    n_pairs = pa.shape[0]
    if not n_pairs:
        return []
    scs_a, scs_c = tree.scs(pa), tree.scs(pc)
    c_has_a = cs_pair >= etl * scs_a  # the earlier document contains the new one
    a_has_c = cs_pair >= etl * scs_c
    change = np.ones(e_a.shape[0], dtype=bool)
    change[1:] = (e_a[1:] != e_a[:-1]) | (e_c[1:] != e_c[:-1])
    pid = np.cumsum(change) - 1
    # C contains A: best c-sentence for each a-sentence, judged against cs(s_a, s_a)
    best_a = _best_partners(pid, e_sa, e_sc, e_cs)
    ok_a = e_cs[best_a] >= etl * tree.sentence_self(e_a[best_a], e_sa[best_a])
    # A contains C: best a-sentence for each c-sentence, judged against cs(s_c, s_c)
    best_c = _best_partners(pid, e_sc, e_sa, e_cs)
    ok_c = e_cs[best_c] >= etl * tree.sentence_self(e_c[best_c], e_sc[best_c])
    by_pair_a = _group(pid[best_a][ok_a], e_sc[best_a][ok_a], e_sa[best_a][ok_a], n_pairs)
    by_pair_c = _group(pid[best_c][ok_c], e_sa[best_c][ok_c], e_sc[best_c][ok_c], n_pairs)
    out: list[Found] = []
    for i, (a, c) in enumerate(zip(pa.tolist(), pc.tolist())):
        if c_has_a[i]:
            out.append(Found(c, a, float(cs_pair[i] / scs_a[i]), by_pair_a[i]))
        if a_has_c[i]:
            out.append(Found(a, c, float(cs_pair[i] / scs_c[i]), by_pair_c[i]))
    return out


def _group(pair: np.ndarray, container_sent: np.ndarray, contained_sent: np.ndarray,
           n_pairs: int) -> list[np.ndarray]:
    """Per document pair, its ``(container sentence, contained sentence)`` rows, by contained sentence."""
    order = np.lexsort((contained_sent, pair))
    bounds = np.searchsorted(pair[order], np.arange(n_pairs + 1)).tolist()
    rows = np.stack([container_sent[order], contained_sent[order]], axis=1)
    return [rows[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:])]
