"""The evaluation protocols: split halves by cluster, training learning methods on the development side."""

from __future__ import annotations

import numpy as np
import pytest

from neardup.evaluate.curves import learning_curve
from neardup.evaluate.harness import LabeledSet, evaluate, half_splits, held_out, score_dataset
from neardup.evaluate.summary import evaluate_scores
from neardup.methods import REGISTRY
from neardup.methods.minhash import MinHashMethod
from neardup.job import RunStats

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau".split()


def _corpus(clusters: int = 8, size: int = 4, seed: int = 0) -> LabeledSet:
    """Clusters of light rewrites of random word sequences, plus singletons."""
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for c in range(clusters):
        base = rng.choice(WORDS, size=60).tolist()
        for _ in range(size):
            words = list(base)
            for p in rng.choice(len(words), size=4, replace=False):
                words[p] = str(rng.choice(WORDS))
            texts.append(" ".join(words))
            labels.append(c)
    for _ in range(6):
        texts.append(" ".join(rng.choice(WORDS, size=60)))
        labels.append(-1)
    ids = [f"d{n}" for n in range(len(texts))]
    return LabeledSet("toy", ids, texts, np.array(labels), RunStats())


class RecordingMethod(MinHashMethod):
    """MinHash that 'learns': it records what it was trained on (and scores like MinHash)."""

    name = "recording"
    learns = True
    seen: list[list[str]] = []

    def fit(self, texts, clusters) -> "RecordingMethod":
        RecordingMethod.seen.append(list(texts))
        if not (np.bincount(clusters[clusters >= 0]) > 1).any():
            raise ValueError("no near-duplicate pair")
        return self


@pytest.fixture
def recording(monkeypatch):
    RecordingMethod.seen = []
    monkeypatch.setitem(REGISTRY, "recording", RecordingMethod)
    return RecordingMethod


def test_half_splits_keep_clusters_whole_and_differ_by_seed():
    data = _corpus()
    masks = half_splits(data.cluster, 3, seed=5)
    assert len(masks) == 3
    for dev in masks:
        for c in range(8):
            assert len(set(dev[data.cluster == c].tolist())) == 1
        assert 0.25 < dev.mean() < 0.75
    assert not all(np.array_equal(masks[0], m) for m in masks[1:])
    assert all(np.array_equal(a, b) for a, b in zip(masks, half_splits(data.cluster, 3, seed=5)))


def test_labeled_pairs_are_split_by_story_not_by_document(monkeypatch):
    """Records without a cluster plus labeled pairs: the halves keep the stories the positive pairs
    make whole, so no true pair is lost between them (they were split by document)."""
    from neardup.evaluate import harness

    data = _corpus()
    i, j = np.triu_indices(len(data), k=1)
    pairs = (i, j, (data.cluster[i] == data.cluster[j]) & (data.cluster[i] >= 0))
    unlabeled = LabeledSet("pairs", data.ids, data.texts, np.full(len(data), -1), RunStats(), pairs)
    devs = []
    monkeypatch.setattr(harness, "held_out", lambda scored, dev, *args: devs.append(dev) or held_out(scored, dev, *args))
    evaluate(unlabeled, "minhash", {"shingle_size": 2}, splits=3)
    y = pairs[2]
    assert len(devs) == 3 and all(np.array_equal(dev[i[y]], dev[j[y]]) for dev in devs)
    assert all(0.25 < dev.mean() < 0.75 for dev in devs)


def test_held_out_reports_the_other_half_at_the_development_threshold():
    data = _corpus()
    scored = score_dataset(data, MinHashMethod(shingle_size=2))
    dev = half_splits(data.cluster, 1, seed=0)[0]
    out = held_out(scored, dev)
    d = scored.subset(dev)
    tuned = evaluate_scores(d.scores, d.labels, d.i, d.j, int(dev.sum()), d.clusters)
    t = scored.subset(~dev)
    direct = evaluate_scores(t.scores, t.labels, t.i, t.j, int((~dev).sum()), t.clusters, tuned["threshold"])
    assert out["threshold"] == tuned["threshold"] and out["dev_max_f1"] == tuned["max_f1"]
    assert out["f1"] == direct["f1"] and out["max_f1"] == direct["max_f1"]
    assert 0.0 <= out["candidate_recall"] <= 1.0


def test_a_learning_method_is_trained_on_the_development_half_only(recording):
    data = _corpus()
    report, _ = evaluate(data, "recording", {"shingle_size": 2}, splits=2, split_seed=3)
    assert report["splits"] == 2 and len(report["per_split"]) == 2
    assert len(recording.seen) == 2
    for dev, seen in zip(half_splits(data.cluster, 2, 3), recording.seen):
        assert seen == [t for t, d in zip(data.texts, dev) if d]
    assert report["max_f1"] > 0.9
    plain, _ = evaluate(data, "minhash", {"shingle_size": 2}, splits=2, split_seed=3)
    assert plain["max_f1"] == pytest.approx(report["max_f1"])  # same scores, same splits


def test_learning_curve_trains_on_n_documents_of_the_development_half(recording):
    data = _corpus()
    rows = learning_curve(data, "recording", {"shingle_size": 2}, sizes=(3, 12, 1000), splits=2, split_seed=1)
    assert [r["documents"] for r in rows] == [3, 12]  # 1000 exceeds every half
    sizes = sorted({len(s) for s in recording.seen})
    assert sizes == [3, 12]
    masks = half_splits(data.cluster, 2, 1)
    dev_texts = [set(t for t, d in zip(data.texts, m) if d) for m in masks]
    assert all(any(set(s) <= dt for dt in dev_texts) for s in recording.seen)
    assert all(r["runs"] == 2 for r in rows)
    assert np.isfinite(rows[1]["max_f1"])


def test_learning_curve_needs_a_learning_method():
    with pytest.raises(ValueError, match="does not learn"):
        learning_curve(_corpus(), "minhash", {}, sizes=(4,), splits=1)
