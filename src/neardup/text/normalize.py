"""Text normalization and the character classes the tokenizer splits on.

One place decides what a word is, for every method:

* :func:`normalize` applies Unicode NFKC (full-width and compatibility forms fold to
  their plain letters), case folding and the folding of diacritics and of the Turkish I
  (:func:`neardup.text.fold.fold_text`), so "Ｒｅｕｔｅｒｓ" and "REUTERS", "İSTANBUL"
  and "istanbul", "Şişli" and "Sisli" are one word.
* :func:`char_classes` is a lookup table from code point to class: ``SEP`` (spaces,
  punctuation, symbols: they end a word), ``WORD`` (letters, digits, combining marks,
  underscore: they make a word) and ``CHAR`` (scripts written without spaces, such as
  Chinese, Japanese kana and Thai: each character is a word of its own, so word
  k-shingles over them are character k-grams).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import numpy as np

from .fold import TABLE_SIZE, fold_text

SEP, WORD, CHAR = 0, 1, 2

#: Code points at and above TABLE_SIZE (0x30000, :mod:`.fold`) are WORD characters (rare planes).

#: Scripts written without spaces between words, tokenized one character at a time.
CHAR_RANGES = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width katakana
    (0x20000, 0x2FFFF),  # CJK extensions B-F
)


def normalize(text: str) -> str:
    """NFKC-normalize and case-fold ``text``, folding diacritics and the Turkish I."""
    return fold_text(unicodedata.normalize("NFKC", text).casefold())


def code_points(n: int) -> str:
    """A string of every code point below ``n``, each at its own index, but the surrogates
    (U+D800-U+DFFF, which are no characters) as spaces: to the tables built from it the same (neither
    is a word character of ``re`` nor a mark), and the string is then decoded without an error
    handler called at each surrogate (``surrogatepass``), which took two thirds of the time of
    :func:`char_classes` in every process."""
    codes = np.arange(n, dtype="<u4")
    codes[0xD800:0xE000] = ord(" ")
    return codes.tobytes().decode("utf-32-le")


@lru_cache(maxsize=1)
def char_classes() -> np.ndarray:
    """The ``uint8`` class (SEP, WORD or CHAR) of every code point below TABLE_SIZE.

    WORD is ``str.isalnum()``, ``_`` or a combining mark (category M).  Python's
    ``\\w`` is exactly ``isalnum()`` or ``_``, so one regex pass over a string of all
    code points finds most WORD characters, and only the rest are asked for their
    category: a third of a per-character loop's time, paid by every process (docs/costs.md).
    """
    codes = code_points(TABLE_SIZE)
    table = np.zeros(TABLE_SIZE, dtype=np.uint8)
    for run in re.finditer(r"\w+", codes):
        table[run.start() : run.end()] = WORD
    category = unicodedata.category
    table[[ord(ch) for ch in re.sub(r"\w+", "", codes) if category(ch)[0] == "M"]] = WORD
    for lo, hi in CHAR_RANGES:
        table[lo : hi + 1] = np.where(table[lo : hi + 1] == WORD, CHAR, table[lo : hi + 1])
    return table


_WORD_CHAR = re.compile(r"\w")


def has_words(text: str) -> bool:
    """Whether the tokenizer finds a word in ``text``: cheap for nearly every text (the first
    letter or digit ends the search); only a text without one is normalized and looked up in
    :func:`char_classes` (a mark, ``™`` that NFKC makes ``tm``, a code point past the table)."""
    if _WORD_CHAR.search(text):
        return True
    table = char_classes()
    return any(table[c] != SEP if c < TABLE_SIZE else True for c in map(ord, normalize(text)))
