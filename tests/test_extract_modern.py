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


# The 2019-2026 structures of the sweep (fix-modern): each page is hand-made, its article known.

PARAS = [f"Paragraph {w} of the flood barrier story reports what the council decided and why residents care."
         for w in ("one", "two", "three", "four", "five", "six")]
FRAME = ("<header><a href='/'>The Courier</a><nav><a href='/news'>News</a> <a href='/sport'>Sport</a></nav></header>"
         "{body}<footer><a href='/privacy'>Privacy</a> <a href='/terms'>Terms</a></footer>")


def _page(body: str, title: str = "Council approves flood barrier") -> str:
    return (f"<!doctype html><html><head><title>{title}</title></head><body>"
            + FRAME.format(body=body) + "</body></html>")


def _story(inner: str, title: str = "Council approves flood barrier") -> str:
    return f"<article><h1>{title}</h1>{inner}</article>"


def _ps(paras: list[str]) -> str:
    return "".join(f"<p>{p}</p>" for p in paras)


def test_a_declarative_shadow_root_is_rendered_text():
    html = _page("<news-story><template shadowrootmode='open'><style>p{margin:0}</style>"
                 f"<h1>Council approves flood barrier</h1>{_ps(PARAS)}</template></news-story>"
                 "<template id='card'><p>An inert template of a related card is never shown to anyone.</p></template>")
    text = extract(html).full_text()
    assert all(p in text for p in PARAS)
    assert "margin" not in text and "inert template" not in text
    legacy = html.replace("shadowrootmode='open'", "shadowroot='open'")
    assert all(p in extract(legacy).text for p in PARAS)


CONSENT = ("<div id='onetrust-consent-sdk'><div id='onetrust-banner-sdk' role='dialog'><h2>We value your privacy</h2>"
           "<p>We and our 842 partners store and access information on a device, such as unique identifiers in "
           "cookies, to process personal data for the purposes described below.</p><button>Accept all</button></div>"
           "<div id='onetrust-pc-sdk'><h3>Privacy preference center</h3>" + "".join(
               f"<h4>Purpose {k}</h4><p>Information about your activity on this service can be stored and combined "
               f"with other information about you to build a profile used for purpose number {k} of the list.</p>"
               for k in range(4)) + "</div></div>")


def test_a_long_cookie_consent_box_before_the_story_is_dropped():
    html = _page(_story(_ps(PARAS))).replace("<body>", "<body>" + CONSENT)
    text = extract(html).full_text()
    assert all(p in text for p in PARAS)
    assert "partners" not in text and "Purpose" not in text and "preference" not in text


def test_a_page_wrapper_named_for_consent_keeps_its_article():
    html = _page(f"<div class='page cookie-consent-given'>{_story(_ps(PARAS))}</div>")
    assert all(p in extract(html).text for p in PARAS)


def test_paragraphs_given_only_to_readers_without_scripts_are_the_article():
    html = _page(_story(f"<div class='js-body' data-hydrate='1'></div><noscript>{_ps(PARAS)}</noscript>"))
    assert all(p in extract(html).text for p in PARAS)
    # a page whose article is visible keeps its noscript boxes out
    shown = _page(_story(_ps(PARAS) + "<noscript><p>Please enable JavaScript in your browser to see the comments "
                                      "of our readers and to take part in the discussion of this story.</p></noscript>"))
    assert "enable JavaScript" not in extract(shown).text


CAPTIONS = [f"Photo {k}: residents watch the council vote on the flood barrier from the crowded lobby of city hall."
            for k in range(5)]


def test_a_gallery_keeps_its_captions_and_an_article_drops_its_photo_credit():
    slides = "".join(f"<figure><img data-src='/g{k}.jpg'><figcaption><p>{c}</p><span>Sam Lee / Courier</span>"
                     "</figcaption></figure>" for k, c in enumerate(CAPTIONS))
    text = extract(_page(_story(f"<div class='slides'>{slides}</div>", "In pictures: the vote"),
                         "In pictures: the vote")).text
    assert all(c in text for c in CAPTIONS)
    assert "Sam Lee" not in text
    article = _page(_story(_ps(PARAS[:3]) + f"<figure><img src='/a.jpg'><figcaption>{CAPTIONS[0]}</figcaption></figure>"
                           + _ps(PARAS[3:])))
    assert CAPTIONS[0] not in extract(article).text


def test_a_paywall_box_and_a_newsletter_platforms_widget_are_dropped():
    paywall = ("<div class='article-paywall'><h3>Keep reading with a subscription</h3><p>Unlimited access to local "
               "journalism, the daily briefing and the app. Cancel anytime.</p></div>")
    text = extract(_page(_story(_ps(PARAS[:3]) + paywall))).text
    assert all(p in text for p in PARAS[:3]) and "Keep reading" not in text
    widget = ("<div class='subscription-widget-wrap'><p>Thanks for reading The Courier! Subscribe for free to receive "
              "new posts and support my work.</p><form><input type='email'><button>Subscribe</button></form></div>")
    text = extract(_page(_story(_ps(PARAS[:3]) + widget + _ps(PARAS[3:])))).text
    assert all(p in text for p in PARAS) and "Thanks for reading" not in text
