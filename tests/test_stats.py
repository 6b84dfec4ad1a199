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
