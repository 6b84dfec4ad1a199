"""neardup's kernels reach Spark's Python workers by name, with their on-disk cache
(:mod:`neardup.engines.spark_kernels`): a stage's function that holds a kernel no longer makes
every worker compile it again on every run."""

from __future__ import annotations

import pickle
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("pyspark")

from pyspark import cloudpickle  # noqa: E402  (what pyspark ships a stage's function with)

from neardup.align.seeds import chain_pairs  # noqa: E402
from neardup.engines.spark_kernels import kernels_by_name  # noqa: E402

# a worker: unpickles the function, calls it for its kernel, says how that kernel caches
WORKER = ("import pickle, sys; from neardup.kernel_cache import use_source_keyed_cache; use_source_keyed_cache(); "
          "import neardup.align.seeds as s; k = pickle.loads(sys.stdin.buffer.read())(); "
          "print(type(k._cache).__name__, k is s.chain_pairs)")


def test_a_stage_function_ships_neardup_s_kernel_by_name_with_its_cache():
    kernels_by_name()

    def stage():  # as a stage built inside a function holds a kernel it imported
        return chain_pairs

    done = subprocess.run([sys.executable, "-c", WORKER], input=cloudpickle.dumps(stage), capture_output=True,
                          check=True)
    assert done.stdout.split() == [b"FunctionCache", b"True"]  # not a rebuilt kernel with numba's NullCache


def test_other_kernels_pickle_as_numba_pickles_them():
    import numba

    kernels_by_name()

    @numba.njit
    def twice(x):  # a user's kernel, not at the top level of a neardup module
        return 2 * x

    again = pickle.loads(cloudpickle.dumps(twice))
    assert again(21) == 42


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("java") is None, reason="the Spark engine needs Java 17+")
def test_the_engine_s_session_registers_it(spark_stopped_at_end):
    import copyreg

    from numba.core.registry import CPUDispatcher

    from neardup.engines.spark import SparkEngine

    copyreg.dispatch_table.pop(CPUDispatcher, None)
    SparkEngine(master="local[2]").session()  # the run's session: conftest stops it
    assert copyreg.dispatch_table[CPUDispatcher].__module__ == "neardup.engines.spark_kernels"
