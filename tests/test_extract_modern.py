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


# The second sweep (extract2): leftovers of the first, CMS families and pages in other languages.


def test_a_labelled_list_of_linked_headlines_inside_the_body_is_dropped():
    more = ("<div class='inline-box'><h3>More coverage</h3><ul><li><a href='/a'>Drought map: which towns face limits</a></li>"
            "<li><a href='/b'>How the 1976 drought changed the valley</a></li><li><a href='/c'>Opinion: water is not free"
            "</a></li></ul></div>")
    text = extract(_page(_story(_ps(PARAS[:3]) + more + _ps(PARAS[3:])))).text
    assert all(p in text for p in PARAS)
    assert "More coverage" not in text and "Drought map" not in text and "Opinion: water" not in text
    # one linked source under a label is not a list
    source = "<h3>Related</h3><p><a href='/report'>The council's report on the flood barrier, in full</a></p>"
    assert "in full" in extract(_page(_story(_ps(PARAS[:3]) + source + _ps(PARAS[3:])))).text


def test_a_second_copy_of_the_body_in_a_sibling_element_is_dropped():
    copies = f"<div class='body mobile-only'>{_ps(PARAS)}</div><div class='body desktop-only'>{_ps(PARAS)}</div>"
    text = extract(_page(_story(copies))).text
    assert all(text.count(p) == 1 for p in PARAS)
    # a paragraph quoted again elsewhere on the page is not a copy of the body
    quoted = _ps(PARAS) + f"<blockquote><p>{PARAS[1]}</p></blockquote>"
    assert extract(_page(_story(quoted))).text.count(PARAS[1]) == 2


LANG_PARAS = {
    "de": ["Der Wasserverband hat am Dienstag mitgeteilt, dass der Stausee oberhalb des Tals den niedrigsten Stand "
           "seit Beginn der Aufzeichnungen erreicht hat.", "Landwirte im unteren Tal wurden bereits aufgefordert, die "
           "Bewässerung um ein Drittel zu reduzieren, und mehrere Obstbauern gießen ihre Bäume nicht mehr.",
           "Der Bürgermeister nannte die Einschränkungen schmerzhaft, aber notwendig, und bat die Haushalte, kürzer zu "
           "duschen und keine Autos mehr zu waschen."],
    "ja": ["地域の水道局は火曜日、谷の上流にある貯水池の水位が、記録が始まった1911年以来最低の水準まで下がったと発表した。",
           "下流の農家にはすでに灌漑を三分の一減らすよう要請されており、いくつかの果樹園は若い木への水やりを完全にやめた。",
           "大学の水文学者は、土壌が深くまで乾いているため、雨の多い冬でも貯水池の半分しか回復しないと警告している。"],
    "ar": ["أعلنت هيئة المياه الإقليمية يوم الثلاثاء أن الخزان الواقع فوق الوادي انخفض إلى أدنى مستوى له منذ بدء التسجيلات عام 1911.",
           "وطُلب من المزارعين في الوادي السفلي خفض الري بمقدار الثلث، وتوقفت عدة بساتين عن ري أشجارها الصغيرة تماما.",
           "وحذر علماء المياه في الجامعة من أن شتاء ممطرا لن يملأ سوى نصف الخزان لأن التربة جفت بعمق كبير."],
}
LANG_FRAME = {  # byline, dateline, recirculation line of each language
    "de": ("Von Anna Schmidt", "Berlin, 01.07.2025, 10:02 Uhr · Lesezeit: 3 Min.",
           "Lesen Sie auch: <a href='/x'>Dürre im Tal: Diese Gemeinden sind betroffen</a>"),
    "ja": ("<span>山田太郎</span>", "2025年7月1日 10時02分", "関連記事：<a href='/x'>干ばつ、最も影響を受けた地域は</a>"),
    "ar": ("بقلم أحمد علي", "نشر في: 01 يوليو 2025 - 10:02 صباحا", "اقرأ أيضا: <a href='/x'>الجفاف: البلدات الأكثر تضررا</a>"),
}


def test_bylines_datelines_and_recirculation_lines_of_other_languages_are_dropped():
    for lang, paras in LANG_PARAS.items():
        byline, dateline, also = LANG_FRAME[lang]
        html = _page(_story(f"<div class='byline'>{byline}</div><p>{dateline}</p>" + _ps(paras[:2])
                            + f"<p>{also}</p>" + _ps(paras[2:]), "Stausee"), "Stausee")
        text = extract(html).text
        assert text == "\n\n".join(paras), lang


def test_credit_lines_of_other_languages_are_told_by_shape():
    from neardup.extract.credits import credit_kind
    for line in ("Par Marie Dubois", "Por María García", "Von Anna Schmidt und Max Muster", "记者 王伟",
                 "Submitted by jroe on Tue, 07/01/2025 - 10:02"):
        assert credit_kind(line) == "byline", line
    for line in ("Publié le 1er juillet 2025 à 10h02, mis à jour à 12h15", "Madrid, 01 jul 2025 - 10:02 CEST",
                 "01.07.2025 10:02 | Son Güncelleme: 01.07.2025 12:15", "01.07.2025, 10:02 · Обновлено: 12:15",
                 "1 июля 2025, 10:02", "Oct 18, 2019 · 8 min read", "5 min read"):
        assert credit_kind(line) == "timestamp", line
    for line in ("Von Montag an gelten neue Regeln", "Von Berlin nach Hamburg", "Por la mañana llovió", "Read",
                 "Robert Nord, MAI", "Paris, the city of light", "Por Homme",
                 "Chandigarh, January 2", "News Update, 27/11/00, 14:22", "• Monarch"):
        assert credit_kind(line) is None, line


def test_the_models_learn_from_the_english_credit_shapes_only():
    from neardup.extract.credits import credit_lines
    lines = ["Von Anna Schmidt", "5 min read", "By Jane Roe", "Jan 9 2007"]
    assert credit_lines(lines).tolist() == [True, True, True, True]
    assert credit_lines(lines, learned=True).tolist() == [False, False, True, True]  # the shipped model's labels


def test_a_state_blob_whose_teaser_feed_outweighs_the_article_yields_the_article():
    teasers = [{"headline": "Another story", "summary": f"A short summary of the other story number {i} that readers "
                "may want to click on today."} for i in range(14)]
    data = {"props": {"pageProps": {"article": {"content": [{"type": "p", "value": p} for p in STORY]},
                                    "feed": {"items": teasers}}}}
    assert state_body(data) == STORY
    html = SHELL.format(head="", tail=f'<script id="__NEXT_DATA__" type="application/json">{json.dumps(data)}</script>')
    assert all(p in extract(html).text for p in STORY) and "other story" not in extract(html).text
    assert state_body({"feed": teasers}) != []  # a page of teasers only still yields them


def test_a_nuxt2_payload_function_is_read_as_the_state():
    blocks = ",".join(json.dumps({"type": "paragraph", "text": p}) for p in STORY)
    payload = ('window.__NUXT__=(function(a,b,c,d){return {layout:"default",data:[{article:{title:"Council budget",'
               f'body:[{blocks}],section:a,author:b,hidden:void 0}}}}],state:{{user:c,flags:d}}}}}}'
               '("news","Jane Roe",null,false));')
    out = extract(SHELL.format(head="", tail=f"<script>{payload}</script>"))
    assert out.text == "\n\n".join(STORY)
    assert declared_body("<script>window.__NUXT__=(function(a){return {x:a}}(1));</script>") == []
