"""neardup: find the same news story wherever it was republished.

The Python API mirrors the command line::

    from neardup import Deduplicator
    result = Deduplicator(method="minhash", threshold=0.8).run([(id, text), ...])
    result.pairs, result.clusters, result.summary()

and :func:`dedup_files` runs a whole job from files to an output folder.

The names below are imported on first use (PEP 562): ``import neardup`` loads neither numpy
nor numba and changes nothing of the host process (no environment variable, no collector
setting), so the ``neardup`` program (:func:`neardup.__main__.program`) can set up its
start-up -- numba's cache folder, the collector pause -- before they load.
"""

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

#: Each public name and the module that defines it.
_EXPORTS = {
    "Cluster": ".pipeline",
    "DedupResult": ".pipeline",
    "Deduplicator": ".pipeline",
    "Pair": ".pipeline",
    "Fields": ".io.readers",
    "InputError": ".io.readers",
    "Record": ".io.readers",
    "Rejection": ".io.readers",
    "read_inputs": ".io.readers",
    "REGISTRY": ".methods",
    "get_method": ".methods",
    "dedup_files": ".run",
}

__all__ = list(_EXPORTS)  # noqa: PLE0605 -- the public names are the keys of _EXPORTS, listed once


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'neardup' has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
