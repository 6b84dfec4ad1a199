"""A site's boilerplate among the seeds (:mod:`neardup.align.boilerplate`): the compiled pass
gives the keys of the plain definition -- a key in more than ``site_max`` documents of one
site, and those most of its documents -- on random records sorted as both engines sort them."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.align.boilerplate import site_boilerplate


def _by_definition(key, doc, site, site_max):
    """Every (key, site, document) once, counted per key and per (key, site)."""
    rows = {(int(k), int(s), int(d)) for k, s, d in zip(key, site, doc)}
    docs, per_site = {}, {}
    for k, s, _doc in rows:
        docs[k] = docs.get(k, 0) + 1
        per_site[k, s] = per_site.get((k, s), 0) + 1
    return sorted({k for (k, s), c in per_site.items() if s >= 0 and c > site_max and 2 * c > docs[k]})


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 4), st.sampled_from([np.uint64, np.int64]))
def test_the_keys_are_those_of_the_definition(seed, site_max, dtype):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 400))
    doc = rng.integers(0, 40, n).astype(np.int32)
    site_of_doc = rng.integers(-1, 4, 40) * (2**50 if seed % 2 else 1)  # -1 (or less): not known; any integers
    key = rng.integers(0, 12, n).astype(dtype) * dtype(2**40)  # few keys, many documents each
    order = np.lexsort((doc, key))  # by key, documents in order within a key (both engines)
    key, doc = key[order], doc[order]
    site = site_of_doc[doc]
    got = site_boilerplate(key, doc, site, site_max)
    assert got.tolist() == _by_definition(key, doc, site, site_max)
    assert got.dtype == key.dtype
