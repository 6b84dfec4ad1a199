"""Files read once per process -- until they change: statistics, models, query frequencies.

A method reads its ``stats`` file or model for every batch; reading it once is what
``functools.lru_cache`` gives, but keyed on the path alone it kept a file's old contents for the
life of the process, so a pipeline that rebuilt ``stats.npz`` or re-trained ``model.json`` at
the same path and ran again in the same process silently used the old one.  Here the key is the
path with the file's version (modification time, size, inode), so a rewritten file is read again.
"""

from __future__ import annotations

import functools
import os
from typing import Any, Callable, TypeVar

T = TypeVar("T")


def _version(path: Any) -> tuple[int, int, int] | None:
    """What changes when the file at ``path`` is rewritten; None when ``path`` names no file
    (a fixed weighting such as ``tfidf``, or a file that is gone: the loader says so)."""
    try:
        st = os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def by_file_version(maxsize: int) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Cache ``load(path, *args)`` on ``path``, the file's version and ``args`` (at most ``maxsize``)."""

    def wrap(load: Callable[..., T]) -> Callable[..., T]:
        @functools.lru_cache(maxsize=maxsize)
        def cached(path: Any, version: tuple[int, int, int] | None, *args: Any) -> T:
            return load(path, *args)

        @functools.wraps(load)
        def call(path: Any, *args: Any) -> T:
            return cached(path, _version(path), *args)

        return call

    return wrap
