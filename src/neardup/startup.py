"""Start-up of the ``neardup`` program: numba's runtime loaded once, early, with the GC paused.

**SciPy's BLAS probe.**

The first time a process runs a numba kernel -- even one loaded from the on-disk cache --
numba imports its NumPy implementations, and ``numba.np.arraymath`` probes at import
whether SciPy's BLAS is there (``import scipy.linalg.cython_blas``).  That import loads
all of ``scipy.linalg``: a tenth of a 20,000-document ``neardup dedup`` (docs/costs.md).

The probe's answer only decides whether ``np.correlate`` / ``np.convolve`` on floats
*inside kernels* use BLAS or a plain loop; ``np.dot`` and ``np.linalg`` look for BLAS
again, on their own, when a kernel that uses them is compiled.  No neardup kernel uses
any of these, so a ``neardup`` process lets the probe fail.  The library does not: a
program that imports neardup may have kernels of its own.

**The cyclic garbage collector.**  Importing numba and initializing its runtime build
hundreds of thousands of Python objects (types, typing templates, registries), nearly all
alive until the process ends.  With the collector on, its passes during start-up walk them
again and again, and every full pass while the job runs walks them once more.  The
``neardup`` executable (:mod:`neardup.__main__`) therefore pauses the collector before it imports
anything heavy, keeps it paused while :func:`start_kernels` loads numba's runtime and warms
the job's method, then freezes what start-up built out of every later pass
(:func:`gc.freeze`) and turns the collector back on for the job (:func:`end_start_up`):
about a tenth of a 20,000-document ``neardup dedup`` (docs/costs.md).  A library caller's collector is never touched: ``import
neardup`` is lazy and pauses nothing.

**numba's implementation registries.**  Before it loads a kernel from its on-disk cache,
numba refreshes the whole CPU target: it imports and installs every implementation registry
it has (NumPy's array functions, typed containers, random, polynomials, ``cmath``, ...) and
any third-party extension's entry points, and re-reads all of their typing templates -- about
a tenth of a 20,000-document ``neardup dedup`` (docs/costs.md).  A cached kernel is machine code: loading it
needs numba's runtime (NRT), not the registries, which only *compiling* uses -- and numba's
compiler refreshes the target itself before it compiles anything (``CompilerBase.__init__``).
So the ``neardup`` program loads cached kernels with the runtime initialized and the
registries left to the first compilation, if one ever comes (:func:`lean_cache_loads`); a
load that fails this way is retried numba's own way.  The library does not: a program that
imports neardup may rely on numba's behaviour.

**numba's runtime, compiled once.**  Initializing the runtime compiles its few helper functions
(reference counts, atomic adds) from LLVM IR in every process: a twentieth of a 300-page ``neardup
extract`` (docs/results.md, issue 28's sixth pass).  The program keeps their machine code beside the
kernels, under a name keyed by numba's and llvmlite's versions and the CPU (:func:`initialize_runtime`),
and later processes load it as numba loads a cached kernel.

**Opting out.**  The BLAS probe, the lean cache loads and the runtime's cached code reach into
numba's internals (``numba.core.caching.Cache``'s private methods, the runtime's library; pyproject
bounds numba's version to the releases this was checked on).  ``NEARDUP_PLAIN_START=1`` runs the
program without them: numba starts its own way, slower to start, and the outputs are the same.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import time
from typing import Callable, Iterator


def skip_numba_blas_probe() -> None:
    """Import ``numba.np.arraymath`` with ``scipy.linalg`` hidden, unless either is loaded.

    ``scipy.linalg`` is importable again as soon as this returns.
    """
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    sys.modules["scipy.linalg"] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules["scipy.linalg"]


def lean_cache_loads() -> None:
    """Load numba's cached kernels without refreshing its registries first (see the module
    docstring); for the rest of the process.  Does nothing on a numba without the hooks
    this relies on."""
    from numba.core import caching

    cache = caching.Cache
    original = cache.load_overload
    hooks = ("_load_overload", "_guard_against_spurious_io_errors")
    if getattr(original, "lean", False) or not all(hasattr(cache, name) for name in hooks):
        return

    def load_overload(self: caching.Cache, sig: object, target_context: object) -> object:
        try:
            initialize_runtime(target_context)  # idempotent; what loaded machine code needs of numba
            with self._guard_against_spurious_io_errors():
                return self._load_overload(sig, target_context)
        except Exception:  # noqa: BLE001 -- whatever this shortcut met, numba's own way decides
            return original(self, sig, target_context)

    load_overload.lean = True  # type: ignore[attr-defined]
    cache.load_overload = load_overload  # type: ignore[method-assign]


def _runtime_file() -> str | None:
    """Where the runtime's compiled helpers are kept: in the kernel cache folder the program set
    (:mod:`neardup.kernel_cache`), named by what their machine code depends on; None without one."""
    import hashlib

    import llvmlite
    import numba
    from llvmlite import binding as ll

    folder = os.environ.get("NUMBA_CACHE_DIR")
    if not folder:
        return None
    key = "\0".join((numba.__version__, llvmlite.__version__, sys.version, ll.get_process_triple(),
                     ll.get_host_cpu_name(), ll.get_host_cpu_features().flatten()))
    return os.path.join(folder, f"nrt-{hashlib.blake2b(key.encode(), digest_size=8).hexdigest()}.pickle")


def initialize_runtime(context: object) -> None:
    """Initialize numba's runtime as ``rtsys.initialize`` does, its helper functions' machine code
    loaded from :func:`_runtime_file` when an earlier process left it there (numba's own kernel cache
    is pickled the same way), else compiled and left there.  Falls back to numba's own initialization
    on a numba without the parts this relies on, or on a file it cannot use."""
    import pickle

    from numba.core import config
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.runtime import _nrt_python, nrtdynmod, rtsys  # type: ignore[attr-defined]  # a C module
    from llvmlite import binding as ll

    if rtsys._init:
        return
    path = _runtime_file()
    if path is None or not hasattr(nrtdynmod, "create_nrt_module") or not hasattr(type(rtsys), "library"):
        rtsys.initialize(context)
        return
    with global_compiler_lock:
        if rtsys._init:
            return
        if config.NRT_STATS:  # type: ignore[attr-defined]  # numba's config sets it at import
            _nrt_python.memsys_enable_stats()
        for name, address in _nrt_python.c_helpers.items():  # the C helpers, as rtsys.initialize registers them
            ll.add_symbol(name if name.startswith("_") else f"NRT_{name}", address)
        codegen = context.codegen()  # type: ignore[attr-defined]
        try:
            with open(path, "rb") as fh:
                library = codegen.unserialize_library(pickle.load(fh))
        except Exception:  # noqa: BLE001 -- absent, or not usable by this numba: compile it
            module, library = nrtdynmod.create_nrt_module(context)
            library.enable_object_caching()
            library.add_ir_module(module)
            library.finalize()
            library.get_pointer_to_function("NRT_incref")  # emits the machine code that is kept
            with contextlib.suppress(OSError):
                tmp = f"{path}.{os.getpid()}.tmp"
                with open(tmp, "wb") as fh:
                    pickle.dump(library.serialize_using_object_code(), fh)
                os.replace(tmp, path)
        rtsys._library = library
        rtsys._init = True


@contextlib.contextmanager
def compile_notice(quiet: bool = False) -> Iterator[None]:
    """Count and time numba's compilations while a command runs (:data:`neardup.job.CLOCK`), and
    say so in one line on stderr when the first one starts, unless ``quiet``.

    numba raises its ``numba:compile`` event only for kernels it compiles, never for those it
    loads from the on-disk cache, so the line shows on the first run after an install or an
    edit of a kernel, and whatever command compiles first.  numba is imported only when it was
    already (nothing of it is loaded for a command that runs no kernel).
    """
    from .job import CLOCK

    if "numba" not in sys.modules:
        import numba  # noqa: F401 -- the commands that get here run kernels
    from numba.core import event

    class Notice(event.Listener):
        def __init__(self) -> None:
            self.depth = 0
            self.began = 0.0

        def on_start(self, ev: event.Event) -> None:
            if self.depth == 0:
                self.began = time.perf_counter()
                if not CLOCK.compiled and not quiet:
                    where = os.environ.get("NUMBA_CACHE_DIR", "numba's cache")
                    print(f"neardup: compiling its kernels for this machine, once (tens of seconds; a minute or "
                          f"more on a busy machine); later runs load them from {where}", file=sys.stderr, flush=True)
                CLOCK.compiled += 1
            self.depth += 1

        def on_end(self, ev: event.Event) -> None:
            self.depth -= 1
            if self.depth == 0:
                CLOCK.compiling += time.perf_counter() - self.began

    listener = Notice()
    event.register("numba:compile", listener)
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)


def end_start_up() -> None:
    """Freeze everything start-up built out of later collections, and collect from now on."""
    gc.freeze()
    gc.enable()


def start_kernels(warm: Callable[[], object] | None = None) -> None:
    """Load numba's runtime now, with the collector paused, then end start-up.

    The first call of any cached kernel initializes numba's runtime (whichever kernel it
    is); doing it here instead of inside the job's first batch keeps the
    collector out of it.  ``warm``, when given, runs a tiny job of the command's own (a
    few sentences through its method) so that the job's kernels are loaded under the same
    pause (docs/costs.md).  A warm-up that fails is
    ignored: the job itself meets and reports whatever it met.  For the ``neardup`` program
    only: it leaves the collector on, and what it froze stays frozen for the life of the
    process.
    """
    import numpy as np

    from .hashing import xxh64_bytes

    gc.disable()
    try:
        if not os.environ.get("NEARDUP_PLAIN_START"):
            lean_cache_loads()
            skip_numba_blas_probe()
        xxh64_bytes(np.zeros(1, dtype=np.uint8), 0, 1, np.uint64(0))
        if warm is not None:
            try:
                warm()
            except Exception:  # noqa: BLE001 -- loading code only; the job reports its own errors
                pass
    finally:
        end_start_up()
