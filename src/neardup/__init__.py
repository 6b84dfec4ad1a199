"""neardup: find the same news story wherever it was republished.

The Python API mirrors the command line::

    from neardup import Deduplicator
    result = Deduplicator(method="minhash", threshold=0.8).run([(id, text), ...])
    result.pairs, result.clusters, result.summary()

and :func:`dedup_files` runs a whole job from files to an output folder.
"""

import gc as _gc

from .kernel_cache import use_source_keyed_cache

use_source_keyed_cache()  # before any kernel loads: numba's cache keyed by the kernel sources

# Importing numba builds hundreds of thousands of objects; collector passes during the import
# would walk them again and again (see neardup.startup).  Paused for the import only.
_collecting = _gc.isenabled()
_gc.disable()
try:
    from .io.readers import Fields, InputError, Record, Rejection, read_inputs
    from .methods import REGISTRY, get_method
    from .pipeline import Cluster, DedupResult, Deduplicator, Pair
    from .run import dedup_files
finally:
    if _collecting:
        _gc.enable()

__version__ = "0.1.0"

__all__ = [
    "Cluster",
    "DedupResult",
    "Fields",
    "Deduplicator",
    "InputError",
    "Pair",
    "REGISTRY",
    "Record",
    "Rejection",
    "dedup_files",
    "get_method",
    "read_inputs",
]
