"""`neardup explain`: the method's own score, the shared passages located, what extraction dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neardup.cli import main
from neardup.explain import Side, explain_texts, shared_passages

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample.jsonl"


def test_the_score_is_the_one_dedup_reports(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["dedup", str(SAMPLE), "-o", str(out), "--quiet"]) == 0
    pair = json.loads((out / "pairs.jsonl").read_text().splitlines()[0])
    assert main(["explain", pair["a"], pair["b"], "--in", str(SAMPLE), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["score"] == pytest.approx(pair["score"], abs=1e-6)
    assert shown["near_duplicate"] and shown["method"] == "ffp"
    assert shown["relation"] == pair["relation"]
    assert shown["coverage"] == {"a": pytest.approx(pair["coverage_a"], abs=1e-4),
                                 "b": pytest.approx(pair["coverage_b"], abs=1e-4)}


def test_the_aligned_passages_are_the_ones_partial_locates(tmp_path, capsys):
    """The passages that decide the relation are listed, as `partial` writes them for the pair."""
    ids = ("d00000001", "d00000014")  # a story, and another quoting it
    rows = [r for r in map(json.loads, SAMPLE.read_text().splitlines()) if r["id"] in ids]
    pair = tmp_path / "pair.jsonl"
    pair.write_text("".join(json.dumps({"id": r["id"], "text": r["text"]}) + "\n" for r in rows))
    assert main(["partial", str(pair), "-o", str(tmp_path / "p"), "--quiet"]) == 0
    [found] = map(json.loads, (tmp_path / "p" / "partials.jsonl").read_text().splitlines())
    assert main(["explain", *ids, "--in", str(pair), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["aligned_passages"] == found["spans"]
    assert main(["explain", *ids, "--in", str(pair)]) == 0
    text = capsys.readouterr().out
    assert f"aligned passages ({len(found['spans'])}, what the relation counts)" in text


def test_a_quote_is_explained_as_shares(capsys):
    """The relation of every listed pair of the sample is the one explain gives (quotes included)."""
    assert main(["explain", "d00000001", "d00000014", "--in", str(SAMPLE)]) == 0
    assert capsys.readouterr().out.startswith("relation: shares")


def test_a_pair_left_out_as_too_sparse_shows_the_passage_and_why(tmp_path, capsys):
    """Two stories whose only common words are two stock phrases of one retold sentence: not
    reported (the relation is ``similar``), and explain shows the passage it left out and why."""
    import random

    from test_align import RETOLD, filler

    rng = random.Random(7)
    text, (one, other) = RETOLD
    a = filler(rng, 10) + " " + text.format(one) + ". " + filler(rng, 10)
    b = filler(rng, 10) + " " + text.format(other) + ". " + filler(rng, 10)
    pair = tmp_path / "pair.jsonl"
    pair.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in (("a", a), ("b", b))))
    assert main(["explain", "a", "b", "--in", str(pair), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["relation"] == "similar" and got["aligned_passages"] == []
    [p] = got["sparse_passages"]
    assert "Security Council" in a[slice(*p["a_chars"])] and p["similarity"] < 0.7
    assert main(["explain", "a", "b", "--in", str(pair)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("relation: similar (no passage dense enough to count)")
    assert "not reported: 1 aligned passage(s) too sparse" in text


def test_passages_are_located_by_character_offsets():
    copied = "the minister said on tuesday that the new budget would cut taxes for small firms"
    a = f"Opening words of one story. {copied}. Closing words."
    b = f"Another beginning entirely. {copied.upper()} and then something else."
    (p,) = shared_passages(a, b)
    assert p["words"] == 15
    assert a[slice(*p["a_chars"])] == copied
    assert b[slice(*p["b_chars"])] == copied.upper()  # compared case-folded, offsets in the original text


def test_unrelated_texts_share_nothing_and_are_not_a_pair():
    a = Side("a", "The city council voted to build a bridge across the harbor after four years. " * 3, 0)
    b = Side("b", "A bakery raised the price of bread because flour and energy cost more. " * 3, 0)
    e = explain_texts(a, b)
    assert e.passages == [] and not e.duplicate and e.score < e.threshold
    assert e.contained_a_in_b == 0 and e.shared_grams == []


def test_pages_show_what_extraction_dropped(tmp_path, capsys):
    nav = "".join(f"<li><a href='/{i}'>Section number {i}</a></li>" for i in range(20))
    body = "<p>" + "The council voted to approve the new harbor bridge on Tuesday evening. " * 6 + "</p>"
    for name in ("a.html", "b.html"):
        (tmp_path / name).write_text(f"<html><body><ul>{nav}</ul><article>{body}</article></body></html>")
    assert main(["explain", str(tmp_path / "a.html"), str(tmp_path / "b.html"), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["near_duplicate"] and shown["containment"]["a_in_b"] == 1.0
    assert any("Section number" in d for d in shown["a"]["dropped"])
    assert shown["a"]["visible_chars"] > len(shown["a"]["text"])


def test_a_missing_document_is_a_user_error(tmp_path, capsys):
    assert main(["explain", "nope", "d00000001", "--in", str(SAMPLE)]) == 2
    assert f"cannot explain nope: no record with that id in {SAMPLE} (48 read)" in capsys.readouterr().err
    assert main(["explain", str(tmp_path / "missing.html"), str(tmp_path / "other.html")]) == 2


def test_a_paragraph_wrapped_in_the_source_is_not_shown_as_dropped(tmp_path, capsys):
    # issue 29 item 6: the lede, wrapped over source lines and cut by a link, was listed as "dropped"
    nav = "".join(f"<li><a href='/{i}'>Section number {i}</a></li>" for i in range(5))
    lede = ("<p>The city council voted on Tuesday evening to approve the new\n    harbor bridge, ending a "
            "<a href='/x'>four-year dispute</a> over\n    its cost and the route it will take across the bay.</p>")
    body = "<p>" + "The mayor said work would start in the spring and take three years to finish. " * 4 + "</p>"
    for name in ("a.html", "b.html"):
        (tmp_path / name).write_text(f"<html><body><ul>{nav}</ul><article>{lede}\n{body}</article></body></html>")
    assert main(["extract", str(tmp_path / "a.html"), "--jsonl", str(tmp_path / "x.jsonl")]) == 0
    assert "ending a four-year dispute over its cost" in " ".join(
        json.loads((tmp_path / "x.jsonl").read_text())["text"].split())
    capsys.readouterr()
    assert main(["explain", str(tmp_path / "a.html"), str(tmp_path / "b.html"), "--json"]) == 0
    dropped = json.loads(capsys.readouterr().out)["a"]["dropped"]
    assert dropped and all("Section number" in d for d in dropped)


JA = ("政府は今日、来年度の予算案を閣議決定した。一般会計の総額は過去最大となり、防衛費と社会保障費が大きく増えた。"
      "財務大臣は記者会見で、財政の健全化に向けた取り組みを続けると述べた。野党は国債の発行額が多すぎると批判している。")
JA_OTHER = "大阪で開かれた国際会議には、世界各国から多くの研究者が参加した。会議では気候変動への対策が話し合われた。"


def test_a_japanese_copy_shows_its_runs_and_grams_as_an_english_one_does():
    # runs of \w made each Japanese sentence one "word": a copy shared no 8-word run and a handful of 4-grams
    copy = "【速報】" + JA + "（共同）"
    e = explain_texts(Side("a", JA, len(JA)), Side("b", copy, len(copy)))
    assert e.relation == "duplicate"
    (p,) = e.passages
    assert JA[slice(*p["a_chars"])] == JA[:-1] and copy[slice(*p["b_chars"])] == JA[:-1]
    assert e.contained_a_in_b == 1.0 and e.grams_a > 40 and len(e.shared_grams) == e.grams_a
    assert explain_texts(Side("a", JA, len(JA)), Side("b", JA_OTHER, len(JA_OTHER))).passages == []


def test_the_text_fits_the_terminal_and_an_unrelated_pair_is_no_relation(tmp_path, capsys, monkeypatch):
    """fix-look: at 80 columns no line is longer; the passages' columns line up; a pair that shares
    nothing and that the method does not pair is 'none', not dedup's 'similar'."""
    story = ("the harbor bridge council voted on tuesday to approve the new crossing after a long debate "
             "about its cost and the ferry operators who would lose their trade to the new road ")
    other = ("a rare comet will pass close to the earth next week and astronomers say it may be seen "
             "with the naked eye from dark places in the southern hemisphere before dawn on friday ")
    rows = {"a": story * 4, "b": "reported earlier: " + story * 4 + " more to follow", "c": other * 4}
    pair = tmp_path / "pair.jsonl"
    pair.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in rows.items()))
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["explain", "a", "b", "--in", str(pair)]) == 0
    text = capsys.readouterr().out
    assert max(len(line) for line in text.splitlines()) <= 80
    assert " A[" in text and " B[" in text
    from neardup.explain import _span

    assert len(_span("A", [5, 9], 3)) == len(_span("A", [401, 4273], 651))  # the B column lines up
    assert main(["explain", "a", "c", "--in", str(pair)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("relation: none (no shared passage, and ffp does not pair them: not duplicates)")
