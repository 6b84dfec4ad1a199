"""Word tokenization in compiled code, over a whole batch of documents at once.

A batch of texts is normalized (:func:`~neardup.text.normalize.normalize`), encoded to
UTF-8 and concatenated into one writable byte buffer with document offsets
(:func:`encode_batch`); pure-ASCII texts, the common case, skip the Python-side
normalization because NFKC leaves ASCII alone and the kernel lower-cases ASCII letters
itself.  :func:`doc_tokens` then walks a document's bytes, decodes code points, splits
them by their character class and hashes every token with XXH64 -- no Python string is
made per token, which is what makes the hot path faster than a Python ``re.findall``
pass over the same texts.  Batch kernels run it over documents in parallel.

:func:`tokenize` gives the same tokens as Python strings, for tests, debugging and
methods that need to look at words (it runs the same kernel).
"""

from __future__ import annotations

import unicodedata
from functools import partial
from typing import Sequence

import numpy as np
from numba import njit, prange

from ..hashing import xxh64_bytes
from .normalize import CHAR, SEP, char_classes, normalize

#: The longest unit, in characters, in scripts written without spaces.
MAX_UNIT = 4


@njit(inline="always", cache=True)
def unit_cut(prev, cp):
    """Whether a unit ends between the characters ``prev`` and ``cp`` of a run written
    without spaces (a content-defined cut, one pair in two)."""
    h = (np.uint64(prev) * np.uint64(0x9E3779B97F4A7C15)) ^ (np.uint64(cp) * np.uint64(0xC2B2AE3D27D4EB4F))
    h = (h ^ (h >> np.uint64(29))) * np.uint64(0xBF58476D1CE4E5B9)
    return (h >> np.uint64(40)) & np.uint64(1) == np.uint64(0)


def encode_batch(texts: Sequence[str], fold_case: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Normalize and UTF-8 encode ``texts`` into one buffer plus ``n + 1`` byte offsets.

    ASCII texts are left as they are (the kernels lower-case ASCII in the buffer).
    ``fold_case=False`` applies NFKC only, for readers of the original letter case.
    """
    norm = normalize if fold_case else partial(unicodedata.normalize, "NFKC")
    encoded = [(t if t.isascii() else norm(t)).encode("utf-8") for t in texts]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)), out=offsets[1:])
    return np.frombuffer(bytearray().join(encoded), dtype=np.uint8), offsets


@njit(cache=True)
def code_point(buf, p):
    """The code point and byte width of the UTF-8 sequence that starts at ``buf[p]``."""
    b0 = np.int64(buf[p])
    if b0 < 0x80:
        return b0, 1
    if b0 >= 0xF0:
        cp = ((b0 & 0x07) << 18) | ((np.int64(buf[p + 1]) & 0x3F) << 12)
        cp |= ((np.int64(buf[p + 2]) & 0x3F) << 6) | (np.int64(buf[p + 3]) & 0x3F)
        return cp, 4
    if b0 >= 0xE0:
        cp = ((b0 & 0x0F) << 12) | ((np.int64(buf[p + 1]) & 0x3F) << 6)
        cp |= np.int64(buf[p + 2]) & 0x3F
        return cp, 3
    return ((b0 & 0x1F) << 6) | (np.int64(buf[p + 1]) & 0x3F), 2


@njit(cache=True)
def _multibyte(buf, p, table):
    """Class, byte width and code point of the multi-byte UTF-8 character at ``buf[p]``.

    Code points beyond the table are WORD characters.  ASCII, the common case, is
    handled inline by the scanners (a call per byte would cost them a third).
    """
    cp, width = code_point(buf, p)
    return (table[cp] if cp < table.shape[0] else np.uint8(1)), width, cp


@njit(cache=True)
def scan_tokens(buf, start, end, table, starts, ends, pos):
    """Write the byte spans of the tokens of ``buf[start:end]`` at ``starts/ends[pos:]``.

    Returns the number of tokens.  WORD characters join into tokens, runs of CHAR
    characters are cut into units (:func:`unit_cut`, at most
    ``MAX_UNIT`` characters), SEP characters end tokens.  ASCII capitals are lower-cased
    in ``buf`` on the way.
    """
    n = 0
    tok = -1
    unit = 0  # characters of the open token when it is a unit of a script without spaces
    prev = 0
    p = start
    while p < end:
        b0 = buf[p]
        if b0 < 0x80:
            if 0x41 <= b0 <= 0x5A:
                b0 += 0x20
                buf[p] = b0
            cls = table[b0]
            width = 1
            cp = 0
        else:
            cls, width, cp = _multibyte(buf, p, table)
        if cls == SEP or cls == CHAR:
            if tok >= 0 and (cls == SEP or unit == 0 or unit >= MAX_UNIT or unit_cut(prev, cp)):
                starts[pos + n] = tok
                ends[pos + n] = p
                n += 1
                tok = -1
            if cls == CHAR:
                if tok < 0:
                    tok = p
                    unit = 0
                unit += 1
                prev = cp
        elif tok < 0:
            tok = p
            unit = 0
        elif unit > 0:  # a letter after a unit: the unit ends, a word starts
            starts[pos + n] = tok
            ends[pos + n] = p
            n += 1
            tok = p
            unit = 0
        p += width
    if tok >= 0:
        starts[pos + n] = tok
        ends[pos + n] = end
        n += 1
    return n


@njit(cache=True)
def doc_tokens(buf, lo, hi, table, seed, out, units=True):
    """Hash the tokens of ``buf[lo:hi]`` into ``out`` in text order; returns how many.

    The tokens of :func:`scan_tokens` (words; units of scripts without spaces, or with
    ``units=False`` one character each, as the extraction model's features were made), each hashed as soon as it ends: one pass over the
    bytes and no span arrays, faster than scanning first.  Its per-byte step (ASCII
    class and lower-casing inline) repeats :func:`scan_tokens`'s on purpose: moved into one
    shared kernel, called or inlined by numba (``inline="always"``), this loop ran about
    twice as slow (docs/costs.md).
    """
    n = 0
    tok = -1
    unit = 0  # characters of the open token when it is a unit of a script without spaces
    prev = 0
    p = lo
    while p < hi:
        b0 = buf[p]
        if b0 < 0x80:
            if 0x41 <= b0 <= 0x5A:
                b0 += 0x20
                buf[p] = b0
            cls = table[b0]
            width = 1
            cp = 0
        else:
            cls, width, cp = _multibyte(buf, p, table)
        if cls == SEP or cls == CHAR:
            if tok >= 0 and (cls == SEP or unit == 0 or not units or unit >= MAX_UNIT or unit_cut(prev, cp)):
                out[n] = xxh64_bytes(buf, tok, p, seed)
                n += 1
                tok = -1
            if cls == CHAR:
                if tok < 0:
                    tok = p
                    unit = 0
                unit += 1
                prev = cp
        elif tok < 0:
            tok = p
            unit = 0
        elif unit > 0:  # a letter after a unit: the unit ends, a word starts
            out[n] = xxh64_bytes(buf, tok, p, seed)
            n += 1
            tok = p
            unit = 0
        p += width
    if tok >= 0:
        out[n] = xxh64_bytes(buf, tok, hi, seed)
        n += 1
    return n


@njit(parallel=True, nogil=True, cache=True)
def token_hashes(buf, offsets, table, seed):
    """Hash every token of every document of a batch.

    Returns ``(hashes, counts)``: document ``d``'s token hashes, in text order, are
    ``hashes[offsets[d] : offsets[d] + counts[d]]`` (a document has at most as many
    tokens as bytes, so its byte offset is a safe place for them).
    """
    n_docs = offsets.shape[0] - 1
    hashes = np.empty(offsets[n_docs], dtype=np.uint64)
    counts = np.zeros(n_docs, dtype=np.int64)
    for d in prange(n_docs):
        counts[d] = doc_tokens(buf, offsets[d], offsets[d + 1], table, seed, hashes[offsets[d] :])
    return hashes, counts


@njit(cache=True)
def _spans(buf, table):
    starts = np.empty(buf.shape[0], dtype=np.int64)
    ends = np.empty(buf.shape[0], dtype=np.int64)
    n = scan_tokens(buf, 0, buf.shape[0], table, starts, ends, 0)
    return starts[:n], ends[:n]


def tokenize(text: str) -> list[str]:
    """The normalized tokens of ``text`` as strings, exactly as the kernels see them."""
    data = normalize(text).encode("utf-8")
    starts, ends = _spans(np.frombuffer(bytearray(data), dtype=np.uint8), char_classes())
    return [data[s:e].decode("utf-8") for s, e in zip(starts.tolist(), ends.tolist())]
