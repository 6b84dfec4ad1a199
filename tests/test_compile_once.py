"""The first run compiles the kernels of dedup and eval on text and HTML in one go, under one line."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from neardup import compile_once
from neardup.compile_once import WARM_UP_DOCS


def test_compile_all_says_one_line_marks_the_folder_and_runs_once(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))  # the mark's folder (numba keeps its own, read at import)
    ran = []
    monkeypatch.setattr(compile_once, "steps", lambda folder, docs, method=None: [
        ("a", lambda: ran.append("a")), ("b", lambda: ran.append(method))])
    out = io.StringIO()
    assert compile_once.compile_all(WARM_UP_DOCS, "simhash", out=out) is not None
    assert ran == ["a", "simhash"] and compile_once.mark_path().exists()
    line = out.getvalue()
    assert line.count("\n") == 1 and line.startswith("neardup: compiling") and " done in " in line
    out = io.StringIO()
    assert compile_once.compile_all(WARM_UP_DOCS, out=out) is None and out.getvalue() == ""
    assert len(ran) == 2


def test_a_failed_step_leaves_the_folder_unmarked_and_quiet_says_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))

    def broken() -> None:
        raise RuntimeError("left to the job")

    monkeypatch.setattr(compile_once, "steps", lambda folder, docs, method=None: [("broken", broken)])
    out = io.StringIO()
    compile_once.compile_all(WARM_UP_DOCS, quiet=True, out=out)
    assert out.getvalue() == "" and not compile_once.mark_path().exists()


def test_the_bytecode_step_writes_the_packages_bytecode_beside_its_sources(tmp_path):
    """Under ``PYTHONDONTWRITEBYTECODE`` an editable install would compile every module at every start."""
    import importlib.util

    import neardup.cli

    written = Path(importlib.util.cache_from_source(neardup.cli.__file__))
    written.unlink(missing_ok=True)
    label, run = compile_once.steps(tmp_path, WARM_UP_DOCS)[0]
    assert label == "Python bytecode"
    run()
    assert written.read_bytes()[:4] == importlib.util.MAGIC_NUMBER  # a bytecode file of this Python


def test_the_steps_run_the_default_job_on_text_and_pages(tmp_path, capsys):
    for _, run in compile_once.steps(tmp_path, WARM_UP_DOCS):
        run()
    assert capsys.readouterr().out == ""  # eval's table kept from the terminal
    assert (tmp_path / "texts" / "pairs.jsonl").exists() and (tmp_path / "pages" / "summary.json").exists()
    assert len((tmp_path / "texts.jsonl").read_text().splitlines()) >= 16  # the batch kernels' parallel versions


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="nothing is compiled")
def test_after_the_first_run_neither_text_nor_html_jobs_compile(tmp_path):
    """On an empty cache the first command compiles; a dedup on text, a dedup on pages, an extract
    and an eval after it compile nothing (their reports count no compiling, no notice is printed)."""
    env = {**os.environ, "NEARDUP_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)
    story = "The council approved the new budget for the city's schools on Tuesday, after a long debate."
    texts = tmp_path / "texts.jsonl"
    texts.write_text("".join(json.dumps({"id": str(i), "text": f"{story} {i % 3}"}) + "\n" for i in range(20)))
    pages = tmp_path / "pages.jsonl"
    pages.write_text("".join(json.dumps({"id": str(i), "html": f"<html><body><p>{story} {i}</p></body></html>"})
                             + "\n" for i in range(20)))

    def run(*argv: str) -> str:
        done = subprocess.run([sys.executable, "-m", "neardup", *argv], env=env, capture_output=True, text=True,
                              check=True)
        return done.stderr

    first = run("extract", str(pages), "--jsonl", str(tmp_path / "first.jsonl"))
    assert first.count("compiling its kernels") == 1 and " done in " in first
    for name, argv in (("t", [str(texts)]), ("h", [str(pages), "--html"])):
        run("dedup", *argv, "-o", str(tmp_path / name), "--quiet")
        assert "compiling_kernels" not in json.loads((tmp_path / name / "summary.json").read_text())["seconds"]
    assert "compiling" not in run("extract", str(pages), "--jsonl", str(tmp_path / "again.jsonl"))
    labeled = tmp_path / "labeled.jsonl"
    labeled.write_text("".join(json.dumps({"id": str(i), "text": f"{story} {i % 3}", "cluster": str(i % 3)}) + "\n"
                               for i in range(20)))
    assert "compiling" not in run("eval", str(labeled))
