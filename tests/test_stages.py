"""The stateless method protocol: parameters only, pure stages, and the stateful ``Collection``.

* ``Collection.add`` after ``finalize`` raises instead of silently dropping the documents;
* every method is its parameters: ``clone`` reproduces them, and a constructor validates
  but reads no file (statistics, models, query frequencies are read when first used);
* ``finish`` of any batching of the same documents gives the same candidates and scores
  (tests/test_batching.py checks the same through the Deduplicator), also with no document.
"""

from __future__ import annotations

import builtins
import io
import json

import numpy as np
import pytest

from neardup.errors import UserError
from neardup.methods import REGISTRY, get_method
from neardup.methods.base import Candidates, Collection, Method, Sketches
from neardup.stats.build import CollectionStats

#: A path replaced by the test's statistics file (exact counts of the corpus, 7-word phrases).
STATS = "<stats>"

#: Parameters of every method that take each path of its stages (``sketch`` / ``finish``),
#: at thresholds low enough that every variant reports pairs on the test corpus.
VARIANTS = {
    "minhash": [
        {"threshold": 0.5, "shingle_size": 3},
        {"threshold": 0.5, "shingle_size": 3, "exact": True},
        {"threshold": 0.5, "shingle_size": 3, "max_df": 3},
        {"threshold": 0.5, "shingle_size": 3, "candidates": "supershingles"},
    ],
    "simhash": [
        {"threshold": 0.8},
        {"threshold": 0.8, "weighting": "tfidf"},
        {"threshold": 0.8, "weighting": "uniform", "bits": 128},
    ],
    "ffp": [{"threshold": 0.3}, {"threshold": 0.3, "measure": "resemblance"}],
    "spotsigs": [{"threshold": 0.3}, {"threshold": 0.3, "antecedents": "top:5"}],
    "imatch": [
        {},
        {"lexicons": 5, "min_matches": 2},
        {"selection": "codet"},
        {"idf_scale": "percentile", "idf_min": 0.1, "idf_max": 0.9},
        {"stats": STATS},
    ],
    "wsample": [
        {"threshold": 0.3},
        {"threshold": 0.3, "exact": True},
        {"threshold": 0.3, "rare": None, "phrase_idf": "log"},
        {"threshold": 0.3, "stats": STATS},
    ],
    "andd": [
        {"model": "tfidf", "threshold": 0.5},
        {"model": "tfidf", "threshold": 0.5, "raw": False},
        {"model": "tfidf", "threshold": 0.5, "similarity": "jaccard"},
        {"model": "tfidf", "threshold": 0.5, "similarity": "jaccard", "raw": False},
    ],
}

CASES = [(name, params) for name in sorted(VARIANTS) for params in VARIANTS[name]]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in params.items()) or 'defaults'}" for name, params in CASES]


def test_every_method_is_covered():
    assert set(VARIANTS) == set(REGISTRY)


@pytest.fixture(scope="module")
def texts(corpus) -> list[str]:
    """The near-duplicate corpus plus two documents without words (unusable rows)."""
    docs, _ = corpus
    out = [t for _, t in docs]
    return out[:5] + ["", "!!!"] + out[5:]


@pytest.fixture(scope="module")
def stats_file(texts, tmp_path_factory) -> str:
    stats = CollectionStats(7)
    stats.update_texts(texts)
    path = tmp_path_factory.mktemp("stats") / "s.npz"
    stats.save(path)
    return str(path)


def make(name: str, params: dict, stats_file: str) -> Method:
    return get_method(name, **{k: stats_file if v == STATS else v for k, v in params.items()})


def finished(method: Method, texts: list[str], cuts: list[int]) -> Sketches:
    """``finish`` of the sketches of ``texts`` cut into batches at ``cuts``."""
    bounds = [0, *cuts, len(texts)]
    return method.finish([method.sketch(method.prepare(texts[lo:hi])) for lo, hi in zip(bounds, bounds[1:])])


def answers(method: Method, sk: Sketches, n: int) -> dict:
    """Everything the later stages give on ``sk``: candidates (with their scores), keys, every pair's score."""
    cands = method.candidate_pairs(sk)
    assert isinstance(cands, Candidates)
    i, j = np.triu_indices(n, 1)
    keys = method.keys(sk)
    return {
        "a": cands.a.tolist(),
        "b": cands.b.tolist(),
        "scores": None if cands.scores is None else cands.scores.tolist(),
        "score": method.score(sk, i, j).tolist(),
        "usable": sk.usable.tolist(),
        "keys": None if keys is None else (keys[0].tolist(), keys[1]),
        "verified": [x.tolist() for x in method.verified(sk)],
    }


# -- (1) Collection: add, finalize once, then query ----------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_adding_after_finalize_raises_and_keeps_the_finished_sketches(name, texts, stats_file):
    method = make(name, VARIANTS[name][0], stats_file)
    c = Collection(method)
    usable = c.add(texts[:10])
    assert usable.shape == (10,) and usable[5:7].tolist() == [False, False]  # "" and "!!!" have no words
    c.add(texts[10:])
    assert len(c) == len(texts)
    sk = c.finalize()
    assert c.sketches_ is sk and c.finalize() is sk and len(sk) == len(texts)
    before = answers(method, sk, len(texts))
    with pytest.raises(RuntimeError, match="after finalize"):
        c.add(["one more document, which the finished sketches would not include"])
    with pytest.raises(RuntimeError, match="after finalize"):
        c.add([])
    # nothing was taken in: the same sketches, the same answers
    assert c.finalize() is sk and len(c) == len(texts)
    assert answers(method, c.finalize(), len(texts)) == before
    a, b = c.candidate_pairs()
    assert a.tolist() == before["a"] and b.tolist() == before["b"]
    i, j = np.triu_indices(len(texts), 1)
    assert c.score(i, j).tolist() == before["score"]
    assert [x.tolist() for x in c.pairs()] == before["verified"]


# -- (2) a method is its parameters ---------------------------------------------------------


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_clone_has_the_same_parameters(name, params, stats_file):
    m = make(name, params, stats_file)
    json.dumps(m.get_params())  # JSON-serializable, as reports write them
    twin = m.clone()
    assert type(twin) is type(m) and twin is not m
    assert twin.get_params() == m.get_params()
    assert twin.decision_threshold() == m.decision_threshold()
    changed = m.clone(threshold=0.42)
    assert changed.get_params() == {**m.get_params(), "threshold": 0.42}
    assert m.get_params() == make(name, params, stats_file).get_params()  # the original is untouched


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_defaults_clone_and_rebuild_from_params(name):
    m = get_method(name)
    assert m.clone().get_params() == m.get_params()
    assert type(m)(**m.get_params()).get_params() == m.get_params()


def test_clone_drops_learned_state():
    from neardup.learn.andd import ANDDModel
    from neardup.methods.andd import ANDDMethod

    fitted = ANDDMethod.from_model(ANDDModel.fixed("binary"), raw=True)
    assert fitted.weighting().info == {"fixed": "binary"}
    twin = fitted.clone()
    assert twin.get_params() == fitted.get_params()
    assert getattr(twin, "model_", None) is None  # parameters only: the shipped default model again
    assert fitted.model_ is not None  # the original keeps what it learned


@pytest.mark.parametrize("name", ["imatch", "wsample"])
def test_a_missing_statistics_file_is_refused_at_construction(name, tmp_path):
    missing = tmp_path / "missing.npz"
    with pytest.raises(UserError, match=f"stats file {missing} not found"):
        get_method(name, stats=str(missing))


def test_constructors_read_no_file(tmp_path, stats_file):
    import neardup.methods.andd as andd
    import neardup.methods.imatch as imatch
    import neardup.methods.wsample as wsample
    from neardup.learn.andd import ANDDModel

    qf = tmp_path / "qf.tsv"
    qf.write_text("bridge\t3\n")
    model = tmp_path / "model.json"
    ANDDModel.fixed("tfidf").save(model)

    def refuse(*args, **kwargs):
        raise AssertionError(f"a method constructor read a file: {args!r}")

    with pytest.MonkeyPatch.context() as mp:  # every way of reading a file, and the methods' cached loaders
        for module, attr in [(builtins, "open"), (io, "open"), (np, "load"), (andd, "load_model"),
                             (andd, "load_query_frequencies"), (imatch, "load_df"), (wsample, "load_stats")]:
            mp.setattr(module, attr, refuse)
        built = [get_method(name) for name in sorted(REGISTRY)]
        built += [make(name, params, stats_file) for name, params in CASES]
        built += [get_method("andd", qf=str(qf)), get_method("andd", model=str(model)),
                  get_method("andd", model=str(tmp_path / "no-such-model.json"))]
        built += [m.clone() for m in built]
    assert len(built) == 2 * (len(REGISTRY) + len(CASES) + 3)


def test_query_frequencies_are_read_when_used_not_when_constructed(tmp_path, texts):
    qf = tmp_path / "qf.tsv"
    qf.write_text("bridge\t3\nharbor\t5\n")
    m = get_method("andd", model="tfidf", qf=str(qf))
    qf.unlink()
    again = get_method("andd", model="tfidf", qf=str(qf))  # constructing needs no file ...
    assert again.get_params() == m.get_params() == m.clone().get_params()
    c = Collection(m)
    c.add(texts)  # ... nor does sketching (the query frequencies weigh k-grams at finish)
    with pytest.raises(OSError):
        c.finalize()  # using it does
    qf.write_text("bridge\t3\nharbor\t5\n")
    sk = Collection(again)
    sk.add(texts)
    assert len(sk.finalize()) == len(texts)
    assert again.query_frequencies().source == str(qf)


def test_a_model_file_is_read_when_used_not_when_constructed(tmp_path):
    path = tmp_path / "model.json"
    m = get_method("andd", model=str(path), similarity="jaccard")  # no file yet
    with pytest.raises(UserError, match="not a neardup ANDD model"):
        m.weighting()
    from neardup.learn.andd import ANDDModel

    ANDDModel.fixed("binary", 1, "jaccard").save(path)
    later = get_method("andd", model=str(path), similarity="jaccard")
    assert later.weighting().info == {"fixed": "binary"}


# -- (3) stages: any batching, the same answer ---------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_any_batching_gives_the_same_candidates_and_scores(name, params, texts, stats_file):
    m = make(name, params, stats_file)
    n = len(texts)
    whole = answers(m, finished(m, texts, []), n)
    assert whole["verified"][0], f"{name} {params} found no pairs: the test would prove nothing"
    for cuts in ([1], [5, 6, 7], [3, 11, 12, 20], list(range(1, n)), [n - 1]):
        assert answers(m, finished(m, texts, cuts), n) == whole, cuts
    # the stateful form is the same chain of stages
    c = Collection(m)
    for lo in range(0, n, 4):
        c.add(texts[lo : lo + 4])
    assert answers(m, c.finalize(), n) == whole


@pytest.mark.slow
@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_an_empty_batch_changes_nothing(name, params, texts, stats_file):
    m = make(name, params, stats_file)
    n = len(texts)
    whole = answers(m, finished(m, texts, []), n)
    parts = [m.sketch(m.prepare(texts[:6])), m.sketch(m.prepare([])), m.sketch(m.prepare(texts[6:]))]
    assert answers(m, m.finish(parts), n) == whole


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_no_documents_give_no_pairs(name, params, stats_file):
    m = make(name, params, stats_file)
    none = np.zeros(0, np.int64)
    for sk in (m.finish([]), m.finish([m.sketch(m.prepare([]))]), Collection(m).finalize()):
        assert len(sk) == 0
        a, b, _ = m.candidate_pairs(sk)
        assert a.shape == b.shape == (0,)
        assert m.score(sk, none, none).shape == (0,)
        assert [x.shape for x in m.verified(sk)] == [(0,), (0,), (0,)]
