"""``neardup serve``: the HTTP API answers as the index does, refuses bad input with a 4xx and no change,
limits bodies, guards writes with a token, and shuts down cleanly on a real loopback server."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx2")

import httpx2 as httpx  # noqa: E402  (starlette's TestClient deprecates httpx for httpx2)
from fastapi.testclient import TestClient  # noqa: E402

from neardup.online import Index  # noqa: E402
from neardup.online.server import create_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = [json.loads(line) for line in (ROOT / "examples" / "sample.jsonl").read_text().splitlines()]
DOCS = [{"id": d["id"], "text": d["text"], "time": d["time"]} for d in SAMPLE]


@pytest.fixture
def client(tmp_path):
    Index.create(tmp_path / "ix", method="minhash", threshold=0.5).close()
    index = Index.open(tmp_path / "ix")
    with TestClient(create_app(index, token="s3cret", max_body=200_000)) as c:
        c.headers["Authorization"] = "Bearer s3cret"
        yield c


def test_add_query_get_delete_stats_health(client, tmp_path):
    added = []
    for at in range(0, len(DOCS), 10):
        r = client.post("/documents", json={"documents": DOCS[at:at + 10]})
        assert r.status_code == 200, r.text
        added += r.json()["results"]
    with Index.create(tmp_path / "direct", method="minhash", threshold=0.5) as direct:
        want = [c.as_dict() for c in direct.add(DOCS)]
    assert added == want  # the same answers as the API in process, in one batch
    r = client.post("/query", json={"documents": [DOCS[7]]})
    assert r.status_code == 200 and DOCS[7]["id"] in [m["id"] for m in r.json()["results"][0]["matches"]]
    assert r.json()["results"][0]["added"] is False
    r = client.get(f"/documents/{DOCS[3]['id']}")
    assert r.status_code == 200 and r.json()["id"] == DOCS[3]["id"] and r.json()["features"] > 0
    assert client.get("/health").json() == {"status": "ok", "documents": 48}
    stats = client.get("/stats").json()
    assert stats["documents"] == 48 and stats["method"] == "minhash"
    assert client.delete(f"/documents/{DOCS[3]['id']}").json() == {"removed": DOCS[3]["id"]}
    assert client.get(f"/documents/{DOCS[3]['id']}").status_code == 404
    assert client.delete(f"/documents/{DOCS[3]['id']}").status_code == 404
    assert client.get("/health").json()["documents"] == 47
    assert "/documents" in client.get("/openapi.json").json()["paths"]


@pytest.mark.slow
def test_an_index_made_with_partial_answers_passages_over_http(tmp_path):
    Index.create(tmp_path / "ix", partial=True).close()
    with Index.open(tmp_path / "ix") as index, TestClient(create_app(index)) as c:
        added = []
        for at in range(0, len(DOCS), 16):
            r = c.post("/documents", json={"documents": DOCS[at:at + 16]})
            assert r.status_code == 200, r.text
            added += r.json()["results"]
        asked = c.post("/query", json={"documents": [DOCS[5]]}).json()["results"][0]
    with Index.create(tmp_path / "direct", partial=True) as direct:
        want = [x.as_dict() for x in direct.add(DOCS)]
    assert added == want and sum(len(x["partials"]) for x in added) > 20
    assert DOCS[5]["id"] in [p["id"] for p in asked["partials"]]


def test_bad_input_is_a_4xx_and_changes_nothing(client):
    assert client.post("/documents", json={"documents": DOCS[:5]}).status_code == 200
    cases = [
        ({"documents": [DOCS[5], {"id": "x"}]}, 422, "missing text"),
        ({"documents": [DOCS[5], {"id": "y", "text": "!!! ???"}]}, 422, "no words"),
        ({"documents": [DOCS[5], DOCS[0]]}, 409, "already in the index"),
        ({"documents": [DOCS[5], DOCS[5]]}, 422, "duplicate id"),
        ({"documents": [{**DOCS[5], "time": "yesterday"}]}, 422, "invalid time"),
        ({"documents": [{"text": "no id"}]}, 422, "id"),
        ({"docs": []}, 422, "documents"),
    ]
    for body, status, words in cases:
        r = client.post("/documents", json=body)
        assert r.status_code == status, (body, r.text)
        assert words in r.text
        assert client.get("/health").json()["documents"] == 5
    r = client.post("/documents", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422
    assert client.get("/documents/" + DOCS[5]["id"]).status_code == 404


def test_body_limit_and_token(client):
    big = {"documents": [{"id": "big", "text": "word " * 60_000}]}
    r = client.post("/documents", json=big)
    assert r.status_code == 413 and "200,000 bytes" in r.text

    def chunks():
        data = json.dumps(big).encode()
        for i in range(0, len(data), 10_000):
            yield data[i:i + 10_000]

    r = client.post("/documents", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413  # no Content-Length (chunked): counted as it arrives
    r = client.post("/documents", json={"documents": DOCS[:1]}, headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 401
    r = client.delete(f"/documents/{DOCS[0]['id']}", headers={"Authorization": ""})
    assert r.status_code == 401
    assert client.post("/query", json={"documents": DOCS[:1]}, headers={"Authorization": ""}).status_code == 200
    assert client.get("/health").json()["documents"] == 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_real_server_on_loopback_groups_concurrent_writes_and_stops_cleanly(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    Index.create(tmp_path / "ix", method="ffp").close()
    port = _free_port()
    env = {**os.environ, "NEARDUP_TOKEN": "t"}
    proc = subprocess.Popen([sys.executable, "-m", "neardup.cli", "serve", str(tmp_path / "ix"), "--port", str(port)],
                            env=env, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                if httpx.get(base + "/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        headers = {"Authorization": "Bearer t"}

        def post(doc):
            return httpx.post(base + "/documents", json={"documents": [doc]}, headers=headers, timeout=60)

        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(post, DOCS))
        assert all(r.status_code == 200 for r in answers)
        assert httpx.get(base + "/health").json()["documents"] == 48
        assert httpx.post(base + "/documents", json={"documents": [DOCS[0]]}).status_code == 401
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "serving" in err
    with Index.open(tmp_path / "ix") as index:  # the writer lock was released, every add is there
        assert len(index) == 48 and index.check() == []


def _local_assets(client, page: str) -> list[str]:
    import re

    html = client.get(page).text
    urls = re.findall(r"""(?:src|href)=["']([^"']+)["']|(?:url|openapi_url|swagger_js_url)\s*[:=]\s*["']([^"']+)["']""",
                      html)
    return [a or b for a, b in urls]


def test_docs_work_offline(client, monkeypatch):
    # issue 29 item 9: /docs loaded Swagger UI from a CDN, so it was blank offline
    page = client.get("/docs")
    assert page.status_code == 200 and "cdn." not in page.text and "https://" not in page.text
    assets = [u for u in _local_assets(client, "/docs") if u.endswith((".js", ".css"))]
    assert assets and all(client.get(u).status_code == 200 for u in assets)
    assert client.get("/openapi.json").json()["info"]["title"] == "neardup index"
    assert "cdn." not in client.get("/redoc").text


def test_docs_without_fastapi_offline_are_a_static_page(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "fastapi_offline", None)  # not installed
    Index.create(tmp_path / "ix", method="minhash").close()
    with TestClient(create_app(Index.open(tmp_path / "ix"))) as c:
        page = c.get("/docs")
        assert page.status_code == 200 and "http" not in page.text and "<script" not in page.text
        assert "/documents" in page.text and "check documents without adding them" in page.text
        assert c.get("/openapi.json").status_code == 200


@pytest.mark.slow
@pytest.mark.skipif(not (os.path.exists("/usr/bin/chromium")), reason="no Chromium installed (apt-get install chromium)")
def test_docs_render_in_a_browser_with_no_network(client):
    sync_api = pytest.importorskip("playwright.sync_api")
    outside: list[str] = []

    def serve(route):
        url = route.request.url
        if not url.startswith("http://testserver/"):
            outside.append(url)
            return route.abort()
        got = client.get(url[len("http://testserver"):])
        route.fulfill(status=got.status_code, body=got.content,
                      headers={"content-type": got.headers.get("content-type", "text/plain")})

    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--headless", "--no-sandbox"])
        page = browser.new_page()
        page.route("**/*", serve)
        page.goto("http://testserver/docs")
        page.wait_for_selector(".opblock", timeout=20_000)  # the operations, rendered by Swagger UI
        assert page.locator(".opblock").count() >= 6
        browser.close()
    assert outside == []


def test_a_body_that_is_not_json_says_what_to_send(client):
    """A body sent as a form (curl -d without -H) or as text is refused with 415 naming the content type to
    use, not a 422 about dictionaries; a body that is not UTF-8 is a 400 saying so; nothing is added."""
    body = json.dumps({"documents": DOCS[:1]})
    for path in ("/documents", "/query"):
        for ctype in ("application/x-www-form-urlencoded", "text/plain"):
            r = client.post(path, content=body, headers={"content-type": ctype})
            assert r.status_code == 415, (path, ctype, r.text)
            assert "application/json" in r.json()["detail"] and ctype in r.json()["detail"]
        r = client.post(path, content=body, headers={"content-type": "application/json; charset=utf-8"})
        assert r.status_code == 200, r.text
    r = client.post("/documents", content='{"documents": [{"id": "é", "text": "café au lait"}]}'.encode("latin-1"),
                    headers={"content-type": "application/json"})
    assert r.status_code == 400 and "UTF-8" in r.json()["detail"], r.text
    assert client.get("/health").json()["documents"] == 1


def test_bodies_in_work_are_bounded_past_it_a_503_to_retry(tmp_path):
    """Every request holds about ten times its body in memory while it is worked (parsed, sketched, queued
    for the writer), and a connection may send up to --max-body: past four bodies' worth of bytes in work,
    a request gets 503 with Retry-After at once instead of raising the server's memory without bound; a
    request alone is always taken, and once the work drains the same request is."""
    import threading

    Index.create(tmp_path / "ix", method="minhash", threshold=0.5).close()
    index = Index.open(tmp_path / "ix")
    gate, adding = threading.Event(), threading.Event()
    add = index.add

    def held_add(*args, **kwargs):
        adding.set()
        gate.wait(30)
        return add(*args, **kwargs)

    index.add = held_add  # type: ignore[method-assign]
    app = create_app(index, max_body=10_000)
    body = lambda k: json.dumps({"documents": [{"id": f"b{k}", "text": DOCS[k]["text"][:400] + " x" * 4000}]})  # noqa: E731
    assert all(8_000 < len(body(k)) < 10_000 for k in range(6))
    with TestClient(app) as c:
        answers: dict[int, int] = {}

        def post(k: int) -> None:
            answers[k] = c.post("/documents", content=body(k), headers={"content-type": "application/json"}).status_code

        threads = [threading.Thread(target=post, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        assert adding.wait(30)
        deadline = time.time() + 30
        while app.state.bodies.bytes < 4 * 8_000 and time.time() < deadline:
            time.sleep(0.01)
        r = c.post("/documents", content=body(4), headers={"content-type": "application/json"})
        assert r.status_code == 503 and r.headers["retry-after"] and "in work" in r.json()["detail"], r.text
        assert c.get("/health").status_code == 200  # reads without a body are never refused
        gate.set()
        for t in threads:
            t.join(30)
        assert answers == {0: 200, 1: 200, 2: 200, 3: 200}
        assert app.state.bodies.bytes == 0
        assert c.post("/documents", content=body(4), headers={"content-type": "application/json"}).status_code == 200


def test_chunked_bodies_count_in_work_and_release_what_they_took(client):
    """A body without Content-Length is counted as it arrives: refused (413) or answered, the bytes it held
    are given back, so the count of bodies in work returns to zero."""
    data = json.dumps({"documents": DOCS[:3]}).encode()

    def chunks(payload: bytes):
        for i in range(0, len(payload), 1_000):
            yield payload[i:i + 1_000]

    assert client.post("/documents", content=chunks(data), headers={"content-type": "application/json"}).status_code == 200
    big = json.dumps({"documents": [{"id": "big", "text": "word " * 60_000}]}).encode()
    assert client.post("/documents", content=chunks(big), headers={"content-type": "application/json"}).status_code == 413
    assert client.app.state.bodies.bytes == 0
    assert client.get("/health").json()["documents"] == 3


def test_a_port_that_cannot_be_listened_on_is_one_line_exit_2_and_frees_the_index(tmp_path):
    """A port in use is said in one line (exit 2) before anything claims to serve, and the index's writer lock
    is released; a port out of range or a --max-body under 1 byte is refused as an option, not a traceback."""
    Index.create(tmp_path / "ix").close()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "neardup", "serve", str(tmp_path / "ix"), "--port", str(port)],
                           env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == f"neardup: error: cannot listen on 127.0.0.1:{port} (Address already in use)", r.stderr
    Index.open(tmp_path / "ix").close()  # the writer lock is free
    for option, words in ((["--port", "99999"], "--port must be 0 to 65535"), (["--max-body", "0"], "--max-body")):
        r = subprocess.run([sys.executable, "-m", "neardup", "serve", str(tmp_path / "ix"), *option],
                           env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, r.stderr


@pytest.mark.slow
def test_kill_9_of_a_server_taking_concurrent_writes_loses_no_acknowledged_request_and_halves_none(tmp_path):
    """Four clients post (group commits of several requests), the server is killed with SIGKILL at a random
    moment, five times over the same index: it reopens clean (``check``), every acknowledged document is
    there, and every request is in whole or not at all (a group's transaction is all or nothing)."""
    import random
    import threading

    rng = random.Random(7)
    path = tmp_path / "ix"
    Index.create(path, method="minhash", threshold=0.5).close()
    requests: list[list[str]] = []
    acknowledged: set[str] = set()
    serial = iter(range(10**9))
    for run in range(5):
        port = _free_port()
        proc = subprocess.Popen([sys.executable, "-m", "neardup.cli", "serve", str(path), "--port", str(port)],
                                stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
        base = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                if httpx.get(base + "/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        stop = threading.Event()

        def client(stop: threading.Event = stop, run: int = run, base: str = base) -> None:
            while not stop.is_set():
                docs = [{"id": f"r{run}-{next(serial)}", "text": DOCS[rng.randrange(48)]["text"]} for _ in range(5)]
                requests.append([d["id"] for d in docs])
                try:
                    if httpx.post(base + "/documents", json={"documents": docs}, timeout=30).status_code == 200:
                        acknowledged.update(d["id"] for d in docs)
                except httpx.TransportError:
                    return

        threads = [threading.Thread(target=client) for _ in range(4)]
        for t in threads:
            t.start()
        time.sleep(rng.uniform(0.5, 2.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        stop.set()
        for t in threads:
            t.join(60)
        with Index.open(path) as index:
            assert index.check() == []
            stored = {r[0] for r in index.store.reader().execute("SELECT id FROM docs")}
        assert acknowledged <= stored
        assert all(len(stored.intersection(ids)) in (0, len(ids)) for ids in requests)
    assert len(acknowledged) >= 20, "too few writes were acknowledged for the test to mean anything"
