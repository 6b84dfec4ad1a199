"""What users see (fix-look): the progress of a long run (the documents bar, then the stage after
reading) and one-line errors naming the option."""

from __future__ import annotations

import io

import pytest

from neardup.input_stage import progress_bar
from neardup.pipeline import Deduplicator


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_names_the_stage_after_reading_and_clears_it(monkeypatch):
    out = _Terminal()
    monkeypatch.setattr("sys.stderr", out)
    bar = progress_bar(True)
    bar.update(5)
    bar.stage("aligning")
    bar.update(1)  # after reading: the count stays as reading left it
    bar.close()
    shown = out.getvalue()
    assert "documents: 5doc" in shown and "documents: 6doc" not in shown
    assert "\raligning ... (since " in shown and shown.endswith("\r\x1b[K")


@pytest.mark.parametrize("relations", [True, False])
def test_dedup_names_its_stages_after_reading(monkeypatch, relations):
    out = _Terminal()
    monkeypatch.setattr("sys.stderr", out)
    texts = ["the same story about the harbor bridge and the council vote today " * 3] * 3
    Deduplicator(progress=True, relations=relations).run([(f"d{k}", t) for k, t in enumerate(texts)])
    shown = out.getvalue()
    assert "documents: 3doc" in shown and "finding candidate pairs" in shown
    assert ("aligning the passages each pair shares" in shown) is relations
    assert shown.endswith("\r\x1b[K")  # the stage line cleared: the summary starts on a clean line


def test_off_a_terminal_nothing_is_drawn(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr("sys.stderr", out)
    bar = progress_bar(False)
    bar.update(3)
    bar.stage("aligning")
    bar.close()
    assert out.getvalue() == ""


@pytest.mark.parametrize("option, value", [("--min-coverage", "0"), ("--unique-coverage", "1.5"), ("--site-max-df", "-1")])
def test_a_bad_relation_option_is_named(tmp_path, capsys, option, value):
    """fix-look: the error names the option that is wrong, not all three."""
    from pathlib import Path

    from neardup.cli import main

    sample = Path(__file__).resolve().parents[1] / "examples" / "sample.jsonl"
    assert main(["dedup", str(sample), "-o", str(tmp_path / "o"), option, value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"neardup: error: {option} must be ") and err[0].endswith(f"got {float(value) if option != '--site-max-df' else int(value)}")


def test_report_counts_the_records_it_reads_again_then_names_its_passage_stage(tmp_path, monkeypatch):
    """`neardup report` on a terminal shows progress (it was silent for seconds on real runs)."""
    from pathlib import Path

    from neardup.cli import main
    from neardup.report import build_report

    sample = Path(__file__).resolve().parents[1] / "examples" / "sample.jsonl"
    assert main(["dedup", str(sample), "-o", str(tmp_path / "d"), "--quiet"]) == 0
    out = _Terminal()
    monkeypatch.setattr("sys.stderr", out)
    build_report([tmp_path / "d"], tmp_path / "r.html", progress=True)
    shown = out.getvalue()
    assert "documents: 48doc" in shown and "finding the passages the pairs share" in shown
    assert shown.endswith("\r\x1b[K")
