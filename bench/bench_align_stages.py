"""Where the relations aligner's time goes, stage by stage, and what its seed pairs become.

Runs the local aligner at ``dedup``'s parameters (``dedup_align_params``: max df 1,000, a site's
boilerplate past 4 of its pages) over a ``neardup synth`` corpus (``docs.jsonl``: ``text`` and
``site``), timing each stage in one process: seeds (words and seed keys, in batches of 2,000),
shared seeds (the inverted index), pair counts and the documents' order, seed pairs
(``sieve_pairs``) and chains (``chain_pairs``).  Counts: seed pairs made by every shared seed, those
written (of document pairs with ``min_seeds`` of them), document pairs meeting at least one seed,
pairs sharing a valid passage (the aligner's output), and the seed pairs by the number of documents
of their seed (powers of two).

    python bench/bench_align_stages.py /tmp/i32k/scale/synth25000-seed5/docs.jsonl
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
import orjson
from numba import njit

from neardup.align.aligner import Aligner, pair_ranges
from neardup.align.seeds import by_document, chain_pairs, pair_counts, sieve_pairs
from neardup.relations import dedup_align_params


@njit(cache=True)
def _group_counts(doc, groups):
    """Documents of each key group and the seed pairs it makes."""
    g = groups.shape[0] - 1
    df, pairs = np.zeros(g, np.int64), np.zeros(g, np.int64)
    for k in range(g):
        lo, hi = groups[k], groups[k + 1]
        i, square = lo, 0
        while i < hi:
            j = i
            while j < hi and doc[j] == doc[i]:
                j += 1
            df[k] += 1
            square += (j - i) * (j - i)
            i = j
        pairs[k] = ((hi - lo) * (hi - lo) - square) // 2
    return df, pairs


@njit(cache=True)
def _document_pairs(a, b):
    """Distinct ``(a, b)`` of seed pairs sorted by them."""
    n = 1 if a.shape[0] else 0
    for i in range(1, a.shape[0]):
        n += a[i] != a[i - 1] or b[i] != b[i - 1]
    return n


def main(path: str) -> dict:
    p = dedup_align_params()
    al = Aligner(p, memory_mb=4096)
    seconds: dict[str, float] = dict.fromkeys(("seeds", "shared", "counts_and_order", "seed_pairs", "chains"), 0.0)
    texts: list[str] = []
    sites: list[int] = []
    codes: dict[str, int] = {}

    def add() -> None:
        t = time.perf_counter()
        al.add(texts, np.array(sites, np.int64))
        seconds["seeds"] += time.perf_counter() - t
        texts.clear()
        sites.clear()

    with open(path, "rb") as fh:
        for line in fh:
            d = orjson.loads(line)
            texts.append(d["text"])
            sites.append(codes.setdefault(d.get("site") or "", len(codes)))
            if len(texts) == 2000:
                add()
    if texts:
        add()
    t = time.perf_counter()
    doc, pos, groups = al._shared()
    seconds["shared"] = time.perf_counter() - t
    t = time.perf_counter()
    per_doc = pair_counts(doc, groups, al.documents)
    by_doc = by_document(doc, pos, al.documents)
    seconds["counts_and_order"] = time.perf_counter() - t
    words = al.doc_words()
    written = document_pairs = pairs = 0
    for lo, hi, total in pair_ranges(per_doc, 1_000_000):
        t = time.perf_counter()
        a, b, pa, pb = sieve_pairs(doc, pos, groups, by_doc, lo, hi, total, p.min_seeds)
        seconds["seed_pairs"] += time.perf_counter() - t
        t = time.perf_counter()
        out, _ = chain_pairs(a, b, pa, pb, words, *p.chain_args())
        seconds["chains"] += time.perf_counter() - t
        written += a.shape[0]
        document_pairs += _document_pairs(a, b)
        pairs += _document_pairs(out[:, 0], out[:, 1])
    df, made = _group_counts(doc, groups)
    edges = [2, 3, 5, 9, 17, 33, 65, 129, 257, 513, 1001]
    by_df = {f"{lo}-{hi - 1}": {"seeds": int(((df >= lo) & (df < hi)).sum()), "seed_pairs": int(made[(df >= lo) & (df < hi)].sum())}
             for lo, hi in zip(edges[:-1], edges[1:])}
    return {"documents": al.documents, "words": int(words.sum()), "shared_seeds": int(doc.shape[0]),
            "seed_pairs": int(per_doc.sum()), "seed_pairs_written": written,
            "document_pairs_with_min_seeds": document_pairs, "pairs_sharing_a_passage": pairs,
            "seconds": {k: round(v, 2) for k, v in seconds.items()}, "seed_pairs_by_df": by_df}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
