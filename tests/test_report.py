"""`neardup report`: a self-contained HTML report, checked as data and in a real headless Chromium.

The browser test needs Debian's ``chromium`` (``/usr/bin/chromium``) and Playwright for
Python (the ``test`` extra; Playwright drives the system browser, it downloads none); it
skips cleanly where either is missing.  ``.ci/run`` installs Chromium where it can.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from neardup.cli import main

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample.jsonl"
CHROMIUM = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    for command, name in (("dedup", "d"), ("contain", "c"), ("partial", "p")):
        assert main([command, str(SAMPLE), "-o", str(tmp / name), "--quiet"]) == 0
    assert main(["eval", str(SAMPLE), "--plot", str(tmp / "e"), "-o", str(tmp / "e"), "--json"]) == 0
    report = tmp / "report.html"
    assert main(["report", str(tmp / "d"), str(tmp / "c"), str(tmp / "p"), str(tmp / "e"), "-o", str(report)]) == 0
    return tmp, report


def _data(report: Path) -> dict:
    html = report.read_text()
    start = html.index('<script type="application/json" id="data">') + len('<script type="application/json" id="data">')
    return json.loads(html[start:html.index("</script>", start)])


def _texts() -> dict[str, str]:
    return {r["id"]: r["text"] for r in map(json.loads, SAMPLE.read_text().splitlines())}


@pytest.mark.slow
def test_the_report_is_self_contained_and_holds_every_output(built):
    tmp, report = built
    html = report.read_text()
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html.split("id=\"data\"")[0]
    data = _data(report)
    clusters = [json.loads(line) for line in (tmp / "d" / "clusters.jsonl").read_text().splitlines()]
    assert len(data["clusters"]) == len(clusters)
    partials = [json.loads(line) for line in (tmp / "p" / "partials.jsonl").read_text().splitlines()]
    views = [v for v in data["views"] if v["kind"] == "partial"]
    assert partials and [(v["a"], v["b"]) for v in views] == [(p["a"], p["b"]) for p in partials]
    assert views[0]["spans"] == [{"a": s["a_chars"], "b": s["b_chars"]} for s in partials[0]["spans"]]
    assert {"thresholds.png", "pr.png", "scores.png", "roc.png"} <= set(data["plots"])
    assert data["texts"]["d00000001"] == _texts()["d00000001"]


def test_a_bad_folder_is_a_user_error(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty"), "-o", str(tmp_path / "r.html")]) == 2
    assert "holds no neardup outputs" in capsys.readouterr().err


def test_two_runs_of_one_kind_are_refused_not_mixed(tmp_path, capsys):
    """Two dedup folders (or two plot folders) mixed their cluster numbers and plots in one report."""
    for name, method in (("ffp", "ffp"), ("mh", "minhash")):
        assert main(["dedup", str(SAMPLE), "-o", str(tmp_path / name), "--quiet", "--method", method]) == 0
    assert main(["report", str(tmp_path / "ffp"), str(tmp_path / "mh"), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert "both hold clusters" in err and "make one report per run" in err and not (tmp_path / "r.html").exists()
    for name in ("e1", "e2"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "roc.png").write_bytes(b"\x89PNG")
    assert main(["report", str(tmp_path / "e1"), str(tmp_path / "e2"), "-o", str(tmp_path / "r.html")]) == 2
    assert "both hold the plot roc.png" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "ffp"), str(tmp_path / "ffp"), "-o", str(tmp_path / "r.html")]) == 0
    clusters = (tmp_path / "ffp" / "clusters.jsonl").read_text().splitlines()
    assert len(_data(tmp_path / "r.html")["clusters"]) == len(clusters)  # read once


#: A small output folder by hand, as ``dedup`` writes it (no input to read again).
GOOD_OUTPUTS = {
    "summary.json": json.dumps({"documents": {"read": 2, "kept": 2, "rejected": 0}, "pairs": 1, "clusters": 1,
                                "parameters": {"method": "ffp", "extract": "model"}, "warnings": [], "inputs": [],
                                "read_as": {"id_field": "id", "text_field": "text", "html_field": "html",
                                            "html": False}, "complete": True}, indent=2),
    "pairs.jsonl": '{"a":"x","b":"y","score":0.9,"relation":"duplicate"}\n',
    "clusters.jsonl": '{"cluster":0,"ids":["x","y"],"representative":"x","removed":[{"id":"y"}]}\n',
}


@pytest.mark.parametrize("name, text, says", [
    ("summary.json", "garbage\n", "summary.json: not a JSON summary"),
    ("summary.json", GOOD_OUTPUTS["summary.json"][:200], "summary.json: not a JSON summary"),  # cut short
    ("summary.json", "[1, 2]\n", "summary.json: not a JSON object"),
    ("summary.json", '{"documents": "x", "inputs": 5}', "summary.json: 'inputs' must be a list of file names, got 5"),
    ("summary.json", '{"documents": "x", "inputs": []}', "summary.json: 'documents' must be an object"),
    ("summary.json", '{"documents": {}}', "summary.json: 'inputs' is missing"),
    ("summary.json", '{"inputs": [], "read_as": {"html": "no"}}', "summary.json: read_as: 'html' must be true or false"),
    ("pairs.jsonl", GOOD_OUTPUTS["pairs.jsonl"] + "{broken\n", "pairs.jsonl:2: not a JSON line"),
    ("pairs.jsonl", '{"a":"x","b":"y","score":"high"}\n', "pairs.jsonl:1: 'score' must be a number"),
    ("pairs.jsonl", '{"a":"x","b":null,"score":1}\n', "pairs.jsonl:1: 'b' is null"),
    ("clusters.jsonl", "[1]\n", "clusters.jsonl:1: not a JSON object"),
    ("clusters.jsonl", '{"cluster":0,"ids":"xy","representative":"x"}\n', "clusters.jsonl:1: 'ids' must be a list"),
    ("clusters.jsonl", '{"cluster":0,"ids":["x","y"]}\n', "clusters.jsonl:1: 'representative' is missing"),
])
def test_a_damaged_output_is_one_line_naming_the_file_and_field(tmp_path, capsys, name, text, says):
    folder = tmp_path / "d"
    folder.mkdir()
    for file, good in GOOD_OUTPUTS.items():
        (folder / file).write_text(good)
    assert main(["report", str(folder), "-o", str(tmp_path / "good.html")]) == 0  # the folder as written reads
    capsys.readouterr()
    (folder / name).write_text(text)
    assert main(["report", str(folder), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{folder}/{says}" in err, err
    assert not (tmp_path / "r.html").exists()


def test_a_damaged_parquet_row_is_named(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "d"
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist([{"a": "x", "b": "y", "score": 0.9}, {"a": "x", "b": "z", "score": None}]),
                   folder / "pairs.parquet")
    assert main(["report", str(folder), "-o", str(tmp_path / "r.html")]) == 2
    assert f"{folder}/pairs.parquet: row 2: 'score' is null" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")
def test_the_report_in_headless_chromium(built):
    sync_api = pytest.importorskip("playwright.sync_api")
    tmp, report = built
    partials = [json.loads(line) for line in (tmp / "p" / "partials.jsonl").read_text().splitlines()]
    texts = _texts()
    errors: list[str] = []
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"]
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=args)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        start = time.perf_counter()
        page.goto(report.as_uri())
        page.wait_for_selector("#main h2")
        opened = time.perf_counter() - start
        # a cluster, then a member: the pair side by side with its shared passages
        page.click("#nav-clusters")
        page.click(".cluster-link >> nth=0")
        members = page.locator("#members").inner_text()
        assert "relation (representative to it)" in members and "duplicate" in members and "removed" in members
        page.screenshot(path=str(tmp / "cluster.png"))
        page.click(".member-link >> nth=0")
        page.wait_for_selector("mark.span-a")  # views are routed through the URL hash: rendered on hashchange
        assert "relation: duplicate" in page.locator("#main").inner_text()
        assert page.locator("mark.span-a").count() > 0 and page.locator("mark.span-b").count() > 0
        page.screenshot(path=str(tmp / "pair.png"))
        # a located partial copy: the highlighted text is exactly the spans of partials.jsonl
        page.click("#nav-pairs")
        page.click(".partial-link >> nth=0")
        page.wait_for_selector("h2:has-text('partial:') >> nth=0")
        page.wait_for_selector("mark.span-a")
        marks_a = page.locator("mark.span-a").all_inner_texts()
        marks_b = page.locator("mark.span-b").all_inner_texts()
        first = partials[0]
        assert marks_a == [texts[first["a"]][slice(*s["a_chars"])] for s in first["spans"]]
        assert marks_b == [texts[first["b"]][slice(*s["b_chars"])] for s in first["spans"]]
        page.click("mark.span-a >> nth=0")  # linked: the copy on the other side is focused
        assert page.locator("mark.span-b.focus").count() == 1
        page.screenshot(path=str(tmp / "partial.png"))
        # the histograms: the eval's scores and the dedup run's scores and coverage by relation, drawn as SVG
        page.click("#nav-plots")
        page.wait_for_selector("svg.histogram")
        assert page.locator("svg.histogram").count() == 4 and page.locator("svg.histogram rect.bar").count() > 0
        assert page.locator("svg.histogram line.mark").count() >= 4  # thresholds, min_coverage, default and chosen
        page.screenshot(path=str(tmp / "histograms.png"), full_page=True)
        page.click("#nav-summary")
        assert "sha256:" in page.locator(".run").inner_text() and page.locator("#evaluation-table tr").count() == 2
        browser.close()
    assert errors == []
    assert opened < 3.0
    assert (tmp / "pair.png").stat().st_size > 0


# -- issue 29 item 7 ---------------------------------------------------------------------------------

def test_parquet_outputs_are_read(tmp_path, capsys):
    out = tmp_path / "d"
    assert main(["dedup", str(SAMPLE), "-o", str(out), "--format", "parquet", "--quiet"]) == 0
    assert main(["partial", str(SAMPLE), "-o", str(tmp_path / "p"), "--format", "parquet", "--quiet"]) == 0
    report = tmp_path / "r.html"
    assert main(["report", str(out), str(tmp_path / "p"), "-o", str(report)]) == 0
    data = _data(report)
    assert len(data["clusters"]) == json.loads((out / "summary.json").read_text())["clusters"] == 8
    assert any(v["kind"] == "partial" for v in data["views"])
    assert data["texts"]["d00000001"] == _texts()["d00000001"]


def test_the_jobs_field_options_are_recorded_and_used(tmp_path):
    rows = [{"key": r["id"], "body": r["text"]} for r in map(json.loads, SAMPLE.read_text().splitlines())]
    path = tmp_path / "renamed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "d"
    assert main(["dedup", str(path), "-o", str(out), "--id-field", "key", "--text-field", "body", "--quiet"]) == 0
    assert json.loads((out / "summary.json").read_text())["read_as"] == {
        "id_field": "key", "text_field": "body", "html_field": "html", "html": False}
    report = tmp_path / "r.html"
    assert main(["report", str(out), "-o", str(report)]) == 0  # no field options given
    assert _data(report)["texts"]["d00000001"] == _texts()["d00000001"]


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")
def test_the_browser_s_back_button_moves_between_views(built):
    sync_api = pytest.importorskip("playwright.sync_api")
    _, report = built
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"]
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=args)
        page = browser.new_page()
        page.goto(report.as_uri())
        page.wait_for_selector("#main h2")
        page.click("#nav-clusters")
        page.click(".cluster-link >> nth=0")
        page.wait_for_selector("#members")
        page.click(".member-link >> nth=0")
        page.wait_for_selector("mark.span-a")
        pair_url = page.url
        page.go_back()
        page.wait_for_selector("#members")
        page.go_back()
        page.wait_for_selector("#clusters-table")
        assert page.url.startswith(report.as_uri()) and "#clusters" in page.url
        page.go_forward()
        page.wait_for_selector("#members")
        page.goto(pair_url)  # a view can be opened from its address
        page.wait_for_selector("mark.span-a")
        browser.close()


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")
def test_no_element_s_id_is_a_view_s_address():
    """A view's address (#clusters, #pairs) is also a fragment the browser scrolls to: an element with that
    id (the clusters table was #clusters) made the view open scrolled past the page's header."""
    import re

    template = (Path(__file__).resolve().parents[1] / "src" / "neardup" / "report" / "report.html.j2").read_text()
    views = set(re.findall(r'view === "(\w+)"', template))
    ids = set(re.findall(r'\bid: "([\w-]+)"', template)) | set(re.findall(r'\bid="([\w-]+)"', template))
    assert {"clusters", "pairs", "cluster", "pair"} <= views and not views & ids, views & ids


def test_marks_are_the_spans_after_emoji_and_other_characters_beyond_the_bmp(tmp_path):
    # partials.jsonl counts code points (Python's str); JavaScript strings count UTF-16 units, two for
    # an emoji or a CJK extension B character: the marks slid right by one per such character before
    sync_api = pytest.importorskip("playwright.sync_api")
    passage = ("وقال المتحدث باسم الوزارة إن الحملة ستستمر لمدة شهرين وتستهدف كبار السن والأطفال والعاملين "
               "في القطاع الصحي وأضاف أن اللقاحات متوفرة مجانا في المراكز الصحية والمستشفيات الحكومية")
    source = "أعلنت وزارة الصحة اليوم عن إطلاق حملة وطنية جديدة للتطعيم ضد الإنفلونزا الموسمية. " + passage + "."
    host = ("🇪🇬 عاجل 👩🏽‍💻 𠀋𝐀 افتتح المحافظ صباح اليوم معرضا للكتاب في وسط المدينة بحضور عدد كبير من الزوار. "
            + passage + ". 🎉 واستمر المعرض حتى ساعة متأخرة من الليل وسط إقبال واسع من العائلات والطلاب.")
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n"
                           for i, t in (("source", source), ("host", host))), encoding="utf-8")
    assert main(["partial", str(inp), "-o", str(tmp_path / "p"), "--quiet"]) == 0
    (found,) = [json.loads(line) for line in (tmp_path / "p" / "partials.jsonl").read_text().splitlines()]
    texts = {"source": source, "host": host}
    assert main(["report", str(tmp_path / "p"), "-o", str(tmp_path / "r.html")]) == 0
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"]
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=args)
        page = browser.new_page()
        page.goto((tmp_path / "r.html").as_uri())
        page.wait_for_selector("#main h2")
        page.click("#nav-pairs")
        page.click(".partial-link >> nth=0")
        page.wait_for_selector("mark.span-a")
        for side in "ab":
            marks = page.locator(f"mark.span-{side}").all_inner_texts()
            assert marks == [texts[found[side]][slice(*s[f"{side}_chars"])] for s in found["spans"]]
            assert page.locator(f"#side-{side}").get_attribute("dir") == "auto"  # Arabic laid out right to left
            assert page.locator(f"#side-{side}").inner_text() == texts[found[side]]
        browser.close()


# -- what the report says of its own limits (fix-look) ------------------------------------------------

def test_the_summary_page_states_the_limits_and_the_relations(tmp_path, monkeypatch):
    import neardup.report as report_module

    monkeypatch.setattr(report_module, "MAX_HIGHLIGHTED_PAIRS", 2)
    assert main(["dedup", str(SAMPLE), "-o", str(tmp_path / "d"), "--quiet"]) == 0
    report = tmp_path / "r.html"
    report_module.build_report([tmp_path / "d"], report, budget=20_000)
    data = _data(report)
    shown = data["shown"]
    summary = json.loads((tmp_path / "d" / "summary.json").read_text())
    assert shown["documents"] == summary["documents_in_clusters"] and 0 < shown["embedded"] < shown["documents"]
    assert shown["highlighted"] == 2 and shown["unhighlighted"] > 0 and shown["max_highlighted"] == 2
    assert sum(len(t) for t in data["texts"].values()) <= 20_000
    s = data["summaries"][str(tmp_path / "d")]
    assert s["relations"] == summary["relations"] and s["duplicates_removable"] == summary["duplicates_removable"]
    html = report.read_text()
    assert 'name="viewport"' in html and "Shared passages not highlighted" in html


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium)")
def test_a_pair_beyond_the_highlighting_cap_says_so_not_zero_passages(tmp_path, monkeypatch):
    sync_api = pytest.importorskip("playwright.sync_api")
    import neardup.report as report_module

    monkeypatch.setattr(report_module, "MAX_HIGHLIGHTED_PAIRS", 1)
    assert main(["dedup", str(SAMPLE), "-o", str(tmp_path / "d"), "--quiet"]) == 0
    report = report_module.build_report([tmp_path / "d"], tmp_path / "r.html")
    views = _data(report)["views"]
    capped = next(k for k, v in enumerate(views) if v["spans"] is None)
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"]
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=args)
        page = browser.new_page(viewport={"width": 1200, "height": 800})
        page.goto(report.as_uri())
        summary = page.locator("#main").inner_text()
        assert "duplicate 130" in summary and "highlighted for the first 1 pairs" in summary
        assert "{" not in summary  # parameters as key=value, not raw JSON
        page.goto(f"{report.as_uri()}#pair/{capped}")
        page.wait_for_selector("#passages")
        text = page.locator("#main").inner_text()
        assert "not highlighted" in text and "0 shared passage" not in text
        assert "representative: " in text and "member: " in text and "back to cluster" in text
        page.goto(f"{report.as_uri()}#pair/0")
        page.wait_for_selector("mark.span-a")
        assert "shared passage" in page.locator("#passages").inner_text()
        browser.close()


def test_the_report_draws_histograms_of_the_eval_and_of_the_dedup_run(built):
    tmp, report = built
    data = _data(report)
    evaluation = json.loads((tmp / "e" / "eval.json").read_text())
    assert data["evaluations"] == evaluation["reports"] and data["evaluations"][0]["run"]["dataset"]["digest"]
    titles = [p["title"] for p in data["pictures"]]
    assert any(t.startswith("scores of the") for t in titles) and sum("coverage" in t for t in titles) == 2
    pairs = [json.loads(line) for line in (tmp / "d" / "pairs.jsonl").read_text().splitlines()]
    by_relation = data["pictures"][0]["counts"]
    assert {r: sum(c) for r, c in by_relation.items()} == {
        r: sum(p["relation"] == r for p in pairs) for r in {p["relation"] for p in pairs}}
    scores = next(p for p in data["pictures"] if p["title"].startswith("ffp on"))
    assert sum(map(sum, scores["counts"].values())) == evaluation["reports"][0]["pairs"]
    assert set(scores["marks"]) == {"default threshold", "chosen threshold"}


def test_a_report_of_100k_pairs_bins_them(tmp_path):
    """The histograms embed counts, not points: 100,000 pairs make a page of the same size as 100."""
    import random

    rng = random.Random(3)
    sizes = {}
    for n in (100, 100_000):
        out = tmp_path / str(n)
        out.mkdir()
        (out / "summary.json").write_text(GOOD_OUTPUTS["summary.json"].replace('"method": "ffp"',
                                                                               '"threshold": 0.3, "min_coverage": 0.5'))
        rows = [{"a": f"a{k}", "b": f"b{k}", "score": rng.random(), "relation": rng.choice(["duplicate", "shares"]),
                 "coverage_a": rng.random(), "coverage_b": rng.random()} for k in range(n)]
        (out / "pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        assert main(["report", str(out), "-o", str(out / "r.html")]) == 0
        pictures = _data(out / "r.html")["pictures"]
        assert [sum(map(sum, p["counts"].values())) for p in pictures] == [n, n, n]
        assert pictures[1]["marks"] == {"min_coverage": 0.5} and pictures[0]["marks"] == {"threshold": 0.3}
        sizes[n] = len(json.dumps(pictures))
    assert sizes[100_000] < 2 * sizes[100]  # more digits in the counts, no more numbers


def test_a_damaged_eval_json_is_named(tmp_path, capsys):
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "eval.json").write_text('{"reports": [{"method": "ffp"}], "pictures": [{"title": "x"}]}')
    assert main(["report", str(tmp_path / "e"), "-o", str(tmp_path / "r.html")]) == 2
    assert "eval.json: 'pictures' must be a list of histograms" in capsys.readouterr().err


def test_untyped_pairs_are_drawn_as_pairs_not_by_relation():
    """A ``--no-relations`` run's pairs have no relation: one group, and no "by relation" in the title."""
    from neardup.report.pictures import dedup_pictures

    pairs = [{"a": "x", "b": "y", "score": 0.4}, {"a": "x", "b": "z", "score": 0.9}]
    (picture,) = dedup_pictures(pairs, {"threshold": 0.3})
    assert picture["title"] == "scores of the 2 pairs listed" and list(picture["counts"]) == ["pairs"]
    typed = dedup_pictures([dict(pairs[0], relation="shares"), pairs[1]], {})[0]
    assert typed["title"].endswith(", by relation") and set(typed["counts"]) == {"shares", "untyped"}
