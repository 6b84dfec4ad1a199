"""The frame of 2020s templates inside the article's run is dropped (:mod:`neardup.extract.frame`):
captions, recirculation and sign-up boxes, "Also read:" lines, calls to sign up."""

from __future__ import annotations

import random
import re
from itertools import product
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]

import numpy as np
import pytest

from neardup.extract import extract
from neardup.extract.blocks import page_blocks
from neardup.extract.credits import (
    _COMMENT_HEADS,
    _COMMENT_LINKS,
    _RIGHTS,
    COMMENT_HEADS_HELD,
    COMMENT_LINKS_HELD,
    RIGHTS_HELD,
)
from neardup.extract.frame import CALLS, CALLS_HELD, _matching, below, frame_labels
from neardup.extract.held import UNFOLDED, held_at, may_hold
from neardup.extract.structured import _ASSIGNED, ASSIGNED_AT, _assignments
from neardup.extract.mainbody import fill_article

STORY = [f"Paragraph {i} of the story tells readers what the city council decided about the harbor on Monday."
         for i in range(6)]


def _page(inside: str) -> str:
    """A 2020s article page: ``inside`` is set between the story's third and fourth paragraphs."""
    body = "".join(f"<p>{p}</p>" for p in STORY[:3]) + inside + "".join(f"<p>{p}</p>" for p in STORY[3:])
    return ("<html><head><title>Harbor plan</title></head><body><main><article><h1>Harbor plan</h1>"
            f'<div class="article-body">{body}</div></article></main></body></html>')


def _kept_all(html: str) -> list[str]:
    """The texts ``frame_labels`` keeps when the model kept every block."""
    page = page_blocks(html)
    return [t for t, k in zip(page.texts, frame_labels(page, np.ones(len(page), dtype=bool))) if k]


def test_a_caption_is_dropped_the_story_kept():
    kept = _kept_all(_page('<figure><img src="x.jpg"><figcaption>The harbor at dawn, seen from the old '
                           "pier by our photographer on Monday.</figcaption></figure>"))
    assert all(p in kept for p in STORY)
    assert not any("harbor at dawn" in t for t in kept)


def test_a_newsletter_box_inside_the_article_is_dropped():
    box = ('<div class="newsletter-signup"><p>Get the morning briefing: the five stories you need, every '
           "weekday at six.</p></div>")
    kept = _kept_all(_page(box))
    assert all(p in kept for p in STORY)
    assert not any("morning briefing" in t for t in kept)


def test_aside_nav_and_footer_inside_the_article_are_dropped():
    for tag in ("aside", "nav", "footer"):
        kept = _kept_all(_page(f"<{tag}><p>Our reporter Jane Doe covers the harbor and the council for the "
                               f"paper since 2019.</p></{tag}>"))
        assert all(p in kept for p in STORY), tag
        assert not any("Jane Doe" in t for t in kept), tag
    whole = ("<html><body><aside>" + "".join(f"<p>{p}</p>" for p in STORY) + "</aside></body></html>")
    assert _kept_all(whole) == STORY  # an <aside> holding most of the kept words is the text


def test_a_box_class_holding_most_of_the_text_is_not_a_box():
    # The whole article sits under an element whose class names a share bar: it is not dropped.
    html = ('<html><body><div class="share-wrapper">' + "".join(f"<p>{p}</p>" for p in STORY)
            + "</div></body></html>")
    assert _kept_all(html) == STORY


def test_recirculation_lines_are_dropped_in_several_languages():
    for label in ("Also read:", "Related:", "Lesen Sie auch:", "Lire aussi :", "[Read more:"):
        line = f'<p>{label} <a href="/other">Another story entirely about the budget of the port</a></p>'
        kept = _kept_all(_page(line))
        assert all(p in kept for p in STORY), label
        assert not any("Another story entirely" in t for t in kept), label


def test_a_sentence_with_a_colon_and_a_link_is_kept():
    # Not a recirculation label; and a label followed by unlinked prose is the story's.
    for line in ('<p>Where to watch: <a href="/n">Netflix</a></p>',
                 "<p>Related: the council also voted on the budget of the port for next year.</p>"):
        kept = _kept_all(_page(line))
        assert len(kept) == len(STORY) + 2, line


def test_calls_to_sign_up_and_affiliate_notices_are_dropped():
    for line in ("By signing up, you agree to our Terms of Use and acknowledge our privacy practices.",
                 "Sign up for our newsletter and get the best of the week delivered to your inbox.",
                 "We may earn a commission when you buy through links on our site."):
        kept = _kept_all(_page(f'<div class="x"><p>{line}</p></div>'))
        assert all(p in kept for p in STORY)
        assert line not in kept


def test_nothing_is_dropped_when_all_would_go():
    page = page_blocks("<html><body><figure><figcaption>Only a caption on this page, nothing else."
                       "</figcaption></figure></body></html>")
    keep = np.ones(len(page), dtype=bool)
    assert frame_labels(page, keep).all()
    assert not frame_labels(page, np.zeros(len(page), dtype=bool)).any()


def test_below_marks_subtrees():
    page = page_blocks("<html><body><div><p>a b c</p><figure><p>x y z</p></figure></div><p>d e f</p></body></html>")
    figure = int(page.elements.parent[page.container[1]])  # the element around the second block's <p>
    assert below(page, np.array([figure]))[page.container].tolist() == [False, True, False]
    assert not below(page, np.zeros(0, dtype=np.int64)).any()


def test_a_multi_section_article_with_a_table_and_a_list_of_links_is_filled():
    # A listicle: its list of linked items and its table sit between the sections the model kept.
    body = ("".join(f"<p>{p}</p>" for p in STORY[:3])
            + '<h2>The courses</h2><ul><li><a href="/a">Course one</a></li><li><a href="/b">Course two</a></li></ul>'
            + "<table><tr><th>Provider</th><th>Courses</th></tr><tr><td>Harbor College</td><td>12</td></tr></table>"
            + "".join(f"<p>{p}</p>" for p in STORY[3:]))
    page = page_blocks(f"<html><body><main><article>{body}</article></main></body></html>")
    keep = np.array([t in STORY or t == "Harbor College" for t in page.texts])  # one cell of the table kept
    filled = [t for t, k in zip(page.texts, fill_article(page, keep)) if k]
    for t in ("Course one", "Course two", "12"):  # the linked items; the kept cell's neighbour
        assert t in filled


def test_extract_drops_the_frame_of_a_modern_page():
    html = _page('<figure><figcaption>A caption of the harbor photo taken on Monday morning.</figcaption></figure>'
                 '<p>Also read: <a href="/x">The port budget explained in five charts</a></p>'
                 '<aside class="related-stories"><p>Related story: a teaser about something else entirely.</p></aside>')
    text = extract(html).full_text()
    assert all(p in text for p in STORY)
    assert "caption of the harbor" not in text and "five charts" not in text and "teaser" not in text


HELD = CALLS_HELD + COMMENT_HEADS_HELD + COMMENT_LINKS_HELD + RIGHTS_HELD + (ASSIGNED_AT,)


def test_unfolded_are_the_only_characters_that_match_a_held_character_but_do_not_lower_case_to_it():
    every = "".join(map(chr, range(0x110000)))
    held = sorted(set("".join(HELD)))
    matching = set(re.findall(f"[{re.escape(''.join(held))}]", every, re.IGNORECASE))  # one of them, case ignored
    lowering = {c for c in every if c.lower() in held}
    assert matching ^ lowering <= set(UNFOLDED)
    for c in matching - set(UNFOLDED):  # and the same one
        assert re.fullmatch(re.escape(c.lower()), c, re.IGNORECASE), c
    assert [c for c in every if len(c.lower()) != 1] == ["\u0130"]  # offsets of lower() are the text's own


def _strings(items) -> list[str]:
    """The strings a parsed regular expression matches, lower-cased, with a character class or an
    unbounded repeat as NUL (no held word spans one): every match holds what all of these hold."""
    out = [""]
    for op, av in items:
        if op is sre.LITERAL:
            alts = [chr(av).lower()]
        elif op is sre.BRANCH:
            alts = [x for branch in av[1] for x in _strings(branch)]
        elif op is sre.SUBPATTERN:
            alts = _strings(av[-1])
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and av[1] <= 3:
            subs = _strings(av[2])
            alts = ["".join(p) for k in range(av[0], av[1] + 1) for p in product(subs, repeat=k)]
        elif op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            alts = [""]  # no character of the match
        else:
            alts = ["\0"]
        out = [a + b for a in out for b in alts]
    return out


@pytest.mark.parametrize("pattern, held", [(CALLS, CALLS_HELD), (_COMMENT_HEADS, COMMENT_HEADS_HELD),
                                           (_COMMENT_LINKS, COMMENT_LINKS_HELD), (_RIGHTS, RIGHTS_HELD)])
def test_every_match_holds_a_held_word(pattern, held):
    assert all(w == w.lower() for w in held)
    strings = _strings(_parser.parse(pattern.pattern, pattern.flags))
    assert strings and all(any(w in x for w in held) for x in strings)


def test_searching_only_the_rows_holding_a_held_word_finds_the_same_rows():
    rng = random.Random(5)
    words = ["Sign", "UP", "for", "our", "newsletter", "by", "clicking", "you", "agree", "to", "the", "terms",
             "we", "may", "earn", "a", "commission", "İ", "ı", "ſign", "SUBSCRIBE", "now", "affiliate", "links",
             "Kommission", "inbox", "your", "become", "paid", "member", "comments", "are", "closed", "readers'"]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) for _ in range(3000)]
    for start in range(0, 3000, 30):
        rows = np.arange(start, start + 30)
        assert _matching(texts, rows, CALLS, CALLS_HELD).tolist() == _matching(texts, rows, CALLS).tolist()
    assert any(held_at(t, CALLS_HELD) is None for t in texts)  # the unfolded characters were met
    for t in texts + [f"{n} Responses to it" for n in (3, 24)] + ["Leave a Reply", "ADD YOUR COMMENTS"]:
        assert may_hold(t, COMMENT_HEADS_HELD) or not _COMMENT_HEADS.search(t)
        assert may_hold(t, COMMENT_LINKS_HELD) or not _COMMENT_LINKS.search(t)


def test_state_assignments_are_found_where_the_whole_search_finds_them():
    assert all(x.startswith(ASSIGNED_AT) for x in _strings(_parser.parse(_ASSIGNED.pattern, _ASSIGNED.flags)))
    page = ('<script>var window_ = 1; Window.__NUXT__ = {"a": 1}; window.__DATA__={}; WINDOW.__STATE__ =\n[]'
            '; window.other = 2; window.__INITIAL_STATE__</script>')
    for html in (page, page + "\u0131", page.replace("window.__DATA__", "w\u0130ndow.__DATA__")):
        assert _assignments(html) == [m.end() for m in _ASSIGNED.finditer(html)]
    assert len(_assignments(page)) == 3
