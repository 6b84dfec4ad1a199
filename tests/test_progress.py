"""What a long run shows while it works (fix-look): the documents bar, then the stage after reading."""

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
