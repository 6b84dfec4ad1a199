"""The driver JVM's class data sharing (:mod:`neardup.engines.spark_classes`), without starting a JVM:
which options a run gets, where its archive is kept and when a written archive is put in place."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("pyspark")

from pyspark import SparkContext  # noqa: E402

from neardup.engines import spark_classes  # noqa: E402


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """No JVM of this process running, the cache in ``tmp_path``; the exit hooks registered, not run."""
    monkeypatch.setattr(SparkContext, "_gateway", None)
    monkeypatch.setenv("NEARDUP_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(spark_classes.SWITCH, raising=False)  # the suite turns archives off (conftest)
    hooks: list[tuple] = []
    monkeypatch.setattr(spark_classes.atexit, "register", lambda *args: hooks.append(args))
    return hooks


def test_first_run_writes_then_runs_map(fresh: list[tuple]) -> None:
    archive = spark_classes.archive_path("-Xmx4g")
    assert archive is not None and not archive.exists()
    written = spark_classes.sharing_options("-Xmx4g")
    part = archive.with_name(f"{archive.stem}.{os.getpid()}.part")
    assert written == f"-XX:ArchiveClassesAtExit={part} {spark_classes.SILENT}"
    assert fresh == [(spark_classes._finish, part, archive)]
    archive.write_bytes(b"archive")
    assert spark_classes.sharing_options("-Xmx4g") == f"-XX:SharedArchiveFile={archive} {spark_classes.SILENT}"
    assert len(fresh) == 1  # nothing to write at exit any more


def test_archive_named_by_options(fresh: list[tuple], tmp_path: Path) -> None:
    one, other = spark_classes.archive_path("-Xmx4g"), spark_classes.archive_path("-Xmx8g")
    assert one is not None and other is not None and one != other
    assert one.parent == tmp_path / "spark" and one == spark_classes.archive_path("-Xmx4g")


@pytest.mark.parametrize("options", ["-Xshare:off", "-XX:SharedArchiveFile=/elsewhere.jsa"])
def test_options_of_the_user_kept(fresh: list[tuple], options: str) -> None:
    assert spark_classes.sharing_options(options) == ""
    assert fresh == []


def test_archives_turned_off(fresh: list[tuple], monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine that starts empty every time (CI) neither writes nor maps an archive."""
    monkeypatch.setenv(spark_classes.SWITCH, "off")
    assert spark_classes.sharing_options("-Xmx4g") == ""
    assert fresh == []
    monkeypatch.setenv(spark_classes.SWITCH, "on")
    assert spark_classes.sharing_options("-Xmx4g").startswith("-XX:ArchiveClassesAtExit=")


def test_a_local_driver_compiles_quickly_unless_told(fresh: list[tuple]) -> None:
    local = spark_classes.driver_options("-XX:+ExitOnOutOfMemoryError", "4g", local=True)
    assert local.startswith(f"-XX:+ExitOnOutOfMemoryError {spark_classes.QUICK} -XX:ArchiveClassesAtExit=")
    assert spark_classes.QUICK not in spark_classes.driver_options("-XX:+ExitOnOutOfMemoryError", "4g", local=False)
    big = spark_classes.QUICK_INPUT_BYTES
    assert spark_classes.QUICK in spark_classes.driver_options("", "4g", local=True, input_bytes=big - 1)
    assert spark_classes.QUICK not in spark_classes.driver_options("", "4g", local=True, input_bytes=big)
    own = spark_classes.driver_options("-XX:-TieredCompilation", "4g", local=True)
    assert own.startswith("-XX:-TieredCompilation -XX:") and spark_classes.QUICK not in own
    # the archive is the one for the options the JVM runs with
    archive = spark_classes.archive_path(f"-Xmx4g -XX:+ExitOnOutOfMemoryError {spark_classes.QUICK}")
    assert archive is not None and archive.stem in local


def test_the_quick_driver_has_room_for_its_code_unless_told(fresh: list[tuple]) -> None:
    """C1 alone reserves 48 MB for machine code, which a session's generated classes fill."""
    local = spark_classes.driver_options("", "4g", local=True)
    assert "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m" in local
    own = spark_classes.driver_options("-XX:ReservedCodeCacheSize=64m", "4g", local=True)
    assert "240m" not in own and "TieredStopAtLevel" not in own


def test_running_jvm_untouched(fresh: list[tuple], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SparkContext, "_gateway", object())
    assert spark_classes.sharing_options("-Xmx4g") == ""


class _Gateway:
    def __init__(self, proc: subprocess.Popen) -> None:
        self.proc = proc


@pytest.mark.parametrize("status", [0, 1])
def test_finish_moves_only_a_finished_archive(fresh: list[tuple], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              status: int) -> None:
    """At exit the JVM's input is closed and it is waited for; its archive is kept only if it exited well."""
    part, archive = tmp_path / "a.1.part", tmp_path / "a.jsa"
    # a stand-in JVM: writes the archive once its input closes, as a JVM does when pyspark's pipe ends
    proc = subprocess.Popen(["sh", "-c", f"cat >/dev/null; echo x > {part}; exit {status}"], stdin=subprocess.PIPE)
    monkeypatch.setattr(SparkContext, "_gateway", _Gateway(proc))
    spark_classes._finish(part, archive)
    assert archive.exists() == (status == 0) and not part.exists()


def test_no_archive_for_a_cache_path_with_white_space(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      fresh: list[tuple]) -> None:
    """Spark splits the driver's JVM options at white space: such a path would break the JVM's start."""
    monkeypatch.setenv("NEARDUP_CACHE_DIR", str(tmp_path / "my cache"))
    assert spark_classes.sharing_options("-Xmx4g") == ""
    assert fresh == []


def test_a_new_archive_keeps_only_those_used_last(fresh: list[tuple], tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "spark"
    folder.mkdir()
    old = [folder / f"classes-{i}.jsa" for i in range(3)]
    for i, path in enumerate(old):
        path.write_bytes(b"archive")
        os.utime(path, ns=(i * 10**9, i * 10**9))  # classes-2 used last
    part, archive = folder / "classes-new.1.part", folder / "classes-new.jsa"
    proc = subprocess.Popen(["sh", "-c", f"cat >/dev/null; echo x > {part}"], stdin=subprocess.PIPE)
    monkeypatch.setattr(SparkContext, "_gateway", _Gateway(proc))
    spark_classes._finish(part, archive)
    assert sorted(p.name for p in folder.iterdir()) == ["classes-2.jsa", "classes-new.jsa"]


def test_a_context_left_running_is_stopped_before_the_jvm_input_closes(fresh: list[tuple], tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Else its accumulator server reads the closed connection and prints a traceback at exit."""
    part, archive = tmp_path / "a.1.part", tmp_path / "a.jsa"
    proc = subprocess.Popen(["sh", "-c", f"cat >/dev/null; echo x > {part}"], stdin=subprocess.PIPE)
    seen: list[bool] = []

    class _Context:
        def stop(self) -> None:
            seen.append(proc.stdin is not None and not proc.stdin.closed)

    monkeypatch.setattr(SparkContext, "_gateway", _Gateway(proc))
    monkeypatch.setattr(SparkContext, "_active_spark_context", _Context())
    spark_classes._finish(part, archive)
    assert seen == [True] and archive.exists()


@pytest.mark.spark
@pytest.mark.skipif(shutil.which("java") is None, reason="the Spark engine needs Java 17+")
def test_the_session_keeps_the_generated_classes_of_a_run(spark_stopped_at_end):
    """Spark's 100 compiled classes are fewer than one run plans; the engine's session keeps more."""
    pytest.importorskip("pyspark")
    from neardup.engines.spark import SparkEngine

    spark = SparkEngine(master="local[2]").session()  # the run's session: conftest stops it
    assert spark.conf.get("spark.sql.codegen.cache.maxEntries") == spark_classes.GENERATED
