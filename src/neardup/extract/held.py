"""Case-insensitive searches skipped where they cannot match: the words every match holds, found first.

Python's ``re`` has no literal prefix to jump to in a pattern compiled with ``IGNORECASE`` whose
alternatives open with letters, so it tries the whole pattern at every character of the text (for
the frame's calls to sign up, a large share of a page's extraction: docs/results.md), while
``str.find`` of a word in ``str.lower()`` of the text runs at memory speed.  When every match of a
pattern holds one of a few lower-case words (the pattern's *held* words), a text whose lower-cased
form holds none of them cannot match, and the pattern need not be tried on it.

That is exact, not a heuristic: under ``IGNORECASE`` each character of the held words (ASCII letters,
space, ``(c)``, ``&copy;``, ``©``) matches exactly the characters whose ``str.lower()`` is that
character, except U+0130 (İ), U+0131 (ı) and U+017F (ſ), which match ``i``, ``i`` and ``s`` while
lower-casing to something else; and U+0130 is the only character whose ``str.lower()`` is longer
than one character (``tests/test_extract_frame.py`` checks both over every code point).  A text holding one of those three is searched whole, as
before; in any other, the offsets of ``str.lower()`` are the text's own.  That every match of a
pattern holds one of its held words is checked by the tests from the pattern itself.
"""

from __future__ import annotations

from typing import Sequence

UNFOLDED = ("\u0130", "\u0131", "\u017f")
"""The characters that match an ASCII letter under ``IGNORECASE`` but do not lower-case to it."""
_I_DOT, _I_DOTLESS, _LONG_S = UNFOLDED


def _unfolded(text: str) -> bool:
    """Whether ``text`` holds a character of :data:`UNFOLDED` (an ASCII text is known not to; three
    ``in`` tests rather than a regular expression's search, which is slower)."""
    return not text.isascii() and (_I_DOT in text or _I_DOTLESS in text or _LONG_S in text)


def held_at(text: str, words: Sequence[str]) -> list[int] | None:
    """Where in ``text`` one of the lower-case ``words`` starts, case ignored (every occurrence
    of each, unordered); None when ``text`` holds a character of :data:`UNFOLDED` (search it whole)."""
    if _unfolded(text):
        return None
    low = text.lower()
    found = []
    for word in words:
        at = low.find(word)
        while at >= 0:
            found.append(at)
            at = low.find(word, at + 1)
    return found


def may_hold(text: str, words: Sequence[str]) -> bool:
    """Whether ``text`` may match a case-insensitive pattern whose every match holds one of ``words``."""
    if _unfolded(text):
        return True
    low = text.lower()
    for word in words:  # a loop, not any() of a generator: called for most short blocks of a page
        if word in low:
            return True
    return False
