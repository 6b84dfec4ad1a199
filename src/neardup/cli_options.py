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


def add_engine_options(p: argparse.ArgumentParser) -> None:
    """``--engine`` and the Spark engine's connection options (:mod:`neardup.engines`)."""
    from .engines import ENGINES

    g = p.add_argument_group("engine (where the stages run; every engine gives the same outputs)")
    g.add_argument("--engine", choices=ENGINES, default=ENGINES[0],
                   help="local: this process; spark: Apache Spark stages (needs neardup[spark], Java 17+) (local)")
    g.add_argument("--spark-master", metavar="URL", help="Spark master URL: local[N], spark://host:7077, yarn (local[2])")
    g.add_argument("--spark-connect", metavar="sc://HOST:PORT", help="a Spark Connect endpoint instead of a master")
    g.add_argument("--spark-partitions", type=int, metavar="N", help="partitions of the documents and shuffles (Spark's)")
    g.add_argument("--spark-work", metavar="DIR",
                   help="folder (or URI) every Spark node reaches, for the stages' Parquet (a temporary folder)")


def engine_of(args: argparse.Namespace) -> object:
    """The engine ``--engine`` and the ``--spark-*`` options name (``"local"`` as a name)."""
    spark_given = [f for f in ("spark_master", "spark_connect", "spark_partitions", "spark_work")
                   if getattr(args, f, None) is not None]
    if args.engine != "spark":
        if spark_given:
            from .errors import UserError

            raise UserError(f"--{spark_given[0].replace('_', '-')} needs --engine spark")
        return "local"
    from .engines import get_engine

    return get_engine("spark", master=args.spark_master, connect=args.spark_connect,
                      partitions=args.spark_partitions, work=args.spark_work)
