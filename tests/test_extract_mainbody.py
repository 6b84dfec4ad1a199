"""Kept runs far from the article and outside its element are dropped (:mod:`neardup.extract.mainbody`)."""

from __future__ import annotations

import numpy as np

from neardup.extract import extract
from neardup.extract.blocks import page_blocks
from neardup.extract.features import block_stats, headline
from neardup.extract.mainbody import MINOR_SHARE, RUN_GAP, enclosing, main_body, runs
from neardup.extract.model import BlockModel

STORY = [f"Paragraph {i} of the story says what happened in the town on Monday and why it matters." for i in range(8)]
MENU = [f"Menu item {i}" for i in range(RUN_GAP + 2)]  # more not-kept blocks than a run may span


def _page(before: str = "", inside: str = "", after: str = "", title: str = ""):
    """A page: ``before``, a menu, the story's element (with ``inside`` at its end), a menu, ``after``."""
    html = (
        f"<html><head><title>{title}</title></head><body>" + before
        + "<ul>" + "".join(f"<li>{m}</li>" for m in MENU) + "</ul>"
        + '<div class="story">' + "".join(f"<p>{p}</p>" for p in STORY) + inside + "</div>"
        + "<ul>" + "".join(f"<li>{m}</li>" for m in MENU) + "</ul>"
        + after + "</body></html>"
    )
    return page_blocks(html)


def _keep(page, texts) -> np.ndarray:
    """Labels keeping the blocks whose text is in ``texts``."""
    return np.array([t in texts for t in page.texts])


def _kept(page, keep) -> list[str]:
    return [t for t, k in zip(page.texts, keep) if k]


SIDEBAR = ["Most read: a sidebar teaser that looks like a sentence of a story.", "Another teaser of the site."]


def test_runs_split_only_at_long_gaps():
    keep = np.zeros(30, dtype=bool)
    keep[[0, 1, 1 + RUN_GAP + 1, 20]] = True
    assert [r.tolist() for r in runs(keep)] == [[0, 1, 1 + RUN_GAP + 1], [20]]
    assert runs(np.zeros(3, dtype=bool)) == []


def test_enclosing_is_the_lowest_common_element():
    page = _page()
    story = np.array([page.texts.index(STORY[0]), page.texts.index(STORY[-1])])
    first, last = enclosing(page, story)
    assert "story" in page.elements.attrs[first]
    assert enclosing(page, story[:1])[0] == page.container[story[0]]  # one block: its own container


def test_a_small_run_outside_the_article_after_it_is_dropped():
    page = _page(after="<div>" + "".join(f"<p>{s}</p>" for s in SIDEBAR) + "</div>")
    keep = _keep(page, STORY + SIDEBAR)
    assert _kept(page, main_body(page, keep)) == STORY
    assert keep.sum() == len(STORY + SIDEBAR)  # the input is not changed


def test_a_small_run_inside_the_article_element_is_kept():
    # the article's element holds a long stretch of not-kept blocks, then more kept text
    inside = "<ul>" + "".join(f"<li>{m} inside</li>" for m in MENU) + "</ul>" + "".join(f"<p>{s}</p>" for s in SIDEBAR)
    page = _page(inside=inside)
    keep = _keep(page, STORY + SIDEBAR)
    assert _kept(page, main_body(page, keep)) == STORY + SIDEBAR


def test_a_later_section_in_a_box_of_its_own_inside_the_article_element_is_kept():
    # a 2020s template: each section of one <article> in a box of its own, a promotion between them
    promo = "".join(f"<div><a href='/tour{i}'>{m}</a></div>" for i, m in enumerate(MENU))
    html = ("<html><body><article><div class='section'>" + "".join(f"<p>{p}</p>" for p in STORY) + "</div>"
            + promo + "<div class='section'>" + "".join(f"<p>{s}</p>" for s in SIDEBAR) + "</div></article>"
            + "<div>" + "".join(f"<p>{s} (site)</p>" for s in SIDEBAR) + "</div></body></html>")
    page = page_blocks(html)
    site = [f"{s} (site)" for s in SIDEBAR]
    keep = _keep(page, STORY + SIDEBAR + site)
    assert _kept(page, main_body(page, keep)) == STORY + SIDEBAR  # the box outside the <article> still goes
    assert _kept(page, main_body(page, keep & ~_keep(page, site))) == STORY + SIDEBAR
    unwrapped = page_blocks(html.replace("<article>", "<div>").replace("</article>", "</div>"))
    assert _kept(unwrapped, main_body(unwrapped, _keep(unwrapped, STORY + SIDEBAR))) == STORY  # no <article>: dropped


def test_a_large_run_is_kept_wherever_it_is():
    # more than MINOR_SHARE of the main run's words: may be the story itself, never dropped
    big = STORY[: int(len(STORY) * MINOR_SHARE) + 1]
    page = _page(after="<div>" + "".join(f"<p>{s} (later)</p>" for s in big) + "</div>")
    later = [f"{s} (later)" for s in big]
    keep = _keep(page, STORY + later)
    assert _kept(page, main_body(page, keep)) == STORY + later


def test_before_the_article_only_what_is_above_the_headline_is_dropped():
    title_line, deck = "Town council votes on the bridge", "The deck under the headline."
    lede = "The lede, set apart from the body by a photo and a share bar, outside the story element."
    # a sidebar, a menu, the headline and deck, a menu, the lede, then (after _page's menu) the story
    before = ("<aside><p>" + SIDEBAR[0] + "</p></aside>" + "<ol>" + "".join(f"<li>{m} top</li>" for m in MENU) + "</ol>"
              + f"<header><h1>{title_line}</h1><p>{deck}</p></header>"
              + "<ol>" + "".join(f"<li>{m} mid</li>" for m in MENU) + "</ol>" + f"<p>{lede}</p>")
    page = _page(before=before, title=f"{title_line} - Example News")
    keep = _keep(page, STORY + [SIDEBAR[0], title_line, deck, lede])
    assert _kept(page, main_body(page, keep)) == [title_line, deck, lede] + STORY
    untitled = _page(before=before)
    assert _kept(untitled, main_body(untitled, _keep(untitled, _kept(page, keep)))) == _kept(page, keep)  # no headline
    # the title's words below the main run's start (as in a comment): nothing before is dropped
    retitled = _page(before=before, title=STORY[1])
    assert _kept(retitled, main_body(retitled, _keep(retitled, _kept(page, keep)))) == _kept(page, keep)


def test_one_run_is_unchanged():
    page = _page()
    keep = _keep(page, STORY[2:5])
    assert main_body(page, keep).tolist() == keep.tolist()
    assert not main_body(page, np.zeros(len(page), dtype=bool)).any()


class _KeepSentences(BlockModel):
    """A stand-in model: keeps the blocks of at least five words."""

    def predict(self, page, stats=None):
        return page.words >= 5


def test_the_model_extractor_drops_a_far_sidebar_unless_the_page_declares_it():
    teaser = "Most read today: the mayor answers questions from readers about the new harbor tax."
    nav = "<ul>" + "".join(f"<li><a href='/{m}'>{m}</a></li>" for m in ("News", "Sport", "Life", "Money", "Travel", "Jobs")) + "</ul>"
    body = '<article><h1>Bridge opens</h1>' + "".join(f"<p>{p}</p>" for p in STORY) + "</article>"
    html = f"<html><body>{body}{nav}<div><p>{teaser}</p></div></body></html>"
    model = _KeepSentences("logreg", "words", np.array([0]), np.array([[0.0, 1.0]]))
    text = extract(html, model).text
    assert STORY[0] in text and STORY[-1] in text and "Most read" not in text
    # the publisher's JSON-LD articleBody names the teaser as the article's: kept
    declared = ('<script type="application/ld+json">{"articleBody": "' + " ".join(STORY) + " " + teaser
                + '"}</script>')
    assert "Most read" in extract(html.replace("<body>", "<body>" + declared), model).text
    # in an <aside> the teaser is the frame by markup (:mod:`neardup.extract.frame`), declared or not
    aside = html.replace("<div><p>", "<aside><p>").replace("</p></div>", "</p></aside>")
    assert "Most read" not in extract(aside.replace("<body>", "<body>" + declared), model).text


def test_the_headline_is_the_block_covering_the_title():
    page = _page(before="<h1>Town council votes on the bridge</h1>", title="Town council votes on the bridge | News")
    assert page.texts[headline(page, block_stats(page))] == "Town council votes on the bridge"
    untitled = _page()
    assert headline(untitled, block_stats(untitled)) == -1


def _html5_page(after: str, article_words: int = 8, lede_outside: bool = False) -> str:
    story = "".join(f"<p>{p}</p>" for p in STORY[:article_words])
    head = "<header><h1>Council approves the transit plan</h1></header>"
    lede = f"<p>{STORY[-1]}</p>" if lede_outside else ""
    return (f"<html><head><title>Council approves the transit plan</title></head><body>{head}<main>{lede}"
            f"<article>{story}</article>{after}</main></body></html>")


NEWSLETTER = ('<section class="newsletter"><p>Sign up for our newsletter to get the day\'s top stories in your '
              "inbox every morning, and the evening edition too.</p></section>")


def test_after_article_drops_kept_blocks_after_the_article_element_that_holds_the_story():
    from neardup.extract.mainbody import after_article

    page = page_blocks(_html5_page(NEWSLETTER))
    keep = np.ones(len(page), dtype=bool)  # the model kept everything, the newsletter box too
    out = after_article(page, keep)
    kept = _kept(page, out)
    assert not any("newsletter" in t for t in kept)
    assert [t for t in kept if t in STORY] == STORY  # the story is whole
    assert "Council approves the transit plan" in kept  # the headline above the article is not its business
    assert keep.all()  # the input is not changed


def test_after_article_leaves_pages_whose_article_element_is_not_the_story():
    from neardup.extract.mainbody import ARTICLE_SHARE, after_article

    # the <article> holds one paragraph of eight: it is a teaser card or a comment, not the story
    page = page_blocks(_html5_page("".join(f"<p>{p}</p>" for p in STORY[1:]) + NEWSLETTER, article_words=1))
    keep = np.ones(len(page), dtype=bool)
    assert ARTICLE_SHARE > 1 / 8
    assert after_article(page, keep).all()
    # no <article> at all: nothing to go by
    plain = page_blocks("<html><body><div>" + "".join(f"<p>{p}</p>" for p in STORY) + "</div>" + NEWSLETTER + "</body></html>")
    assert after_article(plain, np.ones(len(plain), dtype=bool)).all()


def test_extract_of_a_modern_page_ends_with_its_article():
    text = extract(_html5_page(NEWSLETTER)).full_text()
    assert STORY[0] in text and STORY[7] in text
    assert "newsletter" not in text


POLL = [f"OPTION {i}. A year's top local story in a sentence of a reader poll, as long as a news brief is." for i in range(12)]


def _poll_page(hidden_in_story: bool = False) -> str:
    """A reader poll in a form (longer than the story), then the story in its own element."""
    options = "".join(f"<tr><td><input type='radio' name='answers' value='{i}'> {o}</td></tr>" for i, o in enumerate(POLL))
    poll = ("<form action='?poll=1' method='post'><table><tr><td>What do you think is the top story of the year?</td></tr>"
            f"{options}<tr><td><input type='submit' value='Vote'></td></tr></table></form>")
    hidden = "<input type='hidden' name='__VIEWSTATE' value='abc'>" if hidden_in_story else ""
    story = f"<div class='story'>{hidden}" + "<br>".join(STORY[:3]) + "</div>"
    return f"<html><head><title>The Daily :: News</title></head><body>{poll}<ul>" + "".join(
        f"<li>{m}</li>" for m in MENU) + f"</ul>{story}</body></html>"


def test_the_text_of_form_controls_is_known_and_hidden_inputs_count_for_nothing():
    page = page_blocks(_poll_page(hidden_in_story=True))
    control = page.is_control()
    assert all(control[page.texts.index(o)] for o in POLL)  # each option beside its radio button
    assert not any(control[page.texts.index(s)] for s in STORY[:3])  # beside a hidden input: not a control's
    assert not control[page.texts.index("What do you think is the top story of the year?")]
    button = page_blocks("<html><body><p>Text of the page here.</p><button>Load more stories</button>"
                         "<textarea>Your comment</textarea></body></html>")
    assert button.is_control().tolist() == [False, True, True]


def test_a_reader_poll_longer_than_the_story_is_neither_the_article_nor_in_it():
    # a stand-in model keeps every sentence, the poll's options too: they outweigh the story
    model = _KeepSentences("logreg", "words", np.array([0]), np.array([[0.0, 1.0]]))
    for hidden in (False, True):
        text = extract(_poll_page(hidden), model).text
        assert all(s in text for s in STORY[:3])
        assert "OPTION" not in text


def test_paragraphs_beside_one_search_box_are_not_a_controls_text():
    html = ("<html><body><div>" + "<br>".join(STORY[:4]) + "<input type='text' name='q'></div>"
            "<div>Remember me <input type='checkbox' name='r'></div></body></html>")
    page = page_blocks(html)
    assert page.is_control().tolist() == [False] * 4 + [True]
