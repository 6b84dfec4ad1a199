"""I-Match: signatures of mid-IDF lexicon terms, randomized lexicons, CoDet's set-up."""

import random

import numpy as np
import pytest

from neardup import Deduplicator
from neardup.features.shingles import word_shingles
from neardup.hashing import hash_str
from neardup.methods import get_method
from neardup.methods.base import Collection
from neardup.stats.build import CollectionStats
from neardup.stats.df import DocumentFrequencies

# 20 filler documents give the words known document frequencies (N = 24 with the 4 below):
# "common" in all 24, "mid1".."mid9" in 4 + 2 each, "seldom" only where written
FILLER = [f"common mid{1 + i % 9} filler{i} mid{1 + (i + 3) % 9}" for i in range(20)]


def run(texts, **params):
    m = Collection(get_method("imatch", **params))
    m.add(texts)
    m.finalize()
    return m


def input_df(texts):
    """The document frequencies of the words of ``texts`` (the statistics imatch uses without ``stats``)."""
    return DocumentFrequencies.of(word_shingles(texts, 1)[0])


def test_word_order_and_words_outside_the_lexicon_do_not_change_the_signature():
    docs = [
        "common mid1 mid2 mid3 mid4 mid5 mid6",
        "mid6 mid5 common mid4 mid3 mid2 mid1 mid1 seldomA",  # reordered, repeated, a rare word
        "mid1 mid2 mid3 mid4 mid5 mid7",  # one lexicon word differs
        "common common mid1 mid2 mid3 mid4 mid5 mid6 common",
    ]
    m = run(docs + FILLER, idf_scale="idf", idf_min=0.5, idf_max=2.5, min_terms=3)
    lo, hi = m.sketches_.info["lexicon_idf"]
    assert (lo, hi) == (0.5, 2.5)
    assert m.method.idf_bounds(input_df(docs + FILLER)) == (0.5, 2.5)
    # df: common 22 (idf 0.09, too common), mid* 6-7 (idf ~1.3), seldomA 1 (idf 3.2, too rare)
    sig = m.sketches_.columns["signatures"][:, 0]
    assert sig[0] == sig[1] == sig[3] != sig[2]
    assert m.score(np.array([0, 0, 0]), np.array([1, 2, 3])).tolist() == [1.0, 0.0, 1.0]
    a, b = m.candidate_pairs()
    pairs = set(zip(a.tolist(), b.tolist()))
    assert {(0, 1), (0, 3), (1, 3)} <= pairs and not any(2 in p for p in pairs)
    assert m.sketches_.columns["terms"][:4, 0].tolist() == [6, 6, 6, 6]


def test_lexicon_is_the_mid_idf_band():
    df = input_df(["x"] + FILLER)
    m = get_method("imatch", idf_scale="idf", idf_min=0.5, idf_max=2.5)
    words = ["common", "mid1", "filler3", "unseen"]
    mask = m.lexicon_mask(df, np.array([hash_str(w) for w in words], np.uint64))
    assert mask.tolist() == [False, True, False, False]
    # normalized IDF: the band [0.2, 0.85] of ln N
    m = run(["x"] + FILLER)
    lo, hi = m.sketches_.info["lexicon_idf"]
    assert np.isclose(lo, 0.2 * np.log(21)) and np.isclose(hi, 0.85 * np.log(21))
    assert m.method.idf_bounds(input_df(["x"] + FILLER)) == (lo, hi)
    # percentiles of the IDF of the distinct words
    m = run(["x"] + FILLER, idf_scale="percentile", idf_min=0.0, idf_max=0.5)
    assert m.sketches_.info["lexicon_idf"][0] == pytest.approx(np.log(21 / 20))  # "common": the lowest IDF
    assert m.method.idf_bounds(input_df(["x"] + FILLER))[0] == pytest.approx(np.log(21 / 20))


def test_signature_invalid_below_the_minimum_number_of_lexicon_terms():
    docs = ["mid1 mid2 mid3 common", "mid1 mid2 mid3 seldom", "mid1 mid2 mid3 mid4"]
    m = run(docs + FILLER, idf_scale="idf", idf_min=0.5, idf_max=2.5, min_terms=4)
    assert m.sketches_.columns["terms"][:3, 0].tolist() == [3, 3, 4]
    sig = m.sketches_.columns["signatures"]
    assert sig[0, 0] == 0 and sig[1, 0] == 0 and sig[2, 0] != 0
    # two invalid signatures never match, though they come from the same terms
    assert m.score(np.array([0]), np.array([1])).tolist() == [0.0]
    a, _ = m.candidate_pairs()
    assert 0 not in a and 1 not in a
    m = run(docs + FILLER, idf_scale="idf", idf_min=0.5, idf_max=2.5, min_terms=3)
    assert m.score(np.array([0]), np.array([1])).tolist() == [1.0]


def test_signature_is_sha1_of_the_sorted_term_hashes():
    import hashlib

    m = run(["mid3 mid1 mid2 common"] + FILLER, idf_scale="idf", idf_min=0.5, idf_max=2.5, min_terms=1)
    terms = np.sort(np.array([hash_str(w) for w in ["mid1", "mid2", "mid3"]], np.uint64))
    digest = hashlib.sha1(terms.astype("<u8").tobytes()).digest()
    assert int(m.sketches_.columns["signatures"][0, 0]) == int.from_bytes(digest[:8], "little")


def test_randomized_lexicons_share_of_matching_signatures():
    rng = random.Random(3)
    vocab = [f"w{i}" for i in range(400)]
    # background: each word in about 10% of 200 documents -> all in the mid band
    background = [" ".join(rng.sample(vocab, 40)) for _ in range(200)]
    doc = rng.sample(vocab, 60)
    changed = doc[:-1] + [w for w in vocab if w not in doc][:1]  # one lexicon word replaced
    m = run([" ".join(doc), " ".join(changed)] + background, lexicons=41, lexicon_drop=0.33)
    assert m.method.threshold is None  # the parameter is left as given
    assert m.method.decision_threshold() == pytest.approx(1 / 41)  # off: min_matches of lexicons
    s = float(m.score(np.array([0]), np.array([1]))[0])
    # copy j matches when it drops both differing words: about 0.33^2 of the 40 copies
    assert 0 < s < 0.5
    sig = m.sketches_.columns["signatures"]
    assert sig[0, 0] != sig[1, 0]  # the full lexicon does not match
    a, b = m.candidate_pairs()
    assert (0, 1) in set(zip(a.tolist(), b.tolist()))
    # needing more matches than the pair has removes it
    a, b, _ = m.method.clone(threshold=0.9).candidate_pairs(m.sketches_)
    assert (0, 1) not in set(zip(a.tolist(), b.tolist()))


def test_codet_skips_the_two_highest_idf_words_and_fingerprints_the_next_ten():
    # df of rareN = N + 1 over the filler below: the higher N, the lower the IDF
    filler = [" ".join(f"rare{n}" for n in range(20) if n >= k) for k in range(20)]
    doc = " ".join(f"rare{n}" for n in range(20))
    m = run([doc] + filler, selection="codet", min_terms=10)
    assert m.sketches_.columns["terms"][0, 0] == 10
    # the doc's words by IDF: rare0 (df 2), rare1 (df 3), ... -> skip rare0, rare1; take rare2..rare11
    m2 = run(["rare2 rare3 rare4 rare5 rare6 rare7 rare8 rare9 rare10 rare11 rare0 rare1"] + filler,
             selection="codet", min_terms=10)
    assert m.sketches_.columns["signatures"][0, 0] == m2.sketches_.columns["signatures"][0, 0]
    m3 = run(["rare2 rare3 rare4 rare5 rare6 rare7 rare8 rare9 rare10 rare12 rare0 rare1"] + filler,
             selection="codet", min_terms=10)
    assert m.sketches_.columns["signatures"][0, 0] != m3.sketches_.columns["signatures"][0, 0]


def test_deterministic_per_seed_and_parameters_checked():
    texts = [f"w{i % 7} w{i % 5} w{i % 3} w{i % 11} w{i % 13} w{i}" for i in range(60)]
    a, b, c = (run(texts, lexicons=5, min_terms=2, **seed).sketches_.columns["signatures"]
               for seed in ({}, {}, {"seed": 2}))
    assert np.array_equal(a, b)
    assert np.array_equal(a[:, 0], c[:, 0])  # the full lexicon needs no seed
    assert not np.array_equal(a[:, 1:], c[:, 1:])
    for bad in [dict(lexicons=0), dict(min_matches=3, lexicons=2), dict(selection="x"), dict(idf_min=0.9, idf_max=0.1),
                dict(lexicon_drop=1.0), dict(idf_scale="nidf", idf_max=2.0), dict(stats="/nonexistent.npz")]:
        with pytest.raises(ValueError):
            get_method("imatch", **bad)


def test_statistics_file_gives_the_same_signatures_as_the_input(tmp_path, articles):
    texts = [a["text"] for a in articles] * 2
    stats = CollectionStats()
    stats.update_texts(texts)
    stats.save(tmp_path / "s.npz")
    own = run(texts, lexicons=3)
    other = Collection(get_method("imatch", lexicons=3, stats=str(tmp_path / "s.npz")))
    for lo in range(0, len(texts), 5):
        other.add(texts[lo : lo + 5])
    other.finalize()
    assert np.array_equal(own.sketches_.columns["signatures"], other.sketches_.columns["signatures"])


def planted(articles, inserted, seed=5):
    """Each article and 3 republished copies: sentences reordered, case and punctuation
    changed, ``inserted`` made-up words (document frequency 1) added."""
    rng = random.Random(seed)
    docs, truth = [], set()
    for art in articles:
        ids = [art["id"]]
        docs.append((art["id"], art["text"]))
        for v in range(3):
            parts = art["text"].split(". ")
            rng.shuffle(parts)
            words = ". ".join(parts).upper().replace(",", " ;").split()
            for _ in range(inserted):
                words.insert(rng.randrange(len(words)), f"madeup{rng.randrange(10**6)}")
            ids.append(f"{art['id']}-copy{v}")
            docs.append((ids[-1], " ".join(words)))
        truth.update((a, b) for i, a in enumerate(ids) for b in ids[i + 1 :])
    return docs, truth


@pytest.mark.parametrize(
    "params, inserted",
    [(dict(), 3), (dict(lexicons=5), 3), (dict(selection="codet"), 0)],
)
def test_deduplicator_finds_planted_duplicates(articles, params, inserted):
    # made-up words are the rarest of all, outside the mid-IDF lexicon; CoDet's set-up
    # instead skips the 2 rarest words of a document, so it is tested without them
    docs, truth = planted(articles, inserted)
    result = Deduplicator(method="imatch", **params).run(docs)
    assert {(p.a, p.b) for p in result.pairs} == truth
    assert all(p.score == 1.0 for p in result.pairs)
