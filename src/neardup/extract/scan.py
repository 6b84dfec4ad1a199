"""The compiled block splitter: one pass over a serialized, repaired DOM.

lexbor (:mod:`.blocks`) repairs the page and serializes it back to HTML; that output is
well formed -- every element closed in order, attribute values quoted, and only
``&amp; &lt; &gt; &nbsp; &quot;`` escaped -- so a byte-level state machine can split it
into blocks without building a Python object per node, which is what makes extraction
fast.  :func:`scan` walks the bytes once and returns

* the block texts, whitespace collapsed and entities decoded, separated by NUL bytes;
* per block: its word count, how many of those words sit inside ``<a>``, and its
  container (the innermost non-inline element);
* per non-inline element, in document order: tag id, parent, depth, the last element
  inside it, and the byte spans of its ``class``, ``id`` and ``itemprop`` values.

Tag names are identified by their XXH64 hash (:func:`neardup.hashing.xxh64_bytes`)
looked up in a sorted table; tags not in the table are block-level.

The other byte-level passes of extraction live here too: :func:`keyword_masks` (class/id keywords
of every element) and :func:`depth_over` (the nesting estimate of :mod:`.guard`, on the raw page).

Length: the three passes share their byte helpers (``_starts``, ``_lower``, the tag delimiters);
apart, each module would carry its own copy of them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..hashing import xxh64_bytes

_LT, _GT, _AMP, _SLASH, _BANG, _EQ, _DQ, _SQ, _SP, _NUL = 60, 62, 38, 47, 33, 61, 34, 39, 32, 0


@njit(inline="always", cache=True)
def _is_space(b):
    return b == 32 or b == 9 or b == 10 or b == 13 or b == 12


@njit(inline="always", cache=True)
def _starts(buf, p, word):
    if p + word.shape[0] > buf.shape[0]:
        return False
    for j in range(word.shape[0]):
        if buf[p + j] != word[j]:
            return False
    return True


@njit(cache=True)
def _tag_id(buf, lo, hi, hashes, ids):
    """The id of the tag named ``buf[lo:hi]`` (lower-cased in place), 0 if unknown."""
    for p in range(lo, hi):
        if 65 <= buf[p] <= 90:
            buf[p] += 32
    h = xxh64_bytes(buf, lo, hi, np.uint64(0))
    k = np.searchsorted(hashes, h)
    if k < hashes.shape[0] and hashes[k] == h:
        return ids[k]
    return 0


@njit(cache=True)
def scan(buf, tag_hashes, tag_ids, inline, void, link_tag, words_amp, words_lt, words_gt, words_nbsp, words_quot):
    """Split serialized HTML ``buf`` (``uint8``, modified) into blocks; see the module doc."""
    n = buf.shape[0]
    out = np.empty(n + 1, dtype=np.uint8)
    o = 0
    cap = 2  # every element, block and open frame needs a tag: at most one per '<'
    for c in buf:
        cap += c == _LT
    b_words = np.zeros(cap, dtype=np.int64)
    b_links = np.zeros(cap, dtype=np.int64)
    b_owner = np.zeros(cap, dtype=np.int64)
    nb = 0
    e_tag = np.zeros(cap, dtype=np.int64)
    e_parent = np.zeros(cap, dtype=np.int64)
    e_depth = np.zeros(cap, dtype=np.int64)
    e_end = np.zeros(cap, dtype=np.int64)
    e_attr = np.zeros((cap, 6), dtype=np.int64)  # class, id, itemprop: start, end
    ne = 0
    st_el = np.zeros(cap, dtype=np.int64)
    st_link = np.zeros(cap, dtype=np.bool_)
    sp = 0
    owner = -1
    in_link = 0
    block_start = 0
    words = 0
    links = 0
    pending = False
    p = 0
    while p < n:
        c = buf[p]
        if c != _LT:
            # Text up to the next tag, appended to the current block.
            ch = c
            width = 1
            if c == _AMP:
                if _starts(buf, p, words_amp):
                    ch, width = 38, 5
                elif _starts(buf, p, words_lt):
                    ch, width = 60, 4
                elif _starts(buf, p, words_gt):
                    ch, width = 62, 4
                elif _starts(buf, p, words_nbsp):
                    ch, width = 32, 6
                elif _starts(buf, p, words_quot):
                    ch, width = 34, 6
            if _is_space(ch):
                pending = o > block_start
            else:
                if o == block_start or pending:
                    words += 1
                    if in_link > 0:
                        links += 1
                if pending:
                    out[o] = _SP
                    o += 1
                    pending = False
                out[o] = ch
                o += 1
            p += width
            continue
        # A tag: comment / doctype, end tag, or start tag.
        if p + 1 < n and buf[p + 1] == _BANG:
            if p + 3 < n and buf[p + 2] == 45 and buf[p + 3] == 45:
                q = p + 4
                while q + 2 < n and not (buf[q] == 45 and buf[q + 1] == 45 and buf[q + 2] == _GT):
                    q += 1
                p = q + 3
            else:
                while p < n and buf[p] != _GT:
                    p += 1
                p += 1
            continue
        closing = p + 1 < n and buf[p + 1] == _SLASH
        q = p + 2 if closing else p + 1
        name_lo = q
        while q < n and not _is_space(buf[q]) and buf[q] != _GT and buf[q] != _SLASH:
            q += 1
        tag = _tag_id(buf, name_lo, q, tag_hashes, tag_ids)
        cls_lo = cls_hi = id_lo = id_hi = ip_lo = ip_hi = 0
        # Attributes (values quoted by the serializer), up to the closing '>'.
        while q < n and buf[q] != _GT:
            if _is_space(buf[q]) or buf[q] == _SLASH:
                q += 1
                continue
            a_lo = q
            while q < n and buf[q] != _EQ and buf[q] != _GT and not _is_space(buf[q]) and buf[q] != _SLASH:
                q += 1
            a_hi = q
            v_lo = v_hi = q
            if q < n and buf[q] == _EQ:
                q += 1
                if q < n and (buf[q] == _DQ or buf[q] == _SQ):
                    quote = buf[q]
                    q += 1
                    v_lo = q
                    while q < n and buf[q] != quote:
                        q += 1
                    v_hi = q
                    q += 1
                else:
                    v_lo = q
                    while q < n and not _is_space(buf[q]) and buf[q] != _GT:
                        q += 1
                    v_hi = q
            if a_hi - a_lo == 5 and buf[a_lo] == 99 and buf[a_lo + 1] == 108 and buf[a_lo + 4] == 115:  # class
                cls_lo, cls_hi = v_lo, v_hi
            elif a_hi - a_lo == 2 and buf[a_lo] == 105 and buf[a_lo + 1] == 100:  # id
                id_lo, id_hi = v_lo, v_hi
            elif a_hi - a_lo == 8 and buf[a_lo] == 105 and buf[a_lo + 1] == 116 and buf[a_lo + 4] == 112:  # itemprop
                ip_lo, ip_hi = v_lo, v_hi
        p = q + 1
        if closing:
            if sp == 0:
                continue
            sp -= 1
            el = st_el[sp]
            if el >= 0:
                if o > block_start:
                    out[o] = _NUL
                    o += 1
                    b_words[nb], b_links[nb], b_owner[nb] = words, links, el
                    nb += 1
                block_start, words, links, pending = o, 0, 0, False
                e_end[el] = ne - 1
                owner = e_parent[el]
            elif st_link[sp]:
                in_link -= 1
            continue
        if inline[tag]:
            if not void[tag]:
                is_link = tag == link_tag
                st_el[sp] = -1
                st_link[sp] = is_link
                sp += 1
                in_link += is_link
            continue
        # A block-level element: the current block ends, the element opens.
        if o > block_start:
            out[o] = _NUL
            o += 1
            b_words[nb], b_links[nb], b_owner[nb] = words, links, owner
            nb += 1
        block_start, words, links, pending = o, 0, 0, False
        e_tag[ne] = tag
        e_parent[ne] = owner
        e_depth[ne] = e_depth[owner] + 1 if owner >= 0 else 0
        e_end[ne] = ne
        e_attr[ne, 0], e_attr[ne, 1], e_attr[ne, 2], e_attr[ne, 3] = cls_lo, cls_hi, id_lo, id_hi
        e_attr[ne, 4], e_attr[ne, 5] = ip_lo, ip_hi
        if not void[tag]:
            st_el[sp] = ne
            st_link[sp] = False
            sp += 1
            owner = ne
        ne += 1
    if o > block_start:
        out[o] = _NUL
        o += 1
        b_words[nb], b_links[nb], b_owner[nb] = words, links, owner
        nb += 1
    return (out[:o], b_words[:nb], b_links[:nb], b_owner[:nb],
            e_tag[:ne], e_parent[:ne], e_depth[:ne], e_end[:ne], e_attr[:ne])


@njit(cache=True)
def _lower(c):
    return c + 32 if 65 <= c <= 90 else c


@njit(cache=True)
def _is_letter(c):
    return 97 <= _lower(c) <= 122


@njit(cache=True)
def keyword_masks(buf, spans, words, lengths, whole, bits, first):
    """Per element, bit ``bits[k]`` set when keyword ``k`` occurs in its class/id/itemprop values.

    ``buf`` holds the serialized page, ``spans[e]`` the byte ranges of element ``e``'s
    values (start/end pairs); ``words[k, :lengths[k]]`` is keyword ``k`` (lower-case
    ASCII letters, two or more), the keywords sorted so that ``first[b]`` .. ``first[b + 1]``
    are those whose first two letters are ``b = 26 * (c1 - 97) + (c2 - 97)``: at each letter of a
    value only the keywords starting with it and the next letter are compared (class lists of
    2020s pages run to hundreds of bytes an element).  Matching ignores ASCII case; a
    keyword with ``whole[k]`` set (the short ones) matches only where no letter touches it
    on either side, the others anywhere inside a value ("storyBody" holds "story" and
    "body", "navigation" no "nav").
    """
    ne = spans.shape[0]
    out = np.zeros(ne, dtype=np.uint64)
    for e in range(ne):
        mask = np.uint64(0)
        for s in range(0, spans.shape[1], 2):
            lo, hi = spans[e, s], spans[e, s + 1]
            for p in range(lo, hi - 1):
                c = _lower(buf[p])
                c2 = _lower(buf[p + 1])
                if not (97 <= c <= 122 and 97 <= c2 <= 122):
                    continue
                b = (c - 97) * 26 + c2 - 97
                for k in range(first[b], first[b + 1]):
                    m = lengths[k]
                    if p + m > hi:
                        continue
                    ok = True
                    for j in range(2, m):
                        if _lower(buf[p + j]) != words[k, j]:
                            ok = False
                            break
                    if ok and whole[k]:
                        ok = not (p > lo and _is_letter(buf[p - 1])) and not (p + m < hi and _is_letter(buf[p + m]))
                    if ok:
                        mask |= np.uint64(1) << np.uint64(bits[k])
        out[e] = mask
    return out


_DEPTH_VOID, _DEPTH_IMPLIED, _DEPTH_RAW, _DEPTH_FOREIGN = 1, 2, 3, 4
_COMMENT_END = np.frombuffer(b"-->", dtype=np.uint8)


@njit(inline="always", cache=True)
def _is_alpha(c):
    return 65 <= c <= 90 or 97 <= c <= 122


@njit(inline="always", cache=True)
def _is_name_char(c):
    return _is_alpha(c) or 48 <= c <= 57 or c == 58 or c == 45


@njit(cache=True)
def _find(buf, p, word):
    """The first index >= ``p`` where ``word`` starts in ``buf``, -1 when none."""
    n = buf.shape[0]
    m = word.shape[0]
    while p + m <= n:
        if buf[p] == word[0] and _starts(buf, p, word):
            return p
        p += 1
    return -1


@njit(cache=True)
def _name_kind(buf, lo, hi, names, lengths, kinds):
    """The kind of the tag named ``buf[lo:hi]`` (ASCII, any case) among ``names``, and its row; 0, -1
    for any other name."""
    for k in range(names.shape[0]):
        if lengths[k] != hi - lo:
            continue
        same = True
        for j in range(hi - lo):
            if _lower(buf[lo + j]) != names[k, j]:
                same = False
                break
        if same:
            return kinds[k], k
    return 0, -1


@njit(cache=True)
def _raw_end(buf, p, name, length):
    """Where the first ``</name`` followed by white space, ``/`` or ``>`` at or after ``p`` ends, -1
    when none: Python's ``re.search(r"</name[\\s/>]", re.IGNORECASE)`` over the UTF-8 bytes, whose
    case folding also lets "ı"/"İ" stand for "i" and "ſ" for "s", and whose ``\\s`` is Unicode's."""
    n = buf.shape[0]
    while p + 1 < n:
        if buf[p] != _LT or buf[p + 1] != _SLASH:
            p += 1
            continue
        q = p + 2
        same = True
        for j in range(length):
            if q >= n:
                same = False
                break
            c, letter = buf[q], name[j]
            if _lower(c) == letter:
                q += 1
            elif q + 1 < n and ((letter == 105 and c == 0xC4 and (buf[q + 1] == 0xB0 or buf[q + 1] == 0xB1))
                                or (letter == 115 and c == 0xC5 and buf[q + 1] == 0xBF)):
                q += 2  # İ, ı; ſ
            else:
                same = False
                break
        if same and q < n:
            c = buf[q]
            if c == _SLASH or c == _GT or 9 <= c <= 13 or 28 <= c <= 32:
                return q + 1
            c1 = buf[q + 1] if q + 1 < n else 0
            c2 = buf[q + 2] if q + 2 < n else 0
            if c == 0xC2 and (c1 == 0x85 or c1 == 0xA0):
                return q + 2
            if (c == 0xE1 and c1 == 0x9A and c2 == 0x80) or (c == 0xE3 and c1 == 0x80 and c2 == 0x80):
                return q + 3  # U+1680, U+3000
            if c == 0xE2 and ((c1 == 0x80 and (c2 <= 0x8A or c2 == 0xA8 or c2 == 0xA9 or c2 == 0xAF))
                              or (c1 == 0x81 and c2 == 0x9F)):
                return q + 3  # U+2000-200A, U+2028, U+2029, U+202F, U+205F
        p += 1
    return -1


@njit(cache=True)
def depth_over(buf, limit, names, lengths, kinds):
    """Where (byte offset) the UTF-8 page ``buf`` first nests elements deeper than ``limit``, -1 when
    it never does: :func:`.guard.html_depth_over`'s estimate (see its module) in one compiled pass.
    ``names`` (lower-case, padded), ``lengths`` and ``kinds`` list the void, implied-end, raw-text and
    foreign tags."""
    n = buf.shape[0]
    depth = 0
    foreign = 0
    p = 0
    while True:
        # The next tag: "<" and a letter, "</" and a letter, or "<!--".
        start = -1
        closing = False
        while p + 1 < n:
            if buf[p] == _LT:
                c = buf[p + 1]
                if c == _SLASH and p + 2 < n and _is_alpha(buf[p + 2]):
                    start, closing = p, True
                    break
                if _is_alpha(c):
                    start = p
                    break
                if c == _BANG and p + 3 < n and buf[p + 2] == 45 and buf[p + 3] == 45:
                    start = p
                    break
            p += 1
        if start < 0:
            return -1
        lo = start + 2 if closing else start + 1
        if buf[lo] == _BANG:  # a comment, up to its "-->"
            end = _find(buf, start + 4, _COMMENT_END)
            if end < 0:
                return -1
            p = end + 3
            continue
        hi = lo + 1
        while hi < n and _is_name_char(buf[hi]):
            hi += 1
        p = hi
        kind, row = _name_kind(buf, lo, hi, names, lengths, kinds)
        if closing:
            if kind == _DEPTH_FOREIGN and foreign > 0:
                foreign -= 1
            if kind != _DEPTH_VOID and kind != _DEPTH_IMPLIED and depth > 0:
                depth -= 1
            continue
        if kind == _DEPTH_VOID or kind == _DEPTH_IMPLIED:
            continue
        if foreign > 0:  # inside SVG / MathML "/>" closes the element
            close = p
            while close < n and buf[close] != _GT:
                close += 1
            if close < n and buf[close - 1] == _SLASH:
                continue
        if kind == _DEPTH_RAW:  # its content is text up to its end tag
            p = _raw_end(buf, p, names[row], lengths[row])
            if p < 0:
                return -1
            continue
        if kind == _DEPTH_FOREIGN:
            foreign += 1
        depth += 1
        if depth > limit:
            return start
