import numpy as np

from neardup.features.sets import exact_jaccard
from neardup.features.shingles import word_shingles
from neardup.hashing import hash_str, xxh64_lanes
from neardup.text.normalize import char_classes, normalize
from neardup.text.tokenize import encode_batch, token_hashes, tokenize


def test_normalize_folds_case_and_compatibility_forms():
    assert normalize("Ｒｅｕｔｅｒｓ STRASSE ﬁle") == "reuters strasse file"
    assert normalize("Straße") == "strasse"


def test_tokenize_splits_on_punctuation_and_folds_accents():
    assert tokenize("Hello, WORLD! It's 3.5% — café naïve") == [
        "hello", "world", "it", "s", "3", "5", "cafe", "naive",
    ]


def test_turkish_i_and_diacritics_fold_without_harming_english_i():
    words = "kırmızı KIRMIZI kirmizi İSTANBUL ISTANBUL istanbul Şişli ŞİŞLİ Sisli".split()
    assert tokenize(" ".join(words)) == ["kirmizi"] * 3 + ["istanbul"] * 3 + ["sisli"] * 3
    assert tokenize("I said I will") == ["i", "said", "i", "will"]


def test_tokenize_cuts_scripts_without_spaces_into_units_by_content():
    toks = tokenize("東京は晴れ Tokyo")
    assert "".join(toks[:-1]) == "東京は晴れ" and toks[-1] == "tokyo"
    assert all(1 <= len(t) <= 4 for t in toks[:-1])
    assert "".join(tokenize("ภาษาไทย")) == "ภาษาไทย"
    # the same characters cut the same way wherever they stand (a copy matches its source)
    run = "国务院总理今天在人民大会堂会见了来访的外国客人"
    a, b = tokenize("新华社北京电 " + run), tokenize("据报道，" + run + "。")
    assert len(a) < len(run) and sum(map(len, tokenize(run))) == len(run)
    assert "".join(a[-5:]) == "".join(b[-5:])


def test_tokenize_empty_and_punctuation_only():
    assert tokenize("") == []
    assert tokenize(" -- !! ") == []


def test_token_hashes_are_xxh64_of_each_token():
    # doc_tokens (behind token_hashes) and scan_tokens (behind tokenize) must split alike
    texts = [
        "Alpha beta", "", "γάμμα δέλτα, epsilon", "東京は晴れ Tokyo-BASED_x",
        "e\u0301cole 😀a 𝔘nicode \U00030001z ภาษา", "END.",
    ]
    buf, offsets = encode_batch(texts)
    hashes, counts = token_hashes(buf, offsets, char_classes(), np.uint64(0))
    assert counts.tolist()[:3] == [2, 0, 3]
    for d, text in enumerate(texts):
        got = hashes[offsets[d] : offsets[d] + counts[d]].tolist()
        assert got == [hash_str(t) for t in tokenize(text)]


def test_shingles_hash_k_consecutive_token_hashes():
    sets, counts = word_shingles(["a b c d"], 3)
    toks = np.array([hash_str(t) for t in "abcd"], dtype=np.uint64)
    expected = sorted(int(xxh64_lanes(toks, i, i + 3, np.uint64(0))) for i in range(2))
    assert sets.row(0).tolist() == expected
    assert counts.tolist() == [2]  # shingles, with repeats


def test_short_documents_get_one_shingle_and_empty_ones_none():
    sets, _ = word_shingles(["one two", "", "x y z w"], 3)
    assert sets.sizes().tolist() == [1, 0, 2]


def test_duplicate_shingles_are_counted_once_and_exact_jaccard():
    sets, _ = word_shingles(["a b a b a b", "a b c d e f"], 2)
    # {ab, ba} vs {ab, bc, cd, de, ef}: intersection 1, union 6
    assert sets.sizes().tolist() == [2, 5]
    j = exact_jaccard(sets.hashes, sets.offsets, np.array([0]), np.array([1]))
    assert abs(j[0] - 1 / 6) < 1e-12


def test_unigram_features_are_the_token_hashes():
    sets, _ = word_shingles(["Beta alpha beta"], 1)
    assert sets.row(0).tolist() == sorted([hash_str("alpha"), hash_str("beta")])


def test_character_tables_are_those_of_the_string_with_surrogates():
    """The class tables are built from a string whose surrogates are spaces (:func:`code_points`); they
    are the tables of the string of every code point, surrogates included, as they were built before."""
    import re
    import unicodedata

    from neardup.extract.features import regex_word_chars
    from neardup.text.fold import TABLE_SIZE
    from neardup.text.normalize import CHAR, CHAR_RANGES, WORD

    codes = np.arange(TABLE_SIZE, dtype="<u4").tobytes().decode("utf-32-le", "surrogatepass")
    words = np.zeros(TABLE_SIZE, dtype=np.uint8)
    for run in re.finditer(r"\w+", codes):
        words[run.start() : run.end()] = WORD
    assert (regex_word_chars() == (words[:0x10000] == WORD)).all()
    words[[ord(ch) for ch in re.sub(r"\w+", "", codes) if unicodedata.category(ch)[0] == "M"]] = WORD
    for lo, hi in CHAR_RANGES:
        words[lo : hi + 1] = np.where(words[lo : hi + 1] == WORD, CHAR, words[lo : hi + 1])
    assert (char_classes() == words).all()


def test_has_words_is_whether_the_tokenizer_finds_a_token():
    from neardup.text.normalize import has_words

    texts = ["The council voted", "!!! ... ???", "", " \u200b\u200c ", "\u2122", "\u0301\u0302", "2024",
             "北京", "—•§¶", "\U00030001", "_", "①", "a", "\u00a0\u3000", "ｒｅｕｔｅｒｓ"]
    assert [has_words(t) for t in texts] == [bool(tokenize(t)) for t in texts]
    assert has_words("\u2122") and not has_words("!!! ... ???")


def test_every_job_rejects_a_text_without_words_alike(tmp_path, capsys):
    """`partial` kept texts of punctuation alone (and exited 0 on a file of them), `dedup` rejected them."""
    import json

    from neardup.cli import main

    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"id": "a", "text": "!!! ... ???"}) + "\n" + json.dumps(
        {"id": "b", "text": "The council voted on Tuesday to expand the park by twelve acres."}) + "\n")
    for argv in (["dedup"], ["partial"], ["partial", "--method", "pdc"], ["contain"]):
        out = tmp_path / "-".join(argv)
        assert main([argv[0], str(path), "-o", str(out), "--quiet", *argv[1:]]) == 0
        docs = json.loads((out / "summary.json").read_text())["documents"]
        assert (docs["kept"], docs["rejected_by_reason"]) == (1, {"no words": 1}), (argv, docs)
    (tmp_path / "only.jsonl").write_text(json.dumps({"id": "a", "text": "!!! ... ???"}) + "\n")
    assert main(["partial", str(tmp_path / "only.jsonl"), "-o", str(tmp_path / "o"), "--quiet"]) == 2
    assert "no usable record" in capsys.readouterr().err
