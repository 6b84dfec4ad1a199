"""`stats build`: document frequencies of words and phrases, exact and approximate."""

import numpy as np
import orjson
import pytest

from neardup.features.shingles import word_shingles
from neardup.hashing import hash_str
from neardup.stats import DocumentFrequencies
from neardup.stats.build import CollectionStats, build_stats, doc_features, load_stats
from neardup.stats.sketch import CountMinSketch


def test_features_are_the_shingles_of_every_method_with_their_first_words():
    texts = ["The cat sat on the mat, the cat sat.", "a b", "Ｒｅｕｔｅｒｓ 東京 SAID x y z", "one"]
    f = doc_features(texts, 3)
    words, _ = word_shingles(texts, 1)
    phrases, _ = word_shingles(texts, 3)
    assert np.array_equal(f.words.hashes, words.hashes) and np.array_equal(f.words.offsets, words.offsets)
    assert np.array_equal(f.phrases.hashes, phrases.hashes) and np.array_equal(f.phrases.offsets, phrases.offsets)
    # tokens: the cat sat on the mat the cat sat -> 7 windows, "the cat sat" twice
    row = dict(zip(f.phrases.row(0).tolist(), f.first[: f.phrases.sizes()[0]].tolist()))
    windows = ["the cat sat", "cat sat on", "sat on the", "on the mat", "the mat the", "mat the cat"]
    want = {int(word_shingles([w], 3)[0].hashes[0]): hash_str(w.split()[0]) for w in windows}
    assert row == want
    # fewer tokens than k: one phrase of all of them, starting with the first
    assert f.phrases.sizes()[1] == 1 and f.first[f.phrases.offsets[1]] == hash_str("a")
    assert f.phrases.sizes()[3] == 1 and f.first[f.phrases.offsets[3]] == hash_str("one")


def test_exact_statistics_count_documents_and_round_trip(tmp_path):
    texts = ["a b c d", "a b c e", "x a b c", "a"]
    stats = CollectionStats(phrase_size=3)
    stats.update_texts(texts[:2])
    stats.update_texts(texts[2:])
    assert stats.n_docs == 4
    assert stats.word_df(np.array([hash_str(w) for w in "abcdxz"], np.uint64)).tolist() == [4, 3, 3, 1, 1, 0]
    abc = word_shingles(["a b c"], 3)[0].hashes
    assert stats.phrase_df(abc).tolist() == [3]
    keys, dfs = stats.common_phrases(2)
    assert keys.tolist() == abc.tolist() and dfs.tolist() == [3]
    path = tmp_path / "s.npz"
    stats.save(path)
    again = load_stats(path)
    assert again.n_docs == 4 and again.phrase_size == 3 and not again.approximate
    assert np.array_equal(again.phrase_df(abc), [3])
    # the file is also a plain word-frequency file for DocumentFrequencies
    words = DocumentFrequencies.load(path)
    assert words.n_docs == 4 and words.df(np.array([hash_str("a")], np.uint64)).tolist() == [4]
    with pytest.raises(ValueError, match="not a neardup statistics file"):
        np.savez(tmp_path / "other.npz", x=np.zeros(2))
        load_stats(tmp_path / "other.npz")


def test_build_streams_any_input_and_accounts_for_rejections(tmp_path):
    rows = [{"id": str(i), "text": f"story {i % 3} said the minister on tuesday"} for i in range(30)]
    rows.append({"id": "bad"})
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(r) for r in rows) + b"\nnot json\n")
    stats, summary = build_stats([path], tmp_path / "out.npz", phrase_size=7)
    assert summary["documents"] == {"read": 32, "kept": 30, "rejected": 2,
                                    "rejected_by_reason": {"invalid JSON": 1, "missing text": 1}}
    assert summary["rejections"][0].startswith(f"{path}:31: missing text") and summary["complete"] is True
    assert summary["statistics"]["phrases"] == 3  # "story k said the minister on tuesday", k = 0, 1, 2
    assert load_stats(tmp_path / "out.npz").n_docs == 30


def test_a_statistics_file_rewritten_at_the_same_path_is_read_again(tmp_path):
    """A pipeline that rebuilds `stats.npz` in place and runs again in the same process got the old
    file's statistics (cached by path alone): the cache is keyed by the file's version too."""
    path = tmp_path / "in.jsonl"
    for n in (12, 30):
        path.write_bytes(b"\n".join(orjson.dumps({"id": str(i), "text": f"story {i} said the minister"})
                                    for i in range(n)))
        build_stats([path], tmp_path / "s.npz", phrase_size=3)
        assert load_stats(tmp_path / "s.npz").n_docs == n
        assert load_stats(tmp_path / "s.npz") is load_stats(tmp_path / "s.npz")  # read once while unchanged


def _run_cli(argv):
    from neardup.cli import build_parser

    args = build_parser(argv[0]).parse_args(argv)
    return args.func(args)


def test_cli_build_and_info(tmp_path, capsys, articles):
    path = tmp_path / "a.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps({"id": a["id"], "text": a["text"]}) for a in articles))
    out = tmp_path / "stats.npz"
    assert _run_cli(["stats", "build", str(path), "-o", str(out), "--phrase-size", "5", "--json"]) == 0
    summary = orjson.loads(capsys.readouterr().out)
    assert summary["statistics"]["documents"] == len(articles) and summary["parameters"]["phrase_size"] == 5
    assert _run_cli(["stats", "info", str(out)]) == 0
    assert orjson.loads(capsys.readouterr().out)["documents"] == len(articles)
    assert _run_cli(["stats", "build", str(path), "-o", str(tmp_path / "x.npz"), "--approximate", "--width", "1024"]) == 0
    assert load_stats(tmp_path / "x.npz").approximate


def zipf_documents(rng, n_docs=3000, vocab=200_000, per_doc=150, a=1.15):
    """Documents as sets of phrase keys with a heavy-tailed document frequency."""
    keys = rng.integers(1, 2**63, size=vocab, dtype=np.uint64)
    docs = []
    for _ in range(n_docs):
        ranks = np.minimum(rng.zipf(a, size=per_doc), vocab) - 1
        docs.append(np.unique(keys[ranks]))
    return docs


def test_count_min_conservative_update_error_against_exact_counts():
    rng = np.random.default_rng(0)
    docs = zipf_documents(rng)
    width, depth = 1 << 14, 4
    cons = CountMinSketch(width, depth, seed=1)
    plain = CountMinSketch(width, depth, seed=1)
    for lo in range(0, len(docs), 250):  # batches, as `stats build` streams them
        batch = np.concatenate(docs[lo : lo + 250])
        cons.update(batch)
        keys, counts = np.unique(batch, return_counts=True)
        pos = plain._index(keys)
        for r in range(depth):
            np.add.at(plain.table[r], pos[r], counts.astype(np.uint32))
        plain.total += int(counts.sum())
    keys, true = np.unique(np.concatenate(docs), return_counts=True)
    est, est_plain = cons.query(keys), plain.query(keys)
    err, err_plain = est - true, est_plain - true
    bound = cons.error_bound()
    print(
        f"\ncount-min {depth}x{width}, {cons.total:,} counted, {keys.shape[0]:,} distinct: "
        f"conservative mean error {err.mean():.3f}, max {err.max()}, "
        f"share exact {np.mean(err == 0):.3f}; plain mean {err_plain.mean():.3f}, max {err_plain.max()}; "
        f"bound e/w*total = {bound:.1f}"
    )
    assert (err >= 0).all()  # never under-estimates
    assert (est <= est_plain).all()  # never worse than a plain count-min sketch
    assert np.mean(err > bound) <= np.exp(-depth)  # count-min's guarantee
    assert err.mean() < 0.5 * err_plain.mean()  # conservative update pays off on skewed data
    # the common set (df > 42): no common phrase is missed, few rare ones sneak in
    common, found = true > 42, est > 42
    assert found[common].all()
    print(f"common phrases {common.sum()}, reported {found.sum()} (precision {common.sum() / found.sum():.3f})")
    assert common.sum() / found.sum() > 0.9


def test_approximate_statistics_find_every_common_phrase(articles, tmp_path):
    texts = [a["text"] for a in articles] * 3 + ["the minister said on tuesday that the talks failed"] * 50
    exact = CollectionStats(4)
    approx = CollectionStats(4, approximate=True, width=1 << 12, depth=3, heavy_df=5)
    for lo in range(0, len(texts), 17):
        exact.update_texts(texts[lo : lo + 17])
        approx.update_texts(texts[lo : lo + 17])
    keys, dfs = exact.common_phrases(5)
    akeys, adfs = approx.common_phrases(5)
    assert np.isin(keys, akeys).all()
    assert (approx.phrase_df(keys) >= dfs).all()
    approx.save(tmp_path / "a.npz")
    again = load_stats(tmp_path / "a.npz")
    assert np.array_equal(again.phrase_df(keys), approx.phrase_df(keys))
    with pytest.raises(ValueError, match="recorded phrases in more than 5"):
        again.common_phrases(2)


def test_count_min_rejects_bad_shapes():
    with pytest.raises(ValueError):
        CountMinSketch(width=1000)
    with pytest.raises(ValueError):
        CountMinSketch(depth=0)
    cms = CountMinSketch(8, 2)
    cms.update(np.array([1, 1, 2], np.uint64))
    assert cms.query(np.array([1, 2], np.uint64)).tolist()[0] >= 2 and cms.total == 3
