"""The words of seed-and-extend alignment (:mod:`.aligner`): the map over documents that the
seeds (:mod:`.seeds`) are made from, compiled.

:func:`tokens` reads every text once, folding and hashing each word as it goes, and keeps
the character span of every word so that passages are reported in characters.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numba import njit, prange

from ..text.normalize import CHAR, WORD, char_classes, nfkc_candidates, nfkc_origins
from ..text.fold import TAGS, fold_table
from ..text.tokenize import MAX_UNIT, unit_cut

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
TAG_FIRST, TAG_LAST = TAGS


@njit(inline="always", cache=True)
def _finish(h):
    """SplitMix64's finalizer: spreads an FNV-1a state over all 64 bits."""
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


@njit(cache=True)
def _scan_doc(cps, lo, hi, table, fold, hashes, starts, ends):
    """Words of the document ``cps[lo:hi]`` written at ``lo`` (see :func:`_scan`); returns how many.

    Code points are folded (``fold``: :func:`neardup.text.scripts.fold_table`; a dropped
    one -- a combining mark, a soft hyphen, a joiner -- is skipped, inside its word or unit), runs of CHAR characters are
    cut into units (:func:`neardup.text.tokenize.unit_cut`) as the tokenizer does, and a
    point or comma between two digits stays inside its word (see :func:`tokens`)."""
    n = lo
    tok = -1
    unit = 0
    prev = np.uint32(0)
    h = _FNV_OFFSET
    for p in range(lo, hi):
        cp = cps[p]
        cls = table[cp] if cp < table.shape[0] else WORD
        if cp < fold.shape[0]:
            cp = fold[cp]
        elif TAG_FIRST <= cp <= TAG_LAST:
            cp = 0
        if cp == 0:  # a dropped mark or invisible character: part of the word it is in, not hashed
            continue
        if cls == WORD:
            if tok >= 0 and unit > 0:  # a letter after a unit: the unit ends
                hashes[n], starts[n], ends[n] = _finish(h), tok - lo, p - lo
                n += 1
                tok = -1
            if tok < 0:
                tok = p
                unit = 0
                h = _FNV_OFFSET
            h = (h ^ np.uint64(cp)) * _FNV_PRIME
            prev = cp
            continue
        if (tok >= 0 and unit == 0 and (cp == 44 or cp == 46) and 48 <= prev <= 57 and p + 1 < hi
                and 48 <= cps[p + 1] <= 57):  # 1,693,951 and 76.7: one word
            h = (h ^ np.uint64(cp)) * _FNV_PRIME
            continue
        if tok >= 0 and (cls != CHAR or unit == 0 or unit >= MAX_UNIT or unit_cut(prev, cp)):
            hashes[n], starts[n], ends[n] = _finish(h), tok - lo, p - lo
            n += 1
            tok = -1
        if cls == CHAR:  # a script without spaces: characters join into units
            if tok < 0:
                tok = p
                unit = 0
                h = _FNV_OFFSET
            h = (h ^ np.uint64(cp)) * _FNV_PRIME
            unit += 1
            prev = cp
    if tok >= 0:
        hashes[n], starts[n], ends[n] = _finish(h), tok - lo, hi - lo
        n += 1
    return n - lo


@njit(cache=True)
def _word_buffers(offsets):
    """Hashes, starts and ends of words at each document's character offset (a word per character
    at most), and the word count of each document."""
    n_docs = offsets.shape[0] - 1
    total = offsets[n_docs]
    return (np.empty(total, dtype=np.uint64), np.empty(total, dtype=np.int32), np.empty(total, dtype=np.int32),
            np.zeros(n_docs, dtype=np.int64))


@njit(parallel=True, cache=True)
def _scan(cps, offsets, table, fold):
    """Words of each document of ``cps`` (code points): hash, start and end (characters in
    the document), written at the document's character offset; returns them and counts."""
    hashes, starts, ends, counts = _word_buffers(offsets)
    for d in prange(counts.shape[0]):
        counts[d] = _scan_doc(cps, offsets[d], offsets[d + 1], table, fold, hashes, starts, ends)
    return hashes, starts, ends, counts


@njit(cache=True)
def _scan_serial(cps, offsets, table, fold):
    """:func:`_scan` in the calling thread: for a few texts, where starting threads costs more."""
    hashes, starts, ends, counts = _word_buffers(offsets)
    for d in range(counts.shape[0]):
        counts[d] = _scan_doc(cps, offsets[d], offsets[d + 1], table, fold, hashes, starts, ends)
    return hashes, starts, ends, counts


def _code_points(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The code points of ``texts`` in one array, and each text's ``n + 1`` offsets into it."""
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    offsets = np.r_[0, np.cumsum(lengths)].astype(np.int64)
    return np.frombuffer("".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32), offsets


def tokens(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Word hashes, character starts and ends of every word of ``texts`` (in order), and
    each text's word count.

    A text NFKC changes a word of (full-width letters, Hangul or kana written decomposed) is read
    in NFKC, as the tokenizer reads it, its words located in the text as given
    (:func:`neardup.text.normalize.nfkc_origins`).  Words are folded code point by code point
    (:func:`neardup.text.scripts.fold_table`: lower case, diacritics and the Turkish I, invisible
    characters dropped; character positions are kept), split by the
    tokenizer's character classes (:func:`neardup.text.normalize.char_classes`), and runs of
    characters of scripts without spaces are cut into units as the tokenizer cuts them.  Unlike
    the tokenizer's, a number keeps its decimal point and thousands separators (1,693,951 and
    76.7 are one word each): a document's coverage is a share of its words, and a table of
    figures cut at every separator would weigh more than it does to a reader.
    """
    cps, offsets = _code_points(texts)
    origins = {d: found for d in nfkc_candidates(cps, offsets).tolist()
               if (found := nfkc_origins(texts[d])) is not None}
    if origins:  # the few texts NFKC changes a word of are scanned normalized, located in the text as given
        cps, offsets = _code_points([origins[d][0] if d in origins else text for d, text in enumerate(texts)])
    scan = _scan if len(texts) >= 16 else _scan_serial
    hashes, starts, ends, counts = scan(cps, offsets, char_classes(), fold_table())
    keep = np.repeat(offsets[:-1], counts) + (np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts))
    hashes, starts, ends = hashes[keep], starts[keep], ends[keep]
    if origins:
        first_word = np.r_[0, np.cumsum(counts)]
        for d, (_, first, last) in origins.items():
            at = slice(first_word[d], first_word[d + 1])
            starts[at], ends[at] = first[starts[at]], last[ends[at] - 1]
    return hashes, starts, ends, counts
