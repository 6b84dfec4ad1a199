"""The block features of :func:`.features.rich_features` in compiled passes over a page's blocks and
elements: the dense features (:func:`dense_pass`), the one-hot indicators (:func:`indicator_pass`),
the neighbours' shapes and the tag and keyword bits (:func:`matrix_pass`).

Each feature is a few numpy operations over a page of a few hundred blocks; as numpy they were over
a hundred calls a page, each paying numpy's fixed cost of a call, and together a sixth of extraction's
time.  The passes compute them in loops instead and leave to numpy only the logarithms
(``np.log1p``): numpy computes those with its own vectorized routines where the CPU has them, which
need not round as the C library's ``log1p`` that compiled code calls, and the features must be bit
for bit what the shipped model was trained on.  Everything else is counts, sums of counts (exact in
float64 whatever the order), comparisons and single divisions, which round the same in both.
``tests/test_extract_dense.py`` holds the results to the numpy code they replaced.
"""

from __future__ import annotations

import numpy as np
from numba import njit

COLUMNS = tuple(
    "bias tok link stop punct upper digit sent_end pos tokpos depth title_in title_cov sub_c "
    "sub_p good_c in_main wordlen share good dist_good heading n_in_container link_only "
    "sub_link_c sub_link_p dens_c dens_p has_ld ld_share after_title dist_title is_title "
    "main_heading main_short main_list head_next_good sandwiched chars".split()
)
"""The dense features (:data:`.features.DENSE`), in the order :func:`dense_pass` writes them."""
WIDTH = len(COLUMNS)
LOGS = (("tok", 201.0), ("dist_good", 51.0), ("n_in_container", 51.0), ("dens_c", 101.0), ("dens_p", 101.0),
        ("dist_title", 51.0), ("chars", 2001.0))
"""The features that are logarithms, ``log1p(x) / log(base)``, with their bases: the columns of
:func:`dense_pass`'s second result hold their arguments ``x``, in this order."""


@njit(cache=True)
def dense_pass(tokens, link_words, words, stop, in_title, title_words, punct, upper, digit, sent_end, nbytes,
               cont, heading, listy, el_depth, el_parent, el_end, head, in_ld, has_ld, good_min, good_max_link,
               main_share):
    """The :data:`COLUMNS` of every block, but those that are logarithms, which are 0 here and whose
    arguments are the second result (:data:`LOGS`); before the clip to [0, 1].

    Per block: ``tokens`` (float), ``link_words``, ``words``, ``stop`` (float), ``in_title`` (float),
    ``punct``, ``upper``, ``digit``, ``sent_end``, ``nbytes``, ``cont`` (its container), ``heading``
    (bool), ``listy`` (bool, its container's tag is a list item or the like), ``in_ld`` (float); per
    element ``el_depth``, ``el_parent``, ``el_end``; ``head``: the headline block or -1."""
    n = tokens.shape[0]
    n_el = el_depth.shape[0]
    out = np.zeros((n, WIDTH))
    logs = np.zeros((n, len(LOGS)))
    total = 0.0
    for i in range(n):
        total += tokens[i]
    total = max(total, 1.0)
    link = np.zeros(n)
    good = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        if words[i] > 0:
            link[i] = np.float64(link_words[i]) / np.float64(words[i])
        good[i] = tokens[i] >= good_min and link[i] < good_max_link
    # Per element, its own blocks' sums; then over its subtree (pre-order: e..end[e]).
    own = np.zeros((5, n_el + 1))  # tokens, tokens of long blocks, link words, words, blocks
    for i in range(n):
        e = cont[i] + 1
        own[0, e] += tokens[i]
        own[1, e] += tokens[i] if good[i] else 0.0
        own[2, e] += link_words[i]
        own[3, e] += words[i]
        own[4, e] += 1.0
    for k in range(5):
        for e in range(n_el):
            own[k, e + 1] += own[k, e]
    sub = np.empty((4, n_el))  # tokens, tokens of long blocks, link share, tokens per element
    for e in range(n_el):
        lo, hi = e, el_end[e] + 1
        sub[0, e] = own[0, hi] - own[0, lo]
        sub[1, e] = own[1, hi] - own[1, lo]
        sub_words = own[3, hi] - own[3, lo]
        sub[2, e] = (own[2, hi] - own[2, lo]) / sub_words if sub_words > 0 else 0.0
        sub[3, e] = sub[0, e] / np.float64(hi - lo)
    total_good = sub[1, 0] if n_el > 0 else 0.0
    main_lo, main_hi = 0, -1
    if total_good > 0:
        best = -2
        for e in range(n_el):
            d = el_depth[e] if sub[1, e] >= main_share * total_good else -1
            if d > best:
                best, main_lo = d, e
        main_hi = el_end[main_lo]
    # The nearest long block before and after each block (dist_good, sandwiched).
    first_good, last_good = -1, -1
    for i in range(n):
        if good[i]:
            last_good = i
            if first_good < 0:
                first_good = i
    next_good = np.empty(n, dtype=np.int64)  # the first long block at or after i, -1 when none
    at = -1
    for i in range(n - 1, -1, -1):
        if good[i]:
            at = i
        next_good[i] = at
    prev = -1  # the last long block before i
    running = 0.0
    for i in range(n):
        c = cont[i]
        p = el_parent[c]
        root_or = p if p >= 0 else c
        t = tokens[i]
        dist, dist_prev, dist_next = 50, 50, 50
        if first_good >= 0:
            after = next_good[i] if next_good[i] >= 0 else last_good
            before = prev if prev >= 0 else first_good
            dist_next = after - i if after > i else 50
            dist_prev = i - before if before < i else 50
            dist = min(abs(after - i), abs(before - i))
        in_main = main_lo <= c <= main_hi
        row = out[i]
        row[0] = 1.0
        row[2] = link[i]
        row[3] = stop[i] / t if t > 0 else 0.0
        row[4] = np.float64(punct[i]) / t if t > 0 else 0.0
        row[5] = np.float64(upper[i]) / t if t > 0 else 0.0
        row[6] = np.float64(digit[i]) / t if t > 0 else 0.0
        row[7] = sent_end[i]
        row[8] = np.float64(i) / np.float64(max(n - 1, 1))
        row[9] = running / total
        row[10] = el_depth[c] / 40.0
        row[11] = in_title[i] / t if t > 0 else 0.0
        row[12] = in_title[i] / max(title_words, 1)
        row[13] = sub[0, c] / total
        row[14] = (sub[0, p] if p >= 0 else total) / total
        row[15] = sub[1, c] / total_good if total_good > 0 else 0.0
        row[16] = in_main
        row[17] = (np.float64(nbytes[i]) / np.float64(words[i]) if words[i] > 0 else 0.0) / 10.0
        row[18] = t / total
        row[19] = good[i]
        row[21] = heading[i]
        row[23] = link[i] >= 1.0
        row[24] = sub[2, c]
        row[25] = sub[2, root_or]
        row[28] = has_ld
        row[29] = in_ld[i]
        row[30] = i > head if head >= 0 else 0.0
        row[32] = i == head
        row[33] = in_main and heading[i]
        row[34] = in_main and t < good_min and link[i] < 0.5
        row[35] = in_main and listy[i]
        row[36] = heading[i] and i + 1 < n and good[i + 1]
        row[37] = not good[i] and link[i] < 0.5 and dist_prev <= 3 and dist_next <= 3
        logs[i, 0] = t
        logs[i, 1] = dist
        logs[i, 2] = own[4, c + 1] - own[4, c]
        logs[i, 3] = sub[3, c]
        logs[i, 4] = sub[3, root_or]
        logs[i, 5] = abs(i - head)
        logs[i, 6] = nbytes[i]
        running += t
        if good[i]:
            prev = i
    return out, logs


@njit(cache=True)
def indicator_pass(raw, edges, n_edges, bin_groups, ctag, tag_groups, parent, grand, el_tag, ptag_base, gptag_base):
    """The one-hot features of :func:`.features.rich_features` as COO rows and columns, in the order
    its numpy code listed them: the binned values, then the container tags, then the parent's and
    grandparent's tags.

    ``raw[k]``: the values binned by ``edges[k, :n_edges[k]]`` (a value's bin is the number of edges
    at or below it, ``np.searchsorted(..., side="right")``); each row ``(k, off, base)`` of
    ``bin_groups`` sets column ``base + bin`` of block ``i`` for the value of block ``i + off``, and
    each row ``(off, base)`` of ``tag_groups`` column ``base + tag`` for the container tag ``ctag``
    of block ``i + off``: for every block that has such a neighbour, none when ``off`` is 0 (the
    features were trained so: the numpy code this replaced shifted by 0 to "no neighbour").  ``parent`` and ``grand`` (-1: none) give the
    elements whose ``el_tag`` sets columns from ``ptag_base`` and ``gptag_base``."""
    n = ctag.shape[0]
    rows = np.empty((bin_groups.shape[0] + tag_groups.shape[0] + 2) * n, dtype=np.int64)
    cols = np.empty_like(rows)
    m = 0
    for g in range(bin_groups.shape[0]):
        k, off, base = bin_groups[g, 0], bin_groups[g, 1], bin_groups[g, 2]
        if off == 0:
            continue
        for i in range(max(0, -off), min(n, n - off)):
            x = raw[k, i + off]
            b = 0
            if x != x:  # NaN sorts after every edge
                b = n_edges[k]
            while b < n_edges[k] and edges[k, b] <= x:
                b += 1
            rows[m] = i
            cols[m] = base + b
            m += 1
    for g in range(tag_groups.shape[0]):
        off, base = tag_groups[g, 0], tag_groups[g, 1]
        if off == 0:
            continue
        for i in range(max(0, -off), min(n, n - off)):
            rows[m] = i
            cols[m] = base + ctag[i + off]
            m += 1
    for anc, base in ((parent, ptag_base), (grand, gptag_base)):
        for i in range(n):
            if anc[i] >= 0:
                rows[m] = i
                cols[m] = base + el_tag[anc[i]]
                m += 1
    return rows[:m], cols[:m]


@njit(cache=True)
def matrix_pass(dense, neighbour, offsets, el_bits, el_parent, el_keywords, cont, parent, grand, n_anc, n_kw):
    """The dense column blocks of :func:`.features.rich_features` after the dense features: for each of
    ``offsets``, the ``neighbour`` columns of ``dense`` of the block that far away (0 where there is none,
    and where the offset is 0) and whether there is none; the ``n_anc`` bits of ``el_bits``
    set on the block's container or an element above it; the ``n_kw`` bits of ``el_keywords`` set on
    its container, parent or grandparent (``parent``, ``grand``: -1 for none)."""
    n = dense.shape[0]
    k = neighbour.shape[0]
    nb = np.zeros((offsets.shape[0], n, k + 1))
    for g in range(offsets.shape[0]):
        off = offsets[g]
        for i in range(n):
            j = i + off
            if off != 0 and 0 <= j < n:
                for c in range(k):
                    nb[g, i, c] = dense[j, neighbour[c]]
            else:
                nb[g, i, k] = 1.0
    inherited = el_bits.copy()  # parents precede children
    for e in range(el_bits.shape[0]):
        if el_parent[e] >= 0:
            inherited[e] |= inherited[el_parent[e]]
    anc = np.zeros((n, n_anc))
    kw = np.zeros((n, n_kw))
    for i in range(n):
        mask = inherited[cont[i]]
        for b in range(n_anc):
            anc[i, b] = (mask >> np.uint64(b)) & np.uint64(1)
        mask = el_keywords[cont[i]]
        if parent[i] >= 0:
            mask |= el_keywords[parent[i]]
        if grand[i] >= 0:
            mask |= el_keywords[grand[i]]
        for b in range(n_kw):
            kw[i, b] = (mask >> np.uint64(b)) & np.uint64(1)
    return nb, anc, kw
