"""Units by script, folding for matching, and the simulator in Turkish and Chinese (made-up texts)."""

import random

import numpy as np

from neardup.evaluate.languages import detect_language
from neardup.evaluate.synth import SynthConfig, simulate
from neardup.evaluate.stories import sentence_spans
from neardup.methods import get_method
from neardup.align.aligner import align
from neardup.text.scripts import document_scripts, fold_text
from neardup.text.tokenize import tokenize

TR = ("Ankara'da bugün düzenlenen basın toplantısında konuşan bakan, şehirdeki yeni ulaşım projesinin "
      "önümüzdeki yıl içinde tamamlanacağını söyledi. Projenin ilk aşamasında iki yeni metro hattı "
      "ve dört köprü inşa edilecek. Bakan, yatırımın toplam maliyetinin üç milyar lirayı aşacağını "
      "belirtti. Çalışmaların gece ve gündüz süreceği, trafiğin ise geçici olarak başka yollara "
      "yönlendirileceği açıklandı. Şehir halkı projeyi genel olarak olumlu karşıladı.")
TR_OTHER = ("İzmir'de hafta sonu yapılan festivale binlerce kişi katıldı. Düzenleyiciler, bu yılki "
            "etkinliğin geçen yıla göre daha kalabalık olduğunu söyledi. Konserler gece yarısına kadar "
            "sürdü ve sahil boyunca yiyecek standları kuruldu. Belediye başkanı festivalin gelecek yıl "
            "da düzenleneceğini duyurdu.")

ZH_SOURCE = ("国家统计局今天发布数据显示，今年前三季度全国居民人均可支配收入比上年同期名义增长百分之八点八。"
             "城镇居民收入增速继续高于农村居民。专家认为，消费市场总体保持平稳，服务消费增长较快。"
             "统计局发言人在新闻发布会上表示，下一阶段将继续做好稳就业工作，推动经济持续健康发展。")
ZH_PASSAGE = "城镇居民收入增速继续高于农村居民。专家认为，消费市场总体保持平稳，服务消费增长较快。"
ZH_HOST = ("本报讯 昨日上午，市体育中心举行了秋季长跑比赛，来自全市各区的两千多名选手参加了比赛。"
           "比赛分为全程和半程两个项目，沿途设置了多个补给站。" + ZH_PASSAGE +
           "组委会表示，明年将进一步扩大比赛规模，吸引更多市民参与全民健身活动。")
ZH_SAME_TOPIC = ("国家统计局发布的最新统计数据表明，前三个季度我国居民消费价格温和上涨，"
                 "食品价格涨幅有所回落，工业生产者出厂价格同比下降。分析人士指出，物价总体稳定，"
                 "为宏观政策调整留出了空间。统计局表示，将密切关注国际市场变化带来的影响。")


def _turkish_capitals(text: str) -> str:
    return text.replace("i", "İ").upper()


def _strip(text: str) -> str:
    return text.translate(str.maketrans("ıİşŞğĞçÇöÖüÜ", "iIsSgGcCoOuU"))


def test_scripts_detected_per_document():
    assert document_scripts([TR, ZH_SOURCE, "The cat sat.", "１２３ ..."]) == ["Latin", "Han", "Latin", "none"]
    assert detect_language([TR, TR_OTHER]) == "tr" and detect_language([ZH_SOURCE]) == "zh"
    assert detect_language(["The cat sat on the mat.", "Dogs bark."]) == "en"


def test_turkish_capitals_and_stripped_diacritics_are_the_same_words():
    words = tokenize(TR)
    assert tokenize(_turkish_capitals(TR)) == words
    assert tokenize(_strip(TR)) == words
    assert tokenize(TR.upper()) == words  # capitals set with English rules (i -> I) too
    assert fold_text("ıiİI".lower()) == "iiii"


def test_a_copy_in_capitals_and_one_without_diacritics_are_near_duplicates():
    ffp = get_method("ffp")
    texts = [TR, _turkish_capitals(TR), _strip(TR), TR_OTHER]
    sk = ffp.sketch(texts)
    scores = ffp.score(sk, np.array([0, 0, 0]), np.array([1, 2, 3]))
    assert scores[0] == 1.0 and scores[1] == 1.0 and scores[2] < 0.1


def test_copies_in_capitals_are_aligned_with_offsets_of_the_original_text():
    copy = _turkish_capitals(TR)
    pairs = align([TR_OTHER + " " + TR, copy])
    assert [(a, b) for a, b, _ in pairs] == [(0, 1)]
    p = pairs[0][2][0]
    assert p.b_chars[0] == 0 and p.b_chars[1] >= len(copy) - 1
    assert (TR_OTHER + " " + TR)[p.a_chars[0]:p.a_chars[1]].startswith("Ankara")


def test_a_pasted_two_sentence_chinese_passage_is_found_exactly():
    pairs = align([ZH_SOURCE, ZH_HOST, ZH_SAME_TOPIC])
    assert [(a, b) for a, b, _ in pairs] == [(0, 1)]
    (p,) = pairs[0][2]
    s, e = p.a_chars
    assert ZH_SOURCE[s:e] in ZH_PASSAGE and e - s >= len(ZH_PASSAGE) - 2
    s, e = p.b_chars
    assert ZH_HOST[s:e] in ZH_PASSAGE and e - s >= len(ZH_PASSAGE) - 2


def test_a_same_topic_chinese_pair_is_not_a_copy():
    # shared words (国家统计局, 前三季度, 居民, 统计局表示) but no copied text
    assert align([ZH_SOURCE, ZH_SAME_TOPIC]) == []
    ffp = get_method("ffp")
    sk = ffp.sketch([ZH_SOURCE, ZH_SAME_TOPIC])
    assert ffp.score(sk, np.array([0]), np.array([1]))[0] < 0.1


def test_chinese_units_are_about_a_word_long():
    units = tokenize(ZH_SOURCE + ZH_HOST + ZH_SAME_TOPIC)
    han = [u for u in units if "\u4e00" <= u[0] <= "\u9fff"]
    assert 1.5 <= np.mean([len(u) for u in han]) <= 2.2 and max(map(len, han)) <= 4


def test_sentence_spans_end_at_chinese_stops():
    spans = sentence_spans(ZH_SOURCE)
    assert len(spans) == 4
    assert all(ZH_SOURCE[e - 1] == "。" for _, e in spans)


def _zh_articles(n=40, seed=3):
    r = random.Random(seed)
    chars = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可也能而子那得着下自之年过发后"
    out = []
    for i in range(n):
        paras = ["".join("".join(r.choices(chars, k=r.randint(15, 30))) + "。" for _ in range(r.randint(2, 4)))
                 for _ in range(r.randint(3, 6))]
        out.append({"id": f"z{i}", "title": "".join(r.choices(chars, k=12)), "text": "\n\n".join(paras),
                    "category": ["体育", "科技"][i % 2]})
    return out


def test_synth_on_chinese_edits_units_and_writes_chinese_headlines():
    arts = _zh_articles()
    recs = list(simulate(arts, seed=5, config=SynthConfig(n_sites=4, p_partial=0.4, p_new_headline=1.0)))
    docs = [r for k, r in recs if k == "doc"]
    assert len({d["source"] for d in docs}) >= len(arts) - 2  # stories are not dropped as short
    rewrites = [d for d in docs if d["kind"] == "rewrite"]
    assert rewrites
    by_id = {d["id"]: d for d in docs}
    for d in rewrites:
        head = d["text"].split("\n\n", 1)[0]
        assert not any(w in head for w in ("say", "UPDATE")) and head.isascii() is False
    quotes = [r for k, r in recs if k == "truth" and r["type"] == "partial" and r["why"] == "quote"]
    assert quotes
    for q in quotes:  # passages are sentences, copied exactly
        s, e = q["a_chars"]
        s2, e2 = q["b_chars"]
        assert by_id[q["a"]]["text"][s:e] == by_id[q["b"]]["text"][s2:e2]


def test_synth_on_turkish_makes_copies_in_capitals_and_without_diacritics():
    r = random.Random(1)
    sents = [s.strip() + "." for s in (TR + " " + TR_OTHER).split(".") if s.strip()]
    arts = [{"id": f"t{i}", "title": f"Haber {i} şehirde açıklandı",
             "text": "\n\n".join(" ".join(r.sample(sents, 3)) + f" Numara {i} {j}." for j in range(6))}
            for i in range(30)]
    recs = list(simulate(arts, seed=2, n_docs=300, config=SynthConfig(n_sites=4)))
    texts = [d["text"].split("\n\n", 1)[1] for k, d in recs if k == "doc" and d["kind"] == "rewrite"]
    assert any(t.isupper() for t in texts)
    assert any(not any(c in t for c in "ışğçöüİŞĞÇÖÜ") for t in texts)


def test_synth_shared_quotes_work_in_chinese():
    recs = list(simulate(_zh_articles(), seed=4, config=SynthConfig(n_sites=3, p_shared_quote=1.0)))
    docs = {r["id"]: r for k, r in recs if k == "doc"}
    shared = [r for k, r in recs if k == "truth" and r.get("why") == "shared quote"]
    assert shared
    for q in shared:
        (s, e), (s2, e2) = q["a_chars"], q["b_chars"]
        assert docs[q["a"]]["text"][s:e] == docs[q["b"]]["text"][s2:e2] and "。" in docs[q["a"]]["text"][s:e]


def test_ascii_texts_count_the_latin_letters_of_the_table():
    """The ASCII shortcut of :func:`script_counts` (every byte but a Latin letter deleted) counts what the
    code-point table says, digits, underscores and control bytes included."""
    from neardup.text.scripts import SCRIPTS, _script_table, script_counts

    texts = ["Hello, World_42!", "", "___", "a-b c\td\n", "".join(map(chr, range(128))), "x" * 1000]
    table = _script_table()
    want = [sum(int(table[ord(c)] == SCRIPTS.index("Latin")) for c in t) for t in texts]
    assert script_counts(texts)[:, SCRIPTS.index("Latin")].tolist() == want
    assert want[4] == 52
