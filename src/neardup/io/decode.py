"""Bytes to text for pages and text files: BOM, UTF-8, the declared charset checked, else detected.

The fast path is valid UTF-8 (almost all pages today; bytes that decode as UTF-8 are
almost never meant as anything else).  Otherwise a declared charset -- the HTTP header's
(a WARC response's ``Content-Type``), which browsers obey first, then the page's ``<meta>``
-- is used only if it is a text encoding, decodes the bytes without error and does not read
as mojibake (:func:`mojibake`: a cp1251 page declaring ``iso-8859-1``, which decodes any
bytes) -- declarations are often stale (a cp1251 page saying ``utf-8``) or nonsense
(``idna``) -- and when none is, the encoding is detected by charset-normalizer (a well-kept detector, imported only on this
slow path).  The encoding used is returned so the run can report it.  A text that is
still mostly U+FFFD afterwards is "undecodable" (:func:`mostly_replacement`) and must
not be compared: two unrelated articles of replacement characters look identical.
"""

from __future__ import annotations

import codecs
import re
from typing import Sequence

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_CONTENT_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)

#: Byte-order marks, longest first (the UTF-32 LE mark starts with the UTF-16 LE one).
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
)

#: Codecs Python knows that are not character sets of documents.
_NOT_CHARSETS = {"idna", "punycode", "undefined", "unicode-escape", "raw-unicode-escape", "rot-13"}

#: Share of U+FFFD above which a text is undecodable.
MAX_REPLACEMENT_SHARE = 0.2


def text_codec(name: str) -> str | None:
    """Python's name of the charset ``name`` if it is a text encoding of documents, else None."""
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError):
        return None
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_CHARSETS:
        return None
    return info.name


def detect(data: bytes) -> str | None:
    """The encoding charset-normalizer finds most plausible for ``data``, or None."""
    from charset_normalizer import from_bytes

    matches = from_bytes(data)
    best = matches.best()
    if best is None:
        return None
    # bytes several code pages explain equally well: windows-1252, HTML5's legacy default, when it is one
    for match in matches:
        if match.chaos <= best.chaos and "cp1252" in (match.encoding, *match.could_be_from_charset):
            return "cp1252"
    return text_codec(best.encoding)


#: Mess ratio (charset-normalizer's measure of mojibake: accented letters inside words of
#: another case, symbols among letters ...) at and above which a declared charset's text is
#: not taken: the detector's own limit for a plausible decoding (what the right and the wrong
#: charset measured: docs/faults.md, "Decoding pages and text files").
MAX_MESS = 0.2


def mojibake(text: str) -> bool:
    """Whether ``text`` reads as bytes decoded with the wrong charset (see :data:`MAX_MESS`)."""
    from charset_normalizer.md import mess_ratio

    return mess_ratio(text, MAX_MESS) >= MAX_MESS


def decode(data: bytes, declared: str | Sequence[str | None] | None = None,
           fallback: str = "cp1252") -> tuple[str, str | None]:
    """``data`` as text and the encoding used (None for UTF-8).

    Order: a byte-order mark; valid UTF-8; the ``declared`` charset (or the first of several,
    in order) that is a text encoding, decodes the bytes without error and does not read as
    :func:`mojibake`; the detected encoding; a declared one that reads as mojibake when the
    detector finds none better; ``fallback`` (windows-1252, HTML5's default for undeclared
    legacy pages) with replacement characters.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(encoding, errors="replace"), None if encoding == "utf-8" else encoding
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        pass
    garbled: tuple[str, str] | None = None  # a declared charset whose text reads as mojibake
    for name in [declared] if isinstance(declared, str) else (declared or ()):
        codec = text_codec(name) if name else None
        # HTML5: a <meta> saying UTF-16/32 cannot be right (it was read as ASCII); BOM-less wide text has NULs
        if not codec or codec == "utf-8" or codec.startswith(("utf-16", "utf-32")):
            continue
        try:
            text = data.decode(codec)
        except (UnicodeError, ValueError):  # the declaration does not fit the bytes
            continue
        if not mojibake(text):
            return text, codec
        garbled = garbled or (text, codec)
    detected = detect(data)
    if detected:
        try:
            text = data.decode(detected)
        except (UnicodeError, ValueError):
            pass
        else:
            if garbled is None or not mojibake(text):
                return text, detected
    if garbled is not None:
        return garbled
    return data.decode(fallback, errors="replace"), fallback


def declared_charset(data: bytes) -> str | None:
    """The charset a page's ``<meta>`` declares in its first 4 KiB, if any."""
    match = _META_CHARSET.search(data[:4096])
    return match.group(1).decode("ascii") if match else None


def decode_page(data: bytes, transport: str | None = None) -> tuple[str, str | None]:
    """Page bytes as text and the encoding used (see :func:`decode`): the charset ``transport``
    names (an HTTP ``Content-Type``'s, which HTML5 puts before the page's own), then the
    ``<meta>`` charset, as declared."""
    return decode(data, (transport, declared_charset(data)))


def content_type_charset(content_type: str | None) -> str | None:
    """The ``charset`` parameter of an HTTP ``Content-Type`` (``text/html; charset=windows-1251``)."""
    match = _CONTENT_CHARSET.search(content_type or "")
    return match.group(1) if match else None


def decode_html(data: bytes) -> str:
    """Page bytes as text (see :func:`decode_page`)."""
    return decode_page(data)[0]


def wide_bom(head: bytes) -> tuple[str, int] | None:
    """The UTF-16/32 encoding the byte-order mark starting ``head`` names, and the mark's length; else None.

    What record files (JSONL, CSV/TSV) are decoded by when they start with one: Excel's
    "Unicode text" and PowerShell write UTF-16 with a mark, and such a file cannot be read
    line by line as bytes (a newline is two or four bytes there).
    """
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return None if encoding == "utf-8" else (encoding, len(bom))
    return None


def wide_unicode(data: bytes) -> str | None:
    """The UTF-16/32 encoding of bytes with NULs but no byte-order mark, or None (binary)."""
    detected = detect(data[:65536])
    return detected if detected and detected.replace("_", "-").startswith(("utf-16", "utf-32")) else None


def mostly_replacement(text: str) -> bool:
    """True when more than :data:`MAX_REPLACEMENT_SHARE` of ``text`` is U+FFFD."""
    bad = text.count("\ufffd")
    return bad > 0 and bad > MAX_REPLACEMENT_SHARE * len(text)
