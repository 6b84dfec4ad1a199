"""`neardup eval`'s output records how it was run: a reviewer reruns it from the output alone."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from neardup.cli import main

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample.jsonl"


def _numbers(report: dict) -> dict:
    """What an evaluation measured: all but its time and how it was typed."""
    return {k: v for k, v in report.items() if k not in ("seconds", "run")}


def test_the_recorded_command_reproduces_the_numbers(tmp_path, capsys):
    out = tmp_path / "e"
    assert main(["eval", str(SAMPLE), "--compare", "ffp,minhash", "--shingle-size", "3", "--folds", "2",
                 "--split-seed", "4", "--tune-for", "bcubed", "-o", str(out)]) == 0
    capsys.readouterr()
    first = json.loads((out / "eval.json").read_text())["reports"]
    run = first[0]["run"]
    assert run["dataset"]["path"] == str(SAMPLE) and run["dataset"]["digest"].startswith("sha256:")
    assert (run["folds"], run["split_seed"], run["tune_for"]) == (2, 4, "bcubed")
    assert run["neardup"] and run["libraries"]["numpy"] and run["extractor"]["name"] == "model"
    assert first[0]["params"]["shingle_size"] == 3 and "seed" in first[0]["params"]  # every knob, the seed too
    argv = shlex.split(run["command"])
    assert argv[0] == "neardup"
    argv[argv.index("-o") + 1] = str(tmp_path / "again")
    assert main(argv[1:]) == 0
    again = json.loads((tmp_path / "again" / "eval.json").read_text())["reports"]
    assert [_numbers(r) for r in again] == [_numbers(r) for r in first]
    assert again[0]["run"]["dataset"]["digest"] == run["dataset"]["digest"]


def test_the_digest_is_of_what_was_read(tmp_path, capsys):
    lines = SAMPLE.read_text().splitlines()
    record = json.loads(lines[0])
    record["text"] += " One more sentence."
    edited = tmp_path / "edited.jsonl"
    edited.write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    digests = []
    for data in (SAMPLE, edited):
        assert main(["eval", str(data), "--no-relations", "--json"]) == 0
        digests.append(json.loads(capsys.readouterr().out)["run"]["dataset"]["digest"])
    assert digests[0] != digests[1]


def test_an_output_option_eval_would_ignore_is_refused(tmp_path, capsys):
    """`eval --partials FILE -o DIR` wrote nothing and said nothing."""
    found = tmp_path / "partials.jsonl"
    found.write_text("")
    truth = tmp_path / "truth.jsonl"
    truth.write_text("")
    for option in (["-o", str(tmp_path / "e")], ["--plot", str(tmp_path / "p")]):
        assert main(["eval", str(SAMPLE), "--truth", str(truth), "--partials", str(found), *option]) == 2
        assert f"{option[0]} is for a method's evaluation" in capsys.readouterr().err
    assert not (tmp_path / "e").exists() and not (tmp_path / "p").exists()
