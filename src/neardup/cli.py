"""The ``neardup`` command: parses options and calls the API, nothing more.

Exit codes: 0 success, 2 bad input in ``--strict`` mode or unusable arguments.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from .io.readers import InputError
from .io.writers import FORMATS
from .methods import REGISTRY, method_defaults


def _add_minhash_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("method options (minhash)")
    g.add_argument("--threshold", type=float, default=0.8, help="similarity at or above which a pair is a near-duplicate (0.8)")
    g.add_argument("--shingle-size", type=int, default=5, help="words per shingle, k (5)")
    g.add_argument("--num-perm", type=int, default=128, help="MinHash permutations (128)")
    g.add_argument("--seed", type=int, default=1, help="random seed of the hash functions (1)")
    g.add_argument("--candidates", choices=["lsh", "supershingles"], default="lsh", help="candidate generation (lsh)")
    g.add_argument("--bands", type=int, help="LSH bands (default: chosen from the threshold)")
    g.add_argument("--rows", type=int, help="LSH rows per band (default: chosen from the threshold)")
    g.add_argument("--supershingles", type=int, help="number of supershingles (default: chosen from the threshold)")
    g.add_argument("--min-shared", type=int, help="keys a pair must share to be a candidate (lsh 1, supershingles 2)")
    g.add_argument("--max-df", type=int, help="drop shingles found in more than this many documents (off)")
    g.add_argument("--exact", action="store_true", default=None, help="verify candidates by exact Jaccard instead of the estimate")


def _method_params(args: argparse.Namespace) -> dict:
    """The method's parameters that were given on the command line."""
    given = {name: getattr(args, name, None) for name in method_defaults(args.method)}
    return {name: value for name, value in given.items() if value is not None}


def _cmd_dedup(args: argparse.Namespace) -> int:
    from .run import dedup_files

    _, summary = dedup_files(
        args.inputs,
        args.output,
        unique=args.unique,
        fmt=args.format,
        method=args.method,
        strict=args.strict,
        progress=not args.quiet and sys.stderr.isatty(),
        **_method_params(args),
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
        for key, default in method_defaults(name).items():
            print(f"    {key} = {default!r}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="neardup", description="Find the same news story wherever it was republished."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("dedup", help="find near-duplicate pairs and clusters")
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="JSONL, Parquet, or a directory of .txt/.html files (gzip ok)")
    p.add_argument("-o", "--output", required=True, metavar="OUTDIR", help="folder for pairs, clusters and summary.json")
    p.add_argument("--method", choices=sorted(REGISTRY), default="minhash")
    p.add_argument("--unique", metavar="FILE", help="also write the input records minus the duplicates (.jsonl or .parquet)")
    p.add_argument("--format", choices=FORMATS, default="jsonl", help="format of pairs and clusters (jsonl)")
    p.add_argument("--strict", action="store_true", help="stop with exit code 2 at the first bad record")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary on stderr")
    _add_minhash_options(p)
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
