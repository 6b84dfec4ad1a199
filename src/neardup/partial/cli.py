"""``neardup partial``: the sub-command, added to neardup's parser by :func:`register`."""

from __future__ import annotations

import argparse
import sys

from ..contain.cli import print_summary
from .align import AlignParams
from .signatures import SIGNATURES


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``partial`` to ``subparsers`` (from ``ArgumentParser.add_subparsers``)."""
    from ..cli_options import add_engine_options, add_job_options

    p = subparsers.add_parser("partial", help="find copied runs of sentences between documents, located (PDC)")
    add_job_options(p, "partials")
    p.add_argument("--method", choices=("pdc", "align"), default="pdc",
                   help="pdc: the paper's runs of duplicate sentences; align: seed-and-extend passages that "
                        "survive copy-editing, 1-2 sentences long too (pdc)")
    g = p.add_argument_group("align (seed-and-extend)")
    defaults = AlignParams()
    g.add_argument("--seed-words", type=int, default=defaults.n, help=f"words per seed ({defaults.n})")
    g.add_argument("--max-df", type=int, default=defaults.max_df,
                   help=f"a seed in more documents is boilerplate, not a seed ({defaults.max_df})")
    g.add_argument("--min-seeds", type=int, default=defaults.min_seeds,
                   help=f"distinct shared seeds a document pair needs ({defaults.min_seeds})")
    g.add_argument("--word-gap", type=int, default=defaults.gap,
                   help=f"words a passage may skip between two seeds ({defaults.gap})")
    g.add_argument("--min-words", type=int, default=defaults.min_words,
                   help=f"shortest passage, words on both sides ({defaults.min_words})")
    g.add_argument("--min-density", type=float, default=defaults.min_density,
                   help=f"matched words / passage words ({defaults.min_density})")
    g = p.add_argument_group("pdc: sentence duplicates")
    g.add_argument("--signature", choices=SIGNATURES, default="shingles", help="sentence signatures (shingles)")
    g.add_argument("--shingle-size", type=int, default=4, help="words per shingle (4)")
    g.add_argument("--tau", type=float, default=0.9, help="Jaccard at or above which sentences are duplicates (0.9)")
    g.add_argument("--idf-min", type=float, default=0.1, help="imatch: lowest normalized IDF of a word kept (0.1)")
    g.add_argument("--idf-max", type=float, default=1.0, help="imatch: highest normalized IDF of a word kept (1.0)")
    g.add_argument("--stats", metavar="FILE", help="imatch: word statistics (.npz of `neardup stats build`); off = the input")
    g.add_argument("--antecedents", type=int, default=10_000, help="spotsigs: most frequent words used as antecedents (10000)")
    g = p.add_argument_group("pdc: sequence matching")
    g.add_argument("--gamma", type=int, default=3, help="fewest sentences a span covers (3)")
    g.add_argument("--gap", type=int, default=1, help="missing sentences bridged inside a span (1)")
    p.add_argument("--truth", metavar="FILE", help="evaluate against a simulator's truth.jsonl (into summary.json)")
    add_engine_options(p)
    p.set_defaults(func=run_command)
    return p


def run_command(args: argparse.Namespace) -> int:
    from ..cli_options import engine_of, input_fields
    from .run import align_files, partial_files

    engine = engine_of(args)
    if args.method == "align":
        params = AlignParams(args.seed_words, args.max_df, args.min_seeds, args.word_gap, args.min_words,
                             args.min_density)
        summary = align_files(args.inputs, args.output, prefer_html=args.html, fields=input_fields(args),
                              fmt=args.format, extract=args.extract, strict=args.strict, params=params,
                              engine=engine)
        if not args.quiet:
            print_summary(summary, args.output, "pairs", summary.get("pairs", 0))
        return 0

    summary = partial_files(
        args.inputs, args.output, prefer_html=args.html, fields=input_fields(args), truth=args.truth,
        signature=args.signature, shingle_size=args.shingle_size, tau=args.tau, gamma=args.gamma, gap=args.gap,
        idf_min=args.idf_min, idf_max=args.idf_max, antecedents=args.antecedents, stats=args.stats,
        extract=args.extract, strict=args.strict, progress=not args.quiet and sys.stderr.isatty(), fmt=args.format,
        engine=engine,
    )
    if not args.quiet:
        print_summary(summary, args.output, "pairs", summary.get("pairs", 0))
    return 0
