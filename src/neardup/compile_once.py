"""Compile the kernels of dedup and eval on text or HTML in one go, the first time the program runs.

numba compiles a kernel when it is first called and keeps the machine code on disk, in a folder
named by the kernel sources (:mod:`.kernel_cache`).  Left to that, a first ``neardup dedup`` on
text compiles the detection kernels, and the first run on HTML, later, compiles extraction's:
two waits of tens of seconds, each with its own notice.  So the first ``neardup`` command that
runs kernels compiles, in one go and under one progress line, every kernel a ``dedup`` or ``eval``
job runs on text or HTML -- its method's (the default one unless the command names another) and
extraction's -- by running each through a tiny job in a process of its own (:func:`steps`), and
marks the cache folder done (:data:`MARK`); later commands load the kernels.  A command run on a cache that is already
warm pays one ``stat`` for the mark.

Compiling every method's kernels too would double the first run (each method has kernels of its
own) for what most users never run; another method, ``contain``, ``partial``, the online index
and training compile theirs on their first run, with the per-compile notice of
:func:`.startup.compile_notice`.
Nor is anything compiled in one go for a library caller or when ``NUMBA_CACHE_DIR`` points nowhere:
then kernels compile on first use, as numba does.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Callable, Sequence, TextIO

#: Two copies of one story and another: what the compiling jobs and a command's warm-up
#: (``commands.dedup.warm``) run through the method.
WARM_UP_DOCS = [
    ("warm-up-1", "The council approved the new budget for the city's schools on Tuesday, after a long debate."),
    ("warm-up-2", "The council approved the new budget for the city's schools on Tuesday, after a long debate."),
    ("warm-up-3", "Heavy rain closed several roads in the north of the region, and more is expected this week."),
]
COPIES = 6
"""The text job reads this many copies of the warm-up documents: 18 documents, over the 16 from which
batch kernels switch to their parallel versions (:func:`.align.words.tokens`), which are compiled apart."""
MARK = "compiled-in-one-go"
"""The file in the kernel cache folder that says its kernels were compiled by :func:`compile_all` (its
name ends with a hash of the package's folder: numba files the machine code of each source folder apart)."""
INSIDE = "NEARDUP_COMPILING_ONCE"
"""Set for the tiny jobs' processes, which compile and leave the one-go compiling to their parent."""


def _run(argv: list[str]) -> None:
    """Run ``neardup ARGV`` in a process of its own, silently: the compiling process's own start-up
    stays as a warm one is (no module of eval's, no compiler state in it)."""
    import subprocess

    env = {**os.environ, INSIDE: "1"}
    subprocess.run([sys.executable, "-m", "neardup", *argv], env=env, check=True, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def write_bytecode() -> None:
    """Write the Python bytecode of the package's modules beside them (``__pycache__``), as an ordinary
    install does: an editable install under ``PYTHONDONTWRITEBYTECODE`` (set by many containers) would
    otherwise compile every module from source at every start (its share of a start-up:
    docs/results.md).  Up-to-date files are left alone; a read-only package is skipped silently
    (its modules compile in memory as before)."""
    import compileall

    compileall.compile_dir(str(Path(__file__).resolve().parent), quiet=2)


def sample_page(docs: Sequence[tuple[str, str]]) -> str:
    """A small article page of ``docs``' texts that runs every extraction kernel: JSON-LD
    ``articleBody``, an ``<article>`` of paragraphs, and over :data:`.extract.guard.MAX_HTML_DEPTH`
    tags (the compiled depth estimate runs only on such pages)."""
    from .extract.guard import MAX_HTML_DEPTH

    story = " ".join(text for _, text in docs)
    return ('<html><head><title>Budget approved</title><script type="application/ld+json">'
            f'{{"@type": "NewsArticle", "articleBody": "{story}"}}</script></head><body>'
            '<nav class="menu"><a href="/">Home</a></nav><article><h1>Budget approved</h1>'
            + f"<p>{story}</p>" * 3 + "</article>" + "<br>" * MAX_HTML_DEPTH + "</body></html>")


def steps(folder: Path, docs: Sequence[tuple[str, str]],
          method: str | None = None) -> list[tuple[str, Callable[[], object]]]:
    """The tiny jobs whose kernels are compiled in one go, each a ``neardup`` command of its own on
    copies of ``docs`` (id, text) written into ``folder``: ``dedup`` with ``method`` (default: the
    default method) on text, then on pages (extraction's kernels), then ``eval`` (the scoring of
    every pair), after the package's bytecode (:func:`write_bytecode`)."""
    import json

    from .methods import DEFAULT_METHOD

    method = method or DEFAULT_METHOD
    texts, pages, labeled = folder / "texts.jsonl", folder / "pages.jsonl", folder / "labeled.jsonl"
    copies = [(f"{i}-{k}", t) for k in range(COPIES) for i, t in docs]
    texts.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in copies), encoding="utf-8")
    pages.write_text(json.dumps({"id": "page", "html": sample_page(docs)}) + "\n", encoding="utf-8")
    labeled.write_text("".join(json.dumps({"id": i, "text": t, "cluster": t[:20]}) + "\n" for i, t in copies),
                       encoding="utf-8")
    dedup = ["dedup", "--method", method, "--quiet", "-o"]
    return [("Python bytecode", write_bytecode),
            (f"dedup --method {method}", partial(_run, [*dedup, str(folder / "texts"), str(texts)])),
            (f"dedup --method {method} --html", partial(_run, [*dedup, str(folder / "pages"), str(pages), "--html"])),
            (f"eval --method {method}", partial(_run, ["eval", str(labeled), "--method", method]))]


def mark_path() -> Path | None:
    """Where :data:`MARK` is (numba's cache folder), None when numba has no cache folder set."""
    import hashlib

    folder = os.environ.get("NUMBA_CACHE_DIR")
    if not folder:
        return None
    package = hashlib.blake2b(str(Path(__file__).resolve().parent).encode(), digest_size=6).hexdigest()
    return Path(folder) / f"{MARK}-{package}"


def compile_all(docs: Sequence[tuple[str, str]], method: str | None = None, quiet: bool = False,
                out: TextIO | None = None) -> float | None:
    """Compile the kernels of :func:`steps` (``docs``, ``method``: the command's) unless the cache
    folder is marked done (or this is one of the steps' processes); returns the seconds it took,
    None when nothing was to be done.

    One line on ``out`` (standard error) unless ``quiet``: rewritten in place with the step on a
    terminal, else written when compiling starts and ended with the time taken.  Its line stands
    for the per-compile notice, and its time counts as compiling in the command's report
    (:data:`.job.CLOCK`).
    A step that fails is left to the job that needs it (it meets the error itself); the folder is
    marked only when every step ran.
    """
    from .job import CLOCK

    mark = mark_path()
    if mark is None or mark.exists() or os.environ.get(INSIDE):
        return None
    out = out or sys.stderr
    tty = out.isatty()
    began = time.perf_counter()
    CLOCK.compiled += 1
    head = "neardup: compiling its kernels for this machine, once"
    if not quiet:
        print(head + ("" if tty else " ..."), end="", file=out, flush=True)
    failed = False
    with tempfile.TemporaryDirectory(prefix="neardup-compile-") as tmp:
        todo = steps(Path(tmp), docs, method)
        for k, (label, run) in enumerate(todo, 1):
            if not quiet and tty:
                print(f"\r{head}: {k}/{len(todo)} {label}\x1b[K", end="", file=out, flush=True)
            try:
                run()
            except Exception:  # noqa: BLE001 -- the job that needs this kernel reports the error
                failed = True
    seconds = time.perf_counter() - began
    CLOCK.compiling += seconds
    if not quiet:
        done = f" done in {seconds:.0f} s; later runs load them from {mark.parent}"
        print(f"\r{head}:{done}\x1b[K" if tty else done, file=out, flush=True)
    if not failed:
        try:
            mark.write_text(f"{seconds:.1f}\n", encoding="utf-8")
        except OSError:  # a read-only cache: the kernels are compiled all the same
            pass
    return seconds
