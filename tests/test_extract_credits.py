"""Credit lines and reader comments are dropped from the model's extraction by their shape alone."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.extract import extract
from neardup.extract.credits import COMMENTS_AFTER_WORDS, comment_start, credit_kind, credit_lines
from neardup.extract.model import BlockModel


@pytest.mark.parametrize("text, kind", [
    ("© 2007 The Associated Press. All rights reserved. This material may not be published, broadcast, "
     "rewritten or redistributed.", "rights"),
    ("Copyright 2006 Associated Press. All rights reserved.", "rights"),
    ("(c) 2012 Example Media Inc.", "rights"),
    ("Associated Press", "credit"),
    ("The Associated Press", "credit"),
    ("Staff and agencies", "credit"),
    ("AP Medical Writer", "credit"),
    ("From the Associated Press", "credit"),
    ("(AP)", "credit"),
    ("REUTERS", "credit"),
    ("By LAURAN NEERGAARD", "byline"),
    ("By RAPHAEL G. SATTER, Associated Press Writer 2 hours, 13 minutes ago", "byline"),
    ("Posted by Jane Doe at 1:53 PM", "byline"),
    ("Jan 9 2007", "timestamp"),
    ("UPDATED: 11:10 pm PST January 12, 2007", "timestamp"),
    ("1/25/2007, 8:03 p.m. PT", "timestamp"),
    ("Article Last Updated: 01/25/2007 08:37:07 PM PST", "timestamp"),
])
def test_credit_lines_are_recognized(text, kind):
    assert credit_kind(text) == kind


@pytest.mark.parametrize("text", [
    "The lawsuit filing comes two days after Joltid filed a copyright infringement suit against the firm.",
    "By Tuesday it was over.",
    "By 2010 the plan will have failed.",
    "He said on Monday that the AP had been told.",
    "The Associated Press reported on Monday that the two companies had agreed to merge after months of talks.",
    "42", "10.41", "6 32 3 34 35 1", "",
    "© " + "word " * 60,  # a long block is never a credit line
])
def test_story_text_is_not_a_credit_line(text):
    assert credit_kind(text) is None


def test_credit_lines_skip_long_blocks_by_token_count():
    texts = ["Associated Press", "Staff and agencies"]
    assert credit_lines(texts).tolist() == [True, True]
    assert credit_lines(texts, np.array([2, 500])).tolist() == [True, False]


def test_comments_start_only_after_the_story_began():
    story = ["word " * (COMMENTS_AFTER_WORDS // 2)] * 2
    assert comment_start(["Comments (3)", *story]) == 3  # a comment link under the headline is no cut
    assert comment_start([*story, "Add Your Comments Here:", "Great story!"]) == 2
    assert comment_start([*story, "The comments below are from readers of example.com.", "x"]) == 2
    assert comment_start([*story, "Comment posters are responsible for what they write."]) == 2
    assert comment_start([*story, "The following are comments from the readers.", "x"]) == 2
    assert comment_start([*story, "Readers commented on the plan for weeks before the vote was held."]) == 3
    assert comment_start(story[:1] + ["Add a comment"] + story[1:]) == 3  # too early: a widget in the story


def test_a_comment_heading_cuts_a_thread_longer_than_the_story():
    story = ["word " * (COMMENTS_AFTER_WORDS // 2)] * 2
    thread = ["Posted by: reader Thu, Jan 25 2007", "I think the council got this one wrong again. " * 10] * 3
    assert comment_start([*story, "Reader Comments", *thread]) == 2
    assert comment_start([*story, "Comments are moderated.", *thread]) == 2
    # A count or an invitation followed by more than the story is a blog's front page: no cut.
    assert comment_start([*story, "Comments (3)", *thread]) == 2 + 1 + len(thread)
    assert comment_start([*story, "Post a comment", *thread]) == 2 + 1 + len(thread)


def test_the_model_extractor_drops_credit_lines_and_comments():
    para = "The harbor bridge will open in May after four years of work, the city said on Monday. " * 3
    html = ("<html><body><article><h1>Bridge opens</h1><p>By JANE DOE</p><p>Associated Press</p>"
            + "".join(f"<p>{para} {i}</p>" for i in range(4))
            + "<p>© 2007 The Associated Press. All rights reserved.</p>"
            "<h3>Reader Comments</h3><p>What a waste of money, I think the city should have asked us first.</p>"
            "</article></body></html>")

    class KeepAll(BlockModel):
        def predict(self, page, stats=None):
            return np.ones(len(page), dtype=bool)

    keep_all = KeepAll("logreg", "words", np.array([0]), np.array([[0.0, 1.0]]))
    text = extract(html, keep_all).full_text()
    assert "harbor bridge" in text and "Bridge opens" in text
    for gone in ("JANE DOE", "Associated Press", "rights reserved", "Reader Comments", "waste of money"):
        assert gone not in text
