"""Options every command that reads inputs shares: inputs, output folder, extraction, fields.

Kept apart from :mod:`neardup.cli` so the sub-commands' parsers (contain, partial, stats,
train) use them without importing the main command line (no import cycle).
"""

from __future__ import annotations

import argparse

from .extract import DEFAULT_EXTRACTOR, EXTRACTORS
from .io.readers import Fields
from .io.writers import FORMATS


def add_job_options(p: argparse.ArgumentParser, outputs: str) -> None:
    """What every file job takes: inputs, output folder, input handling, verbosity."""
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="folders of .txt/.html files or of shards, JSONL, Parquet, CSV/TSV, WARC (gzip ok)")
    p.add_argument("-o", "--output", required=True, metavar="OUTDIR", help=f"folder for {outputs} and summary.json")
    add_input_options(p)
    p.add_argument("--format", choices=FORMATS, default="jsonl", help=f"format of {outputs} (jsonl)")
    p.add_argument("--strict", action="store_true", help="stop with exit code 2 at the first bad record")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary on stderr")


def add_input_options(p: argparse.ArgumentParser) -> None:
    """How records become text: the HTML extractor and which field to read."""
    p.add_argument("--extract", choices=sorted(EXTRACTORS), default=DEFAULT_EXTRACTOR,
                   help=f"how HTML pages become text: the learned block model, the MinBlock/link-density "
                        f"heuristic, or none (all visible text) ({DEFAULT_EXTRACTOR})")
    p.add_argument("--html", action="store_true", help="read the 'html' field of records that have both html and text")
    p.add_argument("--id-field", default="id", metavar="NAME", help="field of a record (JSONL, Parquet, CSV) with its id (id)")
    p.add_argument("--text-field", default="text", metavar="NAME", help="field with the article text (text)")
    p.add_argument("--html-field", default="html", metavar="NAME", help="field with the web page (html)")


def input_fields(args: argparse.Namespace) -> Fields:
    """The record fields named by ``--id-field``, ``--text-field`` and ``--html-field``."""
    return Fields(args.id_field, args.text_field, args.html_field)
