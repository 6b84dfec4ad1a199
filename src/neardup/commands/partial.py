"""``neardup partial``: copied passages, located (:mod:`neardup.partial`: the aligner or PDC)."""

from __future__ import annotations

import argparse
import inspect
import sys
from typing import Any

from ..job import print_found
from ..pdc.signatures import SIGNATURES

#: PDC's options: parameters of :class:`~neardup.pdc.detector.PartialDetector`, which states their
#: defaults (:func:`pdc_defaults`); None in the parser, so one given without --method pdc is seen.
PDC_OPTIONS = ("signature", "shingle_size", "tau", "idf_min", "idf_max", "stats", "antecedents", "gamma", "gap")


def pdc_defaults() -> dict[str, Any]:
    """The defaults of :data:`PDC_OPTIONS`, read from the detector (stated there only)."""
    from ..pdc.detector import PartialDetector

    params = inspect.signature(PartialDetector.__init__).parameters
    return {name: params[name].default for name in PDC_OPTIONS}


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``partial`` to ``subparsers`` (from ``ArgumentParser.add_subparsers``)."""
    from ..cli_options import add_align_options, add_engine_options, add_job_options

    p = subparsers.add_parser("partial", help="find copied passages between documents, located (seed-and-extend; PDC)")
    add_job_options(p, "partials")
    p.add_argument("--method", choices=("align", "pdc"), default="align",
                   help="align: seed-and-extend passages that survive copy-editing, 1-2 sentences long too; "
                        "pdc: the paper's runs of duplicate sentences (align)")
    add_align_options(p)
    d = pdc_defaults()
    g = p.add_argument_group("pdc: sentence duplicates")
    g.add_argument("--signature", choices=SIGNATURES, help=f"sentence signatures ({d['signature']})")
    g.add_argument("--shingle-size", type=int, help=f"words per shingle ({d['shingle_size']})")
    g.add_argument("--tau", type=float, help=f"Jaccard at or above which sentences are duplicates ({d['tau']})")
    g.add_argument("--idf-min", type=float, help=f"imatch: lowest normalized IDF of a word kept ({d['idf_min']})")
    g.add_argument("--idf-max", type=float, help=f"imatch: highest normalized IDF of a word kept ({d['idf_max']})")
    g.add_argument("--stats", metavar="FILE", help="imatch: word statistics (.npz of `neardup stats build`); off = the input")
    g.add_argument("--antecedents", type=int, help=f"spotsigs: most frequent words used as antecedents ({d['antecedents']})")
    g = p.add_argument_group("pdc: sequence matching")
    g.add_argument("--gamma", type=int, help=f"fewest sentences a span covers ({d['gamma']})")
    g.add_argument("--gap", type=int, help=f"missing sentences bridged inside a span ({d['gap']})")
    p.add_argument("--truth", metavar="FILE", help="evaluate against a simulator's truth.jsonl (into summary.json)")
    add_engine_options(p)
    return p


def run(args: argparse.Namespace) -> int:
    """Align (the default) or run PDC; write the partials, print the summary."""
    from ..cli_options import align_params, engine_of, input_fields
    from ..errors import UserError
    from ..partial.run import align_files, partial_files

    given = {k: getattr(args, k) for k in PDC_OPTIONS if getattr(args, k) is not None}
    if args.method == "align" and given:
        raise UserError(f"--{next(iter(given)).replace('_', '-')} is an option of --method pdc (the default method is align)")
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
        args.inputs, args.output, prefer_html=args.html, fields=input_fields(args), truth=args.truth, **given,
        extract=args.extract, strict=args.strict, progress=not args.quiet and sys.stderr.isatty(), fmt=args.format,
        engine=engine,
    )
    if not args.quiet:
        print_found(summary, args.output, "pairs", summary.get("pairs", 0))
    return 0
