"""SpotSigs: signatures written out by hand, the compiled kernel, the exact join, the method."""

import numpy as np
import pytest

from neardup import Deduplicator
from neardup.features.sets import HashedSets, exact_jaccard
from neardup.features.spots import (
    TokenBatch, most_frequent_words, signature_hash, spot_signatures, spot_strings, word_hashes,
)
from neardup.hashing import hash_str
from neardup.index.inverted import similar_pairs
from neardup.methods import get_method
from neardup.methods.base import Collection

from conftest import shared_data

# The example sentence of Theobald et al. (2008), continued.
OBAMA = (
    "At a rally to kick off a weeklong campaign for the South Carolina primary, Obama criticized "
    "President Bush in a long speech. The senator said he was ready."
)


def test_paper_example_distance_one_chain_two():
    # the paper's own example: antecedents {a, the, is}, distance 1, chain 2
    got = spot_strings(OBAMA, antecedents=["a", "the", "is"], distance=1, chain=2)
    assert got == ["a:rally:kick", "a:weeklong:campaign", "the:south:carolina", "a:long:speech",
                   "the:senator:said"]


def test_best_setting_distance_two_chain_three_by_hand():
    # content words after "the" (stopwords skipped): south carolina primary obama criticized
    # president ...; distance 2 takes the 2nd, 4th and 6th of them.
    assert spot_strings(OBAMA) == ["the:carolina:obama:president", "the:said"]
    # "said" is an antecedent but not a stopword; "was" is followed by one content word
    # ("ready"), fewer than the distance, so it yields nothing; "the senator said he was
    # ready" leaves a chain cut short by the end: kept with the words it has.
    assert spot_strings(OBAMA, with_antecedent=False) == ["carolina:obama:president", "said"]
    text = "He said the bank was closed and the vault is empty today."
    # after "said": bank(1) closed(2) vault(3) empty(4) today(5) -> 2nd and 4th (chain cut)
    assert spot_strings(text) == ["said:closed:empty", "the:closed:empty", "was:vault:today",
                                  "the:empty", "is:today"]


def test_stopwords_between_content_words_do_not_change_signatures():
    a = "the storm hit coast towns overnight leaving homes dark"
    b = "the storm has hit the coast and the towns overnight, leaving all of the homes dark"
    # every "the" of b is an antecedent of its own, but the first one's chain is unchanged
    assert spot_strings(a)[0] == spot_strings(b)[0] == "the:hit:towns:leaving"


def test_kernel_hashes_equal_the_reference_strings():
    texts = [
        OBAMA, "", "the the the is", "Ｔｈｅ Ｓｅｎａｔｅ SAID it was Über-late, the end", "the 東京 is 大",
    ]
    for kwargs in [{}, {"distance": 1, "chain": 2}, {"with_antecedent": False}, {"distance": 3, "chain": 1}]:
        sets, counts = spot_signatures(texts, seed=5, **kwargs)
        for n, text in enumerate(texts):
            strings = spot_strings(text, **kwargs)
            want = sorted({signature_hash(s.split(":"), seed=5) for s in strings})
            assert sets.row(n).tolist() == want
            assert counts[n] == len(strings)


def test_signature_hash_is_xxh64_of_token_hashes():
    import xxhash

    lanes = np.array([hash_str("the"), hash_str("senator")], dtype="<u8")
    assert signature_hash(["the", "senator"]) == xxhash.xxh64_intdigest(lanes.tobytes())


def test_word_lists_must_be_single_tokens():
    assert word_hashes(["The", "the"]).tolist() == [hash_str("the")]
    with pytest.raises(ValueError, match="not one word"):
        word_hashes(["don't"])


def test_most_frequent_words_breaks_ties_by_hash():
    tokens = TokenBatch.from_texts(["b a a c", "a b d"])
    top = most_frequent_words(tokens, 2)
    assert sorted(top.tolist()) == sorted([hash_str("a"), hash_str("b")])
    assert most_frequent_words(tokens, 1).tolist() == [hash_str("a")]


def random_sets(rng, n, universe=60):
    rows = []
    for i in range(n):
        row = rng.integers(0, universe, size=rng.integers(0, 40))
        if i % 3 and rows:  # near copies of earlier sets
            prev = rows[rng.integers(len(rows))]
            row = np.concatenate([prev[rng.random(len(prev)) < 0.85], rng.integers(0, 10 * universe, size=3)])
        rows.append(np.unique(row).astype(np.uint64))
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum([len(r) for r in rows], out=offsets[1:])
    return HashedSets(np.concatenate(rows), offsets)


@pytest.mark.parametrize("tau", [1e-6, 0.2, 0.5, 0.75, 0.9, 1.0])
def test_exact_join_equals_brute_force(tau):
    sets = random_sets(np.random.default_rng(int(tau * 100)), 300)
    i, j = np.triu_indices(len(sets), 1)
    s = exact_jaccard(sets.hashes, sets.offsets, i, j)
    a, b, sim = similar_pairs(sets, tau)
    want = (s >= tau) & (s > 0)
    assert np.array_equal(a, i[want]) and np.array_equal(b, j[want])
    assert np.array_equal(sim, s[want])


def test_method_candidates_are_exactly_the_pairs_above_threshold(articles):
    texts = [a["text"] for a in articles]
    texts += [t[: len(t) // 2] for t in texts] + [t + " " + t[:200] for t in texts]
    m = Collection(get_method("spotsigs", threshold=0.3))
    m.add(texts[:10])
    m.add(texts[10:])
    m.finalize()
    i, j = np.triu_indices(len(texts), 1)
    s = m.score(i, j)
    a, b = m.candidate_pairs()
    keep = s >= 0.3
    assert a.shape[0] > 0 and np.array_equal(a, i[keep]) and np.array_equal(b, j[keep])


def test_deduplicator_finds_planted_near_duplicates(corpus):
    docs, truth = corpus
    result = Deduplicator(method="spotsigs", threshold=0.5).run(docs)
    assert {(p.a, p.b) for p in result.pairs} == truth
    assert result.usable.all()


def test_deterministic_and_seed_only_renames_features(corpus):
    docs, _ = corpus
    runs = [Deduplicator(method="spotsigs", threshold=0.5, seed=s).run(docs) for s in (1, 1, 7)]
    for r in runs[1:]:
        assert np.array_equal(r.a, runs[0].a) and np.array_equal(r.b, runs[0].b)
        assert np.array_equal(r.scores, runs[0].scores)


def test_top_n_antecedents_and_options(corpus):
    docs, truth = corpus
    result = Deduplicator(method="spotsigs", threshold=0.5, antecedents="top:5").run(docs)
    assert {(p.a, p.b) for p in result.pairs} == truth
    m = Collection(get_method("spotsigs", antecedents="top:2", stopwords="none"))
    m.add(["b a a c", "a b d a"])
    sk = m.finalize()
    assert sorted(sk.info["antecedent_hashes"]) == sorted([hash_str("a"), hash_str("b")])
    for bad in [{"antecedents": "top:x"}, {"antecedents": " , "}, {"distance": 0}, {"chain": 0}]:
        with pytest.raises(ValueError):
            get_method("spotsigs", **bad)


def test_documents_without_signatures_are_unusable_and_score_zero():
    m = Collection(get_method("spotsigs"))
    usable = m.add(["no antecedent words here at all", "no antecedent words here at all", "the cat sat on mats"])
    m.finalize()
    assert usable.tolist() == [False, False, True]
    assert m.score(np.array([0]), np.array([1])).tolist() == [0.0]
    assert m.candidate_pairs()[0].shape == (0,)


@pytest.mark.slow
def test_goldset_dev_quality():
    from neardup.evaluate.harness import evaluate
    from neardup.evaluate.labeled import load_labeled

    data = load_labeled(shared_data("goldset-dev"))
    report, _ = evaluate(data, "spotsigs", {})
    # whole-page ('visible') text; the paper reports 0.87 on the full GoldSet
    assert report["max_f1"] > 0.85 and report["auroc"] > 0.95


def test_cli_runs_the_new_methods(tmp_path, capsys):
    import json
    from pathlib import Path

    from neardup.cli import main

    sample = Path(__file__).resolve().parents[1] / "examples" / "sample.jsonl"
    if not sample.exists():
        pytest.skip("examples/sample.jsonl not generated yet")
    assert main(["eval", str(sample), "--compare", "spotsigs,simhash,ffp", "--json"]) == 0
    reports = json.loads(capsys.readouterr().out)
    assert [r["method"] for r in reports] == ["spotsigs", "simhash", "ffp"]
    assert all(r["max_f1"] > 0.9 for r in reports)
    out = tmp_path / "out"
    assert main(["dedup", str(sample), "-o", str(out), "--method", "spotsigs", "--chain", "2",
                 "--distance", "1", "--antecedents", "the,is", "--quiet"]) == 0
    params = json.loads((out / "summary.json").read_text())["parameters"]
    assert params["chain"] == 2 and params["distance"] == 1 and params["antecedents"] == "the,is"
