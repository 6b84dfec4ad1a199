"""Every method gives the same answer however the input is cut into batches.

The pipeline hands a method batches of about ``batch_bytes`` characters; statistics and
candidates must not depend on where those cuts fall (a requirement for streaming, for
the read-ahead thread and for any engine that partitions the input).  Hypothesis draws
the batch size, from one document per batch to the whole corpus in one.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup import Deduplicator
from neardup.methods import REGISTRY
from neardup.methods.base import Sketches

#: Settings that make every method report pairs on the test corpus (thresholds low enough
#: that batch-dependent statistics would show in scores or pairs).
PARAMS = {
    "minhash": {"threshold": 0.5, "shingle_size": 3},
    "andd": {"model": "tfidf", "threshold": 0.5},
    "spotsigs": {"threshold": 0.3},
    "simhash": {"threshold": 0.8},
    "ffp": {"threshold": 0.3},
    "imatch": {},
    "wsample": {"threshold": 0.3},
}


def _answer(docs, method, batch_bytes):
    result = Deduplicator(method=method, batch_bytes=batch_bytes, **PARAMS[method]).run(docs)
    pairs = sorted((p.a, p.b, round(p.score, 9)) for p in result.pairs)
    return pairs, [(c.ids, c.representative) for c in result.clusters]


def test_every_method_is_covered():
    assert set(PARAMS) == set(REGISTRY)


@pytest.mark.parametrize("method", sorted(PARAMS))
def test_answer_is_independent_of_batch_boundaries(corpus, method):
    docs, _ = corpus
    whole = _answer(docs, method, 1 << 30)
    assert whole[0], f"{method} found no pairs: the test would prove nothing"

    @settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.integers(min_value=1, max_value=sum(len(t) for _, t in docs)))
    def same(batch_bytes):
        assert _answer(docs, method, batch_bytes) == whole

    same()


# -- the collection's statistics applied a piece at a time (Method.apply_in_pieces) ------------

#: Methods that keep their features in ``lists`` until the collection's statistics are known, with
#: settings that cover their code paths.
PIECEWISE = [
    ("simhash", {}), ("simhash", {"weighting": "tfidf", "shingle_size": 2}), ("simhash", {"weighting": "uniform"}),
    ("imatch", {}), ("imatch", {"selection": "codet"}),
    ("imatch", {"idf_scale": "percentile", "lexicons": 4, "min_matches": 2}),
    ("wsample", {}), ("wsample", {"exact": True, "weight": "ln_df", "phrase_idf": "log", "phrase_size": 3}),
]


def _words(n, words, vocab, seed):
    rng = np.random.default_rng(seed)
    return [" ".join(f"w{x}" for x in rng.integers(0, vocab, words)) for _ in range(n)]


def _batches(method, texts, batch):
    return [method.sketch(method.prepare(texts[i : i + batch])) for i in range(0, len(texts), batch)]


def _merged(parts):
    stats = parts[0].stats
    for p in parts[1:]:
        stats = stats.merge(p.stats)
    return stats


def _same_bits(got, want):
    assert got.usable.tobytes() == want.usable.tobytes()
    assert sorted(got.columns) == sorted(want.columns) and sorted(got.lists) == sorted(want.lists)
    for k in want.columns:
        assert got.columns[k].dtype == want.columns[k].dtype and got.columns[k].tobytes() == want.columns[k].tobytes()
    for k in want.lists:
        assert got.lists[k].dtype == want.lists[k].dtype and got.lists[k].tobytes() == want.lists[k].tobytes()
    assert (got.offsets is None) == (want.offsets is None)
    if want.offsets is not None:
        assert got.offsets.tobytes() == want.offsets.tobytes()
    assert got.info == want.info


@pytest.mark.parametrize("name, params", PIECEWISE)
def test_rows_do_not_depend_on_pieces_batches_or_spilling(name, params, monkeypatch, tmp_path):
    """One batch or many, pieces of any size, ``finish`` or each batch under the merged statistics
    (how Spark runs it), batches spilled to files or held: the same bits."""
    import neardup.methods.base as base
    from neardup.engines.spill import PartStore
    from neardup.methods import get_method

    texts = _words(40, 30, 400, 1)
    texts = texts + [t.replace("w1", "w2") for t in texts[:10]] + ["", "   ", "solo", "two words"]
    method = get_method(name, **params)
    whole = method.finish(_batches(method, texts, len(texts)))
    assert len(whole) == len(texts) and whole.usable.sum() >= 40
    batches = _batches(method, texts, 7)
    for limit in (1, 13, 1000):
        monkeypatch.setattr(base, "PIECE_ENTRIES", limit, raising=False)
        _same_bits(method.finish(batches), whole)
        stats = _merged(batches) if method.corpus_dependent else None  # as the Spark stage does
        spark_like = [method.finish([p]) if stats is None else method.apply_statistics(p, stats) for p in batches]
        _same_bits(Sketches.concat(spark_like), whole)
        store = PartStore(budget=1, folder=str(tmp_path))
        for p in _batches(method, texts, 7):
            store.add(p)
        assert store.spilled
        try:
            _same_bits(method.finish(store.parts()), whole)
        finally:
            store.close()
    assert method.finish([]).usable.shape == (0,)


@pytest.mark.parametrize("name, params", [("simhash", {}), ("imatch", {})])
def test_finish_joins_only_the_finished_sketches(name, params, monkeypatch):
    """finish applies the merged statistics a piece at a time: past what merging the batches'
    statistics allocates, its peak is the finished sketches and one piece, not a joined copy of every
    batch's features (8 bytes an entry) with the weights and lookups of the whole collection (before:
    29 and 38 bytes an entry in all).  (wsample joins, then applies: its peak is the merge of its
    phrase statistics, docs/scale.md.)"""
    import tracemalloc

    import neardup.methods.base as base
    from neardup.methods import get_method

    monkeypatch.setattr(base, "PIECE_ENTRIES", 8192, raising=False)
    method = get_method(name, **params)
    parts = _batches(method, _words(600, 2000, 50_000, 2), 20)
    entries = sum(p.lists["hashes"].shape[0] for p in parts)
    assert entries > 1_000_000

    def peak(work):
        tracemalloc.start()
        try:
            work()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    merging = peak(lambda: _merged(parts).tables())  # the statistics, merged and compacted as finish needs them
    finishing = peak(lambda: method.finish(parts))
    assert finishing - merging < 4 * entries, (finishing, merging, entries)
