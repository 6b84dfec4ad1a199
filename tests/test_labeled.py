"""Labeled data for ``eval`` and ``train``: labels that cannot be scored are refused, naming the file and line."""

from __future__ import annotations

import orjson
import pytest

from neardup.cli import main
from neardup.errors import InputError
from neardup.evaluate.labeled import load_labeled

TEXTS = [f"story {i} " + " ".join(f"w{i}x{k}" for k in range(30)) for i in range(6)]


def _jsonl(path, rows):
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    return path


def _docs(tmp_path, clusters=(0, 0, 1, 1, 2, None), name="docs.jsonl"):
    """Six documents d0..d5; ``clusters`` their 'cluster' fields (``...``: no field)."""
    rows = [{"id": f"d{i}", "text": t, **({} if c is ... else {"cluster": c})}
            for i, (t, c) in enumerate(zip(TEXTS, clusters))]
    return _jsonl(tmp_path / name, rows)


def test_null_or_blank_cluster_is_in_no_cluster(tmp_path):
    data = load_labeled(_docs(tmp_path, (0, 0, "b", "b", "", None)))
    assert data.cluster.tolist() == [0, 0, 1, 1, -1, -1]


def test_data_without_labels_is_refused(tmp_path, capsys):
    docs = _docs(tmp_path, (...,) * 6)
    with pytest.raises(InputError, match="no labels: no record of .*docs.jsonl has a 'cluster'"):
        load_labeled(docs)
    with pytest.raises(InputError, match="no labels"):
        load_labeled(_docs(tmp_path, (None,) * 6, "nulls.jsonl"))
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(InputError, match=f"no labels: {empty} puts no document in a cluster"):
        load_labeled(docs, truth=empty)
    with pytest.raises(InputError, match=f"no labels: {empty} holds no labeled pair"):
        load_labeled(docs, pairs=empty)
    flat = tmp_path / "flat"
    flat.mkdir()
    for i, t in enumerate(TEXTS):
        (flat / f"p{i}.txt").write_text(t)
    with pytest.raises(InputError, match="no labels: .*flat has no cluster sub-folders"):
        load_labeled(flat)
    assert main(["eval", str(docs), "--no-relations"]) == 2  # was a table of NaN and exit 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no labels" in err


@pytest.mark.parametrize("value", [{"a": 1}, [1], True])
def test_a_cluster_that_is_not_a_name_or_number_is_refused(tmp_path, value):
    docs = _docs(tmp_path, (0, 0, value, 1, 2, 2))
    with pytest.raises(InputError, match=f"{docs}:3: 'cluster' must be a cluster name or number"):
        load_labeled(docs)


@pytest.mark.parametrize("records, says", [
    ([{"type": "cluster", "cluster": 0, "ids": ["d0", "d1"]}, {"type": "cluster", "cluster": 1, "ids": ["d1", "d2"]}],
     ":2: puts 'd1' in cluster '1', but line 1 put it in cluster '0'"),
    ([{"type": "cluster", "cluster": 0, "ids": ["d0", "d1"]}, {"type": "cluster", "cluster": 1, "ids": ["zzz"]}],
     ":2: names unknown document 'zzz'"),
    ([{"type": "cluster", "cluster": None, "ids": ["d0", "d1"]}], ":1: a cluster record's 'cluster' must be"),
    ([{"type": "cluster", "cluster": 0, "ids": "d0 d1"}], ":1: a cluster record's 'ids' must be a list"),
    ([{"ids": ["d0"], "cluster": 0}, [1]], ":2: not a truth record"),
])
def test_a_truth_that_cannot_be_right_is_refused_naming_its_line(tmp_path, capsys, records, says):
    docs, truth = _docs(tmp_path, (...,) * 6), _jsonl(tmp_path / "truth.jsonl", records)
    with pytest.raises(InputError, match=f"{truth}{says}"):
        load_labeled(docs, truth=truth)
    assert main(["eval", str(docs), "--truth", str(truth), "--no-relations"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_good_truth_labels_the_documents_it_names(tmp_path):
    truth = _jsonl(tmp_path / "truth.jsonl", [{"type": "cluster", "cluster": 0, "ids": ["d0", "d1"]},
                                              {"type": "containment", "container": "d0", "contained": "d1"},
                                              {"type": "cluster", "cluster": 0, "ids": ["d1"]}])  # the same again
    assert load_labeled(_docs(tmp_path, (...,) * 6), truth=truth).cluster.tolist() == [0, 0, -1, -1, -1, -1]


@pytest.mark.parametrize("pair, says", [
    ({"a": "d0", "b": "d2", "label": "yes"}, "'label' must be 0 or 1"),
    ({"a": "d0", "b": "d2", "label": 7}, "'label' must be 0 or 1"),
    ({"a": "d0", "b": "d2"}, "'label' must be 0 or 1"),
    ({"a": "d0", "b": "d0", "label": 1}, "pairs document 'd0' with itself"),
    ({"a": "d0", "b": "zzz", "label": 1}, "names unknown document 'zzz'"),
    ({"a": "d0", "label": 1}, "a pair needs document ids 'a' and 'b'"),
])
def test_labeled_pairs_that_cannot_be_scored_are_refused_naming_their_line(tmp_path, capsys, pair, says):
    docs = _docs(tmp_path, (...,) * 6)
    pairs = _jsonl(tmp_path / "pairs.jsonl", [{"a": "d0", "b": "d1", "label": 1}, pair])
    with pytest.raises(InputError, match=f"{pairs}:2: {says}"):
        load_labeled(docs, pairs=pairs)
    assert main(["eval", str(docs), "--pairs", str(pairs), "--no-relations"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_labels_may_be_0_1_or_false_true(tmp_path):
    pairs = _jsonl(tmp_path / "pairs.jsonl", [{"a": "d1", "b": "d0", "label": 1}, {"a": "d0", "b": "d2", "label": 0},
                                              {"a": "d2", "b": "d3", "label": True}, {"a": "d4", "b": "d5", "label": False}])
    (tmp_path / "pairs.jsonl").write_bytes((tmp_path / "pairs.jsonl").read_bytes() + b"{broken\n")
    with pytest.raises(InputError, match=f"{pairs}:5: invalid JSON"):
        load_labeled(_docs(tmp_path, (...,) * 6), pairs=pairs)
    pairs.write_bytes(pairs.read_bytes().replace(b"{broken\n", b""))
    a, b, y = load_labeled(_docs(tmp_path, (...,) * 6), pairs=pairs).pairs
    assert a.tolist() == [0, 0, 2, 4] and b.tolist() == [1, 2, 3, 5] and y.tolist() == [True, False, True, False]


def test_a_repeated_pair_counts_once_and_a_contradicted_one_is_refused(tmp_path, capsys):
    docs = _docs(tmp_path, (...,) * 6)
    pairs = _jsonl(tmp_path / "pairs.jsonl", [{"a": "d0", "b": "d1", "label": 1}, {"a": "d2", "b": "d3", "label": 0},
                                              {"a": "d1", "b": "d0", "label": True}, {"a": "d0", "b": "d1", "label": 1}])
    a, b, y = load_labeled(docs, pairs=pairs).pairs
    assert a.tolist() == [0, 2] and b.tolist() == [1, 3] and y.tolist() == [True, False]
    _jsonl(pairs, [{"a": "d0", "b": "d1", "label": 1}, {"a": "d2", "b": "d3", "label": 0},
                   {"a": "d1", "b": "d0", "label": 0}])
    with pytest.raises(InputError, match=f"{pairs}:3: labels the pair 'd1', 'd0' 0, but line 1 labeled it 1"):
        load_labeled(docs, pairs=pairs)
    assert main(["eval", str(docs), "--pairs", str(pairs), "--no-relations"]) == 2
    assert "line 1 labeled it 1" in capsys.readouterr().err
