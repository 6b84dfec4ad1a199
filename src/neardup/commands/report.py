"""``neardup report OUTDIR...``: one self-contained HTML file of job outputs (:mod:`neardup.report`)."""

from __future__ import annotations

import argparse
import sys

#: No kernel runs: the program does not load numba's runtime before this command.
KERNELS = False


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``report`` to ``subparsers``."""
    p = subparsers.add_parser("report", help="one self-contained HTML report of dedup/contain/partial/eval outputs")
    p.add_argument("folders", nargs="+", metavar="OUTDIR", help="output folders of dedup, contain, partial, eval --plot")
    p.add_argument("-o", "--output", default="report.html", metavar="FILE", help="the HTML file (report.html)")
    p.add_argument("--html", action="store_true",
                   help="read the 'html' field (by default: as the jobs did, from their summary.json)")
    p.add_argument("--id-field", metavar="NAME", help="the id field (by default: the jobs', from their summary.json)")
    p.add_argument("--text-field", metavar="NAME", help="the text field (by default: the jobs')")
    p.add_argument("--html-field", metavar="NAME", help="the html field (by default: the jobs')")
    return p


def run(args: argparse.Namespace) -> int:
    """Write the HTML report of the output folders."""
    from ..report import build_report

    given = {"id": args.id_field, "text": args.text_field, "html": args.html_field}
    path = build_report(args.folders, args.output, True if args.html else None,
                        {k: v for k, v in given.items() if v is not None}, progress=sys.stderr.isatty())
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)
    return 0
