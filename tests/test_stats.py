import numpy as np

from neardup.features.sets import HashedSets
from neardup.features.shingles import word_shingles
from neardup.stats import DocumentFrequencies


def test_document_frequencies_count_documents_not_occurrences(tmp_path):
    texts = ["a b a", "b c", "c c d", "a"]
    df = DocumentFrequencies()
    df.update(word_shingles(texts[:2], 1)[0])
    df.update(word_shingles(texts[2:], 1)[0])
    words, _ = word_shingles(["a b c d e"], 1)
    from neardup.hashing import hash_str

    got = df.df(np.array([hash_str(w) for w in "abcde"], dtype=np.uint64))
    assert got.tolist() == [2, 2, 2, 1, 0]
    assert df.n_docs == 4
    assert np.allclose(df.idf(np.array([hash_str("a")], dtype=np.uint64)), np.log(4 / 2))
    path = tmp_path / "stats.npz"
    df.save(path)
    again = DocumentFrequencies.load(path)
    assert again.n_docs == 4 and np.array_equal(again.keys, df.keys) and np.array_equal(again.counts, df.counts)


def test_most_common_share_is_deterministic():
    sets = HashedSets(np.array([1, 2, 3, 2, 3, 3], np.uint64), np.array([0, 3, 5, 6]))
    df = DocumentFrequencies()
    df.update(sets)
    assert df.most_common(1 / 3).tolist() == [3]
    assert df.most_common(2 / 3).tolist() == [2, 3]


def test_merges_in_any_grouping_count_what_one_pass_counts():
    """The linear merge of sorted tables (and the pending batches' compaction) against a plain count:
    batches merged in any order and grouping, with keys near both ends of the uint64 range."""
    rng = np.random.default_rng(7)
    pool = np.r_[np.arange(40, dtype=np.uint64), np.iinfo(np.uint64).max - np.arange(40, dtype=np.uint64)]
    batches = [HashedSets(np.zeros(0, np.uint64), np.zeros(3, np.int64))]  # two documents without a feature
    for _ in range(29):
        docs = [np.unique(rng.choice(pool, rng.integers(0, 12))) for _ in range(rng.integers(1, 5))]
        batches.append(HashedSets(np.concatenate(docs).astype(np.uint64), np.r_[0, np.cumsum([d.shape[0] for d in docs])]))
    every = np.concatenate([b.hashes for b in batches])
    keys, counts = np.unique(every, return_counts=True)
    for order in (range(30), rng.permutation(30)):
        parts = [DocumentFrequencies.of(batches[i]) for i in order]
        for p in parts[::3]:
            p.compact()  # some tables sorted, some pending
        merged = DocumentFrequencies.merged(parts)
        folded = parts[0]
        for p in parts[1:]:
            folded = p.merge(folded)
        for got in (merged, folded):
            got.compact()
            assert np.array_equal(got.keys, keys) and np.array_equal(got.counts, counts)
            assert got.keys.dtype == np.uint64 and got.counts.dtype == np.int64
            assert got.n_docs == sum(len(b) for b in batches)


def test_lookups_in_a_large_table_answer_as_in_a_small_one(monkeypatch):
    """A table past ``SORTED_LOOKUP`` keys looks its hashes up in sorted order: the same answers,
    in the order asked, seen and unseen hashes, repeats, the smallest and largest keys."""
    from neardup.stats import df as df_module

    rng = np.random.default_rng(3)
    hashes = rng.integers(0, 2**63, size=3000, dtype=np.int64).astype(np.uint64) * np.uint64(2)
    sets = HashedSets(np.sort(hashes[:2000]), np.array([0, 1000, 2000]))
    table = DocumentFrequencies.of(sets)
    asked = np.concatenate([hashes[::-1], hashes[:50], [np.uint64(0), np.uint64(2**64 - 1)]]).astype(np.uint64)
    small = table.df(asked)
    monkeypatch.setattr(df_module, "SORTED_LOOKUP", 1)
    assert (table.df(asked) == small).all()
    assert small[-2:].tolist() == [0, 0] and (small[:1000] == 0).all() and (small[1000:3000] >= 1).all()
