"""``neardup partial``: the sub-command, added to neardup's parser by :func:`register`."""

from __future__ import annotations

import argparse
import sys

from ..contain.cli import print_summary
from .signatures import SIGNATURES


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``partial`` to ``subparsers`` (from ``ArgumentParser.add_subparsers``)."""
    from ..cli_options import add_job_options

    p = subparsers.add_parser("partial", help="find copied runs of sentences between documents, located (PDC)")
    add_job_options(p, "partials")
    g = p.add_argument_group("sentence duplicates")
    g.add_argument("--signature", choices=SIGNATURES, default="shingles", help="sentence signatures (shingles)")
    g.add_argument("--shingle-size", type=int, default=4, help="words per shingle (4)")
    g.add_argument("--tau", type=float, default=0.9, help="Jaccard at or above which sentences are duplicates (0.9)")
    g.add_argument("--idf-min", type=float, default=0.1, help="imatch: lowest normalized IDF of a word kept (0.1)")
    g.add_argument("--idf-max", type=float, default=1.0, help="imatch: highest normalized IDF of a word kept (1.0)")
    g.add_argument("--stats", metavar="FILE", help="imatch: word statistics (.npz of `neardup stats build`); off = the input")
    g.add_argument("--antecedents", type=int, default=10_000, help="spotsigs: most frequent words used as antecedents (10000)")
    g = p.add_argument_group("sequence matching")
    g.add_argument("--gamma", type=int, default=3, help="fewest sentences a span covers (3)")
    g.add_argument("--gap", type=int, default=1, help="missing sentences bridged inside a span (1)")
    p.add_argument("--truth", metavar="FILE", help="evaluate against a simulator's truth.jsonl (into summary.json)")
    p.set_defaults(func=run_command)
    return p


def run_command(args: argparse.Namespace) -> int:
    from ..cli_options import input_fields
    from .run import partial_files

    summary = partial_files(
        args.inputs, args.output, prefer_html=args.html, fields=input_fields(args), truth=args.truth,
        signature=args.signature, shingle_size=args.shingle_size, tau=args.tau, gamma=args.gamma, gap=args.gap,
        idf_min=args.idf_min, idf_max=args.idf_max, antecedents=args.antecedents, stats=args.stats,
        extract=args.extract, strict=args.strict, progress=not args.quiet and sys.stderr.isatty(), fmt=args.format,
    )
    if not args.quiet:
        print_summary(summary, args.output, "pairs", summary.get("pairs", 0))
    return 0
