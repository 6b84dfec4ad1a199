"""neardup's compiled kernels travel to Spark's Python workers by name, not by value.

pyspark ships each stage's function to the workers with cloudpickle. A numba kernel that the
function refers to directly (imported inside the function that builds the stage, so it is
one of the closure's own objects) pickles by value: numba rebuilds it in the worker from its
Python source, without its on-disk cache, so every Python worker compiled that kernel again
on every run -- the relations' passage chaining (``chain_pairs``) most of all (measured in
docs/scale.md, "Spark: the wall time, twelfth part").

:func:`kernels_by_name` registers a reduction (``copyreg``) under which a kernel defined at the
top level of a neardup module pickles as its module and name: the worker imports the module and
gets the kernel there, with the cache the module's kernels load from.  Any other kernel (a user's,
or one not reachable by its name) pickles as numba does it.
"""

from __future__ import annotations

import copyreg
import importlib
import sys
from typing import Any


def kernels_by_name() -> None:
    """Register the reduction (idempotent); called when the Spark engine starts a session."""
    from numba.core.registry import CPUDispatcher

    copyreg.pickle(CPUDispatcher, _reduce)


def named_kernel(module: str, name: str) -> Any:
    """The kernel ``name`` of ``module``, imported (what a pickled kernel is rebuilt by)."""
    return getattr(importlib.import_module(module), name)


def _reduce(kernel: Any) -> Any:
    module, name = kernel.py_func.__module__, kernel.py_func.__qualname__
    if module.split(".")[0] == "neardup" and getattr(sys.modules.get(module), name, None) is kernel:
        return named_kernel, (module, name)
    return kernel.__reduce__()
