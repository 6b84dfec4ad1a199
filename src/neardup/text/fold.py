"""Folding for matching: case, the diacritics of Latin, Greek and Cyrillic, the Turkish I.

One code point maps to one (or a combining mark is dropped), so character offsets of the
original text stay valid.  :func:`fold_text` is applied by :func:`neardup.text.normalize.normalize`
(every tokenizer kernel's input), :func:`fold_table` by the aligner's code-point scanner
(:mod:`neardup.align.words`); :mod:`.scripts` tells why.  This module imports nothing of the
package, so :mod:`.normalize` can use it.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import numpy as np

#: Code points at and above this bound are treated as WORD characters (rare planes).
TABLE_SIZE = 0x30000

#: Code point ranges whose letters lose their diacritics when folded (Latin, Greek, Cyrillic).
_FOLD_RANGES = ((0x00C0, 0x052F), (0x1E00, 0x1FFF))
_DOTLESS_I, _DOTTED_CAPITAL_I = 0x0131, 0x0130


@lru_cache(maxsize=1)
def fold_table() -> np.ndarray:
    """``uint32`` map of every code point below TABLE_SIZE to its folded form (0: drop it).

    Lower case where that is one code point; Latin, Greek and Cyrillic letters without
    their diacritics (the first code point of the canonical decomposition); combining
    diacritical marks (U+0300-U+036F) dropped; ``ı`` and ``İ`` to ``i``.
    """
    codes = np.arange(TABLE_SIZE, dtype="<u4")
    codes[_DOTTED_CAPITAL_I] = ord("i")  # the one code point whose lower case is two
    text = codes.tobytes().decode("utf-32-le", "surrogatepass").lower()
    table = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).copy()
    for lo, hi in _FOLD_RANGES:
        for cp in range(lo, hi + 1):
            base = unicodedata.normalize("NFD", chr(table[cp]))
            if len(base) > 1 and unicodedata.category(base[1])[0] == "M":
                table[cp] = ord(base[0])
    table[0x0300:0x0370] = 0
    table[_DOTLESS_I] = table[_DOTTED_CAPITAL_I] = ord("i")
    return table


@lru_cache(maxsize=1)
def _translation() -> dict[int, int | None]:
    """:func:`fold_table` for ``str.translate``: the code points it changes, marks to None."""
    table = fold_table()
    changed = np.flatnonzero(table[:0x2000] != np.arange(0x2000))
    return {int(cp): (int(table[cp]) or None) for cp in changed}


@lru_cache(maxsize=1)
def _foldable() -> re.Pattern:
    """A character class of the code points :func:`fold_text` changes."""
    return re.compile("[" + "".join(re.escape(chr(cp)) for cp in sorted(_translation())) + "]")


def fold_text(text: str) -> str:
    """``text`` folded for matching (lower case, diacritics and the Turkish I folded).

    For an already case-folded text (see :func:`neardup.text.normalize.normalize`).  Only
    code points below U+2000 change, so texts of other scripts come back as they were; a
    text with none of them (English with a curly quote, Chinese) is only scanned, in C.
    """
    if _foldable().search(text) is None:
        return text
    return text.translate(_translation())
