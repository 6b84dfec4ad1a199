"""Scripts, the units of text they are counted in, and folding for matching.

One set of defaults (seeds of 4 words, passages of 12, shingles of 4 ...) has to mean the
same amount of text in English, Turkish and Chinese.  Three things make it so:

* **Units.**  In scripts written with spaces a unit is a word.  In scripts written without
  them (the tokenizer's ``CHAR`` class: Chinese, Japanese kana, Thai ...) a unit is a run of
  characters cut *by content*: between two characters ``a b`` of such a run a unit ends when
  a hash of the pair ``(a, b)`` says so (one pair in two), and after ``MAX_UNIT``
  characters at the latest.  Units are then 1.7-1.9 characters long on average, about a Chinese
  word (1.5-2 characters; a text of 1,000 Chinese characters translates into some 600-700
  English words), so 4 units of a seed are about 8 characters and a 12-unit passage about 23:
  the same text as 4 and 12 English words, not 4 and 12 characters.  Because the cuts depend
  only on the characters, a copied passage cuts the same way in both documents (an edit moves
  the cuts next to it only), which a fixed 2-character grid would not do.  The cut is
  :func:`neardup.text.tokenize.unit_cut`, used by every tokenizer kernel, so every method and
  engine agrees (there, with ``MAX_UNIT``: this module needs no compiler, so a task that only
  detects scripts -- Spark's reading -- does not import numba).
* **Folding** (:func:`fold_table`, :func:`fold_text`, in :mod:`.fold`): matching ignores letter case and the
  diacritics of Latin, Greek and Cyrillic letters (``ş ğ ç ö ü â`` -> ``s g c o u a``; web
  copies often lose them), and folds the Turkish dotted and dotless I both to ``i``
  (``İSTANBUL``, ``ISTANBUL``, ``istanbul``, ``ıstanbul`` are one word; English ``I`` stays
  ``i``).  Folding maps one code point to one (or drops a combining mark), so character
  offsets of the original text stay valid: outputs quote and locate the text as given.
* **Detection** (:func:`document_scripts`): the script of each document, by a majority of
  its letters, for summaries and for the simulator's choice of sentence ends and edits.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Sequence

import numpy as np

from .fold import TABLE_SIZE, fold_table, fold_text  # noqa: F401 (the folding is part of this module's story)

#: Script names, by id (0: not a letter of any listed script: digits, punctuation, spaces).
SCRIPTS = ("none", "Latin", "Greek", "Cyrillic", "Armenian", "Hebrew", "Arabic", "Devanagari", "Thai",
           "Hangul", "Han", "Kana", "Bengali", "Gurmukhi", "Gujarati", "Tamil", "Telugu", "Kannada", "Malayalam",
           "Sinhala", "Lao", "Georgian", "Ethiopic", "Myanmar", "Khmer", "other")
_RANGES = (  # (first, last, script id); letters only count (see _script_table)
    (0x0000, 0x024F, 1), (0x1E00, 0x1EFF, 1), (0x2C60, 0x2C7F, 1), (0xA720, 0xA7FF, 1), (0xFF21, 0xFF5A, 1),
    (0x0370, 0x03FF, 2), (0x1F00, 0x1FFF, 2),
    (0x0400, 0x052F, 3),
    (0x0530, 0x058F, 4),
    (0x0590, 0x05FF, 5),
    (0x0600, 0x06FF, 6), (0x0750, 0x077F, 6),
    (0x0900, 0x097F, 7),
    (0x0E00, 0x0E7F, 8),
    (0x1100, 0x11FF, 9), (0xAC00, 0xD7AF, 9), (0x3130, 0x318F, 9),
    (0x3400, 0x4DBF, 10), (0x4E00, 0x9FFF, 10), (0xF900, 0xFAFF, 10), (0x20000, 0x2FFFF, 10),
    (0x3040, 0x30FF, 11), (0x31F0, 0x31FF, 11), (0xFF66, 0xFF9F, 11),
    (0x0980, 0x09FF, 12), (0x0A00, 0x0A7F, 13), (0x0A80, 0x0AFF, 14), (0x0B80, 0x0BFF, 15), (0x0C00, 0x0C7F, 16),
    (0x0C80, 0x0CFF, 17), (0x0D00, 0x0D7F, 18), (0x0D80, 0x0DFF, 19), (0x0E80, 0x0EFF, 20),
    (0x10A0, 0x10FF, 21), (0x1C90, 0x1CBF, 21), (0x1200, 0x139F, 22), (0x1000, 0x109F, 23), (0x1780, 0x17FF, 24),
)
assert all(SCRIPTS[sid] not in ("none", "other") for _, _, sid in _RANGES)


@lru_cache(maxsize=1)
def _script_table() -> np.ndarray:
    """``uint8`` script id of every code point below TABLE_SIZE (letters only; 0 otherwise)."""
    from .normalize import char_classes

    table = np.zeros(TABLE_SIZE, dtype=np.uint8)
    for lo, hi, sid in _RANGES:
        table[lo:hi + 1] = sid
    classes = char_classes()
    table[classes == 0] = 0  # spaces, punctuation, symbols
    table[(classes != 0) & (table == 0)] = len(SCRIPTS) - 1  # letters of scripts not listed
    codes = np.arange(TABLE_SIZE, dtype="<u4").tobytes().decode("utf-32-le", "surrogatepass")
    for run in re.finditer(r"\d+|_+", codes):  # digits of every script, underscores
        table[run.start():run.end()] = 0
    return table


@lru_cache(maxsize=1)
def _ascii_non_latin() -> bytes:
    """The ASCII bytes that are not a Latin letter by :func:`_script_table`."""
    return bytes(np.flatnonzero(_script_table()[:128] != SCRIPTS.index("Latin")).tolist())


def script_counts(texts: Sequence[str]) -> np.ndarray:
    """``(len(texts), len(SCRIPTS))`` counts of each document's letters by script."""
    out = np.zeros((len(texts), len(SCRIPTS)), dtype=np.int64)
    if not texts:
        return out
    ascii_docs = np.fromiter((t.isascii() for t in texts), dtype=bool, count=len(texts))
    idx = np.flatnonzero(~ascii_docs)
    table = _script_table()
    if ascii_docs.any():  # ASCII letters are Latin: what is left of each text once its other bytes are deleted
        others = _ascii_non_latin()
        sub = [texts[i] for i in np.flatnonzero(ascii_docs).tolist()]
        out[np.flatnonzero(ascii_docs), 1] = [len(t.encode("ascii").translate(None, others)) for t in sub]
    if idx.shape[0]:
        sub = [texts[i] for i in idx.tolist()]
        lengths = np.fromiter(map(len, sub), dtype=np.int64, count=len(sub))
        cps = np.frombuffer("".join(sub).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        sid = np.where(cps < TABLE_SIZE, table[np.minimum(cps, TABLE_SIZE - 1)], len(SCRIPTS) - 1)
        doc = np.repeat(np.arange(len(sub)), lengths)
        counts = np.bincount(doc * len(SCRIPTS) + sid, minlength=len(sub) * len(SCRIPTS))
        out[idx] = counts.reshape(len(sub), len(SCRIPTS))
    out[:, 0] = 0
    return out


def document_scripts(texts: Sequence[str]) -> list[str]:
    """The script of each document: the one most of its letters are in ("none" without letters).

    Japanese (kana among Han characters) is reported as ``Kana`` when kana make up a tenth
    of its letters or more.
    """
    counts = script_counts(texts)
    best = counts.argmax(axis=1)
    han, kana = SCRIPTS.index("Han"), SCRIPTS.index("Kana")
    best[(best == han) & (counts[:, kana] * 10 >= counts.sum(axis=1))] = kana
    best[counts.sum(axis=1) == 0] = 0
    return [SCRIPTS[i] for i in best.tolist()]


class ScriptTally:
    """Detected scripts of the documents of a job, batch by batch, for its summary."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def add(self, texts: Sequence[str]) -> None:
        self.counts.update(document_scripts(texts))

    def summary(self) -> dict[str, int]:
        """``{script: documents}``, most documents first."""
        return dict(self.counts.most_common())
