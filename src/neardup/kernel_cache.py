"""Where numba keeps neardup's compiled kernels: a folder named by a hash of their sources.

numba's on-disk cache (``cache=True``) checks only the defining file of a kernel: after
an edit of ``hashing.py`` the kernels of the eleven modules that call it would still load
their old machine code from ``__pycache__`` (numba issue 1833).  So neardup points numba
at a cache folder whose name is a hash of every source file in the package that uses
numba: any edit of any kernel gives a new folder, and stale code cannot be linked.

The folder is ``$NEARDUP_CACHE_DIR`` or ``$XDG_CACHE_HOME/neardup`` (``~/.cache/neardup``)
followed by ``numba-<hash>``.  It must be set before the first kernel is compiled or
loaded, so the ``neardup`` program (:func:`neardup.__main__.program`) and the test suite
(``tests/conftest.py``) call :func:`use_source_keyed_cache` first thing; ``import neardup``
does not (a library leaves its host's environment alone: a program that imports neardup gets
numba's own cache, beside the sources).  A user who sets ``NUMBA_CACHE_DIR`` keeps it (and
numba's own, per-file checks).  Each upgrade or edit makes a new folder, so when one is made the
folders of other sources are removed but for the :data:`KEPT_OLDER` used last (each start marks its
folder used): a user who switches between a few versions compiles nothing again, and the cache does
not grow with every version.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Iterable

PACKAGE = Path(__file__).resolve().parent
KEPT_OLDER = 3
"""Folders of other kernel sources kept when a new folder is made (the ones used last)."""


def kernel_sources() -> list[Path]:
    """The package's source files that mention numba, in a stable order."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if b"numba" in path.read_bytes():
            found.append(path)
    return found


def sources_digest() -> str:
    """A short hash of the kernel sources' paths (relative to the package) and contents."""
    digest = hashlib.blake2b(digest_size=8)
    for path in kernel_sources():
        digest.update(path.relative_to(PACKAGE).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_root() -> Path:
    """Where neardup keeps caches: ``$NEARDUP_CACHE_DIR``, else the user's cache folder."""
    explicit = os.environ.get("NEARDUP_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "neardup"


def use_source_keyed_cache() -> Path | None:
    """Point numba's cache at the folder for the current kernel sources; returns it.

    Leaves ``NUMBA_CACHE_DIR`` alone when the user set it, and falls back to numba's
    default (beside the sources) when no cache folder can be created; returns None then.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    folder = cache_root() / f"numba-{sources_digest()}"
    made = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    if not os.access(folder, os.W_OK):
        return None
    if made:
        keep_used_last((p for p in folder.parent.glob("numba-*") if p != folder), KEPT_OLDER)
    else:
        os.utime(folder)  # used now: the folders kept are the ones used last
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    _tell_loaded_numba(folder)
    return folder


def keep_used_last(paths: Iterable[Path], keep: int) -> None:
    """Remove all but the ``keep`` of ``paths`` (files or folders of a cache) used last, by
    modification time, which a user of one marks with ``os.utime`` (one another process removes
    meanwhile is passed over)."""
    import shutil

    found = []
    for path in paths:
        try:
            found.append((path.stat().st_mtime_ns, path.name, path))
        except OSError:
            continue
    for _, _, old in sorted(found, reverse=True)[keep:]:
        if old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink(missing_ok=True)


def _tell_loaded_numba(folder: Path) -> None:
    """numba reads ``NUMBA_CACHE_DIR`` at import; if it is loaded already, set its config too."""
    import sys

    config = sys.modules.get("numba.core.config")
    if config is not None:
        config.CACHE_DIR = str(folder)  # type: ignore[attr-defined]  # numba's config sets it at import
