"""The ``neardup`` command: parses options and calls the API, nothing more.

Exit codes: 0 success, 2 bad input in ``--strict`` mode or unusable arguments.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from .io.readers import InputError
from .io.writers import FORMATS
from .methods import REGISTRY, all_params, method_defaults, method_params


def add_method_options(p: argparse.ArgumentParser) -> None:
    """``--method`` and one option per parameter of any registered method."""
    p.add_argument("--method", choices=sorted(REGISTRY), default="minhash", help="detection method (minhash)")
    g = p.add_argument_group("method options (`neardup methods` lists which method takes which)")
    for name, (spec, users) in all_params().items():
        flag = "--" + name.replace("_", "-")
        default = "off" if spec.default in (None, False) else spec.default
        text = f"{spec.help} ({default}; {', '.join(users)})"
        if spec.type is bool:
            g.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, default=None, help=text)
        else:
            g.add_argument(flag, dest=name, type=spec.type, choices=spec.choices, default=None, help=text)


def method_options(args: argparse.Namespace) -> dict:
    """The chosen method's parameters given on the command line; others are an error."""
    accepted = method_defaults(args.method)
    given = {name: getattr(args, name) for name in all_params() if getattr(args, name, None) is not None}
    foreign = sorted(set(given) - set(accepted))
    if foreign:
        flags = ", ".join("--" + f.replace("_", "-") for f in foreign)
        raise ValueError(f"method {args.method} does not take {flags}")
    return {"method": args.method, **given}


def _cmd_dedup(args: argparse.Namespace) -> int:
    from .run import dedup_files

    _, summary = dedup_files(
        args.inputs,
        args.output,
        unique=args.unique,
        fmt=args.format,
        strict=args.strict,
        progress=not args.quiet and sys.stderr.isatty(),
        **method_options(args),
    )
    if not args.quiet:
        _print_summary(summary, args.output)
    return 0


def _print_summary(s: dict, outdir: str) -> None:
    d = s["documents"]
    lines = [
        f"documents  read {d['read']:,}   kept {d['kept']:,}   rejected {d['rejected']:,}",
    ]
    for reason, count in d["rejected_by_reason"].items():
        lines.append(f"           rejected: {reason}: {count:,}")
    lines += [
        f"pairs      {s['pairs']:,} near-duplicate pairs (from {s['candidate_pairs']:,} candidates)",
        f"clusters   {s['clusters']:,} clusters holding {s['documents_in_clusters']:,} documents; "
        f"{s['duplicates_removable']:,} removable duplicates",
        f"time       {s['seconds']['total']:.2f} s",
        f"output     {outdir}/",
    ]
    if "unique_file" in s:
        lines.append(f"unique     {s['unique_written']:,} records -> {s['unique_file']}")
    for msg in s["rejections"][:5]:
        lines.append(f"  rejected {msg}")
    if d["rejected"] > 5:
        lines.append(f"  ... {d['rejected'] - 5:,} more rejections in summary.json")
    print("\n".join(lines), file=sys.stderr)


def _cmd_methods(args: argparse.Namespace) -> int:
    for name, cls in sorted(REGISTRY.items()):
        print(f"{name}: {cls.summary}")
        for spec in method_params(cls):
            flag = "--" + spec.name.replace("_", "-")
            print(f"    {flag:<18} {spec.default!r:<8} {spec.help}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="neardup", description="Find the same news story wherever it was republished."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("dedup", help="find near-duplicate pairs and clusters")
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="JSONL, Parquet, or a directory of .txt/.html files (gzip ok)")
    p.add_argument("-o", "--output", required=True, metavar="OUTDIR", help="folder for pairs, clusters and summary.json")
    p.add_argument("--unique", metavar="FILE", help="also write the input records minus the duplicates (.jsonl or .parquet)")
    p.add_argument("--format", choices=FORMATS, default="jsonl", help="format of pairs and clusters (jsonl)")
    p.add_argument("--strict", action="store_true", help="stop with exit code 2 at the first bad record")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary on stderr")
    add_method_options(p)
    p.set_defaults(func=_cmd_dedup)

    p = sub.add_parser("methods", help="list the detection methods and their parameters")
    p.set_defaults(func=_cmd_methods)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except InputError as exc:
        print(f"neardup: error: {exc}", file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"neardup: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
