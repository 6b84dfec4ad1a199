"""Windows of a stream: which earlier documents a new one is compared with.

``neardup contain --window`` and ``neardup index create --window`` take the same forms: a
number of documents (``500``: the 500 before the new one) or a duration (``90s``, ``30m``,
``48h``, ``7d``: documents at most that long before it, by their ``time`` field); none
compares with all.  :func:`parse_window` reads the form once for both.
"""

from __future__ import annotations

import re

from .errors import UserError

#: Window kinds: none (keep everything), a number of documents, a duration in seconds.
NO_WINDOW, COUNT_WINDOW, TIME_WINDOW = 0, 1, 2

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$")


def parse_window(spec: str | int | None) -> tuple[int, float]:
    """``(kind, size)`` of a window: ``None`` none, ``"500"`` documents, ``"48h"`` a duration."""
    if spec is None:
        return NO_WINDOW, 0.0
    if isinstance(spec, int) or str(spec).strip().isdigit():
        n = int(spec)
        if n < 1:
            raise UserError(f"window must be at least 1 document, got {n}")
        return COUNT_WINDOW, float(n)
    m = _DURATION.match(str(spec))
    if not m:
        raise UserError(f"window must be a number of documents or a duration like 30m, 48h, 7d; got {spec!r}")
    return TIME_WINDOW, float(m.group(1)) * _UNITS[m.group(2)]
