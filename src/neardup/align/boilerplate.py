"""A site's boilerplate among the seeds: stage 1's per-site filter (``dedup``'s relations).

A template line, a disclaimer or an "About us" paragraph recurs on many pages of its own site
and nowhere else; a syndicated story recurs across sites, so its seeds stay even where one site
carries several copies.  One compiled pass over the seed records of a key partition, sorted by
key (documents in order within a key, as both engines sort them), counts each key's documents
per site.
"""

from __future__ import annotations

import numpy as np
from numba import njit


def site_boilerplate(key: np.ndarray, doc: np.ndarray, site: np.ndarray, site_max: int) -> np.ndarray:
    """The seed keys that are one site's boilerplate, from seed records ``key``, ``doc`` and the
    record's ``site`` (-1: unknown), sorted by key with each key's documents in order: found in
    more than ``site_max`` documents of one site, and those are most of the documents the seed
    is found in.  Every record of a key must be given (a whole key partition).  Sorted keys."""
    if not key.shape[0] or not (site >= 0).any():
        return np.zeros(0, key.dtype)
    names, code = np.unique(site, return_inverse=True)  # any integers (Spark's are hashes): 0..n-1
    code = np.where(site >= 0, code, -1).astype(np.int64)
    return np.unique(_heavy_keys(key, doc, code, site_max, names.shape[0]))


@njit(cache=True, nogil=True)
def _heavy_keys(key, doc, site, site_max, n_sites):
    """:func:`site_boilerplate`'s pass: per run of one key, its documents in all and per site."""
    n = key.shape[0]
    per_site = np.zeros(n_sites, np.int64)
    touched = np.empty(n_sites, np.int64)
    bad = np.empty(n, key.dtype)
    nb = 0
    lo = 0
    while lo < n:
        hi = lo
        docs = 0
        t = 0
        while hi < n and key[hi] == key[lo]:
            if hi == lo or doc[hi] != doc[hi - 1]:  # a new document of the key
                docs += 1
                s = site[hi]
                if s >= 0:
                    if per_site[s] == 0:
                        touched[t] = s
                        t += 1
                    per_site[s] += 1
            hi += 1
        heavy = False
        for i in range(t):
            s = touched[i]
            if per_site[s] > site_max and 2 * per_site[s] > docs:
                heavy = True
            per_site[s] = 0
        if heavy:
            bad[nb] = key[lo]
            nb += 1
        lo = hi
    return bad[:nb]
