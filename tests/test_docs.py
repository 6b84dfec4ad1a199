"""The reference pages agree with the code: every option a command's ``--help`` lists is in
docs/commands.md, and every relative link of the README and docs/ leads to a file and heading.

(docs/commands.md's ``$ neardup ...`` examples run as shown: tests/test_readme.py, with the README's.)
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from neardup.cli import build_parser
from neardup.commands.extract import _extract_parser
from neardup.evaluate.synth import SynthConfig
from neardup.methods import all_params

ROOT = Path(__file__).resolve().parents[1]
COMMANDS_MD = (ROOT / "docs" / "commands.md").read_text()
#: Commands whose method options docs/commands.md documents as a whole: "every parameter of every
#: method is an option too ... `neardup methods` with their defaults".
TAKE_METHOD_OPTIONS = {"dedup", "eval", "explain", "index create"}


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(command words, its parser) of every command and sub-command."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, path + (name,))


def _sections() -> dict[str, str]:
    """The text of docs/commands.md's section of each command (by the first `neardup X` of its heading;
    `index` and `serve` share one), and the page's sections on the engines."""
    found: dict[str, str] = {}
    for section in COMMANDS_MD.split("\n## ")[1:]:
        heading = section.split("\n", 1)[0]
        for name in re.findall(r"`neardup (\w+)`", heading) or ["spark" if "--engine spark" in heading else ""]:
            found[name] = found.get(name, "") + section
    return found


#: Options every file command shares (the input stage's, the run's, the engine's): documented once, in
#: `dedup`'s section ("on every command that reads inputs") or the Spark section.
SHARED = re.compile(r"--(extract|extractor|html|id-field|text-field|html-field|workers|strict|quiet|engine|spark-.*)")


def _undocumented() -> list[str]:
    method_options = {"--" + name.replace("_", "-") for name in all_params()}
    knobs = {"--" + name.replace("_", "-") for name in SynthConfig.__dataclass_fields__}
    sections = _sections()
    parsers = [*_commands(build_parser()), (("extract",), _extract_parser())]
    missing = []
    for path, parser in parsers:
        command = " ".join(path)
        for action in parser._actions:
            options = [o for o in action.option_strings if o.startswith("--") and o != "--help"]
            if not options or "-o" in action.option_strings:  # -o OUTDIR: every synopsis
                continue
            if command in TAKE_METHOD_OPTIONS and options[0] in method_options:
                continue
            if command == "synth" and options[0] in knobs:  # "`neardup synth --help` lists every simulator knob"
                continue
            text = COMMANDS_MD.split("\n## ")[0] if not path else sections.get(path[0], "")
            if command == "contain" and "[aligner options as partial]" in text:
                text += sections["partial"]
            if SHARED.fullmatch(options[0]):
                text += sections["dedup"] + sections["spark"]
            if not any(re.search(re.escape(o) + r"(?![\w-])", text) for o in options):
                missing.append(f"neardup {command} {options[0]}".replace("  ", " "))
    return missing


def test_every_option_of_every_command_is_in_the_reference():
    assert _undocumented() == []


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings."""
    found = set()
    for line in page.read_text().splitlines():
        if m := re.match(r"#+ (.*)", line):
            found.add(re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-"))
    return found


PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "README.md"]


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_relative_link_leads_to_a_file_and_heading(page):
    broken = []
    for link in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
        if re.match(r"[a-z]+:", link):
            continue
        path, _, anchor = link.partition("#")
        target = page.parent / path if path else page
        if not target.exists() or (anchor and target.suffix == ".md" and anchor not in _anchors(target)):
            broken.append(link)
    assert broken == []
