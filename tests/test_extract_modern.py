"""Modern templates (issue 28): multi-section articles kept whole, the frame around them left out,
and the article read from structured data when the visible HTML has none."""

from __future__ import annotations

import json

import numpy as np

from neardup.extract import extract
from neardup.extract.blocks import page_blocks
from neardup.extract.mainbody import fill_article
from neardup.extract.structured import declared_body, state_body

SECTIONS = [
    [f"Section {s} paragraph {i} explains in plain words how the new transit plan changes the {w} commute."
     for i in range(3)]
    for s, w in enumerate(("morning", "evening", "weekend"))
]
RAIL = [f"Related story {i}: a teaser about another story entirely, written for clicks and shares."
        for i in range(4)]
NEWSLETTER = "Sign up for our daily newsletter to get the best stories of the day delivered to your inbox."


def _article_page() -> str:
    body = ""
    for s, paras in enumerate(SECTIONS):
        if s:
            body += f"<h2>Subheading number {s}</h2>"
            body += '<div class="ad-slot"><div class="ad">Advertisement</div></div>'
        body += "".join(f"<p>{p}</p>" for p in paras)
        if s == 1:
            body += "<ul><li>A list item inside the body of the story</li><li>Another item of that list here</li></ul>"
    return (
        "<html><head><title>Transit plan explained</title></head><body>"
        "<nav><ul><li><a href='/'>Home</a></li><li><a href='/n'>News</a></li></ul></nav>"
        "<main><article><h1>Transit plan explained</h1>" + body + "</article>"
        '<aside class="related-stories">' + "".join(f"<p>{r}</p>" for r in RAIL) + "</aside>"
        f'<div class="newsletter-box"><p>{NEWSLETTER}</p><form><input type="email"><button>Sign up</button></form></div>'
        "</main><footer><p>Copyright 2025 The Daily Example. All rights reserved.</p></footer></body></html>"
    )


def test_a_multi_section_article_split_by_ad_slots_is_kept_whole():
    text = extract(_article_page()).full_text()
    for paras in SECTIONS:
        for p in paras:
            assert p in text
    assert "Subheading number 1" in text and "Subheading number 2" in text
    assert "A list item inside the body of the story" in text


def test_a_related_rail_and_a_newsletter_box_beside_the_body_are_dropped():
    text = extract(_article_page()).full_text()
    assert not any(r in text for r in RAIL)
    assert NEWSLETTER not in text


def test_fill_adds_the_sections_the_model_missed_but_not_the_frame():
    page = page_blocks(_article_page())
    keep = np.array([t == SECTIONS[0][0] for t in page.texts])  # the model kept one paragraph
    filled = [t for t, k in zip(page.texts, fill_article(page, keep)) if k]
    assert all(p in filled for paras in SECTIONS for p in paras)
    assert "Subheading number 2" in filled
    assert not any(r in filled for r in RAIL) and NEWSLETTER not in filled
    assert keep.sum() == 1  # the input is not changed
    assert not fill_article(page, np.zeros(len(page), dtype=bool)).any()  # nothing kept: nothing to anchor


STORY = [f"Paragraph {i} of the rendered story tells readers what the council decided on the budget."
         for i in range(6)]
SHELL = ("<html><head><title>Council budget</title>{head}</head><body><div id='__next'>"
         "<header><a href='/'>Home</a> <a href='/news'>News</a></header>"
         "<div class='loading'>Loading</div></div>{tail}</body></html>")


def test_a_page_whose_body_is_only_in_json_ld_yields_it():
    ld = json.dumps({"@context": "https://schema.org", "@type": "NewsArticle", "headline": "Council budget",
                     "articleBody": "\n".join(STORY)})
    html = SHELL.format(head=f'<script type="application/ld+json">{ld}</script>', tail="")
    out = extract(html)
    assert all(p in out.text for p in STORY)
    assert out.title


def test_a_page_whose_body_is_only_in_next_data_yields_it():
    data = {"props": {"pageProps": {"article": {
        "title": "Council budget",
        "blocks": [{"type": "paragraph", "html": f"<p>{p}</p>"} for p in STORY],
        "related": [{"title": "Another story", "summary": "Short teaser."}],
    }}}, "page": "/news/[slug]", "buildId": "abc"}
    html = SHELL.format(head="", tail=f'<script id="__NEXT_DATA__" type="application/json">{json.dumps(data)}</script>')
    out = extract(html)
    assert all(p in out.text for p in STORY)
    assert "Short teaser" not in out.text


def test_state_body_takes_the_heaviest_prose_path():
    data = {"a": [{"text": p} for p in STORY], "b": ["A teaser of eight words or more here."]}
    assert state_body(data) == STORY
    assert state_body({"x": "short"}) == []


def test_structured_data_never_replaces_a_visible_article():
    ld = json.dumps({"@type": "NewsArticle", "articleBody": "Something else entirely. " * 40})
    html = (f'<html><head><script type="application/ld+json">{ld}</script></head><body><article>'
            + "".join(f"<p>{p}</p>" for p in STORY * 4) + "</article></body></html>")
    assert "Something else entirely" not in extract(html).text
    assert declared_body("<html><body><p>no data</p></body></html>") == []
