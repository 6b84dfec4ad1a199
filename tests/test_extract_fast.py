"""The fast paths of extraction read pages exactly as the Python they replaced.

Each took over a per-item loop (of regular expressions, of decoding) for speed; these tests hold it
to that loop's answers on the inputs where a byte-level reading could part from a ``str`` one:
multi-byte characters, Unicode white space and case folding, characters outside the Basic
Multilingual Plane, lone surrogates.
"""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest

from neardup.extract.credits import word_counts
from neardup.extract.features import SLOT_MEMBERS, _member, _slot_table, text_stats
from neardup.extract.guard import _FOREIGN, _IMPLIED, _RAW_NAMES, _VOID, MAX_HTML_DEPTH, html_depth_over

_TAG = re.compile(r"<(?:(/)?([A-Za-z][A-Za-z0-9:-]*)|!--)")
_RAW = {name: re.compile(rf"</{name}[\s/>]", re.I) for name in _RAW_NAMES}


def reference_depth_over(html: str, limit: int) -> int | None:
    """The character offset where ``html`` nests deeper than ``limit`` (None: never), by the
    regular-expression loop that :func:`neardup.extract.scan.depth_over` replaced."""
    depth = foreign = pos = 0
    while True:
        m = _TAG.search(html, pos)
        if m is None:
            return None
        name = m.group(2)
        if name is None:
            end = html.find("-->", m.end())
            if end < 0:
                return None
            pos = end + 3
            continue
        pos = m.end()
        name = name.lower()
        if m.group(1):
            if name in _FOREIGN and foreign:
                foreign -= 1
            if name not in _VOID and name not in _IMPLIED and depth:
                depth -= 1
            continue
        if name in _VOID or name in _IMPLIED:
            continue
        if foreign:
            close = html.find(">", pos)
            if close > 0 and html[close - 1] == "/":
                continue
        raw = _RAW.get(name)
        if raw is not None:
            end = raw.search(html, pos)
            if end is None:
                return None
            pos = end.end()
            continue
        if name in _FOREIGN:
            foreign += 1
        depth += 1
        if depth > limit:
            return m.start()


def _offset(message: str | None) -> int | None:
    return None if message is None else int(re.search(r"at character ([\d,]+)", message).group(1).replace(",", ""))


PIECES = ["<div>", "</div>", "<DIV class='a'>", "<p>", "<br>", "<svg>", "</svg>", "<g/>", "<div/>", "<math>",
          "</math>", "<script>", "</script>", "</SCRİPT>", "</scrıpt\u3000", "</ſcript>", "</script\xa0",
          "</script\u2028", "</script-x>", "<!--", "-->", "<!-->", "<style>", "</style >", "<textarea>",
          "</textarea/>", "<title>", "</title>", "é", "😀", "\ud800", "<", "</", "<a>", "</a>", "<x-y:z>", "</x-y:z>",
          "<b", ">", "/", "text ", "</DIV>", "<Svg>", "<noscript>", "</noscript\t"]


@pytest.mark.parametrize("seed", range(40))
def test_depth_kernel_reads_as_the_regex_loop(seed: int) -> None:
    rng = random.Random(seed)
    html = "".join(rng.choice(PIECES) for _ in range(rng.randint(50, 400)))
    limit = rng.choice([2, 5, 20])
    padded = html + "<" * 10  # over the count below which the pass is skipped
    assert _offset(html_depth_over(padded, limit)) == reference_depth_over(padded, limit)


@pytest.mark.parametrize("seed", range(40))
def test_start_tag_count_skips_only_pages_never_too_deep(seed: int) -> None:
    """A page with at most ``limit`` places a start tag may open is passed without the compiled pass
    (``guard._openings_over``): at the bound and just under it, as the regex loop says."""
    rng = random.Random(seed)
    html = "".join(rng.choice(PIECES) for _ in range(rng.randint(50, 400)))
    opens = len(re.findall("<[A-Za-z]", html))
    data = html.encode("utf-8", "surrogatepass")
    for limit in {max(opens - k, 1) for k in (0, 1, 2, 5)}:
        assert _offset(html_depth_over(html, limit, data)) == reference_depth_over(html, limit)
    many_lt = "</i>" * 50 + "<!-- -->" * 50 + "a < b " * 50 + "<div>" * 10  # 160 "<", 10 start tags
    assert html_depth_over(many_lt, 10, many_lt.encode()) is None
    deeper = many_lt + "<div>"
    assert _offset(html_depth_over(deeper, 10, deeper.encode())) == reference_depth_over(deeper, 10) is not None


def test_depth_kernel_on_deep_and_shallow_pages() -> None:
    deep = "é😀" + "<div><svg><g/>" * (MAX_HTML_DEPTH // 2 + 1)
    assert _offset(html_depth_over(deep)) == reference_depth_over(deep, MAX_HTML_DEPTH) is not None
    scripted = "<div>" * 10 + "<script>" + "<div>" * MAX_HTML_DEPTH + "</ſcript>" + "<p>x</p>" * 10
    assert html_depth_over(scripted) is None  # the divs are the script's text, ended by a folded "s"


TEXTS = ["", "plain words here", "a_b c-d", "naïve café", "x\u0301y", "日本語 テキスト", "emoji 😀 in it",
         "¼ and ² are \\w", "tab\tand\u3000space", "’quoted’ — dash", "\ufeffbom", "ǅungla", "٣ digits"]


def test_regex_words_counted_in_the_kernel() -> None:
    rng = random.Random(0)
    texts = TEXTS + ["".join(rng.choice(TEXTS) for _ in range(5)) for _ in range(50)]
    expected = [len(re.findall(r"\w+", t)) for t in texts]
    assert text_stats(texts).regex_words.tolist() == expected
    assert word_counts(texts).tolist() == expected
    assert np.array_equal(text_stats(["a\x00b c"]).regex_words, [1, 2])  # a NUL splits, as for the tokens


def test_elements_holding_a_word_as_all_attrs_read() -> None:
    from neardup.extract.blocks import page_blocks

    html = ("<html><body><div class='articleBodyX'><p>a</p></div><div itemprop='articleBody'><p>b</p></div>"
            "<div id='x' class='é articleBody'><p>c</p></div><p>articleBody in text</p>"
            "<section class='main' itemprop='articleBody headline'><p>d</p></section></body></html>")
    el = page_blocks(html).elements
    expected = [i for i, a in enumerate(el.attrs) if "articleBody" in a.split()]
    assert el.holding("articleBody") == expected and len(expected) == 3
    assert el.holding("nowhere") == []


@pytest.mark.parametrize("size", [1, 2, 17, 80, SLOT_MEMBERS, SLOT_MEMBERS + 1, 3000])
def test_set_lookup_by_top_bits_answers_as_binary_search(size: int) -> None:
    rng = np.random.default_rng(size)
    members = np.unique(rng.integers(0, 2**64, size, dtype=np.uint64, endpoint=False))
    table = _slot_table(members)
    values = [rng.integers(0, 2**64, 5000, dtype=np.uint64), members, members + np.uint64(1), np.uint64(0) * members]
    if table is not None:  # the values an empty slot holds are members only when they are
        values.append(table[1])
    for v in values:
        at = np.minimum(np.searchsorted(members, v), len(members) - 1)
        assert (_member(v, members) == (members[at] == v)).all()


def test_parse_of_the_encoded_page_is_the_parse_of_the_text() -> None:
    from selectolax.lexbor import LexborHTMLParser

    from neardup.extract.blocks import parse

    pages = ("<p>caf\u00e9 \U0001f600</p>", "<p>x\x00y</p>", "<p>a\udc80b\x00c</p>",
             "<p>x\u00e9" * 6000)  # the last: over 5,000 tags, its depth read from the parser's bytes
    for html in pages:
        text_parse = LexborHTMLParser(html.replace("\x00", ""))  # as parse gave the text to the parser before
        assert parse(html).html == text_parse.html


def test_titles_read_from_the_head_are_those_of_the_whole_page() -> None:
    """``blocks.declared`` stops at the ``<head>`` when it holds a title and a non-empty og:title: what the
    whole tree's search gives, whatever else the body declares."""
    from neardup.extract.blocks import _TITLE_SELECTOR, _declarations, declared, parse

    og, tw = '<meta property="og:title" content="{}">', '<meta name="twitter:title" content="{}">'
    heads = ["<title>T  one</title>" + og.format("O one"), og.format("O one") + "<title>T one</title>",
             "<title>T one</title>" + og.format(""), "<title>T one</title>" + tw.format("W one"), og.format("O one"),
             "<title></title>" + og.format("O one"), ""]
    bodies = ["<p>text</p>", "<title>T body</title>" + og.format("O body") + tw.format("W body"),
              "<svg><title>S</title></svg>" + og.format("O body")]
    for head in heads:
        for body in bodies:
            html = f"<html><head>{head}</head><body>{body}</body></html>"
            title, meta, _ = declared(parse(html), html)
            t, o, w, _ = _declarations(parse(html).css(_TITLE_SELECTOR))
            assert (title, meta) == (" ".join((t or "").split()), " ".join((o or w or "").split())), html


def test_extract_output_lines_are_json_dumps_byte_for_byte():
    """``neardup extract``'s lines (orjson) are ``json.dumps(row, ensure_ascii=False)`` in UTF-8: for every
    code point but the surrogates, and for a lone surrogate, which orjson refuses, json's own text."""
    from neardup.commands.extract import _line

    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    row = {"id": 'a "b"\\', "source": "x/é.html", "title": every[:300], "text": every}
    assert _line(row) == (json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")
    odd = {**row, "source": "x/\udce9.html"}
    assert _line(odd) == json.dumps(odd, ensure_ascii=False) + "\n"


def test_extract_writes_the_same_lines_to_a_file_and_to_standard_output(tmp_path, capsys):
    from neardup.cli import main

    pages = tmp_path / "pages.jsonl"
    pages.write_text('{"id": "p\\u00e9", "html": "<p>Caf\\u00e9 \\"noir\\"\\tand\\u0001 more words here</p>"}\n'
                     '{"id": "t", "text": "plain text"}\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["extract", str(pages), "--jsonl", str(out)]) == 0
    capsys.readouterr()
    assert main(["extract", str(pages)]) == 0
    printed = capsys.readouterr().out
    rows = [json.loads(line) for line in printed.splitlines()]
    assert out.read_text(encoding="utf-8") == printed == "".join(
        json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    assert [r["id"] for r in rows] == ["pé", "t"] and rows[1]["text"] == "plain text"


@pytest.mark.parametrize("title", ["", "Budget approved by the council", " ".join(f"w{i}" for i in range(SLOT_MEMBERS + 40))])
def test_title_hits_from_the_kept_title_words_are_the_direct_ones(title):
    from neardup.extract.blocks import page_blocks
    from neardup.extract.features import block_stats, title_hits

    page = page_blocks(f"<html><head><title>{title}</title></head><body><h1>Budget approved</h1>"
                       f"<p>The council approved the budget on Tuesday. {title}</p><p>w3 w7 w300</p></body></html>")
    stats = block_stats(page)
    title_set = np.unique(text_stats([f"{page.meta_title} {page.title}"]).hashes)
    direct = np.bincount(stats.owner, _member(stats.hashes, title_set), len(page))
    for _ in range(2):  # made, then kept
        hits, words = title_hits(page, stats)
        assert np.array_equal(hits, direct) and words == len(title_set)
    assert words == 0 or hits.any()
