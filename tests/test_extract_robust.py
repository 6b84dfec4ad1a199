"""Extraction never crashes on bad input: it returns a result or raises a clear error."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup.extract import EXTRACTORS, extract
from neardup.extract.blocks import page_blocks
from neardup.extract.features import rich_features, word_features

BAD_INPUTS = {
    "empty": "",
    "spaces": " \n\t ",
    "binary": bytes(range(256)).decode("latin-1") * 20,
    "nul bytes": "<p>a\x00b</p>\x00\x00",
    "json": '{"title": "x", "body": "<p>not really html</p>", "n": [1, 2, 3]}',
    "plain text": "Just a line of text.\n\nAnd another paragraph with more words in it than ten, surely.",
    "truncated": "<html><body><div class='a'><p>Unfinished paragraph with words <a href='",
    "unclosed comment": "<p>before</p><!-- never closed <p>after</p>",
    "stray end tags": "</div></p></body><p>text</p></html></html>",
    "broken entities": "<p>&amp &#xZZ; &#99999999; &unknown; &lt &nbsp</p>",
    "surrogate escape": "<p>bad \udcff char</p>",
    "deep nesting": "<div>" * 4000 + "deep text here" + "</div>" * 4000,  # deeper is refused (below)
    "deep inline": "<b>" * 5000 + "bold" * 3,
    "many blocks": "<p>word</p>" * 50000,
    "huge text": "<p>" + "lorem ipsum dolor sit amet " * 200000 + "</p>",
    "attributes": '<div class="a>b" id=\'"\' data-x=<>>odd</div><p class=>x</p>',
    "svg and math": "<svg><text>svg text</text></svg><math><mi>x</mi></math><p>real text</p>",
    "frameset": "<frameset><frame src='a'></frameset><noframes>no frames text</noframes>",
    "only head": "<html><head><title>Only a title</title></head></html>",
    "charset mess": "<meta charset='klingon'><p>caf\u00c3\u00a9 \u00e9t\u00e9 \u4e2d\u6587 \U0001f600</p>",
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_every_extractor_survives(name):
    html = BAD_INPUTS[name]
    for extractor in EXTRACTORS.values():
        assert isinstance(extractor(html), str)
    got = extract(html)
    assert isinstance(got.title, str) and isinstance(got.text, str)


def test_text_survives_where_it_should():
    assert "real text" in EXTRACTORS["none"](BAD_INPUTS["svg and math"])
    assert "svg text" not in " ".join(page_blocks(BAD_INPUTS["svg and math"]).texts)
    assert page_blocks(BAD_INPUTS["deep nesting"]).texts == ["deep text here"]
    assert page_blocks(BAD_INPUTS["nul bytes"]).texts == ["ab"]
    assert page_blocks(BAD_INPUTS["only head"]).title == "Only a title"


def test_pages_nested_past_the_bound_are_refused_before_parsing():
    """Issue 30: parsing time grows with the square of the depth (100,000 nested divs took 11 s), so every
    extractor refuses a page nested over MAX_HTML_DEPTH with TooDeep (a ValueError) before parsing it."""
    import time

    from neardup.extract.guard import MAX_HTML_DEPTH, TooDeep

    html = "<div>" * 200_000 + "deep text here" + "</div>" * 200_000
    start = time.perf_counter()
    for extractor in EXTRACTORS.values():
        with pytest.raises(TooDeep, match=f"{MAX_HTML_DEPTH:,} deep"):
            extractor(html)
    with pytest.raises(TooDeep):
        extract(html)
    assert time.perf_counter() - start < 5


def test_non_string_input_is_a_clear_error():
    with pytest.raises(TypeError, match="decode bytes first"):
        extract(b"<p>bytes</p>")  # type: ignore[arg-type]


_TAGS = st.sampled_from(["p", "div", "a", "b", "span", "br", "li", "ul", "table", "td", "h1", "script",
                         "style", "img", "em", "section", "x-custom", "font", "title", "textarea"])
_TEXT = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=30)
_ATTR = st.sampled_from(['', ' class="nav"', ' id="x"', ' hidden', ' style="display:none"', ' href="#"',
                         ' class="a b" id=\'c\'', " class=", ' style="visibility: hidden"'])


@st.composite
def markup(draw) -> str:
    """Random, often invalid, markup: tags opened and closed in any order, text, junk."""
    parts = []
    for _ in range(draw(st.integers(0, 40))):
        kind = draw(st.integers(0, 4))
        tag = draw(_TAGS)
        if kind == 0:
            parts.append(f"<{tag}{draw(_ATTR)}>")
        elif kind == 1:
            parts.append(f"</{tag}>")
        elif kind == 2:
            parts.append(draw(_TEXT))
        elif kind == 3:
            parts.append(draw(st.sampled_from(["<!--", "-->", "<", ">", "&", "&amp;", "&nbsp;", "<!DOCTYPE html>", "\x00"])))
        else:
            parts.append(f"<{tag}{draw(_ATTR)}>{draw(_TEXT)}</{tag}>")
    return "".join(parts)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markup())
def test_random_markup_never_crashes(html):
    page = page_blocks(html)
    html_space = " \t\n\r\f"
    assert all(t and t.strip(html_space) == t and "  " not in t for t in page.texts)
    assert len(page.words) == len(page.link_words) == len(page.container) == len(page)
    assert (page.link_words <= page.words).all()
    assert rich_features(page).n == word_features(page).n == len(page)
    got = extract(html)
    assert isinstance(got.full_text(), str)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300))
def test_random_text_never_crashes(text):
    assert isinstance(EXTRACTORS["model"](text), str)
    assert isinstance(EXTRACTORS["heuristic"](text), str)
