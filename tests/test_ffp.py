"""Full fingerprinting: containment and resemblance by hand, the exact join, the method."""

import numpy as np
import pytest

from neardup import Deduplicator
from neardup.features.sets import HashedSets
from neardup.index.inverted import set_similarity, similar_pairs
from neardup.methods import get_method
from neardup.methods.base import Collection

TEN = "one two three four five six seven eight nine ten"


def scored(texts, **params):
    m = Collection(get_method("ffp", **params))
    m.add(texts)
    m.finalize()
    i, j = np.triu_indices(len(texts), 1)
    return m, m.score(i, j)


def test_containment_of_a_trimmed_copy_by_hand():
    # 10 words -> 7 word 4-grams; the first 6 words -> 3 grams, all of them in the original
    trimmed = "one two three four five six"
    _, s = scored([TEN, trimmed], measure="containment")
    assert s.tolist() == [1.0]
    _, s = scored([TEN, trimmed], measure="resemblance")
    assert s.tolist() == [3 / 7]
    # one changed word breaks the 4 grams that cover it: 3 of 7 grams left in common
    _, s = scored([TEN, TEN.replace("four", "4")])
    assert s.tolist() == [3 / 7]


def test_containment_is_the_larger_direction():
    # A: 7 grams; B: A's last 5 grams plus 3 grams of its own -> |A∩B| = 5
    b = "three four five six seven eight nine ten eleven twelve thirteen"
    _, s = scored([TEN, b], measure="containment")
    assert s.tolist() == [5 / 7]  # 5/7 of A in B, 5/8 of B in A
    _, s = scored([TEN, b], measure="resemblance")
    assert s.tolist() == [5 / 10]


@pytest.mark.parametrize("tau", [1e-6, 0.3, 0.6, 0.9, 1.0])
def test_containment_join_equals_brute_force(tau):
    rng = np.random.default_rng(int(tau * 10) + 3)
    rows = []
    for n in range(300):
        row = rng.integers(0, 80, size=rng.integers(1, 50))
        if n % 2 and rows:  # trimmed copies (subsets) and copies with extra material
            prev = rows[rng.integers(len(rows))]
            row = prev[: max(1, int(len(prev) * rng.random()))]
            if n % 4 == 1:
                row = np.concatenate([row, rng.integers(0, 800, size=20)])
        rows.append(np.unique(row).astype(np.uint64))
    offsets = np.zeros(len(rows) + 1, np.int64)
    np.cumsum([len(r) for r in rows], out=offsets[1:])
    sets = HashedSets(np.concatenate(rows), offsets)
    i, j = np.triu_indices(len(rows), 1)
    s = set_similarity(sets, i, j, "containment")
    a, b, sim = similar_pairs(sets, tau, "containment")
    want = (s >= tau) & (s > 0)
    assert want.sum() > 0
    assert np.array_equal(a, i[want]) and np.array_equal(b, j[want]) and np.array_equal(sim, s[want])


@pytest.mark.parametrize("measure", ["containment", "resemblance"])
def test_deduplicator_finds_planted_near_duplicates(corpus, measure):
    docs, truth = corpus
    result = Deduplicator(method="ffp", measure=measure).run(docs)
    assert {(p.a, p.b) for p in result.pairs} == truth


def test_trimmed_copies_are_found_by_containment_only(articles):
    docs = [(a["id"], a["text"]) for a in articles]
    docs += [(a["id"] + "-lead", a["text"][: len(a["text"]) // 3]) for a in articles]
    truth = {(a["id"], a["id"] + "-lead") for a in articles}
    contained = Deduplicator(method="ffp", measure="containment", threshold=0.9).run(docs)
    assert {(p.a, p.b) for p in contained.pairs} == truth
    resembling = Deduplicator(method="ffp", measure="resemblance", threshold=0.6).run(docs)
    assert not resembling.pairs


def test_candidates_are_exactly_the_pairs_above_threshold_and_deterministic(articles):
    texts = [a["text"] for a in articles]
    texts += [t[: len(t) // 2] for t in texts] + [t[len(t) // 3 :] + " and more" for t in texts] + ["", "x"]
    for measure in ("containment", "resemblance"):
        m, s = scored(texts, measure=measure, threshold=0.4)
        i, j = np.triu_indices(len(texts), 1)
        a, b = m.candidate_pairs()
        keep = s >= 0.4
        assert np.array_equal(a, i[keep]) and np.array_equal(b, j[keep])
        m2, s2 = scored(texts, measure=measure, threshold=0.4, seed=9)
        assert np.array_equal(s, s2)
    with pytest.raises(ValueError):
        get_method("ffp", measure="overlap")
