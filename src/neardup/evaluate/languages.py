"""The simulator's language: what an edit, a sentence and a headline change are in it.

:mod:`.synth` writes English edits (whole words between spaces, "officials say" headline
endings, "Reuters" datelines).  For sources in another language the corpus language
(``SynthConfig.lang``, detected from the sources by default: :func:`detect_language`) picks
here:

* **units**: what an edit replaces, deletes or inserts -- a word in scripts with spaces, a
  unit of the tokenizer (:mod:`neardup.text.scripts`: 1-4 characters cut by content, about a
  word) in Chinese and Japanese, so ``edit_rate`` means the same share of the text;
* **common words** used by replacements and insertions, and made-up local paragraphs, in the
  language (Chinese ones from common characters, ending in ``。``);
* **restyled copies** (Turkish): a rewrite set in capitals (Turkish rules) or with its
  diacritics lost, as web copies often are;
* **headline changes**: an update tag, a dropped or replaced word, an attribution ending,
  written as the language writes them ("yetkililer açıkladı", "：专家称").

Sentences end at ``。！？`` as well as ``. ! ?`` (:func:`.stories.sentence_spans`).
"""

from __future__ import annotations

import random
import re

import numpy as np

__all__ = ["LANGUAGES", "detect_language", "Language", "language"]

#: Letters that tell Turkish from other Latin-script text.
_TURKISH = re.compile("[ıİğĞşŞ]")


class Language:
    """What edits, made-up text and headline changes look like in one language."""

    code = "en"
    spaced = True  # words separated by spaces
    common: tuple[str, ...] = ()
    attributions: tuple[str, ...] = ()
    update = "UPDATE {n}-{t}"
    chars_per_word = 6.0  # characters of text per word, spaces included (for passage lengths)

    def units(self, text: str) -> list[tuple[int, int]]:
        """``(start, end)`` of the units an edit works on (words between spaces)."""
        return [(m.start(), m.end()) for m in re.finditer(r"[^ ]+", text)]

    def join(self) -> str:
        return " "

    def count(self, text: str) -> int:
        """Words of ``text`` (units in scripts without spaces)."""
        return len(text.split()) if self.spaced else len(self.units(text))

    def headline(self, t: str, rng: np.random.Generator, op: int) -> str:
        """Headline ``t`` changed by operation ``op`` (0 update tag, 1 drop a unit, 2 an
        attribution, 3 replace a unit)."""
        spans = self.units(t)
        if op == 0:
            return self.update.format(n=int(rng.integers(1, 4)), t=t)
        if op == 1 and len(spans) > 3:
            s, e = spans[int(rng.integers(len(spans)))]
            return (t[:s] + t[e:]).replace("  ", " ").strip()
        if op == 2:
            return t + self.attributions[int(rng.integers(len(self.attributions)))]
        if len(spans) > 1:
            s, e = spans[int(rng.integers(len(spans)))]
            return t[:s] + self.common[int(rng.integers(len(self.common)))] + t[e:]
        return t

    def edit(self, para: str, rng: np.random.Generator, rate: float) -> str:
        """Replace, delete or insert about ``rate`` of the units of ``para`` (replacements:
        common words or units of the same paragraph)."""
        spans = self.units(para)
        hits = np.flatnonzero(rng.random(len(spans)) < rate)
        if not len(hits):
            return para
        sep = self.join()
        out = para
        for i in hits[::-1].tolist():  # right to left keeps earlier spans valid
            s, e = spans[i]
            op = rng.integers(3)
            if op == 0:
                if rng.random() < 0.5:
                    a, b = spans[int(rng.integers(len(spans)))]
                    new = para[a:b]
                else:
                    new = self.common[int(rng.integers(len(self.common)))]
                out = out[:s] + new + out[e:]
            elif op == 1 and len(spans) > 1:
                out = out[:s] + out[e + len(sep):] if sep and out[e:e + 1] == sep else out[:s] + out[e:]
            else:
                out = out[:e] + sep + self.common[int(rng.integers(len(self.common)))] + out[e:]
        return out

    def local_paragraph(self, words, py: random.Random) -> str:
        """A made-up paragraph of 2-4 sentences (local news added by a rewrite)."""
        return words.sentences(py, 2, 4)

    def restyle(self, paras: list[str], rng: np.random.Generator) -> list[str]:
        """A rewrite's paragraphs as some sites set them (none here: no random draw)."""
        return paras

    def unrelated(self, stories: list) -> list:
        """``stories`` without any that shares a copied passage with an earlier one.

        English sources keep :func:`.stories.prepare_stories`' sampled test only (its
        corpora stay as published).  Elsewhere the seed-and-extend aligner's own test is
        used (:func:`neardup.align.aligner.align`, defaults): news-tr's political speeches
        and news-zh's reposts share quoted passages of 20-50 words that a sampled test
        misses, and each would be an unrecorded overlap between two simulated stories."""
        if self.code == "en":
            return stories
        from ..align.aligner import align_texts

        drop: set[int] = set()
        for pair in align_texts(" ".join(s.paras) for s in stories):  # in order of (a, b)
            if pair.a not in drop:
                drop.add(pair.b)
        return [s for i, s in enumerate(stories) if i not in drop]

    def paragraphs(self, paras: list[str]) -> list[str]:
        """Source paragraphs as a page shows them: English sources as given; in other
        languages a block of more than 8 sentences (a crawl that joined a page's paragraphs,
        news-zh's ``feed`` bodies, news-tr's finance items) is cut into paragraphs of 4
        sentences, so trims, re-breaks and pasted paragraphs work on paragraphs there too."""
        if self.code == "en":
            return paras
        from .stories import sentence_spans

        out = []
        for p in paras:
            spans = sentence_spans(p)
            if len(spans) <= 8:
                out.append(p)
                continue
            for i in range(0, len(spans), 4):
                part = spans[i:i + 4]
                out.append(p[part[0][0]:part[-1][1]])
        return out


class Turkish(Language):
    code = "tr"
    common = tuple(("ayrıca yeni daha son ilk birçok yetkililer yıl hafta açıkladı hükümet şirket kişi "
                    "piyasa büyük önemli yerel ulusal erken çok bazı göre şöyle").split())
    attributions = (", yetkililer açıkladı", ", rapora göre", ", kaynaklar bildirdi", ", uzmanlar değerlendirdi")
    update = "GÜNCELLEME {n}-{t}"
    chars_per_word = 7.5  # Turkish words are longer (suffixes): about 6.5 letters and a space
    p_capitals = 0.1  # a rewrite set in capitals (Turkish rules: i -> İ, ı -> I)
    p_stripped = 0.15  # a rewrite whose diacritics were lost (ı ş ğ ç ö ü -> i s g c o u)
    _STRIP = str.maketrans("ıİşŞğĞçÇöÖüÜâÂîÎûÛ", "iIsSgGcCoOuUaAiIuU")

    def restyle(self, paras: list[str], rng: np.random.Generator) -> list[str]:
        u = rng.random()
        if u < self.p_capitals:
            return [p.replace("i", "İ").upper() for p in paras]
        if u < self.p_capitals + self.p_stripped:
            return [p.translate(self._STRIP) for p in paras]
        return paras


class Chinese(Language):
    code = "zh"
    spaced = False
    common = tuple("表示 今年 记者 目前 已经 相关 进行 工作 发展 问题 时间 情况 方面 此外 同时 部分 主要 重要 地方 全国".split())
    attributions = ("，专家称", "，报告显示", "，消息人士称", "，分析人士称")
    update = "【更新{n}】{t}"
    chars_per_word = 1.8  # a unit (about a word) is 1.7-1.9 characters, no spaces
    _CHARS = ("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可也你能而子那得"
              "于着下自之年过发后作里用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好"
              "小部其些主样理心她本前开但因只从想实日军者意无力它与长把机十民第公此已工使情明性知全三又"
              "关点正业外将两高间由问很最重并物手应战向头文体政美相见被利什二等产或新己制身果加西斯月话")

    def units(self, text: str) -> list[tuple[int, int]]:
        """Units of the tokenizer (characters cut by content; words of other scripts whole)."""
        from ..align.words import tokens

        _, starts, ends, _ = tokens([text])
        return list(zip(starts.tolist(), ends.tolist()))

    def join(self) -> str:
        return ""

    def local_paragraph(self, words, py: random.Random) -> str:
        return "".join("".join(py.choices(self._CHARS, k=py.randint(12, 30))) + "。" for _ in range(py.randint(2, 4)))


class Japanese(Chinese):
    code = "ja"
    attributions = ("、専門家", "、関係者によると", "、報告書", "、アナリスト")
    update = "【更新{n}】{t}"


LANGUAGES: dict[str, type[Language]] = {"en": Language, "tr": Turkish, "zh": Chinese, "ja": Japanese}


def detect_language(texts: list[str]) -> str:
    """The corpus language of source texts: ``zh`` or ``ja`` when most documents are written
    in Han characters (``ja`` with kana), ``tr`` when most Latin-script ones hold Turkish
    letters (ı İ ğ ş), else ``en`` (every other language gets English edits)."""
    from ..text.scripts import document_scripts

    if not texts:
        return "en"
    scripts = document_scripts(texts)
    han = sum(s == "Han" for s in scripts)
    kana = sum(s == "Kana" for s in scripts)
    if han + kana > len(texts) / 2:
        return "ja" if kana > han else "zh"
    latin = [t for t, s in zip(texts, scripts) if s == "Latin"]
    if latin and sum(bool(_TURKISH.search(t)) for t in latin) > len(latin) / 2:
        return "tr"
    return "en"


def language(code: str, texts: list[str]) -> Language:
    """The :class:`Language` of ``code`` (``auto``: detected from ``texts``)."""
    from ..errors import UserError

    code = detect_language(texts) if code == "auto" else code
    if code not in LANGUAGES:
        raise UserError(f"synth: unknown language {code!r} (auto, {', '.join(LANGUAGES)})")
    return LANGUAGES[code]()
