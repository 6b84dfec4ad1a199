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
* :func:`nfkc_origins` gives NFKC to readers that must locate words in the text as given
  (the aligner): the normalized text and where each of its characters comes from.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import numpy as np

from .fold import TABLE_SIZE, fold_text

SEP, WORD, CHAR = 0, 1, 2

#: What a word is, as a number kept with what stores words' hashes (an index's manifest), so a store made
#: when words were read otherwise says so: 1 until 28 November 2026; 2 since invisible characters (soft
#: hyphens, joiners, direction marks, tatweel), Arabic's harakat and hamza, and (in the aligner) the
#: forms NFKC changes are folded -- a text holding none of them has the same words under both.
WORDS_VERSION = 2
#: The words of a store made before :data:`WORDS_VERSION` was kept.
FIRST_WORDS_VERSION = 1

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


#: Hangul vowel and final jamo: NFC joins them to the syllable before them (by rule, so no
#: decomposition lists them as a second character).
_HANGUL_VT = ((0x1161, 0x1175), (0x11A8, 0x11C2))
#: Kinds of :func:`nfkc_kinds`: a character NFKC maps to something a word sees; one NFC may join to
#: the character before it.
NFKC_CHANGED, NFKC_JOINING = 1, 2


@lru_cache(maxsize=1)
def nfkc_kinds() -> np.ndarray:
    """``uint8`` kind of every code point below TABLE_SIZE for NFKC (made once a process):
    :data:`NFKC_CHANGED` where NFKC maps it to something a word sees (not where it maps a separator
    to separators: a no-break space, an ellipsis, full-width punctuation), :data:`NFKC_JOINING`
    where NFC may join it to the character before (combining marks, Hangul vowel and final jamo),
    0 elsewhere."""
    table = char_classes()
    kinds = np.zeros(TABLE_SIZE, dtype=np.uint8)
    for lo, hi in _HANGUL_VT:
        kinds[lo:hi + 1] = NFKC_JOINING
    codes = code_points(TABLE_SIZE)
    decompositions = list(map(unicodedata.decomposition, codes))  # mapped in C, not a Python loop
    marks = list(map(unicodedata.combining, codes))
    for cp in [cp for cp, (d, c) in enumerate(zip(decompositions, marks)) if d]:
        form = unicodedata.normalize("NFKC", chr(cp))
        if form != chr(cp) and not (table[cp] == SEP and all(ord(c) < TABLE_SIZE and table[ord(c)] == SEP
                                                             for c in form)):
            kinds[cp] = NFKC_CHANGED
    for cp in [cp for cp, d in enumerate(decompositions) if d and not d.startswith("<") and " " in d]:
        kinds[int(decompositions[cp].split()[1], 16)] = NFKC_JOINING  # the second of a canonical pair
    kinds[[cp for cp, c in enumerate(marks) if c]] = NFKC_JOINING
    return kinds


def nfkc_candidates(cps: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The documents of a batch of code points (``offsets``: ``n + 1`` starts) holding a character
    :func:`nfkc_origins` may have to normalize: the few to give it (one table look-up per character)."""
    kinds = nfkc_kinds()
    wide = np.flatnonzero(cps >= _first_kind())  # few: below it (ASCII, most of Latin-1) no kind is set
    marked = wide[(kinds[np.minimum(cps[wide], TABLE_SIZE - 1)] != 0) & (cps[wide] < TABLE_SIZE)]
    return np.unique(np.searchsorted(offsets, marked, side="right") - 1)


@lru_cache(maxsize=1)
def _first_kind() -> int:
    """The lowest code point :func:`nfkc_kinds` marks (no character below it needs normalizing)."""
    return int(np.flatnonzero(nfkc_kinds())[0])


def nfkc_origins(text: str) -> tuple[str, np.ndarray, np.ndarray] | None:
    """``text`` NFKC-normalized where that changes a word, with each character's origin; None where it
    changes none (nearly every text: ASCII, or in NFC with no character NFKC maps but spaces and
    punctuation).

    Returns ``(normalized, first, last)``: character ``i`` of ``normalized`` comes from ``text[first[i]:
    last[i]]`` (one character, or the characters NFKC made it of).  Normalized piece by piece -- a
    character with the marks after it -- so that a word's span in ``normalized`` maps back to the text
    as given: full-width ``Ｒｅｕｔｅｒｓ`` is ``reuters``, Hangul written as jamo (NFD, as macOS
    writes it) the syllables, ``か`` + ``゙`` the ``が`` it is, as :func:`normalize` makes them for the
    tokenizer.  Separators stay as they are (a no-break space is a separator either way).
    """
    if text.isascii() or unicodedata.is_normalized("NFKC", text):
        return None
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    kinds = np.where(cps < TABLE_SIZE, nfkc_kinds()[np.minimum(cps, TABLE_SIZE - 1)], 0)
    if not (kinds == NFKC_CHANGED).any() and unicodedata.is_normalized("NFC", text):
        return None
    # pieces: a character with the joining ones after it; those NFKC may change hold more than one, or a changed one
    starts = np.flatnonzero(np.r_[True, kinds[1:] != NFKC_JOINING])
    ends = np.r_[starts[1:], len(text)]
    pick = (ends - starts > 1) | (kinds[starts] == NFKC_CHANGED)
    parts: list[str] = []
    first: list[np.ndarray] = []
    last: list[np.ndarray] = []
    at = 0
    for s, e in zip(starts[pick].tolist(), ends[pick].tolist()):
        piece = text[s:e]
        form = unicodedata.normalize("NFKC", piece)
        if form == piece:
            continue
        parts += [text[at:s], form]
        first += [np.arange(at, s), np.full(len(form), s)]
        last += [np.arange(at + 1, s + 1), np.full(len(form), e)]
        at = e
    parts.append(text[at:])
    first.append(np.arange(at, len(text)))
    last.append(np.arange(at + 1, len(text) + 1))
    return "".join(parts), np.concatenate(first), np.concatenate(last)

_WORD_CHAR = re.compile(r"\w")


def has_words(text: str) -> bool:
    """Whether the tokenizer finds a word in ``text``: cheap for nearly every text (the first
    letter or digit ends the search); only a text without one is normalized and looked up in
    :func:`char_classes` (a mark, ``™`` that NFKC makes ``tm``, a code point past the table)."""
    if _WORD_CHAR.search(text):
        return True
    table = char_classes()
    return any(table[c] != SEP if c < TABLE_SIZE else True for c in map(ord, normalize(text)))
