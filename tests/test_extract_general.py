"""Extraction that should hold on unseen sites: gold formats of the extraction collections,
structured data (JSON-LD ``articleBody``, itemprop), compiled class/id keywords, the feature
rows' dense blocks, collection folds and balanced training samples, the never-empty fallback.
"""

from __future__ import annotations

import numpy as np
import pytest

from neardup.extract import extract
from neardup.extract.blocks import KEYWORDS, page_blocks
from neardup.extract.datasets import gold_text, load
from neardup.extract.evaluate import collection_folds
from neardup.extract.extractor import STRUCTURED_SHARE, model_labels
from neardup.extract.features import LAYOUTS, block_stats, keyword_mask, rich_features, structured_share
from neardup.extract.model import BlockModel

BODY = ("The harbor bridge will open in May after four years of work, the city said on Monday. "
        "Engineers finished the last span in March and tests ran through April without a fault.")
LD_PAGE = (
    "<html><head><title>Bridge opens</title>"
    '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Bridge opens", '
    f'"articleBody": "{BODY} \\"Quoted\\" text \\u00e9t\\u00e9."}}</script></head><body>'
    '<nav><a href="/">Home</a> <a href="/news">News</a></nav>'
    '<div class="teaser-wrap"><p>The harbor bridge will open in May after four years of work, the city said on Monday.</p>'
    "<p>Engineers finished the last span in March and tests ran through April without a fault.</p></div>"
    "<p>Subscribe to our newsletter for the latest news about the harbor and the city.</p></body></html>"
)


# --------------------------------------------------------------------------- gold formats


def test_gold_text_formats():
    readability = '<div id="readability-page-1" class="page"><h2>Title</h2><p>First <a href="x">para</a>.</p></div>'
    assert gold_text(readability).split() == ["Title", "First", "para", "."]
    cleaneval = "URL: http://example.com/a\n<h>  A heading\n<p>A paragraph &amp; more\n<l>  * item one\n"
    assert gold_text(cleaneval).split() == ["A", "heading", "A", "paragraph", "&", "more", "*", "item", "one"]
    dragnet = "Headline\n\nThe article.\n!@#$%^&*()  COMMENTS\nfirst comment\n"
    assert gold_text(dragnet).split() == ["Headline", "The", "article."]
    assert gold_text("Headline\n!@ $%^&*()  COMMENTS\nc").split() == ["Headline"]  # a mistyped marker
    assert gold_text("Head\r\n\r\n!@#$%^&*()  COMMENTS\r\nfirst comment\r\n").split() == ["Head"]  # CRLF files
    assert gold_text("Plain text <b>kept</b> as it is") == "Plain text <b>kept</b> as it is"


def test_input_goldstandard_layout_loads_with_sites(tmp_path):
    root = tmp_path / "coll"
    for sub in ("input", "GoldStandard"):
        (root / "final" / sub).mkdir(parents=True)
    (root / "final" / "input" / "1.html").write_text(LD_PAGE, encoding="utf-8")
    (root / "final" / "GoldStandard" / "1.txt").write_text(f"URL: http://www.example.co.uk/x\n<p>{BODY}\n")
    (root / "final" / "input" / "2.html").write_text("<p>no gold</p>", encoding="utf-8")
    pages = load(root)
    assert [(p.id, p.dataset, p.site) for p in pages] == [("final/1", "coll", "example")]
    assert pages[0].gold.split() == BODY.split()


def test_collection_folds_one_per_collection():
    assert collection_folds(["b", "a", "b", "c"]).tolist() == [1, 0, 1, 2]


# --------------------------------------------------------------------------- structured data and keywords


def test_article_body_and_itemprop_are_read():
    page = page_blocks(LD_PAGE)
    assert page.article_body.startswith("The harbor bridge") and '"Quoted" text été.' in page.article_body
    share, has = structured_share(page, block_stats(page))
    texts = page.texts
    assert has and share[texts.index(next(t for t in texts if t.startswith("Engineers")))] == 1.0
    assert share[texts.index("Home News")] == 0.0
    assert share[texts.index(next(t for t in texts if t.startswith("Subscribe")))] < STRUCTURED_SHARE
    assert not structured_share(page_blocks("<p>x y z</p>"), block_stats(page_blocks("<p>x y z</p>")))[1]
    page = page_blocks('<div itemprop="articleBody" class="c"><p>x</p></div>')
    assert page.elements.attrs[page.container[0] - 1] == "c  articleBody"
    words = {k for i, k in enumerate(KEYWORDS) if page.elements.keywords[page.container[0] - 1] >> np.uint64(i) & np.uint64(1)}
    assert words == {"article", "body"}


def test_structured_data_overrides_a_model_that_rejects_the_article():
    page = page_blocks(LD_PAGE)
    reject_all = BlockModel("logreg", "words", np.array([0]), np.array([[0.0, -10.0]]))
    keep = model_labels(page, reject_all)
    assert [t for t, k in zip(page.texts, keep) if k] == [t for t in page.texts if t in BODY]
    assert "Subscribe" not in extract(LD_PAGE, reject_all).text


def test_a_page_of_short_lines_never_extracts_to_nothing():
    reject_all = BlockModel("logreg", "words", np.array([0]), np.array([[0.0, -10.0]]))
    html = "<body><h2>Test case one</h2><h2>Test case two</h2><p><a href='/'>Home page</a></p></body>"
    got = extract(html, reject_all)
    assert "Test case one" in got.full_text() and "Test case two" in got.full_text() and "Home" not in got.full_text()


def test_keyword_masks_are_case_blind_and_whole_word_for_short_ones():
    def words(attrs):
        return {k for i, k in enumerate(KEYWORDS) if keyword_mask(attrs) >> i & 1}

    assert words("Main-NAV storyBody") == {"nav", "main", "story", "body"}
    assert words("navigation unread bad-ad") == {"ad"}
    assert words("datelineTimestamp") == {"date", "dateline", "timestamp"}
    assert words("") == set() and words("é-ü") == set()


def test_dense_blocks_score_as_their_triplets():
    page = page_blocks(LD_PAGE)
    rows = rich_features(page)
    assert rows.blocks and all(m.shape[0] == len(page) for _, m in rows.blocks)
    w = np.random.default_rng(1).normal(size=LAYOUTS["rich"].size)
    r, c, v = rows.triplets()
    assert np.allclose(rows.dot(w), np.bincount(r, w[c] * v, rows.n))
    assert np.all(v != 0) and c.max() < LAYOUTS["rich"].size
    m = rows.csr()
    assert m.shape == (len(page), LAYOUTS["rich"].size) and np.allclose(m @ w, rows.dot(w))


# --------------------------------------------------------------------------- training sample


def test_balanced_caps_each_collection_independently():
    pytest.importorskip("pycrfsuite")
    from types import SimpleNamespace

    from neardup.extract.train import balanced

    exs = [SimpleNamespace(dataset="big", id=i) for i in range(50)] + [SimpleNamespace(dataset="small", id=i) for i in range(5)]
    got = balanced(exs, 10, seed=0)
    assert sum(e.dataset == "big" for e in got) == 10 and sum(e.dataset == "small" for e in got) == 5
    assert got == sorted(got, key=exs.index)  # page order kept
    alone = balanced(exs[:50], 10, seed=0)
    assert [e.id for e in alone] == [e.id for e in got if e.dataset == "big"]  # independent of other collections
    assert [e.id for e in balanced(exs, 10, seed=1) if e.dataset == "big"] != [e.id for e in alone]


def test_a_cached_fold_model_is_the_fitted_one_and_a_changed_input_refits(tmp_path):
    pytest.importorskip("sklearn")
    from neardup.extract.datasets import LabeledPage
    from neardup.extract.train import example, fit, fit_cached, fit_key

    pages = [LabeledPage(f"p{i}", "synth", f"site{i}", LD_PAGE.replace("May", m), f"Bridge opens\n\n{BODY}")
             for i, m in enumerate(("May", "June", "July"))]
    exs = [example(p) for p in pages]
    first = fit_cached(exs, "logreg", 0, tmp_path)
    assert len(list(tmp_path.iterdir())) == 1
    again = fit_cached(exs, "logreg", 0, tmp_path)  # read from the cache, weights exact (float64)
    fresh = fit(exs, "logreg", 0)
    for model in (first, again):
        assert np.array_equal(model.cols, fresh.cols) and np.array_equal(model.weights, fresh.weights)
    assert again.weights.dtype == np.float64
    relabeled = [example(pages[0])] + exs[1:]
    relabeled[0].labels = ~relabeled[0].labels  # other training labels: another key, another file
    assert fit_key(relabeled, "logreg", 0) != fit_key(exs, "logreg", 0) != fit_key(exs, "logreg", 1)
    fit_cached(relabeled, "logreg", 0, tmp_path)
    assert len(list(tmp_path.iterdir())) == 2
