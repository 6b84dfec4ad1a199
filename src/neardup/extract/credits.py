"""Credit lines and comment sections: what frames an article on its page, never what happened.

A news page frames its story with lines of a few fixed shapes -- a copyright or rights notice
("© 2007 The Associated Press. All rights reserved. This material may not be published ..."),
an agency credit ("Associated Press", "Staff and agencies", "AP Medical Writer"), a byline
("By LAURAN NEERGAARD", "Posted by Jane Doe at 1:53 PM") and a bare timestamp ("Jan 9 2007",
"UPDATED: 11:10 pm PST January 12, 2007").  For near-duplicate detection they are not the
story: the same credit and notice are printed under thousands of unrelated articles of a site or
an agency, so kept, they make different stories look alike (a wire service's rights notice is
30 words of identical text), and the same story syndicated by two sites differs in exactly these
lines.

:func:`credit_lines` finds them by their shape alone, so it is fixed by argument rather than
learned: the block features hold no words (hashed words memorized the training sites), so the
CRF cannot tell a rights notice from a one-sentence paragraph at the article's end.  The
training collections' gold disagrees on them: of the blocks of these shapes, 1.1-2.2% are content
in msv-news, L3S-GN1 and CleanPortalEval, 7.8% in Dragnet (23% of its bylines), 11.7% in
Readability's tests and 36% in CleanEval, whose blog and forum pages count posters' bylines and
timestamps as text; rights notices are content in 0.8-9.6% of them.  The models learn them as not
content (:func:`.train.training_labels`).  Every shape is anchored on the whole block and bounded in
length, so a story's sentence that mentions copyright, an agency or a date is never one:

* **rights notice** (at most 40 words): ``©``, ``(c) 2007``, ``Copyright 2007``/``Copyright ©``/
  ``Copyright:``, "all rights reserved", or "may not be published/broadcast/rewritten/
  redistributed/reproduced";
* **agency credit** (at most 8 words): the whole block is an optional "by"/"from"/"source"/
  "photo" and a news agency or "staff"/"agencies"/"wire services", optionally with "writer";
* **byline** (at most 12 words): "By", "Posted by", "Written by" or "Reported by" and a
  capitalized word ("Submitted by" a user name "on" and a date: a CMS's line), not ending as a sentence does
  (``.``, ``!``, ``?``); in other languages "Von", "Par", "Por", "Door", "Av", "Af", "Автор" and only
  a name of two to four capitalized words after it (these words also open sentences), or "بقلم", "كتب", "记者", "作者：";
* **contributors** (at most 30 words): "... contributed to this report/story", "... contributed
  reporting", "Reporting by" and a name: a wire story's co-reporters, printed under many stories;
* **timestamp** (at most 12 words): every word a month, weekday, time-zone, "updated",
  "posted", "ago", "am"/"pm" or a number, with a month or weekday name, a clock time (``11:10``)
  or a numeric date (``1/25/2007``) among them, or a reading time ("5 min read"); the months, weekdays
  and the words around a date of German, French, Spanish, Italian, Portuguese, Dutch, Turkish, Russian
  and Arabic, and CJK dates (``2025年7月1日``), count too, and a dateline's place before its date
  ("Berlin, 01.07.2025, 10:02") is left out when a year and a clock time follow (a place and a day
  alone, "Chandigarh, January 2", open the story in older collections' gold, and so do a name or a
  label with a short date, "News Update, 27/11/00, 14:22").

Reader comments follow the story, introduced by a short line of their own: a count ("3 Comments
made by visitors.", "24 Responses to ...", "Comments (26)"), an invitation ("Add Your Comments
Here:", "Post a comment"), "reader comments", or the site's rules ("Comments are moderated",
"The comments below are from readers of ...", "The following are comments from the readers.",
"Comment posters are responsible ...").  On pages of 2006-07 the comments, their rules and the form often sit in the article's own
container, where the block features cannot tell them from the story.  Dragnet's gold cuts the
comments off the article and L3S-GN1 labels them "user comments", not content; like credit
lines, a site's comment rules repeat under all of its stories.  A bare "Comments" or
"Discussion" heading is not taken (it also heads opinion columns and forum posts), and the cut
is made only where it cannot take the story: after at least :data:`COMMENTS_AFTER_WORDS` words
of kept text (a "Comments (3)" or "Add a comment" link under the headline or the lede is not
where the comments start).  A count or an invitation also cuts only when no more kept text
follows the line than precedes it: on a blog's front page or a forum, where CleanEval's gold
counts the posts as content, the "Comments (0)" under the first post is followed by the others.
"Reader comments" and the site's rules are not printed under every post; they head the comment
section, which can run longer than the story or be followed by more of the site's frame (a list of
the latest headlines), so they cut whatever follows them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .held import may_hold

_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DAY = r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)[a-z]*\.?"
_MONTH_MORE = (
    # German, French, Spanish, Italian, Portuguese, Dutch, Turkish, Russian, Arabic: the names the English
    # stems do not take (Russian by stem: the genitive of a date, "1 июля")
    r"(?:märz|mai|okt(?:ober)?|dez(?:ember)?|janvier|février|avril|juin|juillet|août|décembre|ene(?:ro)?|"
    r"febrero|abr(?:il)?|mayo|junio|julio|ago(?:sto)?|septiembre|octubre|noviembre|dic(?:iembre)?|gennaio|"
    r"febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre|janeiro|fevereiro|março|maio|junho|"
    r"julho|setembro|outubro|dezembro|januari|februari|maart|mei|augustus|ocak|şubat|mart|nisan|mayıs|"
    r"haziran|temmuz|ağustos|eylül|ekim|kasım|aralık|(?:январ|феврал|март|апрел|ма|июн|июл|август|сентябр|"
    r"октябр|ноябр|декабр)[а-яё]{0,2}|يناير|فبراير|مارس|أبريل|إبريل|مايو|يونيو|يوليو|أغسطس|سبتمبر|أكتوبر|"
    r"نوفمبر|ديسمبر|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|lundi|mardi|mercredi|jeudi|"
    r"vendredi|samedi|dimanche|lunes|martes|miércoles|jueves|viernes|sábado|domingo)\.?"
    r"|\d{1,4}年(?:\d{1,2}月)?(?:\d{1,2}日)?|\d{1,2}月\d{1,2}日|\d{1,2}時(?:\d{1,2}分)?|\d{1,2}h\d{2}"
)
"""Months and weekdays of other languages, and dates and clock times written with the CJK unit characters
(``2025年7月1日``, ``10時02分``) or French style (``10h02``): the anchors of a timestamp the wide shapes add."""
_AGENCY = (r"(?:the\s+)?(?:associated\s+press|ap|reuters|afp|agence\s+france[- ]presse|upi|united\s+press"
           r"\s+international|press\s+association|pa|dpa|ansa|efe|xinhua|kyodo|bloomberg(?:\s+news)?|"
           r"canadian\s+press|cp|aap|staff(?:\s+and\s+agencies)?|agencies|wire\s+services?|news\s+services?|wires)")

_RIGHTS = re.compile(
    r"(?=[©&(cam])"  # every alternative's first character: lets the search skip the others (2x faster)
    r"(?:©|&copy;|\(c\)\s*(?:\d{4}|m{1,3}[mcdlxvi]*\b)|\bcopyright\s*(?:©|\(c\)|:|\d{4})|all\s+rights\s+reserved"
    r"|may\s+not\s+be\s+(?:re)?(?:published|broadcast|rewritten|redistributed|reproduced))",
    re.IGNORECASE,
)
RIGHTS_HELD = ("\u00a9", "&copy;", "(c)", "copyright", "rights", "may")
"""Every match of :data:`_RIGHTS` holds one of these (:mod:`.held`): a line without any is not searched."""
_CREDIT = re.compile(
    rf"^\W*(?:(?:by|from|source|photo|credit)\b:?\s*)?{_AGENCY}"
    r"(?:\s+(?:\w+\s+)?writers?)?"
    rf"(?:\s*(?:and|&|/|,)\s*{_AGENCY})?\W*$",
    re.IGNORECASE,
)
_CONTRIBUTORS = re.compile(
    r"\bcontributed\s+(?:to\s+)?(?:this|the)\s+(?:report|story|article)\W*$|\bcontributed\s+(?:additional\s+)?reporting\W*$"
    r"|^\W*(?:additional\s+)?reporting\s+by\s+[A-Z\u00c0-\u00de]",
)
_BYLINE = r"^\W*(?:(?i:by|posted\s+by|written\s+by|reported\s+by)\s+[A-Z\u00c0-\u00de]\w"
_NAME = r"[A-Z\u00c0-\u00de\u0410-\u042f][\w'’.-]+"
_BYLINE_MORE = (
    r"|(?i:submitted\s+by\s+\S+\s+on)\s+\w"
    # "Von", "Par", "Por", "Door", "Av", "Af" also open sentences: only a name (capitalized words) may follow
    rf"|(?:von|Von|VON|par|Par|PAR|por|Por|POR|door|Door|av|Av|af|Af|автор:?|Автор:?)\s+{_NAME}(?:\s+{_NAME}){{1,3}}"
    rf"(?:\s*(?:,|und|et|y|e|en|og|och|и)\s*{_NAME}(?:\s+{_NAME}){{0,3}})*\s*$"
    r"|(?:بقلم|كتب|记者|作者[:：]|文[/／])\s*\w"
)
_FOREIGN = frozenset(
    """aktualisiert veröffentlicht zuletzt stand uhr um vom publié publiée mis à jour le modifié de del el a las
    publicado actualizado pubblicato aggiornato il alle ore atualizado em às gepubliceerd bijgewerkt op om son
    güncelleme güncellendi yayınlanma tarihi saat обновлено опубликовано в نشر في تحديث آخر صباحا مساء بتاريخ""".split())
"""The words around a date in German, French, Spanish, Italian, Portuguese, Dutch, Turkish, Russian and Arabic
("Veröffentlicht am", "mis à jour à", "Son Güncelleme"): a line holding one is a timestamp only with a
clock time (:data:`_CLOCK`); a date alone after them may be a dated heading of the text, which
trafilatura-eval's gold counts (docs/results.md)."""
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_CLOCK = re.compile(r"\d{1,2}:\d{2}|\d{1,2}時|\d{1,2}h\d{2}")
_TIME_WORDS = (r"updated|posted|published|article|story|last|modified|on|at|am|pm|a\.m\.?|p\.m\.?|noon|"
               r"[ecmpa][sd]t|gmt|utc|bst|cet|et|ct|pt|mt|minutes?|mins?|hours?|hrs?|days?|ago|"
               r"\d{1,4}(?:st|nd|rd|th)?|\d{1,2}:\d{2}(?::\d{2})?(?:am|pm)?|\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}|\d{4}/\d{1,2}")
_TIME_WORDS_MORE = ("|cest|read|\\d{1,2}er|lesezeit|lecture|temps|lectura|tiempo|okuma|süresi|dk|время|чтения|мин|"
                    + "|".join(sorted(_FOREIGN)) + f"|{_MONTH_MORE}")
_ANCHORS = r"ago|\d{1,2}:\d{2}(?::\d{2})?(?:am|pm)?|\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}|\d{4}/\d{1,2}"


@dataclass(frozen=True)
class Shapes:
    """The compiled shapes of bylines and timestamps: those the shipped model learned from (English), or
    those widened after it (:data:`WIDE`: other languages, reading times, a dateline's place)."""

    byline: re.Pattern[str]
    time_word: re.Pattern[str]
    date_anchor: re.Pattern[str]
    split: re.Pattern[str]
    wide: bool

    @classmethod
    def of(cls, wide: bool) -> Shapes:
        more = wide * "|"  # an alternative of the wide patterns
        return cls(
            re.compile(_BYLINE + (_BYLINE_MORE if wide else "") + ")"),
            re.compile(rf"^(?:{_DAY}|{_MONTH}|{_TIME_WORDS}{_TIME_WORDS_MORE if wide else ''})$", re.IGNORECASE),
            re.compile(rf"^(?:{_DAY}|{_MONTH}|{_ANCHORS}{more}{_MONTH_MORE if wide else ''})$", re.IGNORECASE),
            re.compile(r"[\s,|()\u2013\u2014" + ("\u00b7" if wide else "") + r"]+|\s-\s"),
            wide,
        )


LEARNED, WIDE = Shapes.of(False), Shapes.of(True)
"""The English shapes the models' training labels use (:func:`.train.training_labels`: the shipped model
and its fold models learned from them), and the wide ones the extractor drops after the model."""
_PLACE = re.compile(r"^[A-Z\u00c0-\u00de][\w.'’-]*(?:\s[A-Z\u00c0-\u00de][\w.'’-]*)?,\s")
"""A dateline's place ("Berlin, ", "New York, ") before its date: left out of the timestamp's test."""
_WORDS = re.compile(r"\w+")

RIGHTS_WORDS = 40
CREDIT_WORDS = 8
BYLINE_WORDS = 12
CONTRIBUTORS_WORDS = 30
TIMESTAMP_WORDS = 12


def _time_token(part: str) -> str:
    return part.strip(":;.,-") if not part.lower().startswith(("a.m", "p.m")) else part


def _timestamp(text: str, shapes: Shapes) -> bool:
    if _dated(text, shapes):
        return True
    place = _PLACE.match(text) if shapes.wide else None  # "Berlin, 01.07.2025, 10:02 Uhr": a place, a year, a clock
    if place is None:
        return False
    return _dated(text[place.end():], shapes) and bool(_CLOCK.search(text)) and bool(_YEAR.search(text))


def _dated(text: str, shapes: Shapes) -> bool:
    """Whether ``text`` is all time words with a date, a clock time or (wide) a reading time (:func:`_timestamp`)."""
    first = _time_token(shapes.split.split(text, 1)[0])
    if first and not shapes.time_word.match(first):  # most short blocks fail on their first word: no full split
        return False
    tokens = [t for t in map(_time_token, shapes.split.split(text)) if t]
    if not 0 < len(tokens) <= TIMESTAMP_WORDS:
        return False
    if not all(shapes.time_word.match(t) for t in tokens):
        return False
    if shapes.wide and _reading_time(tokens):
        return True
    if shapes.wide and not _FOREIGN.isdisjoint(t.lower() for t in tokens) and not _CLOCK.search(text):
        return False
    return any(shapes.date_anchor.match(t) for t in tokens)


def _reading_time(tokens: list[str]) -> bool:
    """Whether the time words ``tokens`` give a reading time: a number, a minute and a word of reading
    ("5 min read", "Lesezeit: 3 Min.")."""
    low = {t.lower() for t in tokens}
    return (any(t.isdigit() for t in tokens) and bool(low & _MINUTES) and bool(low & _READING))


_MINUTES = frozenset("min mins minute minutes мин dk".split())
_READING = frozenset("read lesezeit lecture lectura süresi чтения".split())


def credit_kind(text: str, words: int | None = None, learned: bool = False) -> str | None:
    """The credit-line shape of one block's text (``rights``, ``credit``, ``contributors``,
    ``byline``, ``timestamp``), or None when it is not one; ``words``: its count of ``\\w+``
    runs, when known; ``learned``: only the English shapes the models learned from (:data:`LEARNED`)."""
    shapes = LEARNED if learned else WIDE
    text = text.strip()
    if words is None:
        words = len(_WORDS.findall(text))
    if words == 0 or words > RIGHTS_WORDS:
        return None
    if may_hold(text, RIGHTS_HELD) and _RIGHTS.search(text):
        return "rights"
    if words <= CREDIT_WORDS and _CREDIT.match(text):
        return "credit"
    if words <= BYLINE_WORDS and shapes.byline.match(text) and not text.endswith((".", "!", "?")):
        return "byline"
    if words <= TIMESTAMP_WORDS and _timestamp(text, shapes):
        return "timestamp"
    if words <= CONTRIBUTORS_WORDS and ("ontribut" in text or "eporting" in text) and _CONTRIBUTORS.search(text):
        return "contributors"
    return None


def credit_lines(texts: list[str], words: np.ndarray | None = None, learned: bool = False) -> np.ndarray:
    """Which of ``texts`` (a page's blocks) are credit lines; ``words`` (their counts of ``\\w+``
    runs, :attr:`.features.BlockStats.regex_words`, when known) pass over the blocks too long
    or without a word to be one without looking at them."""
    out = np.zeros(len(texts), dtype=bool)
    if words is None:
        words = word_counts(texts)
    for i in np.flatnonzero((words > 0) & (words <= RIGHTS_WORDS)).tolist():
        out[i] = credit_kind(texts[i], int(words[i]), learned) is not None
    return out


def word_counts(texts: list[str]) -> np.ndarray:
    """Per text, its count of ``\\w+`` runs (the words every rule here counts)."""
    return np.array([len(_WORDS.findall(text)) for text in texts], dtype=np.int64)


_COMMENT_LINKS = re.compile(
    r"^\W*\d+\s+(?:comments?|responses?|replies)\b"  # "3 Comments made by visitors.", "24 Responses to ..."
    r"|\bcomments?\s*[(\[]\d+[)\]]"  # "Comments (26)", "Read Comments (11)"
    r"|\b(?:add|post|leave|submit|write|make)\s+(?:a\s+|an\s+|your\s+)?(?:comments?|reply)\b|\bcomments\s+made\s+by\b",
    re.IGNORECASE,
)
"""A count or an invitation: also printed under each post of a blog's front page."""
COMMENT_LINKS_HELD = ("comment", "response", "repl")
"""Every match of :data:`_COMMENT_LINKS` holds one of these words (:mod:`.held`)."""
_COMMENT_HEADS = re.compile(
    r"\b(?:readers?'?|users?|visitors?)\s+comments?\b"
    r"|\bcomments?\s+(?:are|is|will\s+be|may\s+be)\s+(?:now\s+)?(?:closed|moderated|screened|reviewed|approved|owned)"
    r"|\bcomments?\s+(?:below\s+)?(?:are\s+)?from\s+(?:our\s+|the\s+)?readers\b|\bcomment\s+posters?\b",
    re.IGNORECASE,
)
"""Reader comments named, or the site's rules for them: what heads a comment section."""
COMMENT_HEADS_HELD = ("comment",)
"""Every match of :data:`_COMMENT_HEADS` holds this word (:mod:`.held`): a line without it is not
searched."""
COMMENTS_MARK_WORDS = 30
"""A comment section's opening line is at most this many words."""
COMMENTS_AFTER_WORDS = 150
"""Words of kept text before a comment section can start (a quarter of a news story of 600 words)."""


def comment_start(texts: list[str], words: np.ndarray | None = None) -> int:
    """The index in ``texts`` (the kept blocks of a page, in order) of the line that opens its
    reader comments, or ``len(texts)`` when there is none; ``words``: their counts of ``\\w+``
    runs, when known (:func:`word_counts`)."""
    words = word_counts(texts) if words is None else words
    before = (np.cumsum(words) - words).tolist()  # words of kept text before each line
    total = int(words.sum())
    for i in np.flatnonzero(words <= COMMENTS_MARK_WORDS).tolist():
        if before[i] >= COMMENTS_AFTER_WORDS and (
                (may_hold(texts[i], COMMENT_HEADS_HELD) and _COMMENT_HEADS.search(texts[i]))
                or (total - before[i] <= before[i] and may_hold(texts[i], COMMENT_LINKS_HELD)
                    and _COMMENT_LINKS.search(texts[i]))):
            return i
    return len(texts)
