"""CoDet's words: tokens without stopwords, cut to their first letters, weighted by IDF.

varol2011 (section 4): "Stopword elimination and a word truncation-based stemming
(first-5) are performed before the detection process", for CoDet and every baseline.
A word here is a token of the one tokenizer (:mod:`neardup.text.tokenize`, so the
same normalization and the same splitting), dropped when its full form is a stopword,
then cut to its first ``prefix`` characters (code points; 0 keeps whole words, the
language-dependent knob: 5 suits Turkish and English news, a smaller or no cut other
languages; CJK tokens are single characters and unaffected) and hashed with XXH64.

The kernel walks the UTF-8 bytes of a batch of sentences once, hashing each token whole
(for the stopword test by binary search; equal to :func:`neardup.hashing.hash_str`)
and, when kept, cut.

IDF is ``ln(N / df) + 1`` over documents, as in the paper's worked example (the node
"starts", in 2 of 3 documents, weighs ``log(3/2) + 1``); words never seen count as
found once.  Document frequencies come from the input (:func:`document_word_sets` then
:class:`~neardup.stats.DocumentFrequencies`) or from a file saved by
:func:`save_word_stats`, which records the cut so that statistics of cut and whole
words are never mixed up (a ``neardup stats build`` file counts whole words and is
accepted with ``prefix=0``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import numpy as np
from numba import njit, prange

from ..errors import UserError
from ..features.sets import HashedSets, sort_unique_segments
from ..features.spots import word_hashes
from ..text.stopwords import ENGLISH_STOPWORDS
from ..hashing import xxh64_bytes
from ..stats.df import DocumentFrequencies
from ..text.normalize import char_classes
from ..text.tokenize import scan_tokens, encode_batch
from ..io.writers import atomic_file

#: The paper's cut: first five letters.
DEFAULT_PREFIX = 5


@njit(cache=True)
def _cut(buf, start, end, prefix):
    """End of the first ``prefix`` code points of ``buf[start:end]`` (all of it for 0)."""
    if prefix <= 0:
        return end
    seen = 0
    p = start
    while p < end:
        if buf[p] & 0xC0 != 0x80:  # a code point starts here
            if seen == prefix:
                return p
            seen += 1
        p += 1
    return end


@njit(inline="always", cache=True)
def _member(sorted_values, x):
    p = np.searchsorted(sorted_values, x)
    return p < sorted_values.shape[0] and sorted_values[p] == x


@njit(parallel=True, nogil=True, cache=True)
def _words(buf, offsets, table, prefix, stop, seed):
    """Cut hashes of the tokens of every text that are not stopwords.

    Hashes are written at the text's byte offset and flagged in ``keep`` (so that
    ``hashes[keep]`` lists them in text order); returns ``(hashes, keep, counts)``.
    """
    n = offsets.shape[0] - 1
    hashes = np.empty(offsets[n], dtype=np.uint64)
    keep = np.zeros(offsets[n], dtype=np.bool_)
    counts = np.zeros(n, dtype=np.int64)
    for d in prange(n):
        lo, hi = offsets[d], offsets[d + 1]
        starts = np.empty(hi - lo, dtype=np.int64)
        ends = np.empty(hi - lo, dtype=np.int64)
        t = scan_tokens(buf, lo, hi, table, starts, ends, 0)
        m = 0
        for i in range(t):
            if _member(stop, xxh64_bytes(buf, starts[i], ends[i], seed)):
                continue
            hashes[lo + m] = xxh64_bytes(buf, starts[i], _cut(buf, starts[i], ends[i], prefix), seed)
            keep[lo + m] = True
            m += 1
        counts[d] = m
    return hashes, keep, counts


@njit(parallel=True, nogil=True, cache=True)
def sort_by_weight(words, weights, offsets):
    """Sort each segment of ``words`` (and ``weights``) by weight, highest first, ties by hash."""
    out_w = words.copy()
    out_x = weights.copy()
    for s in prange(offsets.shape[0] - 1):
        for i in range(offsets[s] + 1, offsets[s + 1]):  # insertion sort: sentences are short
            w, x = out_w[i], out_x[i]
            j = i - 1
            while j >= offsets[s] and (out_x[j] < x or (out_x[j] == x and out_w[j] > w)):
                out_w[j + 1] = out_w[j]
                out_x[j + 1] = out_x[j]
                j -= 1
            out_w[j + 1] = w
            out_x[j + 1] = x
    return out_w, out_x


def stopword_hashes(words: Iterable[str] | None = ENGLISH_STOPWORDS) -> np.ndarray:
    """Sorted token hashes of a stopword list (``None``: no stopwords)."""
    return np.zeros(0, np.uint64) if words is None else word_hashes(words)


def sentence_words(sentences: list[str], prefix: int, stopwords: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR ``(hashes, offsets)``: each sentence's words in text order, stopwords dropped, cut."""
    if prefix < 0:
        raise UserError(f"word prefix must be 0 (whole words) or more, got {prefix}")
    buf, offsets = encode_batch(sentences)
    stop = np.unique(np.asarray(stopwords, dtype=np.uint64))
    hashes, keep, counts = _words(buf, offsets, char_classes(), prefix, stop, np.uint64(0))
    out_off = np.zeros(len(sentences) + 1, dtype=np.int64)
    np.cumsum(counts, out=out_off[1:])
    return hashes[keep], out_off


def document_word_sets(words: np.ndarray, word_offsets: np.ndarray, doc_offsets: np.ndarray) -> HashedSets:
    """The distinct words of each document (its sentences are contiguous in ``words``)."""
    bounds = word_offsets[doc_offsets]
    return HashedSets(*sort_unique_segments(words.copy(), bounds[:-1], np.diff(bounds)))


def idf_weights(df: DocumentFrequencies, hashes: np.ndarray) -> np.ndarray:
    """``ln(N / df) + 1`` of each hash (unseen words: df 1)."""
    return df.idf(hashes) + 1.0


def save_word_stats(df: DocumentFrequencies, path: str | Path, prefix: int) -> None:
    """Write document frequencies of cut words, with the cut, to an ``.npz`` file."""
    df.compact()
    with atomic_file(path) as tmp, open(tmp, "wb") as fh:  # a file handle: savez adds .npz to bare names
        np.savez_compressed(fh, n_docs=np.int64(df.n_docs), keys=df.keys, counts=df.counts,
                            word_prefix=np.int64(prefix))


def load_word_stats(path: str | Path, prefix: int) -> DocumentFrequencies:
    """Read word statistics for words cut to ``prefix`` letters; refuse a file made otherwise."""
    df = DocumentFrequencies.load(path)
    with np.load(path) as data:  # readable: DocumentFrequencies.load checked it
        made = int(data["word_prefix"]) if "word_prefix" in data.files else 0
    if made != prefix:
        how = "whole words" if made == 0 else f"words cut to {made} letters"
        raise UserError(f"{path}: statistics of {how}, but words are cut to {prefix} letters here "
                         f"(use --word-prefix {made}, or save new statistics with --save-stats)")
    return df
