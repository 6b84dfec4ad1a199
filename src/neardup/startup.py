"""Start-up of the command line: numba's first use without SciPy's linear algebra.

The first time a process runs a numba kernel -- even one loaded from the on-disk cache --
numba imports its NumPy implementations, and ``numba.np.arraymath`` probes at import
whether SciPy's BLAS is there (``import scipy.linalg.cython_blas``).  That import loads
all of ``scipy.linalg``: 0.15-0.2 s, a tenth of a 20,000-document ``neardup dedup``.

The probe's answer only decides whether ``np.correlate`` / ``np.convolve`` on floats
*inside kernels* use BLAS or a plain loop; ``np.dot`` and ``np.linalg`` look for BLAS
again, on their own, when a kernel that uses them is compiled.  No neardup kernel uses
any of these, so a ``neardup`` process lets the probe fail.  The library does not: a
program that imports neardup may have kernels of its own.
"""

from __future__ import annotations

import sys


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
