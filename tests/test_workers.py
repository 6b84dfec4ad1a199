"""Pages extracted by worker processes (:mod:`neardup.workers`): the same items, results, order and
account for any number of workers; a dead worker is a clear error; no worker outlives the run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from neardup import workers as W
from neardup.cli import main
from neardup.errors import UserError
from neardup.input_stage import documents
from neardup.io.readers import read_inputs
from neardup.job import RunStats

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the tests fork")


def _square_all(xs: list[int]) -> list[int]:
    return [x * x for x in xs]


def _die_at_13(xs: list[int]) -> list[int]:
    if 13 in xs:
        os._exit(3)
    return xs


@pytest.fixture
def small_chunks(monkeypatch):
    """Pools start early and chunks are small, so a few items cross every path."""
    monkeypatch.setattr(W, "WARM_PAGES", 3)
    monkeypatch.setattr(W, "CHUNK_PAGES", 4)
    monkeypatch.setattr(W, "CHUNKS_PER_WORKER", 1)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_in_order_keeps_the_order_and_looks_at_items_in_order(small_chunks, n):
    items = list(range(200))
    looked: list[int] = []

    def payload(i: int) -> int | None:
        looked.append(i)
        return None if i % 7 == 0 else i  # some items have nothing to compute

    got = list(W.in_order(items, payload, _square_all, lambda a: 1, n))
    assert looked == items
    assert got == [(i, None if i % 7 == 0 else i * i) for i in items]


def test_a_worker_that_dies_is_a_clear_error_naming_where(small_chunks):
    got = []
    with pytest.raises(UserError, match=r"worker process died.*from item (\d+) on.*--workers 1") as err:
        for item, _result in W.in_order(range(40), lambda i: i, _die_at_13, lambda a: 1, 2, where=lambda i: f"item {i}"):
            got.append(item)
    named = int(str(err.value).split("from item ")[1].split()[0])
    # every item before the one named was given, in order; the named one is at or before the page that killed it
    assert got == list(range(named)) and 3 <= named <= 13


def test_workers_are_parsed_and_scoped():
    assert W.parse_workers("auto") == W.usable_cores() >= 1
    assert W.parse_workers("3") == 3
    for bad in ("0", "-1", "many"):
        with pytest.raises(UserError, match="--workers"):
            W.parse_workers(bad)
    before = W.workers()
    with W.using(4):
        assert W.workers() == 4
    assert W.workers() == before


def _pages(tmp_path, articles, n=60):
    """``n`` pages of the shipped articles, with the input stage's rejections among them."""
    rows = []
    for i in range(n):
        art = articles[i % len(articles)]
        html = f"<html><head><title>{art['title']}</title></head><body><article><h1>{art['title']}</h1>" + \
            "".join(f"<p>{p}</p>" for p in art["text"].split("\n\n")) + f"<p>Page {i}.</p></article></body></html>"
        rows.append({"id": f"p{i}", "html": html})
    rows[10] = {"id": "p5", "html": rows[10]["html"]}  # a duplicate id
    rows[20] = {"id": "empty", "html": "<html><body><script>x()</script></body></html>"}  # no text
    rows[30] = {"id": "deep", "html": "<div>" * 100_000 + "deep" + "</div>" * 100_000}  # too deep to parse
    rows[40] = {"id": "text", "text": "A record of text among the pages, kept as it is."}
    path = tmp_path / "pages.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _read(path, n):
    stats = RunStats()
    with W.using(n):
        got = [(r.id, r.line, t) for r, t in documents(read_inputs([str(path)]), "model", stats)]
    return got, stats.read, dict(stats.reasons), stats.kept


def test_the_input_stage_gives_the_same_documents_and_account_for_any_workers(tmp_path, articles, small_chunks):
    path = _pages(tmp_path, articles)
    one = _read(path, 1)
    assert one[1] == 60 and len(one[0]) == 57  # the text record kept; three rejected, each with its reason
    assert sorted(one[2]) == ["HTML nested too deeply", "duplicate id", "no text after extraction"]
    assert _read(path, 2) == one
    assert _read(path, 3) == one


def test_with_another_thread_running_the_workers_come_from_a_fork_server(tmp_path, articles, small_chunks):
    """Forking a process that runs threads can copy a held lock: then the pool is not forked from it."""
    path = _pages(tmp_path, articles, 48)
    one = _read(path, 1)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        import concurrent.futures
        import multiprocessing as mp

        made = []
        real = concurrent.futures.ProcessPoolExecutor

        def pool(*args, **kw):
            made.append(kw["mp_context"].get_start_method())
            return real(*args, **kw)

        concurrent.futures.ProcessPoolExecutor = pool  # type: ignore[misc]  # workers imports it when a pool starts
        try:
            assert _read(path, 2) == one
        finally:
            concurrent.futures.ProcessPoolExecutor = real  # type: ignore[misc]
        assert made == ["forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"]
    finally:
        stop.set()
        other.join()


def test_dedup_and_extract_write_the_same_files_for_any_workers(tmp_path, articles, small_chunks, capsys):
    path = _pages(tmp_path, articles)
    for n in ("1", "2"):
        assert main(["dedup", str(path), "-o", str(tmp_path / f"d{n}"), "--quiet", "--workers", n]) == 0
        assert main(["extract", str(path), "--jsonl", str(tmp_path / f"e{n}.jsonl"), "--workers", n]) == 0
    for name in ("pairs.jsonl", "clusters.jsonl"):
        assert (tmp_path / "d1" / name).read_bytes() == (tmp_path / "d2" / name).read_bytes()
    summaries = [json.loads((tmp_path / f"d{n}" / "summary.json").read_text()) for n in "12"]
    for s in summaries:
        s.pop("seconds", None)
    assert summaries[0] == summaries[1]
    assert (tmp_path / "e1.jsonl").read_bytes() == (tmp_path / "e2.jsonl").read_bytes()
    assert main(["dedup", str(path), "-o", str(tmp_path / "bad"), "--workers", "0"]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_no_worker_outlives_an_interrupted_run(tmp_path, articles, sig):
    path = _pages(tmp_path, articles, 4000)
    proc = subprocess.Popen([sys.executable, "-m", "neardup", "extract", str(path), "--jsonl", str(tmp_path / "o.jsonl"),
                             "--workers", "2"], stderr=subprocess.PIPE)
    children: set[int] = set()
    deadline = time.monotonic() + 60
    while not children and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
        children = set(map(int, subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True,
                                               text=True).stdout.split()))
    assert children, "the run started no worker"
    proc.send_signal(sig)
    proc.wait(30)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(os.path.exists(f"/proc/{c}") for c in children):
        time.sleep(0.2)
    assert not any(os.path.exists(f"/proc/{c}") and "Z" not in open(f"/proc/{c}/stat").read().split()[2]
                   for c in children)
    assert not (tmp_path / "o.jsonl").exists()  # nothing half-written
