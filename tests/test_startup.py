"""Start-up stays lean, and numba's cache cannot link stale kernels.

The budget is counted, not timed, so it holds on a loaded CI machine: what ``import
neardup.cli`` loads (no SciPy subpackages, no plotting, no data frames, no web stack)
and that importing compiles no kernel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from neardup import kernel_cache

#: Heavy packages a command must not pay for unless it uses them.
FORBIDDEN = ("scipy.stats", "scipy.linalg", "scipy.optimize", "scipy.sparse", "sklearn", "matplotlib",
             "pandas", "jinja2", "starlette", "fastapi", "uvicorn", "pyspark", "datasets", "pycrfsuite")

#: Modules loaded by ``import neardup.cli`` (about 700 when this was written, numba ~450 of them).
MODULE_BUDGET = 900

PROBE = r"""
import json, sys
import neardup.cli
import numba.core.registry
from numba.core.dispatcher import Dispatcher
compiled = []
for name, module in list(sys.modules.items()):
    if name.startswith("neardup"):
        for attr, value in vars(module).items():
            if isinstance(value, Dispatcher) and value.overloads:
                compiled.append(f"{name}.{attr}")
print(json.dumps({"modules": sorted(sys.modules), "compiled": sorted(set(compiled))}))
"""


def _probe() -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


@pytest.mark.slow
def test_cli_import_loads_no_heavy_package_and_compiles_nothing():
    found = _probe()
    heavy = [m for m in found["modules"] if m.split(".")[0] in FORBIDDEN or ".".join(m.split(".")[:2]) in FORBIDDEN]
    assert heavy == []
    assert found["compiled"] == []
    assert len(found["modules"]) < MODULE_BUDGET


def test_cache_folder_changes_with_any_kernel_source(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "hashing.py").write_text("from numba import njit\n@njit(cache=True)\ndef h(x): return x\n")
    (pkg / "sub" / "user.py").write_text("from numba import njit\nfrom ..hashing import h\n")
    (pkg / "plain.py").write_text("X = 1\n")
    monkeypatch.setattr(kernel_cache, "PACKAGE", pkg)
    assert [p.name for p in kernel_cache.kernel_sources()] == ["hashing.py", "user.py"]
    before = kernel_cache.sources_digest()
    (pkg / "plain.py").write_text("X = 2\n")  # not a kernel source: same cache
    assert kernel_cache.sources_digest() == before
    (pkg / "hashing.py").write_text("from numba import njit\n@njit(cache=True)\ndef h(x): return x + 1\n")
    assert kernel_cache.sources_digest() != before  # a callee's edit: a new folder for every kernel


def test_cache_folder_respects_user_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert kernel_cache.use_source_keyed_cache() is None
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setenv("NEARDUP_CACHE_DIR", str(tmp_path / "nd"))
    folder = kernel_cache.use_source_keyed_cache()
    assert folder is not None and folder.parent == tmp_path / "nd" and folder.is_dir()
    assert folder.name == f"numba-{kernel_cache.sources_digest()}"


def test_a_new_cache_folder_keeps_only_the_older_folders_used_last(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("NEARDUP_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(kernel_cache, "_tell_loaded_numba", lambda folder: None)  # this process's numba left alone
    for age in range(6):  # numba-0 used last
        old = tmp_path / f"numba-{age}"
        old.mkdir()
        os.utime(old, (1_000_000 - age, 1_000_000 - age))
    (tmp_path / "spark").mkdir()
    folder = kernel_cache.use_source_keyed_cache()
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == sorted(["numba-0", "numba-1", "numba-2", folder.name, "spark"])
    os.utime(folder, (1, 1))
    monkeypatch.delenv("NUMBA_CACHE_DIR")  # set by the first start
    assert kernel_cache.use_source_keyed_cache() == folder  # a start on a folder made before: nothing removed
    assert folder.stat().st_mtime > 1 and len(list(tmp_path.iterdir())) == 5  # and it is marked used


@pytest.mark.slow
def test_the_program_runs_kernels_from_the_keyed_folder(tmp_path):
    probe = ("import os, sys; sys.argv = ['neardup', 'methods']; from neardup.__main__ import program; program(); "
             "from neardup.hashing import xxh64_bytes; import numpy as np;"
             "xxh64_bytes(np.frombuffer(b'abc', np.uint8), 0, 3, np.uint64(0));"
             "print(os.environ['NUMBA_CACHE_DIR'])")
    env = {**os.environ, "NEARDUP_CACHE_DIR": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True, env=env)
    folder = Path(out.stdout.strip().splitlines()[-1])
    assert folder.parent == tmp_path
    assert any(folder.rglob("*.nbi"))  # the kernel was cached there, not beside the sources


def test_import_neardup_changes_no_environment_variable():
    """A library leaves its host's environment alone: only the program keys numba's cache."""
    probe = ("import json, os; before = dict(os.environ); import neardup; neardup.Deduplicator; "
             "import neardup.cli; print(json.dumps([before == dict(os.environ), 'NUMBA_CACHE_DIR' in os.environ]))")
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)  # the suite's own setting (conftest.py) would hide a change
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True, env=env)
    assert json.loads(out.stdout) == [True, False]


@pytest.mark.slow
def test_plain_start_leaves_numba_as_it_is():
    """NEARDUP_PLAIN_START=1: the program's start-up reaches into no numba internal."""
    probe = ("import json, sys; from neardup.startup import start_kernels; start_kernels(); "
             "lean = getattr(sys.modules['numba.core.caching'].Cache.load_overload, 'lean', False); "
             "print(json.dumps(lean))")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True,
                         env={**os.environ, "NEARDUP_PLAIN_START": "1"})
    assert json.loads(out.stdout) is False


@pytest.mark.slow
def test_import_neardup_is_lazy_and_leaves_the_collector_alone():
    probe = ("import gc, json, sys; gc.disable(); import neardup; "
             "print(json.dumps([gc.isenabled(), 'numba' in sys.modules, 'numpy' in sys.modules, "
             "sorted(neardup.__all__) == sorted(neardup._EXPORTS), neardup.Deduplicator.__name__]))")
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, text=True)
    assert json.loads(out.stdout) == [False, False, False, True, "Deduplicator"]


PROGRAM_PROBE = r"""
import gc, json, sys
sys.argv = ["neardup", *sys.argv[1:]]
from neardup.__main__ import program
code = program()
print(json.dumps({"code": code, "collecting": gc.isenabled(), "frozen": gc.get_freeze_count(),
                  "scipy_linalg": "scipy.linalg" in sys.modules}), file=sys.stderr)
"""


@pytest.mark.slow
def test_the_program_pauses_the_collector_until_start_up_ends_and_freezes_what_it_built(tmp_path):
    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"id": "a", "text": "one short document"}\n')
    # numba's objects out of every later pass: imported (~90,000), and for dedup its runtime and the
    # method's cached kernels loaded too (~117,000)
    for argv, built in ((["methods"], 50_000), (["dedup", str(docs), "-o", str(tmp_path / "out"), "--quiet"], 100_000)):
        out = subprocess.run([sys.executable, "-c", PROGRAM_PROBE, *argv], check=True, capture_output=True, text=True)
        found = json.loads(out.stderr.strip().splitlines()[-1])
        assert found["code"] == 0 and found["collecting"] and not found["scipy_linalg"]
        assert found["frozen"] > built


WARM_PROBE = r"""
import gc, json
from neardup.startup import start_kernels
seen = []
def warm():
    seen.append(gc.isenabled())
    raise RuntimeError("a warm-up that fails is left to the job")
start_kernels(warm)
print(json.dumps({"collecting_in_warm_up": seen, "after": gc.isenabled(), "frozen": gc.get_freeze_count() > 50_000}))
"""


@pytest.mark.slow
def test_warm_up_runs_with_the_collector_paused_and_its_failure_is_left_to_the_job():
    out = subprocess.run([sys.executable, "-c", WARM_PROBE], check=True, capture_output=True, text=True)
    assert json.loads(out.stdout) == {"collecting_in_warm_up": [False], "after": True, "frozen": True}


@pytest.mark.slow
def test_program_dedup_start_up_leaves_every_method_s_result_unchanged(tmp_path):
    """`neardup dedup` as the program (warm-up, frozen start-up, cached kernels loaded lean)
    writes, for every method, the pairs and scores the API computes in this process."""
    from neardup import Deduplicator
    from neardup.methods import REGISTRY

    docs = tmp_path / "docs.jsonl"
    story = ("the mayor said on monday that the bridge over the river will reopen next spring after "
             "repairs that cost the city more than it had planned, and that traffic will be light")
    texts = [story, story.replace("monday", "tuesday"), story + " until the summer",
             "a storm is expected to bring heavy rain and strong winds to the coast tonight and tomorrow"]
    docs.write_text("".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(texts)))
    for name in sorted(REGISTRY):
        out = tmp_path / name
        subprocess.run([sys.executable, "-m", "neardup", "dedup", str(docs), "-o", str(out), "--method", name,
                        "--quiet"], check=True)
        pairs = [json.loads(line) for line in (out / "pairs.jsonl").read_text().splitlines()]
        expected = Deduplicator(method=name).run([(f"d{i}", t) for i, t in enumerate(texts)]).pairs
        assert [(p["a"], p["b"], p["score"]) for p in pairs] == [(p.a, p.b, round(p.score, 6)) for p in expected]


LEAN_PROBE = r"""
import json, sys
import numpy as np
from numba import njit
from neardup.startup import start_kernels
start_kernels()
lean = sys.modules["numba.core.caching"].Cache.load_overload
registries_skipped = "numba.np.npyimpl" not in sys.modules and "numba.typed.typedlist" not in sys.modules

@njit  # never cached: compiled here, after lean loads, with everything numba's compiler needs
def fresh(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = np.sqrt(x[i]) + np.sum(x[: i + 1])
    return np.sort(out)[::-1]

x = np.arange(5.0)
print(json.dumps({"lean": getattr(lean, "lean", False), "registries_skipped": registries_skipped,
                  "fresh": fresh(x).tolist(), "numpy": np.sort(np.sqrt(x) + np.cumsum(x))[::-1].tolist()}))
"""


@pytest.mark.slow
def test_cached_kernels_load_lean_and_compiling_afterwards_still_works():
    """The program loads cached kernels without numba's implementation registries
    (:func:`neardup.startup.lean_cache_loads`), and a kernel compiled later in the same
    process still finds everything it needs."""
    out = subprocess.run([sys.executable, "-c", LEAN_PROBE], check=True, capture_output=True, text=True)
    found = json.loads(out.stdout)
    assert found["lean"] and found["registries_skipped"]
    assert found["fresh"] == found["numpy"]


RUNTIME_PROBE = r"""
import json, os
import numpy as np
from numba import njit
from neardup.startup import _runtime_file, start_kernels
start_kernels()

@njit  # compiled here: linked against the runtime's helpers, loaded or compiled
def fresh(n):
    parts = [np.arange(i) for i in range(n)]
    return np.array([p.sum() for p in parts])

print(json.dumps({"kept": os.path.exists(_runtime_file()), "fresh": fresh(5).tolist()}))
"""


@pytest.mark.slow
def test_the_runtime_s_compiled_helpers_are_kept_loaded_and_replaced_when_unusable(tmp_path):
    """The first process compiles numba's runtime helpers and keeps their machine code in the cache
    folder; the next loads it (the file is not written again), and a kernel compiled after either
    links against it; a damaged file is compiled anew and replaced."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}

    def probe() -> dict:
        done = subprocess.run([sys.executable, "-c", RUNTIME_PROBE], env=env, check=True, capture_output=True, text=True)
        return json.loads(done.stdout)

    expected = {"kept": True, "fresh": [0, 0, 1, 3, 6]}
    assert probe() == expected
    (kept,) = tmp_path.glob("nrt-*.pickle")
    written = kept.stat().st_mtime_ns
    assert probe() == expected and kept.stat().st_mtime_ns == written
    kept.write_bytes(b"damaged")
    assert probe() == expected and kept.stat().st_size > 1000


@pytest.mark.slow
def test_the_dedup_warm_up_runs_every_method_without_error(tmp_path):
    """start_kernels ignores a failing warm-up (the job reports its own errors), so a warm-up that
    broke would only cost speed, silently: every method's warm-up must run cleanly."""
    from neardup.cli import build_parser
    from neardup.commands.dedup import warm
    from neardup.methods import REGISTRY

    for name in sorted(REGISTRY):
        args = build_parser("dedup").parse_args(["dedup", "in.jsonl", "-o", str(tmp_path / name), "--method", name])
        warm(args)


# -- issue 29 item 8: what a new user sees of start-up -------------------------------------------

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample.jsonl"


def test_version_is_printed(capsys):
    from neardup import __version__
    from neardup.cli import main

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out.strip() == f"neardup {__version__}"


def test_the_report_s_time_is_the_command_s_wall_time(tmp_path, capsys, monkeypatch):
    # the time of a run whose start-up (here a slow step before the job) took 0.6 s was printed as the job's 0.03 s
    import time

    from neardup import cli
    from neardup.commands import dedup

    real = dedup.run

    def slow_start(args):
        time.sleep(0.6)
        return real(args)

    monkeypatch.setattr(dedup, "run", slow_start)
    assert cli.main(["dedup", str(SAMPLE), "-o", str(tmp_path / "o")]) == 0
    seconds = json.loads((tmp_path / "o" / "summary.json").read_text())["seconds"]
    assert seconds["wall"] - seconds["total"] >= 0.55  # the sleep before the job is counted
    line = next(x for x in capsys.readouterr().err.splitlines() if x.startswith("time"))
    assert float(line.split()[1]) >= 0.6


def test_compiling_kernels_shows_as_one_line_and_is_counted(capsys):
    import numba

    from neardup.job import CLOCK, time_line
    from neardup.startup import compile_notice

    CLOCK.start()
    with compile_notice():
        numba.njit(lambda x: x + 1)(1)  # not cached: compiled now
        numba.njit(lambda x: x + 2)(1)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "compiling its kernels for this machine, once" in err
    assert CLOCK.compiled == 2 and CLOCK.compiling > 0
    assert "of it compiling kernels" in time_line({"total": 0.1, **CLOCK.seconds()})
    CLOCK.start()
    with compile_notice(quiet=True):
        numba.njit(lambda x: x + 3)(1)
    assert capsys.readouterr().err == "" and CLOCK.compiled == 1


def test_the_program_gives_blas_one_thread_unless_the_user_chose_or_the_command_trains(monkeypatch):
    from neardup.__main__ import BLAS_THREADS, one_blas_thread

    monkeypatch.delenv(BLAS_THREADS, raising=False)
    one_blas_thread(["neardup", "train", "extract"])
    assert BLAS_THREADS not in os.environ
    one_blas_thread(["neardup", "extract", "pages.jsonl"])
    assert os.environ[BLAS_THREADS] == "1"
    monkeypatch.setenv(BLAS_THREADS, "4")
    one_blas_thread(["neardup", "dedup", "docs.jsonl"])
    assert os.environ[BLAS_THREADS] == "4"


def test_a_program_run_has_one_blas_thread_and_train_has_blas_s_own():
    """What numpy's OpenBLAS reads at its import, seen from inside a ``neardup`` run."""
    pytest.importorskip("threadpoolctl")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    code = """import sys
import neardup.cli


def threads():
    import numpy  # noqa: F401 -- loads OpenBLAS, which reads its setting now
    import threadpoolctl

    print(*[p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"])
    return 0


neardup.cli.main = threads
from neardup.__main__ import program

sys.argv = ["neardup", sys.argv[1]]
program()
"""

    def blas_threads(command: str) -> str:
        return subprocess.run([sys.executable, "-c", code, command], env=env, capture_output=True, text=True,
                              check=True).stdout.strip()

    assert blas_threads("extract") == "1"
    if (os.cpu_count() or 1) > 1:
        assert blas_threads("train") != "1"  # OpenBLAS's own default: a thread per core
