"""The sentence splitter: news abbreviations, initials, decimals, quotes, datelines, CJK; exact offsets."""

import pytest

from neardup.sentences import SentenceBatch, sentence_spans, split_sentences

# sentences separated by " || " (the boundary is the space there)
CASES = [
    "WASHINGTON, March 31 - The Commodity Credit Corporation (CCC) has switched 10 mln dlrs in credit "
    "guarantees to Mexico, the U.S. Agriculture Department said. || The guarantees were earmarked for U.S. beans.",
    "LONDON, Jan 5 (Reuters) - Shares rose 2.5 pct to 1,234.5 points. || Dealers said the gain was modest.",
    "NEW YORK, Feb. 12 - Texaco Inc. said it earned 1.5 mln dlrs, or 12 cts a share. || Sales rose.",
    "Mr. Smith met Dr. Jones at 10 a.m. on Monday. || They talked for an hour.",
    "The deal was approved by J.P. Morgan and Co. || It closes next week.",
    "George W. Bush met Tony Blair in Washington. || The two leaders discussed Iraq.",
    'He said: "We will win this." || The crowd cheered.',
    "Is this the end? || Nobody knows! || The market closed at 3 p.m. local time.",
    "It was sold to the U.S. || Then prices fell.",
    "Gen. Smith and Lt. Col. Brown arrived on Sept. 3. || They left on Oct. 1.",
    "The firm (which makes cars) grew fast. || (It was founded in 1990.) || Sales rose.",
    "The No. 2 player won. || He was happy.",
    "Mrs. Thatcher said no. || Mr. Kinnock said yes.",
    "E. coli was found in the water. || Officials closed the beach.",
    "The index rose 1.2 pct, i.e. more than expected. || Bonds fell.",
    "Read more at www.example.com. || Or call us.",
    "BOSTON, Mass. - The bank said profit rose. || Its shares gained.",
]


def _parse(case: str) -> tuple[str, list[str]]:
    parts = case.split(" || ")
    return " ".join(parts), parts


@pytest.mark.parametrize("case", CASES)
def test_english_news_boundaries(case):
    text, expected = _parse(case)
    assert [text[s:e] for s, e in sentence_spans(text)] == expected


def test_opening_quote_belongs_to_the_next_sentence():
    text = 'The system does not detect the substances. "This means that athletes do not know."'
    spans = sentence_spans(text)
    assert [text[s:e] for s, e in spans] == [
        "The system does not detect the substances.", '"This means that athletes do not know."']


def test_cjk_punctuation_needs_no_space():
    text = "东京股市今天上涨了2.5%。分析人士认为这是暂时的！好吗？"
    assert [text[s:e] for s, e in sentence_spans(text)] == ["东京股市今天上涨了2.5%。", "分析人士认为这是暂时的！", "好吗？"]


@pytest.mark.parametrize("case", [
    "सरकार ने आज नई शिक्षा नीति की घोषणा की। || मंत्री ने कहा कि यह अगले साल से लागू होगी। || क्या विपक्ष सहमत है?",
    "ঢাকায় আজ ভারী বৃষ্টি হয়েছে। || আবহাওয়া অফিস সতর্কতা জারি করেছে।",
    "هل توافق الحكومة على الخطة؟ || قال الوزير إن القرار نهائي.",
    "حکومت نے آج نئے بجٹ کا اعلان کیا۔ || اپوزیشن نے اس پر تنقید کی۔",
])
def test_stops_of_other_scripts_end_sentences(case):
    # the danda (।), Arabic's question mark (؟) and Urdu's full stop (۔) were no boundary: PDC and
    # CoDet saw a Hindi or Bengali paragraph as one sentence, and found no passage pasted from it
    text, expected = _parse(case)
    assert [text[s:e] for s, e in sentence_spans(text)] == expected


def test_paragraphs_end_sentences_and_offsets_are_exact():
    text = "  Hearts 2-1 Livingston\n\nHearts won with two goals.  Miller scored first.\n \n\nNo final stop"
    starts, ends = split_sentences(text)
    got = [text[s:e] for s, e in zip(starts.tolist(), ends.tolist())]
    assert got == ["Hearts 2-1 Livingston", "Hearts won with two goals.", "Miller scored first.", "No final stop"]
    assert starts.dtype.kind == "i" and (ends > starts).all()


def test_rebroken_paragraphs_give_the_same_sentences():
    """A copy whose paragraphs were split or joined at sentence ends keeps every sentence."""
    paras = ["Oil rose 2.5 pct on Monday. Traders cited U.S. supply data.", "OPEC meets next week. A cut is likely."]
    a = "\n\n".join(paras)
    b = "Oil rose 2.5 pct on Monday.\n\nTraders cited U.S. supply data. OPEC meets next week. A cut is likely."
    sa = [a[s:e] for s, e in sentence_spans(a)]
    assert sa == [b[s:e] for s, e in sentence_spans(b)]
    assert len(sa) == 4


def test_empty_and_blank_texts_have_no_sentences():
    assert sentence_spans("") == []
    assert sentence_spans(" \n\n \t") == []
    starts, ends = split_sentences("")
    assert starts.shape == (0,) and ends.shape == (0,)


def test_sentence_batch_keeps_offsets_per_document():
    docs = ["One. Two here.", "", "Three is last."]
    sb = SentenceBatch.from_texts(docs)
    assert sb.counts().tolist() == [2, 0, 1]
    assert sb.sentence_doc().tolist() == [0, 0, 2]
    assert [docs[d][s:e] for d, s, e in zip(sb.sentence_doc().tolist(), sb.starts.tolist(), sb.ends.tolist())] == sb.texts
    assert sb.texts == ["One.", "Two here.", "Three is last."]
