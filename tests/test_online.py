"""The online index: answers equal dedup's, whatever the batching; it survives reopening and kill -9;
windows evict; remove; refused methods, foreign and damaged files give clear errors."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from neardup import Deduplicator
from neardup.cli import main
from neardup.errors import InputError, UserError
from neardup.evaluate.corpora import shipped_articles
from neardup.evaluate.synth import simulate
from neardup.online import Index

ROOT = Path(__file__).resolve().parents[1]

#: Online methods and settings that make each report pairs on the test corpus.
ONLINE = {
    "minhash": {"threshold": 0.5, "shingle_size": 3},
    "ffp": {},
    "spotsigs": {},
    "simhash": {"weighting": "uniform", "threshold": 0.85},
    "minhash-exact": {"threshold": 0.5, "exact": True},
    "minhash-supershingles": {"threshold": 0.5, "candidates": "supershingles"},
    "ffp-resemblance": {"measure": "resemblance", "threshold": 0.3},
}


def _method(key: str) -> tuple[str, dict]:
    return key.split("-")[0], ONLINE[key]


@pytest.fixture(scope="module")
def docs() -> list[dict]:
    """A simulated corpus: 240 pages of syndicated stories (text as extracted), in time order."""
    out = []
    for kind, doc in simulate(shipped_articles(), seed=5, n_docs=240):
        if kind == "doc":
            out.append({"id": doc["id"], "text": doc["text"], "time": doc["time"]})
    return out


def _dedup_pairs(docs: list[dict], name: str, params: dict) -> set[tuple[str, str, float]]:
    result = Deduplicator(method=name, relations=False, **params).run(docs)
    return {(p.a, p.b, p.score) for p in result.pairs}


def _pairs(checked) -> set[tuple[str, str, float]]:
    return {(m.id, c.id, m.score) for c in checked for m in c.matches}


def _dump(path: Path) -> dict:
    """Everything an index holds but the arrival times: documents with their sketch bytes, keys, postings."""
    db = sqlite3.connect(path / "index.sqlite")
    try:
        return {
            "docs": db.execute("SELECT seq, id, time, size, cols, lists FROM docs ORDER BY seq").fetchall(),
            "keys": db.execute("SELECT key, slot, seq FROM keys ORDER BY key, slot, seq").fetchall(),
            "postings": db.execute("SELECT hash, seq FROM postings ORDER BY hash, seq").fetchall(),
        }
    finally:
        db.close()


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(ONLINE))
def test_adding_one_at_a_time_equals_dedup(tmp_path, docs, key):
    name, params = _method(key)
    want = _dedup_pairs(docs, name, params)
    assert len(want) > 20, f"{key}: too few pairs for the test to mean anything"
    with Index.create(tmp_path / "ix", method=name, **params) as index:
        got, kept = set(), 0
        for doc in docs:
            got |= _pairs(index.add([doc]))
            kept += index.last_stats.kept
        assert len(index) == kept >= len(docs) - 2  # spotsigs: a page without a signature is not stored
    assert got == want


@pytest.mark.slow
@pytest.mark.parametrize("key", ["minhash", "ffp"])
def test_any_batch_sizes_give_the_same_answers_and_index(tmp_path, docs, key):
    name, params = _method(key)
    rng = random.Random(3)
    answers, dumps = [], []
    for run, sizes in enumerate(([1], [7], [len(docs)], None)):
        path = tmp_path / f"ix{run}"
        with Index.create(path, method=name, **params) as index:
            at, checked = 0, []
            while at < len(docs):
                n = sizes[0] if sizes else rng.randint(1, 60)
                checked += index.add(docs[at:at + n])
                at += n
        answers.append(sorted((c.id, [(m.id, m.score, m.relation) for m in c.matches]) for c in checked))
        dumps.append(_dump(path))
    assert all(a == answers[0] for a in answers[1:])
    assert all(d == dumps[0] for d in dumps[1:])
    assert _pairs_from(answers[0]) == _dedup_pairs(docs, name, params)


def _pairs_from(answers) -> set:
    return {(m[0], doc, m[1]) for doc, matches in answers for m in matches}


def test_reopen_and_query(tmp_path, docs):
    path = tmp_path / "ix"
    with Index.create(path, method="minhash", threshold=0.5, shingle_size=3) as index:
        index.add(docs[:200])
    with Index.open(path, write=False) as index:
        assert len(index) == 200
        assert index.method.get_params()["shingle_size"] == 3
        found = index.query(docs[150:240])
        again = index.query(docs[150:240])
    assert [c.as_dict() for c in found] == [c.as_dict() for c in again]
    by_id = {c.id: c for c in found}
    for doc in docs[150:200]:  # a stored document finds itself, at score 1
        assert (doc["id"], 1.0) in [(m.id, m.score) for m in by_id[doc["id"]].matches]
    with Index.open(path) as index:  # what query said is what add does, for documents not yet stored
        added = {c.id: c for c in index.add(docs[200:240])}
    for doc in docs[200:240]:
        stored_matches = [m.id for m in by_id[doc["id"]].matches]
        assert stored_matches == [m.id for m in added[doc["id"]].matches if m.id in stored_matches]


def test_relations_say_which_side_contains_which(tmp_path):
    base = " ".join(f"w{i}" for i in range(200))
    with Index.create(tmp_path / "ix", method="ffp") as index:
        index.add([("long", base), ("other", " ".join(f"z{i}" for i in range(50)))])
        [short] = index.add([("short", " ".join(base.split()[:60]))])
        [same] = index.add([("same", base)])
    m = short.matches[0]
    assert (m.id, m.relation, m.new_in_match) == ("long", "contained", 1.0)
    assert m.match_in_new == pytest.approx(57 / 197)
    assert [(x.id, x.relation) for x in same.matches] == [("long", "duplicate"), ("short", "contains")]


def test_count_window_keeps_and_compares_the_last_n(tmp_path, docs):
    n = 30
    with Index.create(tmp_path / "ix", method="ffp", window=n) as index:
        got = set()
        for at in range(0, len(docs), 17):
            got |= _pairs(index.add(docs[at:at + 17]))
        assert len(index) == n
        assert [d["id"] for d in docs[-n:]] == [r[0] for r in index.store.db.execute("SELECT id FROM docs ORDER BY seq")]
        assert index.check() == []
    order = {d["id"]: i for i, d in enumerate(docs)}
    want = {p for p in _dedup_pairs(docs, "ffp", {}) if order[p[1]] - order[p[0]] <= n}
    assert got == want


def test_time_window_evicts_by_the_time_field(tmp_path):
    day = 86400.0
    text = "the council approved the new harbor bridge after a long debate on tuesday evening"
    with Index.create(tmp_path / "ix", method="ffp", window="2d") as index:
        index.add([{"id": "d0", "text": text, "time": 0.0}])
        [c] = index.add([{"id": "d1", "text": text, "time": 1.5 * day}])
        assert [m.id for m in c.matches] == ["d0"]
        [c] = index.add([{"id": "d2", "text": text, "time": 2.6 * day}])  # d0 is 2.6 days older: out
        assert [m.id for m in c.matches] == ["d1"]
        assert "d0" not in index and len(index) == 2
        [c] = index.add([{"id": "d3", "text": text, "time": "1970-01-05T00:00:00Z"}])  # 4 days: d1 out
        assert [m.id for m in c.matches] == ["d2"]
        assert sorted(r[0] for r in index.store.db.execute("SELECT id FROM docs")) == ["d2", "d3"]
        index.add([{"id": "bad", "text": text, "time": "yesterday"}])
        assert index.last_stats.reasons["invalid time"] == 1


@pytest.mark.slow
def test_remove_forgets_the_document_and_its_keys(tmp_path, docs):
    with Index.create(tmp_path / "ix", method="minhash", threshold=0.5, shingle_size=3) as index:
        checked = index.add(docs[:120])
        hit = next(c for c in checked if c.matches)
        partner = hit.matches[0].id
        assert index.remove([partner, "no-such-id"]) == [partner]
        assert partner not in index and len(index) == 119
        assert partner not in [m.id for m in index.query([docs[[d["id"] for d in docs].index(hit.id)]])[0].matches]
        assert index.check() == []
        again = index.add([docs[[d["id"] for d in docs].index(partner)]])  # an id removed can be added again
        assert again[0].added and len(index) == 120


def test_rejections_and_strict(tmp_path, docs):
    with Index.create(tmp_path / "ix", method="ffp") as index:
        index.add(docs[:5])
        index.add([docs[0], {"id": "e", "text": "   "}, {"id": "x"}, ("p", "!!! ???")])
        assert dict(index.last_stats.reasons) == {"duplicate id": 1, "missing text": 1, "empty text": 1,
                                                  "no words": 1}
        before = _dump(index.path)
        with pytest.raises(InputError, match="already in the index"):
            index.add([docs[10], docs[1]], strict=True)
        with pytest.raises(InputError, match="no words"):
            index.add([docs[10], ("p", "!!!")], strict=True)
        assert _dump(index.path) == before and len(index) == 5


@pytest.mark.parametrize("name, params", [("wsample", {}), ("imatch", {"lexicons": 8, "min_matches": 1})])
def test_methods_with_a_statistics_file_run_online(tmp_path, docs, name, params):
    """With fixed statistics a document's sketch no longer depends on the others (the method says so:
    ``corpus_statistics()`` is None), so the index serves it with dedup's answers."""
    from neardup.stats.build import build_stats

    (tmp_path / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    build_stats([tmp_path / "docs.jsonl"], tmp_path / "stats.npz")
    params = {**params, "stats": str(tmp_path / "stats.npz")}
    want = _dedup_pairs(docs, name, params)
    assert len(want) > 20
    with Index.create(tmp_path / "ix", method=name, **params) as index:
        got = set()
        for doc in docs:
            got |= _pairs(index.add([doc]))
    assert got == want


def test_methods_that_need_the_whole_collection_are_refused(tmp_path):
    for name, params in [("imatch", {}), ("wsample", {}), ("andd", {}), ("simhash", {}),
                         ("spotsigs", {"antecedents": "top:5"}), ("minhash", {"max_df": 10})]:
        with pytest.raises(UserError, match="cannot run online"):
            Index.create(tmp_path / name, method=name, **params)
        assert not (tmp_path / name / "index.sqlite").exists()


def test_one_writer_many_readers(tmp_path, docs):
    path = tmp_path / "ix"
    with Index.create(path, method="ffp") as writer:
        writer.add(docs[:10])
        with pytest.raises(UserError, match="open for writing in this process"):
            Index.open(path)
        with Index.open(path, write=False) as reader:
            assert len(reader) == 10
            writer.add(docs[10:20])
            assert len(reader) == 20  # a reader sees each committed batch
            with pytest.raises(UserError, match="reading only"):
                reader.add(docs[20:21])
    with Index.open(path) as again:  # the lock went with the writer
        assert len(again) == 20


def test_foreign_damaged_newer_and_missing_files_give_clear_errors(tmp_path, docs):
    with pytest.raises(UserError, match="no index at"):
        Index.open(tmp_path / "none")
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "index.sqlite").write_bytes(os.urandom(8192))
    with pytest.raises(UserError, match="not a neardup index, or damaged"):
        Index.open(junk)
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    db = sqlite3.connect(foreign / "index.sqlite")
    db.execute("CREATE TABLE t(x)")
    db.commit()
    db.close()
    with pytest.raises(UserError, match="another program"):
        Index.open(foreign)
    path = tmp_path / "ix"
    with Index.create(path, method="ffp") as index:
        index.add(docs[:50])
    db = sqlite3.connect(path / "index.sqlite")
    db.execute("UPDATE meta SET value = '3' WHERE key = 'version'")
    db.commit()
    db.close()
    with pytest.raises(UserError, match="newer than this neardup reads") as raised:
        Index.open(path)
    assert str(path) in str(raised.value)  # every message names the index
    db = sqlite3.connect(path / "index.sqlite")
    db.execute("UPDATE meta SET value = '1' WHERE key = 'version'")
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    raw = bytearray((path / "index.sqlite").read_bytes())
    raw[100:4096] = os.urandom(3996)  # the first page's schema
    (path / "index.sqlite").write_bytes(bytes(raw))
    with pytest.raises(UserError, match="damaged"):
        Index.open(path)
    with pytest.raises(UserError, match="already holds an index"):
        Index.create(path, method="ffp")


KILLED_WRITER = r"""
import sys, json
from neardup.online import Index
docs = [json.loads(line) for line in open(sys.argv[2])]
with Index.open(sys.argv[1]) as index:
    for at in range(0, len(docs), 7):
        batch = docs[at:at + 7]
        index.add(batch)
        print(" ".join(d["id"] for d in batch), flush=True)   # acknowledged: committed
"""


@pytest.mark.slow
@pytest.mark.parametrize("partial", [False, True])
def test_kill_9_during_a_bulk_add_loses_no_acknowledged_document(tmp_path, docs, partial):
    """With --partial too: a document's seeds and word offsets commit with it (``check`` counts them)."""
    source = tmp_path / "docs.jsonl"
    many = [{**d, "id": f"{d['id']}-{k}"} for k in range(4) for d in docs]
    source.write_text("".join(json.dumps(d) + "\n" for d in many))
    rng = random.Random(11)
    path = tmp_path / "ix"
    Index.create(path, method="minhash", threshold=0.5, shingle_size=3, partial=partial).close()
    acknowledged: list[str] = []
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for run in range(20):
        proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(path), str(source)], stdout=subprocess.PIPE,
                                env=env, text=True)
        if run % 4 == 0:  # during start-up or the first batch, whatever the machine's load
            time.sleep(rng.uniform(0.2, 1.5))
        else:  # after the first acknowledged batch: during a later batch or between two
            first = proc.stdout.readline()
            acknowledged += first.split()
            time.sleep(rng.uniform(0.0, 0.4))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        acknowledged += out.split()
        with Index.open(path, write=False) as index:
            assert index.check() == []  # no half-written document: each has its sketch and all its keys
            stored = {r[0] for r in index.store.reader().execute("SELECT id FROM docs")}
            assert set(acknowledged) <= stored
        if len(stored) == len(many):
            break
    assert acknowledged, "no run lived long enough to acknowledge a batch"
    by_id = {d["id"]: d for d in many}
    with Index.open(path, write=False) as index:
        found = index.query([by_id[i] for i in acknowledged[-20:]])
    assert all(c.id in [m.id for m in c.matches] for c in found)


@pytest.mark.slow
def test_cli_create_add_query_info_remove_compact(tmp_path, capsys):
    ix, sample = str(tmp_path / "ix"), str(ROOT / "examples" / "sample.jsonl")
    assert main(["index", "create", ix, "--method", "minhash", "--threshold", "0.5"]) == 0
    assert main(["index", "add", ix, sample, "-o", str(tmp_path / "out")]) == 0
    rows = [json.loads(line) for line in (tmp_path / "out" / "matches.jsonl").read_text().splitlines()]
    assert len(rows) == 48 and all(r["added"] for r in rows)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["documents"]["read"] == 48 and summary["added"] == 48 and summary["index_documents_after"] == 48
    want = _dedup_pairs([json.loads(x) for x in Path(sample).read_text().splitlines()], "minhash", {"threshold": 0.5})
    assert {(m["id"], r["id"], m["score"]) for r in rows for m in r["matches"]} == {
        (a, b, round(s, 6)) for a, b, s in want}
    assert main(["index", "add", ix, sample, "-o", str(tmp_path / "again")]) == 2  # nothing new: no usable record
    assert "duplicate id" in capsys.readouterr().err
    assert main(["index", "query", ix, sample, "-o", str(tmp_path / "q")]) == 0
    assert main(["index", "remove", ix, "d00000001", "d00000007"]) == 0
    assert main(["index", "compact", ix]) == 0
    capsys.readouterr()
    assert main(["index", "info", ix, "--check", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["documents"] == 46 and info["problems"] == [] and info["method"] == "minhash"
    assert main(["index", "create", str(tmp_path / "im"), "--method", "imatch"]) == 2
    assert "cannot run online" in capsys.readouterr().err
    assert main(["index", "add", ix, sample, "-o", str(tmp_path / "h"), "--extract", "none"]) == 2
    capsys.readouterr()
    # an index made with another extractor needs no --extract at every add: it is the index's
    other = str(tmp_path / "none")
    assert main(["index", "create", other, "--extract", "none"]) == 0
    assert main(["index", "add", other, sample, "-o", str(tmp_path / "n"), "--quiet"]) == 0, capsys.readouterr().err
    assert main(["index", "query", other, sample, "-o", str(tmp_path / "nq"), "--quiet", "--extract", "none"]) == 0
    assert json.loads((tmp_path / "n" / "summary.json").read_text())["parameters"]["extract"] == "none"


def test_document_frequencies_update_as_documents_arrive(tmp_path):
    from neardup.features.shingles import word_shingles

    with Index.create(tmp_path / "ix", method="ffp") as index:
        index.add([("a", "one two three four five six"), ("b", "one two three four seven eight")])
        sets, _ = word_shingles(["one two three four"], 4, seed=index.method.seed)
        assert index.document_frequencies(sets.hashes).tolist() == [2]
        index.add([("c", "one two three four")])
        assert index.document_frequencies(np.concatenate([sets.hashes, [np.uint64(7)]])).tolist() == [3, 0]


def test_the_method_level_collection_refuses_adds_after_finalize():
    from neardup.methods import get_method
    from neardup.methods.base import Collection

    c = Collection(get_method("minhash"))
    c.add(["one two three four five six seven"])
    c.finalize()
    with pytest.raises(RuntimeError, match="after finalize"):
        c.add(["eight nine ten eleven twelve thirteen"])
    assert len(c) == 1


# ---------------------------------------------------------------------------- --partial: copied passages

COPY = ("the harbour authority confirmed on friday that the northern pier will close for repairs "
        "until the end of march, and ferries will dock at the old terminal instead")


def _spans(checked) -> dict[tuple[str, str], list[tuple]]:
    """``(earlier id, new id) -> [(chars in earlier, chars in new, words earlier, words new, similarity)]``."""
    return {(p.id, c.id): [(q.b_chars, q.a_chars, q.b_words, q.a_words, q.similarity) for q in p.passages]
            for c in checked for p in (c.partials or [])}


def _offline(path: Path) -> dict[tuple[str, str], list[tuple]]:
    """``neardup partial``'s passages as :func:`_spans` gives the index's (``a``: the earlier document)."""
    rows = [json.loads(line) for line in (path / "partials.jsonl").read_text().splitlines()]
    return {(r["a"], r["b"]): [(tuple(s["a_chars"]), tuple(s["b_chars"]), s["a_words"], s["b_words"], s["similarity"])
                               for s in r["spans"]] for r in rows}


@pytest.mark.slow
def test_partial_passages_are_located_at_exact_character_offsets(tmp_path):
    stored = "Weather: rain all week in the valley, say forecasters. " + COPY.capitalize() + ". Sports follow below."
    new = "In other local news, a bakery opened on Main Street. Also, " + COPY + " -- officials said."
    unrelated = "Stock markets rose sharply in early trading as investors welcomed the central bank decision."
    with Index.create(tmp_path / "ix", partial=True) as index:
        index.add([{"id": "old", "text": stored}, {"id": "other", "text": unrelated}])
        [checked] = index.add([{"id": "new", "text": new}])
        [asked] = index.query([{"id": "q", "text": new}])
        assert index.info()["partial"]["max_df"] == 50 and index.info()["version"] == 2
    assert [p.id for p in checked.partials] == ["old"]
    [p] = checked.partials[0].passages
    assert new[slice(*p.a_chars)] == COPY  # a: the new document
    assert stored[slice(*p.b_chars)] == COPY.capitalize()  # b: the stored one (words compared lower-cased)
    assert p.a_words == p.b_words == len(COPY.split()) and p.similarity == 1.0
    assert checked.partials[0].coverage_match == round(len(COPY.split()) / len(stored.split()), 6)
    assert asked.partials[0].as_dict() == checked.partials[0].as_dict()  # query finds the same, and the new one itself
    assert [q.id for q in asked.partials] == ["old", "new"]
    with Index.create(tmp_path / "iy", partial=True) as index:  # an earlier document of the same batch
        got = index.add([{"id": "old", "text": stored}, {"id": "new", "text": new}])
    assert got[1].partials[0].as_dict() == checked.partials[0].as_dict() and got[0].partials == []
    with Index.create(tmp_path / "iz") as index:  # without --partial: no "partials" in the answers, format 1
        assert "partials" not in index.add([{"id": "old", "text": stored}])[0].as_dict()
        assert index.info()["version"] == 1


@pytest.mark.slow
def test_partial_one_at_a_time_equals_neardup_partial_on_the_sample(tmp_path):
    sample = str(ROOT / "examples" / "sample.jsonl")
    assert main(["partial", sample, "-o", str(tmp_path / "offline"), "--quiet"]) == 0
    want = _offline(tmp_path / "offline")
    assert len(want) > 20
    assert main(["index", "create", str(tmp_path / "ix"), "--partial"]) == 0
    assert main(["index", "add", str(tmp_path / "ix"), sample, "-o", str(tmp_path / "on"), "--batch-size", "1",
                 "--quiet"]) == 0
    rows = [json.loads(line) for line in (tmp_path / "on" / "matches.jsonl").read_text().splitlines()]
    got = {(p["id"], r["id"]): [(tuple(s["b_chars"]), tuple(s["a_chars"]), s["b_words"], s["a_words"], s["similarity"])
                                for s in p["passages"]] for r in rows for p in r["partials"]}
    assert got == want
    summary = json.loads((tmp_path / "on" / "summary.json").read_text())
    assert summary["partials"] == len(want) and summary["passages"] == sum(map(len, want.values()))
    records = [{"id": r["id"], "text": r["text"]} for r in map(json.loads, Path(sample).read_text().splitlines())]
    with Index.create(tmp_path / "iy", partial=True) as index:  # batches do not change the answers
        assert _spans(index.add(records[:5]) + index.add(records[5:30], batch_size=7) + index.add(records[30:])) == want


@pytest.mark.slow
def test_partial_answers_are_neardup_partial_on_what_the_index_held(tmp_path):
    """With a cap that bites (max_df 3), a document's passages are the aligner's on the documents before it plus it."""
    from neardup.align.aligner import AlignParams, align

    records = [{"id": r["id"], "text": r["text"]}
               for r in map(json.loads, (ROOT / "examples" / "sample.jsonl").read_text().splitlines())]
    params = AlignParams(max_df=3)
    want: dict[tuple[str, str], list[tuple]] = {}
    for i in range(1, len(records)):
        for a, b, passages in align([r["text"] for r in records[:i + 1]], params):
            if b == i:
                want[(records[a]["id"], records[b]["id"])] = [
                    (p.a_chars, p.b_chars, p.a_words, p.b_words, p.similarity) for p in passages]
    whole = {(records[a]["id"], records[b]["id"]) for a, b, _ in align([r["text"] for r in records], params)}
    assert set(want) != whole  # the cap bites: the whole corpus drops seeds that were not yet boilerplate
    for sizes in (1, len(records)):
        with Index.create(tmp_path / f"ix{sizes}", partial=params) as index:
            assert _spans(index.add(records, batch_size=sizes)) == want


def _seed_rows(path: Path) -> list[tuple[int, int]]:
    db = sqlite3.connect(path / "index.sqlite")
    try:
        return db.execute("SELECT seq, count(*) FROM seeds GROUP BY seq ORDER BY seq").fetchall()
    finally:
        db.close()


def test_partial_remove_and_window_eviction_drop_the_seeds(tmp_path):
    stored = "Weather: rain all week in the valley, say forecasters. " + COPY
    new = "In other local news, a bakery opened on Main Street. " + COPY
    with Index.create(tmp_path / "ix", partial=True) as index:
        index.add([{"id": "old", "text": stored}, {"id": "keep", "text": "Unrelated words about the markets " * 3}])
        assert [s for s, _ in _seed_rows(tmp_path / "ix")] == [0, 1]
        assert index.remove(["old"]) == ["old"]
        assert [s for s, _ in _seed_rows(tmp_path / "ix")] == [1]
        assert index.query([{"id": "new", "text": new}])[0].partials == []
        assert index.check() == [] and index.info()["seed_rows"] == _seed_rows(tmp_path / "ix")[0][1]
    with Index.create(tmp_path / "iw", partial=True, window=2) as index:
        texts = [f"Story {k}: " + COPY for k in range(5)]
        answers = index.add([{"id": f"d{k}", "text": t} for k, t in enumerate(texts)], batch_size=1)
        assert [s for s, _ in _seed_rows(tmp_path / "iw")] == [3, 4]  # the last 2 documents' seeds only
        assert [[p.id for p in c.partials] for c in answers] == [[], ["d0"], ["d0", "d1"], ["d1", "d2"], ["d2", "d3"]]
        assert index.check() == []
        index.compact()
        assert index.check() == [] and len(index) == 2


def test_partial_index_format_and_cli(tmp_path, capsys):
    ix = str(tmp_path / "ix")
    assert main(["index", "create", ix, "--partial", "--partial-max-df", "20", "--method", "minhash",
                 "--threshold", "0.5"]) == 0
    assert main(["index", "add", ix, str(ROOT / "examples" / "sample.jsonl"), "-o", str(tmp_path / "out")]) == 0
    assert "passages" in capsys.readouterr().err
    assert main(["index", "info", ix, "--check"]) == 0
    out = capsys.readouterr().out
    assert "max_df=20" in out and "check      ok" in out
    assert main(["index", "create", str(tmp_path / "iy"), "--partial-max-df", "20"]) == 2  # knobs need --partial
    db = sqlite3.connect(tmp_path / "ix" / "index.sqlite")
    db.execute("UPDATE meta SET value = '1' WHERE key = 'version'")  # a version-1 file cannot hold --partial
    db.commit()
    db.close()
    with pytest.raises(UserError, match="cannot hold --partial"):
        Index.open(ix)


def _page(words: str) -> str:
    return f"<html><body><article><p>{(words + ' ') * 5}</p></article></body></html>"


@pytest.mark.slow
def test_crawl_folders_added_one_run_at_a_time_keep_every_page(tmp_path, capsys, monkeypatch):
    # issue 29 item 1: with one input per run ids were relative to the folder, so crawl/day2/index.html was
    # refused as a duplicate of crawl/day1/index.html (exit 2, one document stored)
    monkeypatch.chdir(tmp_path)
    for day, words in (("day1", "The city council voted to build a new bridge across the harbor on Tuesday."),
                       ("day2", "A small bakery in the old town raised the price of its bread for the first time.")):
        Path("crawl", day).mkdir(parents=True)
        Path("crawl", day, "index.html").write_text(_page(words))
    assert main(["index", "create", "ix"]) == 0
    assert main(["index", "add", "ix", "crawl/day1", "-o", "o1"]) == 0
    assert main(["index", "add", "ix", "crawl/day2", "-o", "o2"]) == 0
    with Index.open("ix", write=False) as index:
        assert len(index) == 2 and "crawl/day1/index.html" in index and "crawl/day2/index.html" in index
    capsys.readouterr()

    # a repeated id is the user's choice: fail (the default), skip or replace -- never lost silently
    Path("crawl", "day2", "index.html").write_text(_page("The bakery in the old town raised the price of its bread "
                                                         "again this week, the second time in a month."))
    assert main(["index", "add", "ix", "crawl/day2", "-o", "o3"]) == 2
    assert "crawl/day2/index.html is already in the index" in capsys.readouterr().err
    assert main(["index", "add", "ix", "crawl/day2", "-o", "o3", "--on-duplicate-id", "skip"]) == 0
    docs = json.loads(Path("o3", "summary.json").read_text())["documents"]
    assert docs["kept"] == 0 and docs["skipped_by_reason"] == {"id already in the index": 1}
    assert main(["index", "add", "ix", "crawl/day2", "-o", "o4", "--on-duplicate-id", "replace"]) == 0
    summary = json.loads(Path("o4", "summary.json").read_text())
    assert summary["added"] == 1 and summary["index_documents_after"] == 2
    assert summary["documents"]["notes"] == {"documents replaced (--on-duplicate-id replace)": 1}
    assert main(["index", "query", "ix", "crawl/day2", "-o", "q"]) == 0
    (row,) = [json.loads(x) for x in Path("q", "matches.jsonl").read_text().splitlines()]
    assert row["id"] == "crawl/day2/index.html" and [m["id"] for m in row["matches"]] == ["crawl/day2/index.html"]
    assert [m["score"] for m in row["matches"]] == [1.0]  # the stored version is the new one

    # other id schemes: relative to the folder (the old behaviour), or absolute
    assert main(["index", "add", "ix", "crawl/day1", "-o", "o5", "--file-ids", "relative"]) == 0
    assert main(["index", "add", "ix", "crawl/day1", "-o", "o6", "--file-ids", "absolute"]) == 0
    with Index.open("ix", write=False) as index:
        assert "index.html" in index and str(tmp_path / "crawl" / "day1" / "index.html") in index


def test_a_time_window_that_evicts_nearly_everything_warns(tmp_path, capsys):
    # issue 29 item 10: one record dated today, the rest years older: a --window 7d index evicted all but one, silently
    from datetime import UTC, datetime

    today = datetime.now(UTC).isoformat()
    rows = [{"id": f"old-{k}", "text": f"Story number {k} about the harbor bridge vote and its cost {k}.",
             "time": f"2015-03-{k + 1:02d}T10:00:00Z"} for k in range(20)]
    rows.append({"id": "new", "text": "A story of today about a bakery raising its bread prices.", "time": today})
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    ix = str(tmp_path / "ix")
    assert main(["index", "create", ix, "--window", "7d"]) == 0
    assert main(["index", "add", ix, str(path), "-o", str(tmp_path / "o")]) == 0
    err = capsys.readouterr().err
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["evicted"] == 20 and summary["index_documents_after"] == 1
    (warning,) = summary["warnings"]
    assert "the --window 7d evicted 20 of 21 documents in this run" in warning and f"warning    {warning}" in err
    # documents within the window: no warning
    fresh = [{**r, "id": f"fresh-{r['id']}", "time": today} for r in rows]
    path.write_text("".join(json.dumps(r) + "\n" for r in fresh))
    assert main(["index", "add", ix, str(path), "-o", str(tmp_path / "o2"), "--quiet"]) == 0
    assert json.loads((tmp_path / "o2" / "summary.json").read_text())["warnings"] == []


def test_the_sync_mode_chosen_at_create_is_the_index_s(tmp_path, capsys):
    """`index create --sync normal` holds for every later writer (it was the create's only), unless one
    asks for another; `index info` says which."""
    sample = str(Path(__file__).resolve().parents[1] / "examples" / "sample.jsonl")
    ix = str(tmp_path / "ix")
    assert main(["index", "create", ix, "--sync", "normal"]) == 0

    def pragma(index: Index) -> int:
        return index.store.db.execute("PRAGMA synchronous").fetchone()[0]

    with Index.open(ix) as index:
        assert index.store.sync == "normal" and pragma(index) == 1  # NORMAL
    with Index.open(ix, sync="full") as index:
        assert index.store.sync == "full" and pragma(index) == 2  # FULL
    assert main(["index", "add", ix, sample, "-o", str(tmp_path / "o"), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["index", "info", ix, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sync"] == "normal"
    assert main(["index", "info", ix]) == 0
    assert "\nsync       normal\n" in capsys.readouterr().out  # the text says it too (docs/commands.md)
    with Index.open(tmp_path / "full", create=True) as index:
        assert index.store.sync == "full" and pragma(index) == 2
    with pytest.raises(UserError, match="sync must be one of"):
        Index.create(tmp_path / "bad", sync="sometimes")
    assert not (tmp_path / "bad").exists()


def test_an_index_made_when_words_were_read_otherwise_says_so(tmp_path, capsys):
    """An index keeps how its neardup read words (WORDS_VERSION); one made before that was kept (or by
    a neardup that read them otherwise) is still used, and info, add, query and serve say that a text
    holding soft hyphens, joiners or Arabic marks may not match its stored copy."""
    from neardup.text.normalize import WORDS_VERSION

    sample = str(Path(__file__).resolve().parents[1] / "examples" / "sample.jsonl")
    ix = tmp_path / "ix"
    assert main(["index", "create", str(ix)]) == 0
    assert main(["index", "add", str(ix), sample, "-o", str(tmp_path / "a"), "--quiet"]) == 0
    capsys.readouterr()
    with Index.open(ix, write=False) as index:
        assert index.info()["words"] == WORDS_VERSION and index.words_warning() is None
    assert json.loads((tmp_path / "a" / "summary.json").read_text())["warnings"] == []
    db = sqlite3.connect(ix / "index.sqlite")
    db.execute("DELETE FROM meta WHERE key = 'words'")  # as an index made before the words were kept
    db.commit()
    db.close()
    assert main(["index", "info", str(ix)]) == 0
    out = capsys.readouterr().out
    assert "\nwords      1: " in out and "read words otherwise" in out and str(ix) in out
    assert main(["index", "query", str(ix), sample, "-o", str(tmp_path / "q")]) == 0
    assert "warning    index " in capsys.readouterr().err
    for run in ("q", "b"):
        if run == "b":
            assert main(["index", "add", str(ix), sample, "-o", str(tmp_path / "b"), "--quiet",
                         "--on-duplicate-id", "skip"]) == 0
        summary = json.loads((tmp_path / run / "summary.json").read_text())
        assert len(summary["warnings"]) == 1 and "words 1, this one " in summary["warnings"][0]
    with Index.open(ix, write=False) as index:
        assert index.info()["words"] == 1 and len(index) == 48  # still used


# ------------------------------------------------- batch sizes never change an answer: replace, windows, passages
def _answers(checked) -> list[dict]:
    return [c.as_dict() for c in checked]


def _added_in(path: Path, records: list[dict], sizes: tuple[int, ...], create: dict, first: list[dict] = (),
              **add) -> list[tuple[list[dict], list[str]]]:
    """For each batch size: the answers of adding ``records`` (after ``first``, one batch) and the ids held after."""
    out = []
    for size in sizes:
        with Index.create(path / f"ix{size}", **create) as index:
            if first:
                index.add(list(first))
            answers = _answers(index.add(records, batch_size=size, **add))
            held = [r[0] for r in index.store.db.execute("SELECT id FROM docs ORDER BY seq")]
            assert index.check() == []
        out.append((answers, held))
    return out


STORY = ("The city council voted seven to two on Tuesday to approve the construction of a new bridge across the "
         "northern harbor, ending a debate that has lasted almost four years and divided the neighbourhoods.")
OTHER = "An unrelated replacement text about gardening tips for the spring season and tomatoes in small pots."


def test_replace_in_a_batch_keeps_input_order(tmp_path):
    """Records before the replacing one see the old version; it and the later ones see the new one."""
    records = [{"id": "B", "text": STORY + " Reporting by staff."}, {"id": "A", "text": OTHER},
               {"id": "C", "text": OTHER + " More at eleven."}]
    runs = _added_in(tmp_path, records, (1, 2, 3, 1000), {}, first=[{"id": "A", "text": STORY}],
                     on_duplicate="replace")
    assert all(r == runs[0] for r in runs[1:])
    answers, held = runs[0]
    assert [[m["id"] for m in a["matches"]] for a in answers] == [["A"], [], ["A"]]
    assert answers[0]["matches"][0]["score"] == answers[2]["matches"][0]["score"]  # old A, then new A
    assert held == ["B", "A", "C"]


def _day(d: float) -> str:
    from datetime import UTC, datetime, timedelta

    return (datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=d)).isoformat().replace("+00:00", "Z")


def test_time_window_out_of_order_times_late_arrivals(tmp_path):
    """A document is checked against those still held when it arrives, within its window both ways;
    one dated before the window's horizon is checked but not added (late), whatever the batch size."""
    records = [{"id": "A", "time": _day(0), "text": STORY},
               {"id": "X", "time": _day(2), "text": OTHER},
               {"id": "B", "time": _day(0.25), "text": STORY + " Reporting by staff."},  # late: A evicted by X
               {"id": "Y", "time": _day(1.1), "text": STORY + " Updated."},
               {"id": "Z", "time": _day(1.9), "text": STORY + " Corrected."},
               {"id": "L", "time": _day(0.5), "text": STORY + " Late."}]  # late: Y within 1d, Z not
    runs = _added_in(tmp_path, records, (1, 2, 4, 1000), {"method": "ffp", "window": "1d"})
    assert all(r == runs[0] for r in runs[1:])
    answers, held = runs[0]
    assert [(a["id"], a["added"], a.get("late", False), [m["id"] for m in a["matches"]]) for a in answers] == [
        ("A", True, False, []), ("X", True, False, []), ("B", False, True, []), ("Y", True, False, []),
        ("Z", True, False, ["Y"]), ("L", False, True, ["Y"])]
    assert held == ["X", "Y", "Z"]
    with Index.create(tmp_path / "iy", method="ffp", window="1d") as index:  # a stored document 9 days newer
        index.add([{"id": "new", "time": _day(9), "text": STORY}])
        [c] = index.add([{"id": "old", "time": _day(0), "text": STORY}])
        assert (c.matches, c.added, c.late, "old" in index, index.late) == ([], False, True, False, 1)
        assert [m.id for m in index.query([{"id": "q", "time": _day(0), "text": STORY}])[0].matches] == []


def test_late_arrivals_are_reported_counted_and_warned(tmp_path, capsys):
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "A", "time": _day(3), "text": STORY}, {"id": "B", "time": _day(0), "text": OTHER}]))
    ix = str(tmp_path / "ix")
    assert main(["index", "create", ix, "--window", "1d"]) == 0
    assert main(["index", "add", ix, str(path), "-o", str(tmp_path / "o")]) == 0
    rows = [json.loads(line) for line in (tmp_path / "o" / "matches.jsonl").read_text().splitlines()]
    assert rows[1] == {"id": "B", "added": False, "late": True, "matches": []} and "late" not in rows[0]
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert (summary["added"], summary["late"], summary["index_documents_after"]) == (1, 1, 1)
    (warning,) = summary["warnings"]
    assert "1 document was dated before the --window 1d" in warning and warning in capsys.readouterr().err


@pytest.mark.parametrize("window", [1, "1d"])
def test_partial_counts_run_over_the_documents_held(tmp_path, window):
    """The max_df cap counts the documents held when a document arrives (evicted ones no longer count)."""
    rng = random.Random(1)
    shared = ("the harbour authority confirmed on monday that the new container terminal will open next spring "
              "after years of delays caused by funding disputes and a lengthy environmental review of the basin")
    words = "apple river stone cloud metal paper green quick".split()

    def noise() -> str:
        return " ".join(rng.choice(words) + str(rng.randint(0, 999)) for _ in range(40))

    records = [{"id": i, "time": t, "text": f"{noise()}. {shared}. {noise()}"}
               for i, t in [("old1", _day(0)), ("old2", _day(0.04)), ("new1", _day(4)), ("new2", _day(4.04))]]
    from neardup.align.aligner import AlignParams

    runs = _added_in(tmp_path, records, (1, 2, 3, 1000), {"window": window, "partial": AlignParams(max_df=2)})
    assert all(r == runs[0] for r in runs[1:])
    want = [[], ["old1"], ["old2"], ["new1"]] if window == 1 else [[], ["old1"], [], ["new1"]]
    assert [[p["id"] for p in a["partials"]] for a in runs[0][0]] == want


def test_partial_caps_are_exact_when_the_batch_evicts_stored_documents(tmp_path):
    """The stored seeds of a key are fetched up to the cap; those of documents evicted inside the batch do
    not count against it (here e0-e2 hold 9 records of each key of the passage, then leave)."""
    from neardup.align.aligner import AlignParams

    shared = ("the harbour authority confirmed on monday that the new container terminal will open next spring "
              "after years of delays caused by funding disputes")
    first = [{"id": f"e{k}", "time": _day(0), "text": f"Part {k}. {shared}. Again: {shared}. Once more: {shared}."}
             for k in range(3)]
    first.append({"id": "k", "time": _day(0.9), "text": f"Kept story. {shared}. The end of it."})
    records = [{"id": "X", "time": _day(1.5), "text": OTHER}, {"id": "N", "time": _day(1.5), "text": f"News. {shared}."}]
    runs = _added_in(tmp_path, records, (1, 2), {"window": "1d", "partial": AlignParams(max_df=2)}, first=first)
    assert runs[0] == runs[1]
    assert [[p["id"] for p in a["partials"]] for a in runs[0][0]] == [[], ["k"]] and runs[0][1] == ["k", "X", "N"]


@pytest.mark.slow
@pytest.mark.parametrize("window", ["6h", 25])
def test_any_batch_sizes_give_the_same_answers_with_windows_out_of_order_and_replace(tmp_path, docs, window):
    """Times shuffled by up to 4 hours either way, a window, --partial with a cap that bites, and a
    second input replacing some documents: matches, passages and the index equal for batch sizes 1, 3, 7, 1000."""
    from datetime import UTC, datetime

    from neardup.align.aligner import AlignParams

    rng = random.Random(11)
    shuffled = []
    for d in docs[:160]:
        t = datetime.fromisoformat(d["time"].replace("Z", "+00:00")).timestamp() + rng.uniform(-4, 4) * 3600
        shuffled.append({**d, "time": datetime.fromtimestamp(t, UTC).isoformat()})
    first, second = shuffled[:100], shuffled[100:]
    second[::5] = [{**d, "id": first[-1 - 2 * k]["id"]} for k, d in enumerate(second[::5])]  # replace stored ones
    runs = []
    for size in (1, 3, 7, 1000):
        path = tmp_path / f"ix{size}"
        with Index.create(path, method="minhash", threshold=0.5, shingle_size=3, window=window,
                          partial=AlignParams(max_df=3)) as index:
            answers = _answers(index.add(first, batch_size=size))
            answers += _answers(index.add(second, batch_size=size, on_duplicate="replace"))
            counts = (index.evicted, index.late, dict(index.last_stats.notes))
            assert index.check() == []
        runs.append((answers, counts, _dump(path)))
    assert all(r == runs[0] for r in runs[1:])
    answers = runs[0][0]
    assert sum(bool(a["matches"]) for a in answers) > 20 and sum(bool(a["partials"]) for a in answers) > 20
    if window == "6h":
        assert 5 < sum(a.get("late", False) for a in answers) < 80
    evicted, late, notes = runs[0][1]
    assert evicted > 20 and notes["documents replaced (--on-duplicate-id replace)"] > 0


def test_the_python_api_s_misuses_say_what_they_are(tmp_path):
    """A library user's mistakes: a string given to remove() (it removed the ids of its characters), an
    Index used after close() or from two writing threads ("damaged ... rebuild it"), an unknown
    extractor (it left a broken index behind), a second writer in one process ("another process")."""
    import threading

    ix = Index.create(tmp_path / "ix")
    ix.add([("b", "one two three four five six"), ("x", "seven eight nine ten eleven"),
            ("bx", "alpha beta gamma delta epsilon")])
    assert ix.remove("bx") == ["bx"] and "b" in ix and "x" in ix and ix.remove("nope") == []
    with pytest.raises(UserError, match="already open for writing in this process"):
        Index.open(tmp_path / "ix")
    texts = [f"story {k} " + " ".join(f"w{k}x{j}" for j in range(30)) for k in range(200)]
    errors: list[BaseException] = []

    def add(lo: int) -> None:
        try:
            ix.add([(f"t{lo + k}", texts[lo + k]) for k in range(100)], batch_size=5)
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=add, args=(lo,)) for lo in (0, 100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(ix) == 202 and ix.check() == []
    ix.close()
    for use in (lambda: len(ix), lambda: ix.query([("q", "one two three four")]), lambda: ix.add([("y", "z w")]),
                lambda: ix.remove(["b"]), lambda: ix.get("b")):
        with pytest.raises(UserError, match="is closed"):
            use()
    ix.close()  # twice is no error
    with pytest.raises(UserError, match="unknown extractor"):
        Index.create(tmp_path / "bad", extract="nonesuch")
    with pytest.raises(UserError, match="partial must be"):
        Index.create(tmp_path / "bad", partial="yes")  # type: ignore[arg-type]
    assert not (tmp_path / "bad" / "index.sqlite").exists()


def test_readers_of_ended_threads_release_their_connections(tmp_path):
    """A host running each request on a thread of its own held two file descriptors per thread it ever
    ran, until `Too many open files`."""
    import threading

    with Index.create(tmp_path / "ix") as ix:
        ix.add([("a", "one two three four five six seven")])
    with Index.open(tmp_path / "ix", write=False) as ix:
        for _ in range(40):
            t = threading.Thread(target=lambda: ix.query([("q", "one two three four five")]))
            t.start()
            t.join()
        assert len(ix.store._readers) <= 2


def test_open_with_create_refuses_an_index_made_otherwise(tmp_path):
    """`Index.open(path, create=True, method="minhash")` on an existing ffp index returned the ffp index
    without a word; the same settings open it."""
    Index.create(tmp_path / "ix").close()
    with Index.open(tmp_path / "ix", create=True, method="ffp", threshold=0.1) as index:
        assert index.method.name == "ffp"
    for asked in ({"method": "minhash"}, {"threshold": 0.5}, {"window": "7d"}, {"extract": "none"}):
        with pytest.raises(UserError, match="made otherwise than asked"):
            Index.open(tmp_path / "ix", create=True, **asked)
    with Index.open(tmp_path / "ix") as index:  # the refused opens released the writer lock
        assert len(index) == 0
