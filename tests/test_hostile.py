"""Issue 30: hostile input and a shared server -- no request harms another, no input exhausts the machine.

One test (or a few) per item of the issue, named ``test_<item>_...``.  The HTTP ones run a
real ``neardup serve`` on 127.0.0.1 (``served``), each bounded in time; the ones needing a
full or read-only file system mount one in a private mount namespace (``unshare -m``) and
skip where that is not allowed.
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import orjson
import pytest

from neardup.cli import main
from neardup.io.readers import Record, Rejection, read_input

pytestmark = pytest.mark.slow  # whole jobs, servers and signals in subprocesses

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "sample.jsonl"
DOCS = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
WORDS = [f"w{i}" for i in range(5000)]


def article(seed: int, n: int = 120) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(n)) + "."


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    return path


def run(argv: list[str], capsys) -> tuple[int, str]:
    rc = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err, err
    return rc, err


def cli(*argv: str, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "neardup.cli", *argv], capture_output=True, text=True,
                          timeout=timeout, **kwargs)


# -- a real server on loopback ---------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def served(index: Path, *options: str, token: str = "t"):
    """``neardup serve index`` on a free loopback port; yields its base URL; stops it (SIGTERM, exit 0)."""
    httpx = pytest.importorskip("httpx2")
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "neardup.cli", "serve", str(index), "--port", str(port),
                             "--token", token, *options], stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(150):
            try:
                if httpx.get(base + "/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        else:
            raise AssertionError("the server did not start")
        yield base
    finally:
        proc.terminate()
        try:
            _, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 0, err
    assert "index damaged" not in err and "Traceback" not in err, err


def _index(tmp_path: Path, method: str = "ffp") -> Path:
    from neardup.online import Index

    Index.create(tmp_path / "ix", method=method).close()
    return tmp_path / "ix"


AUTH = {"Authorization": "Bearer t", "Content-Type": "application/json"}


# -- 1. one bad request fails other clients' writes ----------------------------------------------

def test_1_a_lone_surrogate_is_a_422_before_it_joins_a_group(tmp_path):
    import httpx2 as httpx

    with served(_index(tmp_path)) as base:
        for body in (b'{"documents":[{"id":"x","text":"words \\udc80"}]}',
                     b'{"documents":[{"id":"x\\udc80","text":"some words here"}]}',
                     b'{"documents":[{"id":"y","html":"<p>words \\ud800 here</p>"}]}'):
            r = httpx.post(base + "/documents", content=body, headers=AUTH, timeout=30)
            assert r.status_code == 422 and "lone surrogate" in r.text, (body, r.status_code, r.text)
            r = httpx.post(base + "/query", content=body, headers=AUTH, timeout=30)
            assert r.status_code == 422, r.text
        assert httpx.get(base + "/health").json()["documents"] == 0


def test_1_an_invalid_body_holding_a_lone_surrogate_is_a_422_not_a_500(tmp_path):
    """A body the model refuses is answered 422 with where and what, never by echoing the input (a lone
    surrogate cannot be written as JSON: the default handler failed with a 500)."""
    import httpx2 as httpx

    with served(_index(tmp_path)) as base:
        for path, body in (("/query", b'{"documents": "\\ud800"}'),
                           ("/documents", b'{"documents":[{"id":["\\udc80"],"text":"x"}]}'),
                           ("/documents", b'{"documents":[{"id":"x","text":"y","t\\udc80":{"a":[1]}}], "\\udc80": 1}')):
            r = httpx.post(base + path, content=body, headers=AUTH, timeout=30)
            assert r.status_code in (200, 422) and r.status_code != 500, (body, r.status_code, r.text)
            if r.status_code == 422:
                assert r.json()["detail"][0]["loc"][0] == "body", r.text


def test_1_ids_and_times_are_never_converted(tmp_path):
    """`"id": true` is not the id "1" and `"time": true` not 1 s (pydantic's lax mode converted them);
    `"id": 1.0` is named "1.0", as `index add` names it from a JSONL file."""
    import httpx2 as httpx

    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda"
    with served(_index(tmp_path)) as base:
        for doc in ({"id": True, "text": text}, {"id": False, "text": text}, {"id": "t", "time": True, "text": text}):
            r = httpx.post(base + "/documents", json={"documents": [doc]}, headers=AUTH, timeout=30)
            assert r.status_code == 422, (doc, r.text)
        r = httpx.post(base + "/documents", json={"documents": [{"id": 1.0, "text": text}]}, headers=AUTH, timeout=30)
        assert r.status_code == 200 and r.json()["results"][0]["id"] == "1.0", r.text
        assert httpx.get(base + "/health").json()["documents"] == 1


def test_1_eight_writers_beside_a_hostile_client_get_no_errors(tmp_path):
    import httpx2 as httpx

    hostile = [b'{"documents":[{"id":"h","text":"words \\udc80"}]}',
               b'{"documents":[{"id":"h\\udfff","text":"words"}]}',
               b'{"documents":[{"id":"h2","text":"' + b"x" * 10 + b'\\ud83d"}]}']
    stop = threading.Event()

    def attack(base):
        sent = 0
        with httpx.Client(timeout=30) as c:
            while not stop.is_set():
                r = c.post(base + "/documents", content=hostile[sent % len(hostile)], headers=AUTH)
                assert r.status_code == 422, r.text
                sent += 1
        return sent

    def writer(base, k):
        codes = []
        with httpx.Client(timeout=60) as c:
            for i in range(k, 40 * 8, 8):
                r = c.post(base + "/documents", json={"documents": [{"id": f"d{i}", "text": article(i)}]},
                           headers=AUTH)
                codes.append(r.status_code)
        return codes

    with served(_index(tmp_path)) as base, ThreadPoolExecutor(9) as pool:
        bad = pool.submit(attack, base)
        codes = [c for f in [pool.submit(writer, base, k) for k in range(8)] for c in f.result()]
        stop.set()
        assert bad.result() > 0
        assert codes == [200] * 320
        assert httpx.get(base + "/health").json()["documents"] == 320


def test_1_a_failure_inside_a_group_fails_only_its_own_request(tmp_path):
    """Any error in a group commit (not only a rejected record) is isolated: the others are retried alone."""
    from neardup.online import Index
    from neardup.online.server import _Writer

    index = Index.create(tmp_path / "ix", method="ffp")
    gate = threading.Event()
    real_add = index.add

    def add(records, **kwargs):
        if any(r["id"] == "gate" for r in records):
            gate.wait(10)
        if any(r["id"] == "boom" for r in records):
            raise RuntimeError("a bug in one request")
        return real_add(records, **kwargs)

    index.add = add
    writer = _Writer(index)
    try:
        first = writer.submit("add", [{"id": "gate", "text": article(0)}])
        time.sleep(0.2)  # the writer holds the gate; the next ones queue up and form one group
        futures = [writer.submit("add", [{"id": name, "text": article(i + 1)}])
                   for i, name in enumerate(["a", "b", "boom", "c"])]
        gate.set()
        assert first.result(10)[0].id == "gate"
        for name, f in zip(["a", "b", "boom", "c"], futures):
            if name == "boom":
                with pytest.raises(RuntimeError):
                    f.result(10)
            else:
                assert f.result(10)[0].id == name
    finally:
        writer.stop()
    assert len(index) == 4
    index.close()


# -- 2. no size cap on a JSONL record -------------------------------------------------------------

def test_2_a_jsonl_record_over_64_mib_is_rejected_unparsed_and_reading_goes_on(tmp_path):
    path = tmp_path / "in.jsonl"
    with open(path, "wb") as fh:
        fh.write(orjson.dumps({"id": "a", "text": article(1)}) + b"\n")
        fh.write(b'{"id": "big", "text": "' + b"word " * ((64 << 20) // 5 + 10) + b'"}\n')
        fh.write(orjson.dumps({"id": "b", "text": article(2)}) + b"\n")
    items = list(read_input(path))
    assert [type(x) for x in items] == [Record, Rejection, Record]
    assert items[1].reason == "record too large" and items[1].line == 2 and "64 MiB" in items[1].detail
    assert items[2].id == "b" and items[2].line == 3


# -- 3. deeply nested HTML -----------------------------------------------------------------------

def test_3_deeply_nested_html_is_rejected_in_time(tmp_path):
    nested = "<html><body>" + "<div>" * 300_000 + "words of text" + "</div>" * 300_000 + "</body></html>"
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": "deep", "html": nested}, {"id": "a", "text": article(1)},
                                                {"id": "b", "text": article(1)}])
    start = time.perf_counter()
    done = cli("dedup", str(path), "-o", str(tmp_path / "o"), timeout=60)
    assert done.returncode == 0, done.stderr
    assert time.perf_counter() - start < 30
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["documents"]["rejected_by_reason"] == {"HTML nested too deeply": 1}
    assert s["pairs"] == 1 and "in.jsonl:1: HTML nested too deeply" in s["rejections"][0]


def test_3_pages_as_deep_as_real_ones_are_still_read():
    from neardup.extract import get_extractor
    from neardup.extract.guard import MAX_HTML_DEPTH, html_depth_over

    svg = "<svg>" + '<path d="M0 0"/>' * 20_000 + "</svg>"  # self-closed inside SVG: no nesting
    flat = "<p>para <b>bold</b> <br> <img src=x> <a href=y>link" * 20_000  # implied ends, void elements
    script = "<script>" + "<div>" * 20_000 + "</script>"  # raw text
    for page in (svg, flat, script, "<!--" + "<div>" * 20_000 + "-->", "<div>" * MAX_HTML_DEPTH):
        assert html_depth_over(f"<html><body>{page}<p>words here</p></body></html>") is None
    assert html_depth_over("<div/>" * (MAX_HTML_DEPTH + 1)) is not None  # <div/> opens a div in HTML
    assert "words here" in get_extractor("none")(f"<html><body>{svg}<p>words here</p></body></html>")


def test_3_query_refuses_deeply_nested_html_in_time(tmp_path):
    import httpx2 as httpx

    nested = "<div>" * 500_000 + "words" + "</div>" * 10
    with served(_index(tmp_path), "--max-body", str(8 << 20)) as base:
        start = time.perf_counter()
        r = httpx.post(base + "/query", json={"documents": [{"id": "x", "html": nested}]}, timeout=60)
        assert r.status_code == 422 and "nested too deeply" in r.text, r.text
        assert time.perf_counter() - start < 20
        r = httpx.post(base + "/documents", json={"documents": [{"id": "x", "html": nested}]}, headers=AUTH,
                       timeout=60)
        assert r.status_code == 422
        assert httpx.get(base + "/health", timeout=5).status_code == 200


# -- 4. a WARC response without WARC-Target-URI --------------------------------------------------

def _warc_record(headers: list[tuple[bytes, bytes]], payload: bytes) -> bytes:
    head = b"WARC/1.0\r\n" + b"".join(k + b": " + v + b"\r\n" for k, v in headers)
    return head + b"Content-Length: %d\r\n\r\n" % len(payload) + payload + b"\r\n\r\n"


def test_4_a_warc_response_without_target_uri_is_counted_and_named(tmp_path, capsys):
    def response(n: int, uri: bytes | None) -> bytes:
        body = f"<html><body><article><p>{article(n)}</p></article></body></html>".encode()
        http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n" % len(body) + body
        headers = [(b"WARC-Type", b"response"), (b"WARC-Record-ID", b"<urn:uuid:%d>" % n),
                   (b"WARC-Date", b"2024-01-01T00:00:00Z"), (b"Content-Type", b"application/http; msgtype=response")]
        if uri:
            headers.insert(2, (b"WARC-Target-URI", uri))
        return _warc_record(headers, http)

    path = tmp_path / "crawl.warc"
    path.write_bytes(response(1, b"http://a.example/1") + response(2, None) + response(1, b"http://a.example/3"))
    rc, err = run(["dedup", str(path), "-o", str(tmp_path / "o")], capsys)
    assert rc == 0
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert s["documents"] == {"read": 3, "kept": 2, "rejected": 1, "rejected_by_reason": {"missing id": 1}}
    assert s["rejections"] == [f"{path}:2: missing id (a response without WARC-Target-URI (<urn:uuid:2>))"]
    assert s["pairs"] == 1


# -- 5. out of disk during index add --------------------------------------------------------------

def _unshare_ok() -> bool:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    return subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt 2>/dev/null || "
                           "mount -t tmpfs -o size=1m tmpfs /tmp"], capture_output=True).returncode == 0


needs_mounts = pytest.mark.skipif(not _unshare_ok(), reason="cannot mount in a private namespace (unshare -m)")


@needs_mounts
def test_5_out_of_disk_during_index_add_is_one_line_and_outputs_match_the_index(tmp_path):
    rows = [{"id": f"d{i}", "text": article(i, 300)} for i in range(3000)]
    path = write_jsonl(tmp_path / "in.jsonl", rows)
    disk = tmp_path / "disk"
    disk.mkdir()
    out = tmp_path / "out"
    py = f"{sys.executable} -m neardup.cli"
    script = (f"mount -t tmpfs -o size=2m tmpfs {disk} && {py} index create {disk}/ix --sync normal && "
              f"{py} index add {disk}/ix {path} -o {out} --batch-size 100 --quiet; echo rc=$? >&2; "
              f"{py} index info {disk}/ix --json")
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=300)
    err = done.stderr
    assert "Traceback" not in err and "rc=2" in err, err
    line = [x for x in err.splitlines() if x.startswith("neardup: error:")]
    assert len(line) == 1 and "No space left on device" in line[0] and f"their matches are in {out}" in line[0], err
    info = json.loads(done.stdout)
    matches = [json.loads(x) for x in (out / "matches.jsonl").read_text().splitlines()]
    summary = json.loads((out / "summary.json").read_text())
    assert 0 < info["documents"] < 3000
    assert len(matches) == summary["added"] == info["documents"]  # what was committed, and only that
    assert [m["id"] for m in matches] == [f"d{i}" for i in range(info["documents"])]
    assert summary["complete"] is False and "No space left on device" in summary["error"]


def test_5_sqlite_full_is_a_disk_error_not_damage(tmp_path):
    from neardup.online.storage import sqlite_fault

    exc = sqlite3.OperationalError("database or disk is full")
    exc.sqlite_errorcode = 13
    fault = sqlite_fault(exc, tmp_path / "index.sqlite")
    assert isinstance(fault, OSError) and fault.errno == 28


# -- 6. the HTML report -------------------------------------------------------------------------

def test_6_script_like_text_never_blanks_the_report_and_a_csp_guards_it(tmp_path, capsys):
    import base64
    import hashlib

    from selectolax.lexbor import LexborHTMLParser

    nasty = ("It began <!--<script> and went on </script><script>alert(1)</script> and <!-- more; "
             "& &amp; </ <\u2028 ") + article(3)
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": "a<!--<script>", "text": nasty},
                                                {"id": "b", "text": nasty}])
    assert run(["dedup", str(path), "-o", str(tmp_path / "o")], capsys)[0] == 0
    assert run(["report", str(tmp_path / "o"), "-o", str(tmp_path / "r.html")], capsys)[0] == 0
    html = (tmp_path / "r.html").read_text()
    tree = LexborHTMLParser(html)  # an HTML5 tokenizer, as a browser's
    scripts = tree.css("script")
    assert len(scripts) == 2, "the page's own script was swallowed"
    data = json.loads(scripts[0].text())
    assert data["texts"]["b"] == nasty and "a<!--<script>" in data["texts"]
    assert "JSON.parse" in scripts[1].text()
    raw = html.split('id="data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in raw and ">" not in raw
    csp = tree.css_first('meta[http-equiv="Content-Security-Policy"]').attributes["content"]
    app = html.split("<script>", 1)[1].split("</script>", 1)[0]
    digest = base64.b64encode(hashlib.sha256(app.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp and "default-src 'none'" in csp


# -- 7. slow clients, many connections, resource errors -------------------------------------------

def test_7_slow_clients_are_cut_off_and_many_connections_never_starve_health(tmp_path):
    import httpx2 as httpx

    with served(_index(tmp_path), "--read-timeout", "2", "--max-connections", "40") as base:
        port = int(base.rsplit(":", 1)[1])
        slow = []
        for _ in range(150):  # more than the cap: each sends half a request line and waits
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /hea")
            slow.append(s)
        start = time.perf_counter()
        for _ in range(5):
            assert httpx.get(base + "/health", timeout=5).status_code == 200
        assert time.perf_counter() - start < 10
        one = socket.create_connection(("127.0.0.1", port), timeout=10)
        one.sendall(b"POST /query HTTP/1.1\r\nHost: x\r\n")  # headers that never end
        one.settimeout(10)
        start = time.perf_counter()
        assert one.recv(100) == b""  # closed by the server at the read timeout
        assert time.perf_counter() - start < 6
        one.close()
        closed = 0
        for s in slow:
            s.settimeout(5)
            try:
                closed += s.recv(100) == b""
            except ConnectionResetError:  # dropped with our unread bytes: a reset, closed all the same
                closed += 1
            s.close()
        assert closed == len(slow)
        assert httpx.get(base + "/health", timeout=5).status_code == 200


def test_7_running_out_of_file_descriptors_is_not_called_damage(tmp_path):
    _index(tmp_path)
    code = f"""
import os, resource, threading
from neardup.online import Index

index = Index.open({str(tmp_path / 'ix')!r}, write=False)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
held = []
try:
    while True:
        held.append(os.open("/dev/null", os.O_RDONLY))
except OSError:
    pass
out = {{}}
def read():
    try:
        out["ok"] = index.get("x")
    except Exception as exc:
        out["error"] = f"{{type(exc).__name__}}: {{exc}}"
t = threading.Thread(target=read); t.start(); t.join()
print(out)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "damaged" not in done.stdout and "Too many open files" in done.stdout, done.stdout


# -- 8. an index on read-only storage -------------------------------------------------------------

@needs_mounts
def test_8_an_index_on_read_only_storage_is_read_and_says_so(tmp_path):
    ix = _index(tmp_path)
    write_jsonl(tmp_path / "in.jsonl", [{"id": f"d{i}", "text": article(i % 5)} for i in range(10)])
    assert cli("index", "add", str(ix), str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "a")).returncode == 0
    ro = tmp_path / "ro"
    ro.mkdir()
    py = f"{sys.executable} -m neardup.cli"
    script = (f"mount --bind -o ro {ix} {ro} && mount -o remount,bind,ro {ro}; "
              f"{py} index info {ro}; echo rc=$?; "
              f"{py} index query {ro} {tmp_path / 'in.jsonl'} -o {tmp_path / 'q'} --quiet; echo rc=$?; "
              f"{py} index add {ro} {tmp_path / 'in.jsonl'} -o {tmp_path / 'b'} --quiet; echo rc=$?")
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    out, err = done.stdout, done.stderr
    assert "damaged" not in err and "Traceback" not in err, err
    assert out.count("rc=0") == 2 and "rc=2" in out, (out, err)
    assert "documents  10" in out and "read-only storage" in out
    assert "cannot be written" in err and err.count("neardup: error:") == 1
    rows = [json.loads(x) for x in (tmp_path / "q" / "matches.jsonl").read_text().splitlines()]
    assert len(rows) == 10 and all(r["matches"] for r in rows)
    assert sorted(p.name for p in ix.iterdir() if p.name.startswith("index.sqlite")) == ["index.sqlite"]


def test_8_readers_open_the_index_read_only(tmp_path):
    from neardup.online import Index

    _index(tmp_path)
    with Index.open(tmp_path / "ix", write=False) as index:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            index.store.reader().execute("DELETE FROM meta")
        assert index.info()["access"] == "read-only"


# -- 9. tampered indexes, statistics and models ---------------------------------------------------

@pytest.mark.parametrize("key, value, words", [
    ("documents", "3", "documents stored, the manifest counts"),
    ("next_seq", "2", "sequence number"),
    ("next_seq", '"x"', "not a count"),
    ("layout", '"garbage"', "manifest damaged"),
    ("scheme", '{"kind": "keys"}', "manifest damaged"),
    ("params", '{"threshold": "high"}', ""),
    ("method", '"nope"', ""),
    ("partial", '{"bogus": 1}', "manifest damaged"),
])
def test_9_a_tampered_index_is_refused_on_open_with_one_line(tmp_path, capsys, key, value, words):
    ix = _index(tmp_path)
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": f"d{i}", "text": article(i)} for i in range(10)])
    assert run(["index", "add", str(ix), str(path), "-o", str(tmp_path / "a"), "--quiet"], capsys)[0] == 0
    with sqlite3.connect(ix / "index.sqlite") as db:
        db.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))
        if key == "partial":
            db.execute("UPDATE meta SET value = 2 WHERE key = 'version'")
    for argv in (["index", "add", str(ix), str(path), "-o", str(tmp_path / "b")],
                 ["index", "query", str(ix), str(path), "-o", str(tmp_path / "c")],
                 ["index", "info", str(ix)]):
        rc, err = run(argv, capsys)
        assert rc == 2 and err.count("\n") == 1 and err.startswith("neardup: error:"), (argv, err)
        assert words in err, err


def test_9_a_bit_flipped_page_is_refused_on_open_not_used(tmp_path, capsys):
    """Whenever ``info --check`` finds damage, ``add`` and ``query`` refuse the index (one line, exit 2)."""
    ix = _index(tmp_path)
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": f"d{i}", "text": article(i)} for i in range(300)])
    assert run(["index", "add", str(ix), str(path), "-o", str(tmp_path / "a"), "--quiet"], capsys)[0] == 0
    original = (ix / "index.sqlite").read_bytes()
    page = int.from_bytes(original[16:18], "big")
    rng = random.Random(5)
    damaged = 0
    for _ in range(16):
        data = bytearray(original)
        at = rng.randrange(1, len(data) // page) * page + rng.randrange(12)  # a page header or cell pointer
        data[at] ^= 1 << rng.randrange(8)
        (ix / "index.sqlite").write_bytes(bytes(data))
        rc, err = run(["index", "info", str(ix), "--check"], capsys)
        if rc == 0:
            continue
        damaged += 1
        for argv in (["index", "query", str(ix), str(path), "-o", str(tmp_path / "q"), "--quiet"],
                     ["index", "add", str(ix), str(path), "-o", str(tmp_path / "b"), "--quiet"]):
            rc, err = run(argv, capsys)
            assert rc == 2 and err.count("\n") == 1 and "damaged" in err, (argv, err)
    assert damaged >= 4
    (ix / "index.sqlite").write_bytes(original)


def test_9_readers_opening_beside_a_busy_writer_never_see_damage(tmp_path):
    """The open checks read the manifest and the tables in one snapshot: commits meanwhile are no damage."""
    from neardup.online import Index

    stop = threading.Event()

    def write():
        with Index.create(tmp_path / "ix", method="ffp", sync="normal") as index:
            n = 0
            while not stop.is_set():
                index.add([{"id": f"d{n + i}", "text": article(n + i, 40)} for i in range(5)])
                n += 5

    writer = threading.Thread(target=write)
    writer.start()
    try:
        while not (tmp_path / "ix" / "index.sqlite").exists():
            time.sleep(0.01)
        opened = 0
        deadline = time.time() + 4
        while time.time() < deadline:
            with Index.open(tmp_path / "ix", write=False) as index:
                opened += len(index) >= 0
    finally:
        stop.set()
        writer.join(30)
    assert opened > 10


def _stats(tmp_path: Path, capsys) -> tuple[Path, Path]:
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": str(i), "text": article(i)} for i in range(6)])
    stats = tmp_path / "s.npz"
    assert run(["stats", "build", str(path), "-o", str(stats)], capsys)[0] == 0
    return path, stats


@pytest.mark.parametrize("change, words", [
    (lambda d: d.update(counts=d["counts"] * 1000), "outside 1..6"),
    (lambda d: d.update(n_docs=np.int64(-3)), "n_docs"),
    (lambda d: d.update(keys=d["keys"][::-1].copy()), "not sorted"),
    (lambda d: d.update(keys=d["keys"].astype(np.float64)), "type"),
    (lambda d: d.update(counts=d["counts"][:-1]), "keys but counts"),
    (lambda d: d.update(phrase_keys=d["phrase_keys"].reshape(1, -1)), "phrases"),
    (lambda d: d.update(phrase_size=np.int64(0)), "phrase size"),
])
def test_9_a_tampered_or_inconsistent_stats_file_is_one_line_exit_2(tmp_path, capsys, change, words):
    path, stats = _stats(tmp_path, capsys)
    data = dict(np.load(stats))
    change(data)
    with open(stats, "wb") as fh:
        np.savez(fh, **data)
    for argv in (["dedup", str(path), "-o", str(tmp_path / "o"), "--method", "imatch", "--stats", str(stats)],
                 ["stats", "info", str(stats)]):
        rc, err = run(argv, capsys)
        assert rc == 2 and err.count("\n") == 1 and str(stats) in err and words in err, (argv, err)


def test_9_tampered_model_files_are_one_line_exit_2(tmp_path, capsys):
    from neardup.extract.model import default_model_path

    path = write_jsonl(tmp_path / "in.jsonl", [{"id": str(i), "html": f"<p>{article(i)}</p>"} for i in range(3)])
    with np.load(str(default_model_path())) as shipped:
        good = dict(shipped)
    bad_models = {
        "cols.npz": {**good, "cols": np.array([10**9, 1], dtype=np.int32), "weights": good["weights"][:2]},
        "weights.npz": {**good, "weights": good["weights"][:, :1]},
        "meta.npz": {**good, "meta": np.array("[1, 2]")},
        "kind.npz": {**good, "meta": np.array(json.dumps({**json.loads(str(good["meta"])), "kind": None}))},
    }
    for name, arrays in bad_models.items():
        with open(tmp_path / name, "wb") as fh:
            np.savez(fh, **arrays)
        rc, err = run(["extract", str(path), "--model", str(tmp_path / name), "--jsonl", str(tmp_path / "x.jsonl")],
                      capsys)
        assert rc == 2 and err.count("\n") == 1 and name in err, (name, err)
    for name, text in (("list.json", "[1, 2]"), ("nan.json", '{"format": "neardup-andd-1", "features": ["idf"], '
                                                             '"weights": [NaN], "k": 1}')):
        (tmp_path / name).write_text(text)
        rc, err = run(["dedup", str(path), "-o", str(tmp_path / "o"), "--method", "andd", "--model",
                       str(tmp_path / name)], capsys)
        assert rc == 2 and err.count("\n") == 1 and name in err, (name, err)


# -- 10. ids -----------------------------------------------------------------------------------

def test_10_an_id_over_the_cap_is_rejected(tmp_path, capsys):
    MAX_ID_CHARS = 4096  # neardup.io.records.MAX_ID_CHARS

    rows = [{"id": "x" * (10 << 20), "text": article(1)}, {"id": "a", "text": article(1)},
            {"id": "b" * MAX_ID_CHARS, "text": article(1)}]
    path = write_jsonl(tmp_path / "in.jsonl", rows)
    rc, err = run(["dedup", str(path), "-o", str(tmp_path / "o")], capsys)
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert rc == 0 and s["documents"]["rejected_by_reason"] == {"id too long": 1} and s["pairs"] == 1
    assert len(err) < 2000  # the id is not printed whole


def test_10_ids_with_slashes_are_fetched_and_deleted_over_http(tmp_path):
    import httpx2 as httpx

    with served(_index(tmp_path)) as base:
        ids = ["https://example.com/news/2024/story?a=1", "a/b", "/lead", "trail/"]
        docs = [{"id": d, "text": article(i)} for i, d in enumerate(ids)]
        assert httpx.post(base + "/documents", json={"documents": docs}, headers=AUTH).status_code == 200
        r = httpx.post(base + "/documents", json={"documents": [{"id": "x" * 5000, "text": article(9)}]},
                       headers=AUTH)
        assert r.status_code == 422 and "id too long" in r.text
        from urllib.parse import quote

        for d in ids:
            url = f"{base}/documents/{quote(d, safe='')}"
            r = httpx.get(url)
            assert r.status_code == 200 and r.json()["id"] == d, (d, r.text)
        assert httpx.get(f"{base}/documents/a/b").json()["id"] == "a/b"  # unescaped slashes too
        for d in ids:
            r = httpx.delete(f"{base}/documents/{quote(d, safe='')}", headers=AUTH)
            assert r.status_code == 200 and r.json() == {"removed": d}, (d, r.text)
        assert httpx.get(base + "/health").json()["documents"] == 0


def test_10_explain_escapes_control_characters_in_ids_and_text(tmp_path, capsys):
    text = article(4) + " \x1b[2J\x1b]0;owned\x07 end"
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": "a\x1b[31mred\u202e", "text": text},
                                                {"id": "b\r\n", "text": text}])
    rc = main(["explain", "a\x1b[31mred\u202e", "b\r\n", "--in", str(path)])
    out = capsys.readouterr().out
    assert rc == 0
    assert "\x1b" not in out and "\u202e" not in out and "\r" not in out and "\x07" not in out
    assert "a\\x1b[31mred\\u202e" in out and "b\\x0d\\x0a" in out


# -- 11. outputs -------------------------------------------------------------------------------

def test_11_an_output_given_as_a_symlink_is_written_through_it(tmp_path, capsys):
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": article(1)}, {"id": "b", "text": article(1)}])
    (tmp_path / "real").mkdir()
    (tmp_path / "out").symlink_to(tmp_path / "real")
    (tmp_path / "u-real.jsonl").write_text("")
    (tmp_path / "u.jsonl").symlink_to(tmp_path / "u-real.jsonl")
    for _ in range(2):  # a new output, then a replaced one
        rc, _ = run(["dedup", str(path), "-o", str(tmp_path / "out"), "--unique", str(tmp_path / "u.jsonl")], capsys)
        assert rc == 0
        assert (tmp_path / "out").is_symlink() and (tmp_path / "u.jsonl").is_symlink()
        assert (tmp_path / "real" / "summary.json").is_file()
        assert [json.loads(x)["id"] for x in (tmp_path / "u-real.jsonl").read_text().splitlines()] == ["a"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out", "real", "u-real.jsonl", "u.jsonl"]


def test_11_unique_never_overwrites_its_own_input(tmp_path, capsys):
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": article(1)}, {"id": "b", "text": article(1)}])
    before = path.read_bytes()
    (tmp_path / "link.jsonl").symlink_to(path)
    folder = tmp_path / "docs"
    folder.mkdir()
    write_jsonl(folder / "x.jsonl", [{"id": "c", "text": article(2)}])
    for inputs, unique in (([path], path), ([path], tmp_path / "link.jsonl"), ([path], tmp_path / "." / "in.jsonl"),
                           ([folder], folder / "u.jsonl")):
        rc, err = run(["dedup", *map(str, inputs), "-o", str(tmp_path / "o"), "--unique", str(unique)], capsys)
        assert rc == 2 and err.count("\n") == 1 and "choose a path outside the inputs" in err, err
    rc, err = run(["dedup", str(folder), "-o", str(folder)], capsys)
    assert rc == 2 and "holds the input" in err
    ix = _index(tmp_path)
    rc, err = run(["index", "add", str(ix), str(folder / "x.jsonl"), "-o", str(folder)], capsys)
    assert rc == 2 and "holds the input" in err
    from neardup.online import Index

    with Index.open(ix, write=False) as index:
        assert len(index) == 0  # refused before anything was added
    assert path.read_bytes() == before and not (tmp_path / "o").exists() and not (folder / "u.jsonl").exists()


def test_11_an_index_run_never_replaces_the_index_with_its_outputs(tmp_path, capsys):
    """`index add|query -o OUTDIR` where OUTDIR holds the index (an earlier run's output folder) or lies
    in it is refused before the index opens: the output folder is replaced as a whole."""
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": article(1)}, {"id": "b", "text": article(2)}])
    runs = tmp_path / "runs"
    assert run(["dedup", str(path), "-o", str(runs), "--quiet"], capsys)[0] == 0
    from neardup.online import Index

    Index.create(runs / "ix").close()
    for mode in ("add", "query"):
        for outdir, says in ((runs, "holds the index"), (runs / "ix", "holds the index"),
                             (runs / "ix" / "o", "inside the index folder")):
            rc, err = run(["index", mode, str(runs / "ix"), str(path), "-o", str(outdir)], capsys)
            assert rc == 2 and says in err and err.count("\n") == 1, err
    with Index.open(runs / "ix", write=False) as index:
        assert len(index) == 0
    assert (runs / "summary.json").is_file()


def test_11_no_output_overwrites_or_reads_back_an_input_or_another_output(tmp_path, capsys):
    """Every command that writes files refuses, before any work, an output that is an input, lies in an
    input folder (the next run would read it back) or lies in the output folder (the folder replaces it)."""
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": article(1)}, {"id": "b", "text": article(1)}])
    before = path.read_bytes()
    folder = tmp_path / "docs"
    folder.mkdir()
    write_jsonl(folder / "x.jsonl", [{"id": "c", "text": article(2)}, {"id": "d", "text": article(2)}])
    out = tmp_path / "o"
    for argv, says in (
        (["extract", str(path), "--jsonl", str(path)], "choose a path outside the inputs"),
        (["extract", str(folder), "--jsonl", str(folder / "x.txt")], "choose a path outside the inputs"),
        (["extract", "train", str(folder), "-o", str(folder / "m.npz")], "choose a path outside the inputs"),
        (["train", str(path), "-o", str(path)], "choose a path outside the inputs"),
        (["stats", "build", str(path), "-o", str(path)], "choose a path outside the inputs"),
        (["dedup", str(folder), "-o", str(folder / "out")], "read its outputs back"),
        (["partial", str(folder), "-o", str(folder / "out")], "read its outputs back"),
        (["contain", str(folder), "-o", str(folder / "out")], "read its outputs back"),
        (["synth", str(folder), "-o", str(folder / "out")], "read its outputs back"),
        (["eval", str(folder), "--plot", str(folder / "plots")], "choose a path outside the inputs"),
        (["dedup", str(path), "-o", str(out), "--unique", str(out / "u.jsonl")], "inside the output folder"),
        (["dedup", str(path), "-o", str(out), "--unique", str(out)], "inside the output folder"),
    ):
        rc, err = run(argv, capsys)
        assert rc == 2 and err.count("\n") == 1 and says in err, (argv, err)
    assert path.read_bytes() == before and sorted(p.name for p in folder.iterdir()) == ["x.jsonl"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "in.jsonl"]


# -- acceptance: a shared server under a hostile client ------------------------------------------

def test_load_8_writers_8_readers_and_a_hostile_client_lose_nothing():
    """``bench/load_hostile.py`` for 6 s: no error for the others, no 5xx, no lost acknowledged write."""
    pytest.importorskip("httpx2")
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from load_hostile import run_load
    finally:
        sys.path.remove(str(ROOT / "bench"))
    report = run_load(seconds=6)
    assert report["ok"], json.dumps(report, indent=2)
    assert report["writer_errors"] == report["reader_errors"] == report["lost_acknowledged_writes"] == 0
    assert report["documents_acknowledged"] == report["documents_in_index"] > 0
    assert sum(v for k, v in report["hostile"].items() if ": 4" in k) > 0
