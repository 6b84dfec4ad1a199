"""The compiled block features (:mod:`neardup.extract.dense`: the dense features, the one-hot
indicators, the neighbours' shapes and the tag and keyword bits) are, bit for bit, the numpy code they replaced: the shipped model was trained on those
features, and the benchmark's models train on them (``bench/byte_identity.py``'s feature digest)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from neardup.extract.blocks import page_blocks
from neardup.extract.features import (
    _COL, _LISTY, ANCESTOR_TAGS, BINNED, DENSE, GOOD_MAX_LINK, GOOD_MIN_TOKENS, KEYWORDS, LAYOUTS, MAIN_SHARE,
    NEIGHBOUR, OFFSETS, _member, _ratio, _stop_hashes, _stop_table, _tag_bits, block_stats, dense_features,
    headline, rich_features, structured_share, title_hits)

from conftest import shared_data


def _shift(a, off, fill=0.0):
    """``out[i] = a[i + off]``, ``fill`` past either end and everywhere when ``off`` is 0: the shift the
    numpy features used (so a block's own bins and container tag were never features)."""
    out = np.full_like(a, fill)
    n = len(a)
    if 0 < off < n:
        out[: n - off] = a[off:]
    elif 0 < -off < n:
        out[-off:] = a[: n + off]
    return out


def numpy_dense_features(page, stats):
    """:func:`dense_features` as numpy computed it before the compiled pass (issue 28, sixth pass)."""
    n = len(page)
    el = page.elements
    cont = page.container
    tokens = stats.tokens.astype(np.float64)
    total = max(tokens.sum(), 1.0)
    owner = stats.owner
    stop = np.bincount(owner, _member(stats.hashes, _stop_hashes(), _stop_table()), n)
    in_title, title_words = title_hits(page, stats)
    link = _ratio(page.link_words.astype(np.float64), page.words.astype(np.float64))
    good = (tokens >= GOOD_MIN_TOKENS) & (link < GOOD_MAX_LINK)
    n_el = len(el)
    cum = np.zeros((2, n_el + 1))
    np.cumsum(np.bincount(cont, tokens, n_el), out=cum[0, 1:])
    np.cumsum(np.bincount(cont, tokens * good, n_el), out=cum[1, 1:])
    subtree, subtree_good = cum[:, el.end + 1] - cum[:, :-1]
    total_good = subtree_good[0]
    parent = el.parent[cont]
    in_main = np.zeros(n, dtype=bool)
    if total_good > 0:
        main = int(np.argmax(np.where(subtree_good >= MAIN_SHARE * total_good, el.depth, -1)))
        in_main = (cont >= main) & (cont <= el.end[main])
    link_words = page.link_words.astype(np.float64)
    words = page.words.astype(np.float64)
    cum_l = np.zeros((3, n_el + 1))
    np.cumsum(np.bincount(cont, link_words, n_el), out=cum_l[0, 1:])
    np.cumsum(np.bincount(cont, words, n_el), out=cum_l[1, 1:])
    cum_l[2, 1:] = np.arange(1, n_el + 1)
    sub_links, sub_words, sub_elems = cum_l[:, el.end + 1] - cum_l[:, :-1]
    sub_link = _ratio(sub_links, sub_words)
    dens = np.log1p(subtree / sub_elems) / np.log(101.0)
    root_or = np.where(parent >= 0, parent, cont)
    head = headline(page, stats, in_title, title_words)
    in_ld, has_ld = structured_share(page, stats)
    good_idx = np.flatnonzero(good)
    dist = dist_prev = dist_next = np.full(n, 50)
    heading = page.is_heading()
    if len(good_idx):
        idx = np.arange(n)
        at = np.searchsorted(good_idx, idx)
        after = good_idx[np.minimum(at, len(good_idx) - 1)]
        before = good_idx[np.maximum(at - 1, 0)]
        dist_next = np.where(after > idx, after - idx, 50)
        dist_prev = np.where(before < idx, idx - before, 50)
        dist = np.minimum(np.abs(after - idx), np.abs(before - idx))
    dense = np.empty((n, len(DENSE)))
    cols = {
        "bias": 1.0, "tok": np.log1p(tokens) / np.log(201.0), "link": link, "stop": _ratio(stop, tokens),
        "punct": _ratio(stats.punct.astype(np.float64), tokens), "upper": _ratio(stats.upper.astype(np.float64), tokens),
        "digit": _ratio(stats.digit.astype(np.float64), tokens), "sent_end": stats.sent_end,
        "pos": np.arange(n) / max(n - 1, 1), "tokpos": (np.cumsum(tokens) - tokens) / total, "depth": el.depth[cont] / 40.0,
        "title_in": _ratio(in_title, tokens), "title_cov": in_title / max(title_words, 1), "sub_c": subtree[cont] / total,
        "sub_p": np.where(parent >= 0, subtree[parent], total) / total,
        "good_c": subtree_good[cont] / total_good if total_good > 0 else 0.0, "in_main": in_main,
        "wordlen": _ratio(stats.nbytes.astype(np.float64), page.words.astype(np.float64)) / 10.0,
        "share": tokens / total, "good": good, "dist_good": np.log1p(dist) / np.log(51.0), "heading": heading,
        "n_in_container": np.log1p(np.bincount(cont, minlength=n_el)[cont]) / np.log(51.0), "link_only": link >= 1.0,
        "sub_link_c": sub_link[cont], "sub_link_p": sub_link[root_or], "dens_c": dens[cont], "dens_p": dens[root_or],
        "has_ld": float(has_ld), "ld_share": in_ld, "after_title": (np.arange(n) > head) if head >= 0 else 0.0,
        "dist_title": np.log1p(np.abs(np.arange(n) - head)) / np.log(51.0) if head >= 0 else 1.0,
        "is_title": np.arange(n) == head, "main_heading": in_main & heading,
        "main_short": in_main & (tokens < GOOD_MIN_TOKENS) & (link < 0.5), "main_list": in_main & _LISTY[el.tag[cont]],
        "head_next_good": heading & _shift(good, 1, False),
        "sandwiched": ~good & (link < 0.5) & (dist_prev <= 3) & (dist_next <= 3),
        "chars": np.log1p(stats.nbytes) / np.log(2001.0),
    }
    for j, name in enumerate(DENSE):
        dense[:, j] = cols[name]
    return np.clip(dense, 0.0, 1.0, out=dense)


def numpy_indicators(page, stats, dense):
    """The one-hot features' COO rows and columns as :func:`rich_features` listed them with numpy before
    the compiled pass (issue 28, sixth pass)."""
    lay = LAYOUTS["rich"]
    n = len(page)
    block = np.arange(n)
    rows, cols = [], []
    for name, edges, offs in BINNED:
        raw = stats.tokens if name == "tok" else dense[:, _COL[name]]
        bins = np.searchsorted(edges, raw, side="right")
        for off in offs:
            b = _shift(bins, off, -1)
            keep = b >= 0
            rows.append(block[keep])
            cols.append(lay.ranges[f"bin:{name}{off}"] + b[keep])
    el = page.elements
    cont = page.container
    ctag = el.tag[cont]
    for off in (0, -1, 1):
        t = _shift(ctag, off, -1)
        keep = t >= 0
        rows.append(block[keep])
        cols.append(lay.ranges[f"tag{off}"] + t[keep])
    parent = el.parent[cont]
    grand = np.where(parent >= 0, el.parent[np.maximum(parent, 0)], -1)
    for name, anc in (("ptag", parent), ("gptag", grand)):
        keep = anc >= 0
        rows.append(block[keep])
        cols.append(lay.ranges[name] + el.tag[anc[keep]])
    return np.concatenate(rows), np.concatenate(cols).astype(np.int64)


def numpy_blocks(page, dense):
    """The dense column blocks as :func:`rich_features` made them with numpy before the compiled pass
    (issue 28, sixth pass): the dense features, the neighbours' shapes, the enclosing structural tags,
    the keywords near the block."""
    lay = LAYOUTS["rich"]
    n = len(page)
    blocks = [(lay.ranges["dense"], dense)]
    shape = np.hstack((dense[:, NEIGHBOUR], np.ones((n, 1))))
    for off in OFFSETS:
        shifted = _shift(shape, off)
        shifted[:, -1] = 1.0 - shifted[:, -1]
        blocks.append((lay.ranges[f"nb{off}"], shifted))

    def bitmask(base, masks, width):
        bits = np.unpackbits(masks.astype("<u8").view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
        blocks.append((base, bits[:, :width].astype(np.float64)))

    el = page.elements
    cont = page.container
    inherited = _tag_bits()[el.tag].copy()
    for e in range(len(el)):  # parents precede children
        if el.parent[e] >= 0:
            inherited[e] |= inherited[el.parent[e]]
    bitmask(lay.ranges["anc"], inherited[cont], len(ANCESTOR_TAGS))
    parent = el.parent[cont]
    grand = np.where(parent >= 0, el.parent[np.maximum(parent, 0)], -1)
    own0 = np.append(el.keywords, np.uint64(0))
    bitmask(lay.ranges["kw_near"], own0[cont] | own0[parent] | own0[grand], len(KEYWORDS))
    return blocks


def _assert_same(html: str) -> None:
    page = page_blocks(html)
    if len(page) == 0:
        return
    stats = block_stats(page)
    got, want = dense_features(page, stats), numpy_dense_features(page, stats)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.tobytes() == want.tobytes(), [DENSE[j] for j in np.unique(np.argwhere(got != want)[:, 1])]
    rows = rich_features(page, stats)
    want_rows, want_cols = numpy_indicators(page, stats, want)
    for a, b in ((rows.rows, want_rows), (rows.cols, want_cols), (rows.vals, np.ones(len(want_rows)))):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    want_blocks = numpy_blocks(page, want)
    assert [base for base, _ in rows.blocks] == [base for base, _ in want_blocks]
    for (_, a), (_, b) in zip(rows.blocks, want_blocks):
        assert a.dtype == b.dtype and a.shape == b.shape and a.flags.c_contiguous and a.tobytes() == b.tobytes()


WORDS = "the council approved budget schools after long debate rain closed roads north region more is expected".split()


def _sentence(rng: random.Random, k: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(k)) + rng.choice([".", "", "!", " 12:30", "\u201d"])


def _element(rng: random.Random, depth: int) -> str:
    """A random piece of a page: prose, links, lists, headings, boxes of the site's frame, nesting."""
    kind = rng.randrange(9 if depth < 6 else 5)
    if kind == 0:
        return f"<p>{_sentence(rng, rng.randint(1, 40))}</p>"
    if kind == 1:
        return f"<p>{_sentence(rng, rng.randint(0, 6))} <a href='/x'>{_sentence(rng, rng.randint(1, 8))}</a></p>"
    if kind == 2:
        return f"<h{rng.randint(1, 4)}>{_sentence(rng, rng.randint(1, 9))}</h{rng.randint(1, 4)}>"
    if kind == 3:
        return "<ul>" + "".join(f"<li><a>{_sentence(rng, rng.randint(1, 5))}</a></li>" for _ in range(rng.randint(1, 6))) + "</ul>"
    if kind == 4:
        return f"<figure><img src=x><figcaption>{_sentence(rng, rng.randint(1, 12))}</figcaption></figure>"
    tag = rng.choice(["div", "article", "section", "aside", "nav", "footer", "main", "blockquote"])
    cls = rng.choice(["", " class='content'", " class='related-list'", " id='comments'", " class='story-body'"])
    inner = "".join(_element(rng, depth + 1) for _ in range(rng.randint(0, 5)))
    return f"<{tag}{cls}>{inner}</{tag}>"


def _page(rng: random.Random) -> str:
    title = _sentence(rng, rng.randint(0, 8))
    ld = ""
    if rng.random() < 0.4:
        ld = f'<script type="application/ld+json">{json.dumps({"articleBody": _sentence(rng, rng.randint(5, 60))})}</script>'
    body = "".join(_element(rng, 0) for _ in range(rng.randint(0, 12)))
    return f"<html><head><title>{title}</title>{ld}</head><body>{body}</body></html>"


@pytest.mark.parametrize("seed", range(60))
def test_dense_features_are_the_numpy_ones_on_random_pages(seed: int) -> None:
    _assert_same(_page(random.Random(seed)))


def test_dense_features_on_pages_without_long_blocks_or_title() -> None:
    for html in ("<p>one</p>", "<html><head><title>A b</title></head><body><h1>A b</h1><p>c</p></body></html>",
                 "<div><a>x</a><a>y</a></div><p>" + "word " * 30 + "</p>", "<body>" + "<br>" * 40 + "</body>"):
        _assert_same(html)


def test_dense_features_are_the_numpy_ones_on_web_pages() -> None:
    folder = shared_data("extraction", "wcxb", "html")
    for path in sorted(folder.glob("*.html"))[:60]:
        _assert_same(path.read_text(encoding="utf-8", errors="replace"))
