"""The README's examples run as shown: each `$ neardup ...` block, with the lines it prints (and
docs/commands.md's, the same way).

A block is a run of indented lines starting with ``$ `` (commands, run in order with bash
in a scratch folder that sees the repository's ``examples/``), followed by the output the
README shows.  Every shown output line must appear, in order, in what the commands print
(stdout and stderr), except timings: lines starting with ``time`` and the ``sec`` column of
tables are not compared, and a shown line ending in ``...`` is compared up to there.
Blocks that read ``../shared/data`` skip when it is absent.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _blocks(page: str = "README.md") -> list[tuple[int, list[str], list[str]]]:
    """(line number, commands, shown output) of every example block of ``page``."""
    blocks, current = [], None
    for number, line in enumerate((ROOT / page).read_text().splitlines(), start=1):
        if line.startswith("    $ "):
            if current is None or current[2]:
                current = (number, [], [])
                blocks.append(current)
            current[1].append(line[6:].split("  #")[0].strip())
        elif line.startswith("    ") and current is not None and line.strip():
            current[2].append(line[4:])
        else:
            current = None
    return blocks


def _normal(line: str) -> str:
    line = re.sub(r"\|\s*[\d.]+\s*\|\s*$", "| SEC |", line.rstrip())  # the sec column of eval tables
    return re.sub(r"\s+", " ", line).strip()


BLOCKS = _blocks()
REFERENCE_BLOCKS = _blocks("docs/commands.md")


def test_the_readme_has_examples():
    assert len(BLOCKS) >= 4 and len(REFERENCE_BLOCKS) >= 10


@pytest.mark.slow
@pytest.mark.parametrize("page, number, commands, shown",
                         [("README", *b) for b in BLOCKS] + [("commands.md", *b) for b in REFERENCE_BLOCKS],
                         ids=[f"README:{b[0]}" for b in BLOCKS] + [f"commands.md:{b[0]}" for b in REFERENCE_BLOCKS])
def test_readme_example_prints_what_it_shows(tmp_path, page, number, commands, shown):
    if any("../shared/data" in c for c in commands) and not (ROOT.parent / "shared" / "data").exists():
        pytest.skip("needs ../shared/data")
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "COLUMNS": "100"}  # explain wraps its text to the terminal: the docs show 100 columns
    printed = []
    for command in commands:
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode in (0, 1) or "grep" in command, f"{page}:{number}: {command}\n{done.stderr}"
        printed += (done.stdout + done.stderr).splitlines()
    got = [_normal(line) for line in printed]
    at = 0
    for want in (s for s in shown if not s.lstrip().startswith("time")):
        w = _normal(want)
        prefix = w[:-3].rstrip() if w.endswith("...") else None
        while at < len(got) and not (got[at].startswith(prefix) if prefix else got[at] == w):
            at += 1
        assert at < len(got), f"{page}:{number}: not printed: {want!r}\nprinted:\n" + "\n".join(printed)
        at += 1


# -- issue 29 item 11: what a new user reads is true and usable -------------------------------------

README = (ROOT / "README.md").read_text()


def test_the_readme_s_install_commands_work_from_a_checkout():
    # neardup is not on the package index: `pip install 'neardup[spark]'` fails
    assert "pip install 'neardup[" not in README and 'pip install "neardup[' not in README
    assert "pip install -e '.[spark]'" in README and "pip install -e '.[serve]'" in README
    ci = (ROOT / ".ci" / "run").read_text()
    assert "apt-get install" in ci and "chromium" in ci
    intro = README.split("## On your pages")[0]
    assert ".ci/run" in intro and "chromium" in intro and "apt-get" in intro and "as root" in intro


def test_the_readme_points_users_at_no_maintainers_data_and_no_issue_numbers():
    users = README.split("## Developing")[0]
    assert "../shared/data" not in users
    assert not re.search(r"\bissue(?:'s| \d+| #\d+)", README, re.I)


def test_the_readme_s_statements_match_the_code():
    from neardup.cluster import CLUSTERINGS
    from neardup.methods import DEFAULT_METHOD, method_defaults

    assert CLUSTERINGS[0] == "propagation" and "connected components of the pairs" not in README
    assert "the most accurate default on pages" not in README and DEFAULT_METHOD == "ffp"
    listed = re.search(r"`ffp`[^;]*?`--threshold` \(([\d.]+)\)", README)
    assert listed and float(listed.group(1)) == method_defaults("ffp")["threshold"]
    for name in ("minhash", "spotsigs"):
        given = re.search(rf"`{name}`: [^;]*?`--threshold` \(([\d.]+)\)", README)
        assert given and float(given.group(1)) == method_defaults(name)["threshold"], name


def test_the_readme_is_for_users_and_names_the_fast_loop():
    # the README says what a user needs; the detail, the measurements and the design are in docs/
    assert README.count("\n") <= 250
    assert 'pytest -m "not slow"' in README
    for page in ("commands", "architecture", "defaults", "results", "costs"):
        assert f"docs/{page}.md" in README and (ROOT / "docs" / f"{page}.md").exists()


def test_every_table_row_of_the_readme_belongs_to_a_table():
    lines = README.splitlines()
    k = 0
    while k < len(lines):
        if lines[k].startswith("|"):
            start = k
            while k < len(lines) and lines[k].startswith("|"):
                k += 1
            assert k - start >= 3 and re.fullmatch(r"\|(?:-+\|)+", lines[start + 1]), f"README:{start + 1}"
        k += 1
