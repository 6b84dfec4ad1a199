"""Source articles made into stories for the syndication simulator (:mod:`.synth`).

Sentence spans, article composition and the cleaning of sources (short texts, tables and
sources sharing a passage with an earlier one are dropped), so every kept story can make
its own cluster with no unrecorded overlap with others.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

__all__ = ["Story", "compose", "prepare_stories", "sentence_spans"]

_SENT_END = re.compile(r"[.!?][\"')\]]*(?=\s)|[。！？]+[”’」』）)》\"']*")
_WS = re.compile(r"\s+")


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """``[(s, e), ...]`` of the sentences of the single-spaced ``text[start:end]``.

    A sentence ends at ``.``, ``!`` or ``?`` (plus closing quotes/brackets) followed by
    whitespace, or at ``。！？`` (no space follows them): crude (abbreviations split
    sentences) but every span is exact.
    """
    end = len(text) if end is None else end
    spans, s = [], start
    for m in _SENT_END.finditer(text, start, end):
        if m.end() <= s:
            continue
        spans.append((s, m.end()))
        s = m.end() + (m.end() < end and text[m.end()].isspace())
    if s < end:
        spans.append((s, end))
    return spans


def compose(headline: str, paras: list[str]) -> tuple[str, list[int]]:
    """Article text and the offset of each paragraph in it."""
    starts, pos = [], len(headline) + 2
    for p in paras:
        starts.append(pos)
        pos += len(p) + 2
    return headline + "".join("\n\n" + p for p in paras), starts


@dataclass
class Story:
    id: str
    title: str
    paras: list[str]
    topic: str | None
    dateline: str


_DIGIT_WORD = re.compile(r"(?<!\S)\S*?\d")  # one match per word holding a digit


def _sampled_shingles(ids: np.ndarray, k: int = 8) -> list[int]:
    """About 1 in 16 of the hashed word ``k``-grams, chosen by hash value (so two texts
    sharing a passage share the samples drawn from it)."""
    n = len(ids) - k + 1
    if n <= 0:
        return []
    h = np.zeros(n, dtype=np.uint64)
    for j in range(k):  # polynomial hash, wrapping at 2**64
        h = h * np.uint64(1000003) + ids[j: j + n]
    h *= np.uint64(0x9E3779B97F4A7C15)
    return np.unique(h[(h >> np.uint64(60)) == 0]).tolist()


def _unspaced(text: str) -> bool:
    """Whether ``text`` is written mostly in a script without spaces between words (Chinese, Japanese,
    Thai, Lao, Khmer, Myanmar)."""
    from ..text.scripts import document_scripts

    return document_scripts([text])[0] in ("Han", "Kana", "Thai", "Lao", "Khmer", "Myanmar")


def _units(text: str) -> list[str]:
    """The tokenizer's units of ``text`` (characters cut by content), as strings."""
    from ..align.words import tokens

    _, starts, ends, _ = tokens([text])
    return [text[s:e] for s, e in zip(starts.tolist(), ends.tolist())]


def prepare_stories(articles: Iterable[dict], min_words: int = 80, max_digit_share: float = 0.15) -> list[Story]:
    """Clean source articles into stories: single-spaced paragraphs, unrelated texts.

    Drops texts under ``min_words`` words, tables (more than ``max_digit_share`` of the
    words hold a digit: templated Reuters earnings reports look alike whatever the
    company, so they would be near-duplicates labeled as different stories) and any
    source sharing a passage with an earlier one: exact repeats, resends and corrections
    (Reuters holds ~350 groups of resends, BBC ~140 repeated files) and digests of other
    stories.  A shared passage is two or more common sampled 8-word shingles.  Sources
    that mark their own near-duplicate groups (``group``: news-tr, news-zh) give one
    story per group.  Each
    kept story can thus make its own cluster with no unrecorded overlap with others.
    """
    seen: set[bytes] = set()
    seen_shingles: set[int] = set()
    seen_groups: set = set()
    word_ids: dict[str, int] = {}
    out = []
    for a in articles:
        paras = [_WS.sub(" ", p).strip() for p in re.split(r"\n\s*\n", a.get("text") or "")]
        paras = [p for p in paras if p]
        text = " ".join(paras)
        words = text.split()
        unspaced = not text.isascii() and _unspaced(text)
        if unspaced:  # Chinese, Japanese: count and compare units, not space-separated runs
            words = _units(text)
        if len(words) < min_words or len(_DIGIT_WORD.findall(text)) > max_digit_share * len(words):
            continue
        low = [w.lower() for w in words] if unspaced else text.lower().split()
        key = hashlib.blake2b(" ".join(low).encode(), digest_size=16).digest()
        ids = np.fromiter((word_ids.setdefault(w, len(word_ids)) for w in low), dtype=np.uint64, count=len(low))
        shingles = _sampled_shingles(ids)
        if key in seen or sum(x in seen_shingles for x in shingles) >= 2 or a.get("group") in seen_groups:
            continue
        if a.get("group") is not None:  # a source's own near-duplicate group (news-tr, news-zh): one story
            seen_groups.add(a["group"])
        seen.add(key)
        seen_shingles.update(shingles)
        title = _WS.sub(" ", a.get("title") or "").strip() or ("".join if unspaced else " ".join)(words[:8])
        topic = a.get("topic") or (a.get("topics") or [None])[0] or a.get("category")
        out.append(Story(str(a["id"]), title, paras, topic, (a.get("dateline") or "").strip()))
    return out
