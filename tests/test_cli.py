"""The ``neardup`` command end to end: outputs, determinism across processes, options."""

import re
import subprocess
import sys
from pathlib import Path

import orjson
import pyarrow.parquet as pq
import pytest

from neardup.cli import main

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "examples" / "sample.jsonl"


def read_jsonl(path):
    return [orjson.loads(line) for line in Path(path).read_bytes().splitlines()]


@pytest.fixture()
def corpus_file(tmp_path, corpus):
    docs, _ = corpus
    path = tmp_path / "docs.jsonl"
    path.write_bytes(b"".join(orjson.dumps({"id": i, "text": t, "extra": len(t)}) + b"\n" for i, t in docs))
    return path


def found_pairs(outdir):
    return {(p["a"], p["b"]) for p in read_jsonl(outdir / "pairs.jsonl")}


def test_dedup_finds_the_planted_pairs_and_writes_every_output(tmp_path, corpus_file, corpus):
    _, truth = corpus
    out = tmp_path / "out"
    assert main(["dedup", str(corpus_file), "-o", str(out), "--shingle-size", "3", "--threshold", "0.7",
                 "--unique", str(tmp_path / "unique.jsonl"), "--quiet"]) == 0
    assert found_pairs(out) == truth
    clusters = read_jsonl(out / "clusters.jsonl")
    assert len(clusters) == 8 and all(len(c["ids"]) == 3 for c in clusters)
    assert all(c["representative"] == c["ids"][0] and "copy" not in c["representative"] for c in clusters)
    summary = orjson.loads((out / "summary.json").read_bytes())
    assert summary["documents"]["read"] == 24 and summary["documents"]["kept"] == 24
    assert summary["pairs"] == 24 and summary["clusters"] == 8 and summary["duplicates_removable"] == 16
    assert summary["parameters"]["shingle_size"] == 3 and summary["parameters"]["threshold"] == 0.7
    unique = read_jsonl(tmp_path / "unique.jsonl")
    assert [u["id"] for u in unique] == [c["representative"] for c in clusters]
    assert all("extra" in u for u in unique)  # records are written back unchanged


def test_unique_under_another_format_s_name_is_refused_before_the_run(tmp_path, corpus_file, capsys):
    """--unique writes JSON lines or Parquet: a name ending in .csv (or .gz) is refused, naming the file,
    before anything is written (it held JSON lines under the name of a CSV file)."""
    for name in ("u.csv", "u.jsonl.gz"):
        out = tmp_path / f"out-{name}"
        assert main(["dedup", str(corpus_file), "-o", str(out), "--unique", str(tmp_path / name), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert f"{tmp_path / name}: records are written as JSON lines (.jsonl) or Parquet" in err, err
        assert not out.exists() and not (tmp_path / name).exists()
    for name in ("u.ndjson", "u"):  # JSON lines by another name, or none
        assert main(["dedup", str(corpus_file), "-o", str(tmp_path / f"o-{name}"), "--unique", str(tmp_path / name),
                     "--quiet"]) == 0
        assert read_jsonl(tmp_path / name)


def _shingles(text: str, k: int = 3) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", text.casefold())
    return {tuple(words[i:i + k]) for i in range(len(words) - k + 1)}


def test_scores_are_the_estimated_jaccard_or_exact(tmp_path, corpus_file, corpus):
    texts = dict(corpus[0])
    pairs = {}
    for exact in (False, True):
        out = tmp_path / f"exact{exact}"
        main(["dedup", str(corpus_file), "-o", str(out), "--shingle-size", "3", "--threshold", "0.7", "--quiet",
              "--method", "minhash", "--num-perm", "128", *(["--exact"] if exact else [])])
        pairs[exact] = {(p["a"], p["b"]): p["score"] for p in read_jsonl(out / "pairs.jsonl")}
    assert pairs[True]
    for (a, b), score in pairs[True].items():  # the exact Jaccard of the 3-shingle sets
        sa, sb = _shingles(texts[a]), _shingles(texts[b])
        assert score == pytest.approx(len(sa & sb) / len(sa | sb), abs=1e-6)
    for score in pairs[False].values():  # the estimate: a share of 128 signature positions
        assert score * 128 == pytest.approx(round(score * 128), abs=1e-3)
    assert any(pairs[False][key] != pairs[True][key] for key in pairs[False].keys() & pairs[True].keys())


@pytest.mark.slow
def test_output_is_byte_identical_across_processes(tmp_path, corpus_file):
    outs = []
    for run in range(2):
        out = tmp_path / f"run{run}"
        subprocess.run(
            [sys.executable, "-m", "neardup.cli", "dedup", str(corpus_file), "-o", str(out), "--quiet",
             "--threshold", "0.5", "--shingle-size", "2", "--seed", "42"],
            check=True,
        )
        outs.append(out)
    for name in ("pairs.jsonl", "clusters.jsonl"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes()
    assert (outs[0] / "pairs.jsonl").stat().st_size > 0


def test_supershingles_and_parquet_output(tmp_path, corpus_file, corpus):
    _, truth = corpus
    out = tmp_path / "ss"
    main(["dedup", str(corpus_file), "-o", str(out), "--method", "minhash", "--candidates", "supershingles", "--shingle-size", "3",
          "--threshold", "0.7", "--format", "parquet", "--quiet"])
    table = pq.read_table(out / "pairs.parquet").to_pylist()
    assert {(r["a"], r["b"]) for r in table} == truth
    assert len(pq.read_table(out / "clusters.parquet")) == 8


@pytest.mark.slow
def test_max_df_drops_boilerplate_shingles(tmp_path, corpus):
    docs, _ = corpus
    footer = " ".join(f"footer{i} menu home contact about news sport weather" for i in range(100))
    path = tmp_path / "boiler.jsonl"
    # unrelated articles that share a long site footer look alike until the footer goes
    path.write_bytes(b"".join(orjson.dumps({"id": i, "text": t + " " + footer}) + b"\n" for i, t in docs[::3]))
    loose, filtered = tmp_path / "loose", tmp_path / "filtered"
    main(["dedup", str(path), "-o", str(loose), "--method", "minhash", "--shingle-size", "3", "--threshold", "0.3", "--quiet"])
    main(["dedup", str(path), "-o", str(filtered), "--method", "minhash", "--shingle-size", "3", "--threshold", "0.3", "--max-df", "2", "--quiet"])
    assert len(found_pairs(loose)) == 28  # all 8 x 7 / 2 pairs of unrelated articles
    assert found_pairs(filtered) == set()


def test_strict_exits_2_and_names_the_line(tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"id": "a", "text": "fine"}\n{"id": "b"}\n')
    assert main(["dedup", str(path), "-o", str(tmp_path / "o"), "--strict", "--quiet"]) == 2
    assert "bad.jsonl:2: missing text" in capsys.readouterr().err


def test_bad_parameters_exit_2(tmp_path, corpus_file, capsys):
    assert main(["dedup", str(corpus_file), "-o", str(tmp_path / "o"), "--method", "minhash", "--bands", "20", "--rows", "20"]) == 2
    assert "exceeds num_perm" in capsys.readouterr().err


def test_html_directory_input(tmp_path, articles):
    root = tmp_path / "site"
    root.mkdir()
    for n, art in enumerate(articles[:3]):
        for copy in range(2):
            nav = f"<nav><a>home</a><a>section {copy}</a></nav>"
            page = f"<html><head><title>x</title><script>var a={n};</script></head><body>{nav}<h1>{art['title']}</h1>"
            page += "".join(f"<p>{p}</p>" for p in art["text"].split("\n\n")) + "</body></html>"
            (root / f"{art['id']}-{copy}.html").write_text(page)
    out = tmp_path / "out"
    main(["dedup", str(root), "-o", str(out), "--quiet"])
    assert found_pairs(out) == {(f"{a['id']}-0.html", f"{a['id']}-1.html") for a in articles[:3]}


@pytest.mark.skipif(not SAMPLE.exists(), reason="examples/sample.jsonl not generated yet")
def test_shipped_sample_runs(tmp_path, capsys):
    assert main(["dedup", str(SAMPLE), "-o", str(tmp_path / "s")]) == 0
    err = capsys.readouterr().err
    assert "documents  read" in err and "clusters" in err
    assert orjson.loads((tmp_path / "s" / "summary.json").read_bytes())["clusters"] > 0


def test_methods_lists_minhash(capsys):
    assert main(["methods"]) == 0
    assert "minhash" in capsys.readouterr().out


def test_shipped_sample_is_what_synth_makes(tmp_path):
    assert main(["synth", "-o", str(tmp_path), "--docs", "48", "--seed", "1", "--cluster-size-sigma", "0.4", "--quiet"]) == 0
    assert (tmp_path / "docs.jsonl").read_bytes() == SAMPLE.read_bytes()
    assert (tmp_path / "truth.jsonl").read_bytes() == (REPO / "examples" / "sample-truth.jsonl").read_bytes()


@pytest.mark.slow
def test_eval_on_the_sample_reads_clusters_and_html(tmp_path, capsys):
    import json

    assert main(["eval", str(SAMPLE), "--method", "minhash", "--shingle-size", "3", "--json"]) == 0
    text_report = json.loads(capsys.readouterr().out)
    assert text_report["documents"] == 48 and text_report["positives"] == 136
    assert text_report["max_f1"] > 0.95
    assert main(["eval", str(SAMPLE), "--method", "minhash", "--shingle-size", "3", "--html", "--extract", "none", "--json",
                 "--plot", str(tmp_path)]) == 0
    page_report = json.loads(capsys.readouterr().out)
    assert main(["eval", str(SAMPLE), "--method", "minhash", "--shingle-size", "3", "--html", "--json"]) == 0
    model_report = json.loads(capsys.readouterr().out)
    # whole pages carry site templates, which blur the pages of different stories;
    # the default extractor (the shipped model) takes them away again
    assert page_report["auroc"] < text_report["auroc"] - 0.002
    assert model_report["auroc"] > page_report["auroc"] and model_report["max_f1"] > 0.95
    assert (tmp_path / "roc.png").stat().st_size > 0 and (tmp_path / "thresholds.png").stat().st_size > 0


def test_eval_with_folds_and_tuning_set(capsys):
    import json

    assert main(["eval", str(SAMPLE), "--folds", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["splits"] == 2 and len(report["per_split"]) == 2
    assert main(["eval", str(SAMPLE), "--tune-on", str(SAMPLE), "--json"]) == 0
    tuned = json.loads(capsys.readouterr().out)
    assert tuned["tuned_on"] == "sample.jsonl" and tuned["f1"] == tuned["max_f1"]


@pytest.mark.parametrize("options, says", [
    (["--folds", "-2"], "argument --folds/--splits: must be a whole number of at least 1, got '-2'"),
    (["--folds", "0"], "argument --folds/--splits: must be a whole number of at least 1, got '0'"),
    (["--split-seed", "-1", "--folds", "2"], "argument --split-seed: must be a whole number of at least 0"),
    (["--learning-curve", "abc"], "argument --learning-curve: must be whole numbers of at least 1, comma-separated"),
    (["--learning-curve", "10,0"], "argument --learning-curve: must be whole numbers of at least 1"),
    (["--tune-on", str(SAMPLE), "--folds", "3"], "argument --folds/--splits: not allowed with argument --tune-on"),
])
def test_eval_options_that_cannot_be_used_exit_2_naming_the_option(capsys, options, says):
    with pytest.raises(SystemExit) as stop:
        main(["eval", str(SAMPLE), "--no-relations", *options])
    assert stop.value.code == 2 and says in capsys.readouterr().err


def test_eval_folds_need_two_stories(tmp_path, capsys):
    one = tmp_path / "one.jsonl"
    one.write_bytes(b"".join(orjson.dumps({**r, "cluster": "only" if n < 5 else None}) + b"\n"
                             for n, r in enumerate(read_jsonl(SAMPLE))))
    assert main(["eval", str(one), "--folds", "3", "--no-relations"]) == 2
    assert "need at least two stories of two or more documents, one for each half; the data has 1" in capsys.readouterr().err
    assert main(["eval", str(one), "--no-relations", "--json"]) == 0  # in-sample is fine


def test_eval_with_truth_file_and_labeled_pairs(tmp_path, capsys):
    import json

    docs = tmp_path / "docs.jsonl"
    # the same documents without their cluster field: labels come from the truth file
    docs.write_bytes(b"".join(
        orjson.dumps({k: v for k, v in r.items() if k != "cluster"}) + b"\n" for r in read_jsonl(SAMPLE)
    ))
    truth = REPO / "examples" / "sample-truth.jsonl"
    assert main(["eval", str(docs), "--truth", str(truth), "--shingle-size", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["positives"] == 136
    rows = read_jsonl(SAMPLE)
    pairs = tmp_path / "pairs.jsonl"
    labeled = [(rows[0], rows[1]), (rows[0], rows[-1]), (rows[2], rows[3]), (rows[5], rows[40])]
    pairs.write_bytes(b"".join(
        orjson.dumps({"a": x["id"], "b": y["id"], "label": x["cluster"] == y["cluster"]}) + b"\n" for x, y in labeled
    ))
    assert main(["eval", str(docs), "--pairs", str(pairs), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pairs"] == 4
    assert report["positives"] == sum(x["cluster"] == y["cluster"] for x, y in labeled)


def test_eval_scores_contain_and_partial_outputs_against_truth(tmp_path, capsys, articles):
    import json

    assert main(["contain", str(SAMPLE), "-o", str(tmp_path / "c"), "--quiet"]) == 0
    truth = REPO / "examples" / "sample-truth.jsonl"
    assert main(["eval", str(SAMPLE), "--truth", str(truth), "--containments", str(tmp_path / "c" / "containments.jsonl")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["task"] == "containment" and report["f1"] > 0.8

    # a run of four sentences copied from one article into another, recorded with its offsets
    source = articles[0]["text"].split("\n\n")[1]
    host = articles[1]["text"]
    copied = " ".join(articles[2]["text"].split("\n\n")[1:3])
    docs = [{"id": "src", "text": copied + "\n\n" + source}, {"id": "host", "text": host + "\n\n" + copied}]
    (tmp_path / "docs.jsonl").write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in docs))
    a0, b0 = 0, len(host) + 2
    span = {"type": "partial", "a": "src", "b": "host", "a_chars": [a0, a0 + len(copied)], "b_chars": [b0, b0 + len(copied)]}
    (tmp_path / "truth.jsonl").write_bytes(orjson.dumps(span) + b"\n")
    assert main(["partial", str(tmp_path / "docs.jsonl"), "-o", str(tmp_path / "p"), "--quiet"]) == 0
    assert main(["eval", str(tmp_path / "docs.jsonl"), "--truth", str(tmp_path / "truth.jsonl"),
                 "--partials", str(tmp_path / "p" / "partials.jsonl")]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["task"] == "partial" and report["all"]["span_f1"] == 1.0


def test_unwritable_output_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "taken").write_text("a file, not a folder")
    assert main(["dedup", str(SAMPLE), "-o", str(tmp_path / "taken"), "--quiet"]) == 2
    assert "taken" in capsys.readouterr().err


@pytest.mark.slow
def test_eval_learning_curve_trains_andd_per_split(tmp_path, capsys):
    import json

    assert main(["eval", str(SAMPLE), "--method", "andd", "--folds", "2", "--learning-curve", "6,12",
                 "--plot", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [row["documents"] for row in report["learning_curve"]] == [6, 12]
    assert all(0.0 <= row["max_f1"] <= 1.0 for row in report["learning_curve"])
    assert report["splits"] == 2 and (tmp_path / "learning_curve.png").stat().st_size > 0
    assert main(["eval", str(SAMPLE), "--method", "minhash", "--learning-curve"]) == 2
    assert "does not learn" in capsys.readouterr().err


def test_eval_and_train_report_the_records_they_rejected(tmp_path, capsys):
    lines = SAMPLE.read_text().splitlines()
    path = tmp_path / "labeled.jsonl"
    path.write_text("\n".join(lines[:20] + ['{"id": "bad"', '{"id": "e", "text": "", "cluster": "c"}'] + lines[20:]) + "\n")
    assert main(["eval", str(path), "--method", "ffp"]) == 0
    err = capsys.readouterr().err
    assert f"{path}: read {len(lines) + 2} records, kept {len(lines)}, rejected 2 (empty text 1, invalid JSON 1)" in err
    assert f"{path}:21: invalid JSON" in err and f"{path}:22: empty text" in err
    model = tmp_path / "m.json"
    assert main(["train", str(path), "-o", str(model), "--quiet"]) == 0
    assert f"{path}:21: invalid JSON" in capsys.readouterr().err
    info = orjson.loads(model.read_bytes())["info"]
    assert info["datasets"] == {str(path): {"read": len(lines) + 2, "kept": len(lines), "rejected": 2}}
    assert main(["eval", str(SAMPLE), "--method", "ffp"]) == 0
    assert "rejected" not in capsys.readouterr().err  # nothing to say when nothing was


def test_a_shared_option_is_described_by_what_most_of_its_methods_say():
    # --seed read "seed of the shingle hash (results do not depend on it)", ffp's note, for every method
    import argparse

    from neardup.cli_options import add_method_options

    p = argparse.ArgumentParser()
    add_method_options(p)
    seed = next(a for a in p._actions if a.dest == "seed")
    assert seed.help.startswith("random seed of the hash functions (") and "do not depend" not in seed.help


def test_messages_say_what_is_wrong_with_a_path_or_an_empty_list(tmp_path, capsys):
    # were "no such data folder" for a file, "no such file" for a folder, and --compare '' silently ignored
    sample = str(SAMPLE)
    for argv, says in ((["extract", "train", sample, "-o", str(tmp_path / "m.npz")], "is not a folder"),
                       (["explain", str(tmp_path), sample], "not a file"),
                       (["eval", sample, "--compare", ""], "unknown method ''")):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1, err


def test_extract_run_is_the_first_form_and_names_each_rejection_once(tmp_path, capsys):
    # the README's `extract run|train|eval`: `extract run INPUT` read "run" as a missing input (exit 2);
    # a rejection was printed as "skipped" (the word for input that is not a document) and again at the end
    bad = tmp_path / "in.jsonl"
    bad.write_bytes(SAMPLE.read_bytes().splitlines(keepends=True)[0] + b"not json\n" * 7)
    outs = []
    for form in ([], ["run"]):
        out = tmp_path / f"x{len(form)}.jsonl"
        assert main(["extract", *form, str(bad), "--jsonl", str(out), "--workers", "1"]) == 0
        outs.append(out.read_bytes())
        err = capsys.readouterr().err.splitlines()
        assert [line for line in err if "in.jsonl:" in line] == [
            f"neardup extract: rejected {bad}:{n}: invalid JSON (invalid literal, expected 'null')"
            for n in range(2, 9)]
        assert err[-1] == "neardup extract: read 8 records, kept 1, rejected 7 (invalid JSON 7)"
    assert outs[0] == outs[1] and outs[0].count(b"\n") == 1
