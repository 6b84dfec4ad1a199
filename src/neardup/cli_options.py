"""Options commands share: inputs, output folder, extraction, fields; methods; engines; the aligner's.

Kept apart from :mod:`neardup.cli` so the command modules (:mod:`neardup.commands`) use
them without importing the main command line (no import cycle).  The method options import
the method registry, and the aligner's options the aligner, only when a parser is built.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .extract import DEFAULT_EXTRACTOR, EXTRACTORS
from .io.readers import Fields
from .io.writers import FORMATS

if TYPE_CHECKING:
    from .align.aligner import AlignParams


def add_job_options(p: argparse.ArgumentParser, outputs: str) -> None:
    """What every file job takes: inputs, output folder, input handling, verbosity."""
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="folders of .txt/.html files or of shards, JSONL, Parquet, CSV/TSV, WARC (gzip ok)")
    p.add_argument("-o", "--output", required=True, metavar="OUTDIR", help=f"folder for {outputs} and summary.json")
    add_input_options(p)
    p.add_argument("--format", choices=FORMATS, default="jsonl", help=f"format of {outputs} (jsonl)")
    p.add_argument("--strict", action="store_true", help="stop with exit code 2 at the first bad record")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary on stderr")


def add_input_options(p: argparse.ArgumentParser, extract: str | None = DEFAULT_EXTRACTOR,
                      unset: str = "") -> None:
    """How records become text: the HTML extractor and which field to read.

    ``extract``: the default extractor; None where another setting decides (an index's own, fixed
    at create), which ``unset`` names in the help."""
    p.add_argument("--extract", choices=sorted(EXTRACTORS), default=extract,
                   help=f"how HTML pages become text: the learned block model, the MinBlock/link-density "
                        f"heuristic, or none (all visible text) ({extract or unset})")
    p.add_argument("--html", action="store_true", help="read the 'html' field of records that have both html and text")
    p.add_argument("--id-field", default="id", metavar="NAME", help="field of a record (JSONL, Parquet, CSV) with its id (id)")
    p.add_argument("--text-field", default="text", metavar="NAME",
                   help="field with the article text (text); a record without the field named here is rejected, "
                        "not read from its HTML as one without 'text' is")
    p.add_argument("--html-field", default="html", metavar="NAME", help="field with the web page (html)")
    add_workers_option(p)


def add_workers_option(p: argparse.ArgumentParser) -> None:
    """``--workers``: processes that extract the pages (:mod:`neardup.workers`)."""
    p.add_argument("--workers", default="auto", metavar="N",
                   help="processes that extract web pages, each on its own core: a number, or auto for every core "
                        "this process may use; the output is the same for any number (auto)")


def input_fields(args: argparse.Namespace) -> Fields:
    """The record fields named by ``--id-field``, ``--text-field`` and ``--html-field``."""
    return Fields(args.id_field, args.text_field, args.html_field)


def add_engine_options(p: argparse.ArgumentParser) -> None:
    """``--engine`` and the Spark engine's connection options (:mod:`neardup.engines`)."""
    from .engines import ENGINES

    g = p.add_argument_group("engine (where the stages run; every engine gives the same outputs)")
    g.add_argument("--engine", choices=ENGINES, default=ENGINES[0],
                   help="local: this process; spark: Apache Spark stages (needs the spark extra, pip install -e '.[spark]', and Java 17+) (local)")
    g.add_argument("--spark-master", metavar="URL", help="Spark master URL: local[N], spark://host:7077, yarn (local[2])")
    g.add_argument("--spark-connect", metavar="sc://HOST:PORT", help="a Spark Connect endpoint instead of a master")
    g.add_argument("--spark-partitions", type=int, metavar="N", help="partitions of the documents and shuffles (Spark's)")
    g.add_argument("--spark-work", metavar="DIR",
                   help="folder (or URI) every Spark node reaches, for the stages' Parquet (a temporary folder)")
    g.add_argument("--spark-driver-memory", metavar="SIZE",
                   help="heap of the Spark driver's JVM, e.g. 8g; on local[N] it runs the tasks too (a quarter of "
                        "this machine's memory, 1g to 32g)")
    g.add_argument("--spark-timeout", type=float, metavar="SECONDS",
                   help="end the run when no Spark task finishes for this long while a job runs (900)")
    g.add_argument("--spark-conf", action="append", metavar="KEY=VALUE",
                   help="any other Spark setting, e.g. spark.executor.memory=8g (repeatable)")


#: The ``--spark-*`` options (each needs ``--engine spark``).
SPARK_OPTIONS = ("spark_master", "spark_connect", "spark_partitions", "spark_work", "spark_driver_memory",
                 "spark_timeout", "spark_conf")


def engine_of(args: argparse.Namespace) -> object:
    """The engine ``--engine`` and the ``--spark-*`` options name (``"local"`` as a name)."""
    spark_given = [f for f in SPARK_OPTIONS if getattr(args, f, None) is not None]
    if args.engine != "spark":
        if spark_given:
            from .errors import UserError

            raise UserError(f"--{spark_given[0].replace('_', '-')} needs --engine spark")
        return "local"
    from .engines import get_engine

    timeout = {} if args.spark_timeout is None else {"timeout": args.spark_timeout}
    return get_engine("spark", master=args.spark_master, connect=args.spark_connect,
                      partitions=args.spark_partitions, work=args.spark_work, quiet=bool(getattr(args, "quiet", False)),
                      driver_memory=args.spark_driver_memory, conf=spark_conf(args.spark_conf or []), **timeout)


def spark_conf(items: list[str]) -> dict[str, str]:
    """``--spark-conf KEY=VALUE`` options as a dict (a :class:`UserError` for one without ``=``)."""
    from .errors import UserError

    conf = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UserError(f"--spark-conf takes KEY=VALUE, got {item!r}")
        conf[key.strip()] = value.strip()
    return conf


def add_method_options(p: argparse.ArgumentParser) -> None:
    """``--method`` and one option per parameter of any registered method, grouped by method.

    A parameter several methods take (``--threshold``, ``--shingle-size``, ...) is listed once
    under "options of several methods" with each method's default; a parameter of one method
    is listed under that method, with its own help.
    """
    from collections import Counter

    from .methods import DEFAULT_METHOD, REGISTRY, all_params

    p.add_argument("--method", choices=sorted(REGISTRY), default=DEFAULT_METHOD,
                   help=f"detection method ({DEFAULT_METHOD}: the most accurate on news pages at its defaults)")
    params = all_params()
    shared = p.add_argument_group("options of several methods (`neardup methods` lists which method takes which)")
    groups = {m: p.add_argument_group(f"{m} options") for m in sorted(REGISTRY)}
    for name, uses in params.items():
        # a shared parameter is described by the help most of its methods give (ties: the default
        # method's, else the first): one method's note ("results do not depend on it") may not hold for others
        helps = Counter(s.help for _, s in uses)
        top = max(helps.values())
        spec = next((s for m, s in uses if m == DEFAULT_METHOD and helps[s.help] == top),
                    next(s for _, s in uses if helps[s.help] == top))
        if len(uses) > 1:
            group = shared
            defaults = ", ".join(f"{m} {'off' if s.default in (None, False) else s.default}" for m, s in uses)
            text = f"{spec.help} ({defaults})"
        else:
            group = groups[uses[0][0]]
            text = f"{spec.help} ({'off' if spec.default in (None, False) else spec.default})"
        flag = "--" + name.replace("_", "-")
        if spec.type is bool:
            group.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=None, help=text)
        else:
            group.add_argument(flag, dest=name, type=spec.type, choices=spec.choices, default=None, help=text)


def given_params(args: argparse.Namespace) -> dict:
    """The method parameters given on the command line (any method's)."""
    from .methods import all_params

    return {name: getattr(args, name) for name in all_params() if getattr(args, name, None) is not None}


def method_options(args: argparse.Namespace) -> dict:
    """The chosen method's parameters given on the command line; others are an error."""
    from .errors import UserError
    from .methods import method_defaults

    accepted = method_defaults(args.method)
    given = given_params(args)
    foreign = sorted(set(given) - set(accepted))
    if foreign:
        flags = ", ".join("--" + f.replace("_", "-") for f in foreign)
        raise UserError(f"method {args.method} does not take {flags}")
    return {"method": args.method, **given}


def add_align_options(p: argparse.ArgumentParser, defaults: "AlignParams | None" = None, prefix: str = "") -> None:
    """The aligner's knobs (:class:`~neardup.align.aligner.AlignParams`, at ``defaults``) as an option group;
    ``partial``, ``contain --method align`` and (``prefix="partial-"``: ``--partial-max-df``
    beside minhash's own ``--max-df``) ``index create --partial`` share it."""
    from .align.aligner import DEFAULT_ALIGN

    defaults = defaults or DEFAULT_ALIGN
    g = p.add_argument_group("align (seed-and-extend)")
    f = f"--{prefix}"
    g.add_argument(f"{f}seed-words", type=int, default=defaults.n, help=f"words per seed ({defaults.n})")
    g.add_argument(f"{f}max-df", type=int, default=defaults.max_df,
                   help=f"a seed in more documents is boilerplate, not a seed ({defaults.max_df})")
    g.add_argument(f"{f}min-seeds", type=int, default=defaults.min_seeds,
                   help=f"seed matches a document pair needs ({defaults.min_seeds})")
    g.add_argument(f"{f}word-gap", type=int, default=defaults.gap,
                   help=f"words a passage may skip between two seeds ({defaults.gap})")
    g.add_argument(f"{f}min-words", type=int, default=defaults.min_words,
                   help=f"fewest matched words of a passage ({defaults.min_words})")
    g.add_argument(f"{f}min-density", type=float, default=defaults.min_density,
                   help=f"matched words / passage words ({defaults.min_density})")


def align_params(args: argparse.Namespace, prefix: str = "") -> "AlignParams":
    """:class:`~neardup.align.aligner.AlignParams` from the options of :func:`add_align_options` (same ``prefix``)."""
    from .align.aligner import AlignParams

    v = {k: getattr(args, prefix.replace("-", "_") + k)
         for k in ("seed_words", "max_df", "min_seeds", "word_gap", "min_words", "min_density")}
    return AlignParams(v["seed_words"], v["max_df"], v["min_seeds"], v["word_gap"], v["min_words"], v["min_density"])
