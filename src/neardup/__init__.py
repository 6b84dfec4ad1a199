"""neardup: find the same news story wherever it was republished.

The Python API mirrors the command line::

    from neardup import Deduplicator
    result = Deduplicator(method="minhash", threshold=0.8).run([(id, text), ...])
    result.pairs, result.clusters, result.summary()

and :func:`dedup_files` runs a whole job from files to an output folder.
"""

from .kernel_cache import use_source_keyed_cache

use_source_keyed_cache()  # before any kernel loads: numba's cache keyed by the kernel sources

from .io.readers import Fields, InputError, Record, Rejection, read_inputs
from .methods import REGISTRY, get_method
from .pipeline import Cluster, DedupResult, Deduplicator, Pair
from .run import dedup_files

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
