"""Every method gives the same answer however the input is cut into batches.

The pipeline hands a method batches of about ``batch_bytes`` characters; statistics and
candidates must not depend on where those cuts fall (a requirement for streaming, for
the read-ahead thread and for any engine that partitions the input).  Hypothesis draws
the batch size, from one document per batch to the whole corpus in one.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup import Deduplicator
from neardup.methods import REGISTRY

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
