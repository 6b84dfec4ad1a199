"""``neardup stats``: build and inspect collection statistics files.

Two actions::

    neardup stats build CORPUS... -o stats.npz [--phrase-size 7] [--approximate]
    neardup stats info stats.npz

Kept thin: options are parsed here and the work is :func:`neardup.stats.build.build_stats`.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import UserError


def _cmd_build(args: argparse.Namespace) -> int:
    from ..cli_options import engine_of
    from ..io.writers import check_outputs_apart
    from ..stats.build import build_stats

    check_outputs_apart(args.inputs, files=[args.output])
    if args.width < 1 or args.width & (args.width - 1):
        raise UserError(f"--width must be a power of two, got {args.width}")
    _, summary = build_stats(
        args.inputs,
        args.output,
        phrase_size=args.phrase_size,
        extract=args.extract,
        prefer_html=args.html,
        approximate=args.approximate,
        width=args.width,
        depth=args.depth,
        heavy_df=args.common_df,
        strict=args.strict,
        progress=not args.quiet and sys.stderr.isatty(),
        engine=engine_of(args),
    )
    if args.json:
        print(json.dumps(summary, indent=2))
    elif not args.quiet:
        _print(summary)
    return 0


def _print(report: dict) -> None:
    from ..job import print_report

    summary = report["statistics"]
    lines = [f"words      {summary['words']:,} distinct"]
    if summary["approximate"]:
        sk = summary["sketch"]
        lines.append(
            f"phrases    {summary['phrase_size']}-word, approximate: count-min {sk['depth']} x {sk['width']:,}, "
            f"{sk['phrase_occurrences']:,} counted, error <= {sk['error_bound']:,} (prob. >= 1 - e^-{sk['depth']})"
        )
    else:
        lines.append(f"phrases    {summary['phrase_size']}-word, {summary['phrases']:,} distinct (exact)")
    lines.append(f"common     {summary['common_phrases']:,} phrases in more than {summary['common_df']} documents")
    print_report(report, report["output"], lines)


def _cmd_info(args: argparse.Namespace) -> int:
    from ..stats.build import load_stats

    stats = load_stats(args.file)
    print(json.dumps(stats.summary(), indent=2))
    return 0


def run(args: argparse.Namespace) -> int:
    """``stats build`` or ``stats info``."""
    return _cmd_build(args) if args.stats_command == "build" else _cmd_info(args)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``stats build`` and ``stats info`` to the ``neardup`` command's subparsers."""
    from ..cli_options import add_engine_options, add_input_options
    from ..stats.build import COMMON_DF

    p = subparsers.add_parser("stats", help="collection statistics: document frequencies of words and phrases")
    sub = p.add_subparsers(dest="stats_command", required=True)

    b = sub.add_parser("build", help="count words and phrases of a corpus in one pass into a .npz file")
    b.add_argument("inputs", nargs="+", metavar="CORPUS", help="JSONL, Parquet, or a directory of .txt/.html files (gzip ok)")
    b.add_argument("-o", "--output", required=True, metavar="FILE", help="statistics file to write (.npz)")
    b.add_argument("--phrase-size", type=int, default=7, help="words per phrase (7)")
    add_input_options(b)  # --extract and --html, as for dedup: count the text dedup will compare
    b.add_argument(
        "--approximate", action="store_true",
        help="count phrases in a count-min sketch (conservative update) instead of exactly",
    )
    b.add_argument("--width", type=int, default=1 << 22, help="approximate: counters per sketch row, a power of two (4194304)")
    b.add_argument("--depth", type=int, default=4, help="approximate: sketch rows (4)")
    b.add_argument(
        "--common-df", type=int, default=COMMON_DF,
        help=f"approximate: record phrases found in more than this many documents by key ({COMMON_DF})",
    )
    b.add_argument("--strict", action="store_true", help="stop with exit code 2 at the first bad record")
    add_engine_options(b)  # --engine spark: counted by the executors, the same file
    b.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    b.add_argument("--quiet", action="store_true", help="no progress bar and no summary on stderr")

    i = sub.add_parser("info", help="summarize a statistics file")
    i.add_argument("file", metavar="FILE", help="a .npz written by `neardup stats build`")
    return p
