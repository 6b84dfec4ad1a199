"""Folding for matching: case, the diacritics of Latin, Greek, Cyrillic and Arabic, the Turkish I,
and the characters that are not seen (soft hyphens, joiners, direction marks, tatweel).

One code point maps to one (or a combining mark or invisible character is dropped), so character offsets of the
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

#: Code point ranges whose letters lose their diacritics when folded (Latin, Greek, Cyrillic; Arabic's
#: letters with a hamza or madda, أ إ آ ؤ ئ, which web copies write as ا و ي as often as not).
_FOLD_RANGES = ((0x00C0, 0x052F), (0x0600, 0x06FF), (0x1E00, 0x1FFF))
#: Blocks whose combining marks are dropped: Latin's combining diacritics, Hebrew's points and
#: accents, Arabic's harakat (vowel signs, shadda, sukun, Quranic marks) -- optional marks a copy
#: may add or lose.  The marks of Indic and other scripts are letters of the word, and are kept.
_DROPPED_MARKS = ((0x0300, 0x036F), (0x0591, 0x05C7), (0x0610, 0x061A), (0x064B, 0x065F), (0x0670, 0x0670),
                  (0x06D6, 0x06ED))
#: Characters a reader does not see, dropped wherever they are (a word they sit in stays one word):
#: the soft hyphen, the Arabic letter mark, zero-width space, non-joiner and joiner, left-to-right and
#: right-to-left marks, direction embeddings and isolates, the word joiner and invisible operators,
#: variation selectors (the emoji and text styles), the zero-width no-break space (a BOM inside a
#: text), and Arabic's tatweel (a stretch of a letter's joining stroke, ``كـتـاب`` = ``كتاب``).
#: Tag characters (U+E0000-U+E007F, in flag emoji) are dropped by :func:`fold_text` and the aligner.
IGNORED = (0x00AD, 0x061C, 0x0640, *range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x2060, 0x2065),
           *range(0x2066, 0x206A), *range(0xFE00, 0xFE10), 0xFEFF)
#: The tag characters' block (beyond the table: the aligner drops it by range).
TAGS = (0xE0000, 0xE007F)
_DOTLESS_I, _DOTTED_CAPITAL_I = 0x0131, 0x0130


@lru_cache(maxsize=1)
def fold_table() -> np.ndarray:
    """``uint32`` map of every code point below TABLE_SIZE to its folded form (0: drop it).

    Lower case where that is one code point; Latin, Greek, Cyrillic and Arabic letters
    without their diacritics (the first code point of the canonical decomposition); the
    marks of :data:`_DROPPED_MARKS` and the invisible characters of :data:`IGNORED` dropped;
    ``ı`` and ``İ`` to ``i``.
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
    for lo, hi in _DROPPED_MARKS:
        table[lo:hi + 1] = np.where([unicodedata.category(chr(cp)) == "Mn" for cp in range(lo, hi + 1)], 0,
                                    table[lo:hi + 1])
    table[list(IGNORED)] = 0
    table[_DOTLESS_I] = table[_DOTTED_CAPITAL_I] = ord("i")
    return table


@lru_cache(maxsize=1)
def _translation() -> dict[int, int | None]:
    """:func:`fold_table` for ``str.translate``: the code points it changes below U+2000 (above,
    case folding has done its part), marks and invisible characters to None."""
    table = fold_table()
    changed = np.flatnonzero(table[:0x2000] != np.arange(0x2000))
    out: dict[int, int | None] = {int(cp): (int(table[cp]) or None) for cp in changed}
    out.update(dict.fromkeys([*IGNORED, *range(TAGS[0], TAGS[1] + 1)]))
    return out


@lru_cache(maxsize=1)
def _foldable() -> re.Pattern:
    """A character class of the code points :func:`fold_text` changes."""
    return re.compile("[" + "".join(re.escape(chr(cp)) for cp in sorted(_translation())) + "]")


def fold_text(text: str) -> str:
    """``text`` folded for matching (lower case, diacritics and the Turkish I folded).

    For an already case-folded text (see :func:`neardup.text.normalize.normalize`).  Only
    code points below U+2000 and the invisible ones change, so texts of other scripts come
    back as they were; a text with none of them (English with a curly quote, Chinese) is
    only scanned, in C.
    """
    if _foldable().search(text) is None:
        return text
    return text.translate(_translation())
