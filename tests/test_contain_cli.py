"""``neardup contain`` / ``neardup partial`` as sub-commands, and quality on a simulated corpus."""

import orjson
import pytest

from neardup.contain.evaluate import evaluate_containments, threshold_sweep
from neardup.evaluate.truth import Truth

from conftest import shared_data

PASSAGE = ("The central bank raised its main rate by half a point on Thursday. It was the third increase this year. "
           "Governor Ana Ruiz said inflation had proved more stubborn than expected. Markets had priced in a smaller move.")


def _run(argv: list[str]) -> int:
    from neardup.cli import build_parser

    args = build_parser(argv[0]).parse_args(argv)
    return args.func(args)


@pytest.fixture
def corpus(tmp_path, articles):
    story = articles[0]["title"] + "\n\n" + articles[0]["text"]
    rows = [
        {"id": "full", "text": story + "\n\n" + PASSAGE, "time": "2024-01-01T10:00:00Z"},
        {"id": "trim", "text": "\n\n".join(story.split("\n\n")[:3]), "time": "2024-01-01T11:00:00Z"},
        {"id": "quote", "text": articles[3]["text"] + "\n\n" + PASSAGE, "time": "2024-01-01T12:00:00Z"},
        {"id": "broken", "html": 42},
    ]
    path = tmp_path / "docs.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows) + b"{not json\n")
    return path


@pytest.mark.parametrize("method", ["align", "codet"])
def test_contain_command_writes_containments_and_summary(tmp_path, corpus, capsys, method):
    out = tmp_path / "out"
    assert _run(["contain", str(corpus), "-o", str(out), "--window", "24h", "--method", method]) == 0
    rows = [orjson.loads(x) for x in (out / "containments.jsonl").read_bytes().splitlines()]
    assert [(r["container"], r["contained"]) for r in rows] == [("full", "trim")]
    assert rows[0]["score"] > 0.9 and ([0, 0] in rows[0]["sentences"] or method == "align")
    summary = orjson.loads((out / "summary.json").read_bytes())
    assert summary["documents"]["read"] == 5 and summary["documents"]["kept"] == 3
    assert summary["documents"]["rejected_by_reason"] == {"invalid JSON": 1, "text is not a string": 1}
    assert summary["parameters"]["window"] == "24h"
    assert "containments 1" in capsys.readouterr().err


def test_contain_command_runs_baselines(tmp_path, corpus):
    out = tmp_path / "ffp"
    assert _run(["contain", str(corpus), "-o", str(out), "--method", "ffp", "--quiet"]) == 0
    rows = [orjson.loads(x) for x in (out / "containments.jsonl").read_bytes().splitlines()]
    assert [(r["container"], r["contained"], r["sentences"]) for r in rows] == [("full", "trim", [])]


def test_strict_mode_raises_on_the_first_bad_record(tmp_path, corpus):
    from neardup.io.readers import InputError

    with pytest.raises(InputError, match="text is not a string"):
        _run(["contain", str(corpus), "-o", str(tmp_path / "o"), "--strict", "--quiet"])


@pytest.mark.parametrize("method", ["align", "pdc"])
def test_partial_command_locates_the_quote(tmp_path, corpus, method):
    out = tmp_path / "out"
    assert _run(["partial", str(corpus), "-o", str(out), "--quiet", "--method", method]) == 0
    rows = [orjson.loads(x) for x in (out / "partials.jsonl").read_bytes().splitlines()]
    quote = [r for r in rows if r["b"] == "quote"]
    assert len(quote) == 1 and quote[0]["a"] == "full"
    texts = {r["id"]: r.get("text") for r in map(orjson.loads, corpus.read_bytes().splitlines()[:3])}
    span = quote[0]["spans"][0]
    passage = PASSAGE if method == "pdc" else PASSAGE.rstrip(".")  # align: first to last matched word
    assert texts["full"][slice(*span["a_chars"])] == texts["quote"][slice(*span["b_chars"])] == passage


def test_commands_evaluate_against_truth(tmp_path, corpus):
    truth = tmp_path / "truth.jsonl"
    records = [{"type": "cluster", "cluster": 0, "ids": ["full", "trim"]}, {"type": "cluster", "cluster": 1, "ids": ["quote"]},
               {"type": "containment", "container": "full", "contained": "trim", "why": "trim"}]
    truth.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    _run(["contain", str(corpus), "-o", str(tmp_path / "c"), "--truth", str(truth), "--quiet"])
    ev = orjson.loads((tmp_path / "c" / "summary.json").read_bytes())["evaluation"]
    assert ev["f1"] == 1.0 and ev["recorded_recall"] == 1.0


def test_containment_evaluation_rules():
    truth = Truth(cluster={"o": 0, "r": 0, "t1": 0, "t2": 0, "x": 1},
                  containments=[("o", "t1"), ("r", "t2")])
    ev = evaluate_containments([("o", "r"), ("r", "o"), ("r", "t1"), ("t1", "o"), ("t1", "t2"), ("o", "x")], truth)
    # true: o<->r, o>t1, o>t2, r>t1, r>t2 = 6; t1>o wrong direction, o>x across stories, t1>t2 unjudged
    assert (ev["tp"], ev["fp"], ev["fn"], ev["unjudged"], ev["true"]) == (3, 2, 3, 1, 6)
    assert ev["recorded_recall"] == 0.0
    best = threshold_sweep([("o", "r", 0.9), ("r", "o", 0.8), ("t1", "o", 0.7), ("o", "t1", 0.6)], truth)
    assert best["threshold"] == 0.6 and best["f1"] == pytest.approx(2 * 3 / (2 * 3 + 1 + 3))


@pytest.mark.slow
def test_quality_on_a_simulated_reuters_corpus(tmp_path):
    """CoDet (the paper's defaults) on 1,500 simulated documents: F1 near the paper's FFP, direction right."""
    import itertools

    from neardup.contain import ContainmentDetector
    from neardup.evaluate.corpora import load_texts
    from neardup.evaluate.synth import write_corpus
    from neardup.io.readers import read_inputs

    source = shared_data("reuters21578")
    write_corpus(itertools.islice(load_texts(source), 3000), tmp_path, seed=5, n_docs=1500)
    truth = Truth.read(tmp_path / "truth.jsonl")
    codet = ContainmentDetector("codet").run(read_inputs([tmp_path / "docs.jsonl"])).containments
    ev = evaluate_containments([(c.container, c.contained) for c in codet], truth)
    assert ev["f1"] >= 0.85 and ev["recorded_recall"] >= 0.95


def test_evaluation_hooks_read_result_files(tmp_path, corpus):
    from neardup.contain.evaluate import evaluate_containment_files
    from neardup.partial.evaluate import evaluate_partial_files

    truth = tmp_path / "truth.jsonl"
    full = orjson.loads(corpus.read_bytes().splitlines()[0])["text"]
    quote = orjson.loads(corpus.read_bytes().splitlines()[2])["text"]
    records = [{"type": "cluster", "cluster": 0, "ids": ["full", "trim"]}, {"type": "cluster", "cluster": 1, "ids": ["quote"]},
               {"type": "containment", "container": "full", "contained": "trim", "why": "trim"},
               {"type": "partial", "a": "full", "b": "quote", "why": "quote",
                "a_chars": [full.index(PASSAGE), len(full)], "b_chars": [quote.index(PASSAGE), len(quote)]}]
    truth.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    _run(["contain", str(corpus), "-o", str(tmp_path / "c"), "--quiet"])
    _run(["partial", str(corpus), "-o", str(tmp_path / "p"), "--quiet"])
    assert evaluate_containment_files(tmp_path / "c" / "containments.jsonl", truth)["f1"] == 1.0
    ev = evaluate_partial_files(tmp_path / "p" / "partials.jsonl", truth, [str(corpus)])
    assert ev["all"]["span_f1"] == 1.0 and ev["all"]["pair_f1"] == 1.0
