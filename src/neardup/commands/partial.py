"""``neardup partial``: copied passages, located (:mod:`neardup.partial`: the aligner or PDC)."""

from __future__ import annotations

import argparse
import sys

from ..job import print_found
from ..pdc.signatures import SIGNATURES


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``partial`` to ``subparsers`` (from ``ArgumentParser.add_subparsers``)."""
    from ..cli_options import add_align_options, add_engine_options, add_job_options

    p = subparsers.add_parser("partial", help="find copied passages between documents, located (seed-and-extend; PDC)")
    add_job_options(p, "partials")
    p.add_argument("--method", choices=("align", "pdc"), default="align",
                   help="align: seed-and-extend passages that survive copy-editing, 1-2 sentences long too; "
                        "pdc: the paper's runs of duplicate sentences (align)")
    add_align_options(p)
    g = p.add_argument_group("pdc: sentence duplicates")
    g.add_argument("--signature", choices=SIGNATURES, help="sentence signatures (shingles)")
    g.add_argument("--shingle-size", type=int, help="words per shingle (4)")
    g.add_argument("--tau", type=float, help="Jaccard at or above which sentences are duplicates (0.9)")
    g.add_argument("--idf-min", type=float, help="imatch: lowest normalized IDF of a word kept (0.1)")
    g.add_argument("--idf-max", type=float, help="imatch: highest normalized IDF of a word kept (1.0)")
    g.add_argument("--stats", metavar="FILE", help="imatch: word statistics (.npz of `neardup stats build`); off = the input")
    g.add_argument("--antecedents", type=int, help="spotsigs: most frequent words used as antecedents (10000)")
    g = p.add_argument_group("pdc: sequence matching")
    g.add_argument("--gamma", type=int, help="fewest sentences a span covers (3)")
    g.add_argument("--gap", type=int, help="missing sentences bridged inside a span (1)")
    p.add_argument("--truth", metavar="FILE", help="evaluate against a simulator's truth.jsonl (into summary.json)")
    add_engine_options(p)
    return p


#: PDC's options and their defaults (None in the parser, so one given without --method pdc is seen).
PDC_DEFAULTS = {"signature": "shingles", "shingle_size": 4, "tau": 0.9, "idf_min": 0.1, "idf_max": 1.0, "stats": None,
                "antecedents": 10_000, "gamma": 3, "gap": 1}


def run(args: argparse.Namespace) -> int:
    from ..cli_options import align_params, engine_of, input_fields
    from ..errors import UserError
    from ..partial.run import align_files, partial_files

    given = [k for k in PDC_DEFAULTS if getattr(args, k) is not None]
    if args.method == "align" and given:
        raise UserError(f"--{given[0].replace('_', '-')} is an option of --method pdc (the default method is align)")
    for k, v in PDC_DEFAULTS.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    engine = engine_of(args)
    if args.method == "align":
        summary = align_files(args.inputs, args.output, prefer_html=args.html, fields=input_fields(args),
                              fmt=args.format, extract=args.extract, strict=args.strict, params=align_params(args),
                              truth=args.truth, progress=not args.quiet and sys.stderr.isatty(),
                              engine=engine)
        if not args.quiet:
            print_found(summary, args.output, "pairs", summary.get("pairs", 0))
        return 0

    summary = partial_files(
        args.inputs, args.output, prefer_html=args.html, fields=input_fields(args), truth=args.truth,
        signature=args.signature, shingle_size=args.shingle_size, tau=args.tau, gamma=args.gamma, gap=args.gap,
        idf_min=args.idf_min, idf_max=args.idf_max, antecedents=args.antecedents, stats=args.stats,
        extract=args.extract, strict=args.strict, progress=not args.quiet and sys.stderr.isatty(), fmt=args.format,
        engine=engine,
    )
    if not args.quiet:
        print_found(summary, args.output, "pairs", summary.get("pairs", 0))
    return 0
