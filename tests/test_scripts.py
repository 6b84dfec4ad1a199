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


KO = ("서울시는 오늘 시청에서 기자회견을 열고 내년부터 대중교통 요금을 인상한다고 발표했다. 시 관계자는 "
      "연료비와 인건비가 크게 올라 요금 조정이 불가피하다고 설명했다. 시민 단체들은 서민 부담이 커질 것이라며 "
      "반발하고 있다. 시는 저소득층을 위한 할인 제도를 함께 마련하겠다고 밝혔다.")
KO_OTHER = ("부산에서 열린 국제 영화제에 수만 명의 관객이 몰렸다. 주최 측은 올해 상영작이 지난해보다 늘었다고 "
            "전했다. 해변 무대에서는 밤늦게까지 공연이 이어졌고 관객들은 축제 분위기를 즐겼다.")
AR = ("أعلنت وزارة الصحة اليوم عن إطلاق حملة وطنية جديدة للتطعيم ضد الإنفلونزا الموسمية في جميع المحافظات. "
      "وقال المتحدث باسم الوزارة إن الحملة ستستمر لمدة شهرين وتستهدف كبار السن والأطفال والعاملين في القطاع "
      "الصحي. وأضاف أن اللقاحات متوفرة مجانا في المراكز الصحية والمستشفيات الحكومية.")


def _invisible(text: str) -> str:
    """``text`` as web pages carry it: soft hyphens and joiners inside words, direction marks around them,
    tatweel stretching Arabic letters, a BOM pasted in."""
    words = text.split(" ")
    marks = ("\u00ad", "\u200d", "\u200c", "\u2060", "\u200b", "\u0640")
    out = [w[:2] + marks[k % len(marks)] + w[2:] if len(w) > 3 else w for k, w in enumerate(words)]
    return "\ufeff\u200f" + " \u200e".join(out)


def test_invisible_characters_and_arabic_marks_do_not_change_words():
    for text in (TR, KO, AR):
        assert tokenize(_invisible(text)) == tokenize(text)
    # harakat, and alef with hamza, as Arabic copies add or drop them
    assert tokenize("إِسْرَائِيلُ وَالْمَسْؤُولُ") == tokenize("اسرائيل والمسوول")
    assert tokenize("שָׁלוֹם") == tokenize("שלום")  # Hebrew points
    assert tokenize("ताज़ा ख़बर") != tokenize("ताजा खबर")  # an Indic script's marks are letters


def test_copies_with_invisible_characters_are_aligned_in_the_text_as_given():
    for text, other in ((KO, KO_OTHER), (AR, TR_OTHER)):
        copy = _invisible(text)
        pairs = align([other + " " + text, copy])
        assert [(a, b) for a, b, _ in pairs] == [(0, 1)]
        (p,) = pairs[0][2]
        assert p.a_words == p.b_words and p.similarity == 1.0
        assert (other + " " + text)[p.a_chars[0]:p.a_chars[1]] == text.rstrip(".")


def test_korean_in_nfd_and_full_width_letters_are_the_words_the_tokenizer_reads():
    import unicodedata

    from neardup import Deduplicator

    nfd = unicodedata.normalize("NFD", KO)  # Hangul as jamo, as macOS writes file names and some pages
    wide = KO.replace("서울시는", "ＳＥＯＵＬ시는").replace("오늘", "１２일")
    plain = KO.replace("서울시는", "seoul시는").replace("오늘", "12일")
    result = Deduplicator().run([("ko", KO), ("nfd", nfd), ("wide", wide), ("plain", plain), ("other", KO_OTHER)])
    relations = {(p.a, p.b): p.relation for p in result.pairs}
    assert relations[("ko", "nfd")] == "duplicate" and relations[("wide", "plain")] == "duplicate"
    host = KO_OTHER + " " + nfd
    (p,) = align([KO, host])[0][2]
    assert p.a_words == p.b_words and p.similarity == 1.0
    assert host[p.b_chars[0]:p.b_chars[1]] == nfd.rstrip(".")  # located in the text as given, jamo and all
    (p,) = align([plain, wide])[0][2]
    assert wide[p.b_chars[0]:p.b_chars[1]] == wide.rstrip(".") and p.similarity == 1.0


def test_the_scripts_of_south_and_south_east_asia_are_named_not_other():
    """summary.json's script counts named Bengali, Tamil, Lao ... `other` (the scripts sweep)."""
    texts = ["ঢাকায় আজ বৃষ্টি হয়েছে", "சென்னையில் இன்று மழை பெய்தது", "ວຽງຈັນມື້ນີ້ຝົນຕົກ", "ភ្នំពេញថ្ងៃនេះភ្លៀង",
             "ရန်ကုန်မှာ ဒီနေ့ မိုးရွာတယ်", "თბილისში დღეს წვიმს", "አዲስ አበባ ዛሬ ዝናብ ዘነበ", "ਅੰਮ੍ਰਿਤਸਰ ਵਿੱਚ ਅੱਜ ਮੀਂਹ"]
    assert document_scripts(texts) == ["Bengali", "Tamil", "Lao", "Khmer", "Myanmar", "Georgian", "Ethiopic",
                                       "Gurmukhi"]
