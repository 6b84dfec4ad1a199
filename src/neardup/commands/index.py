"""``neardup index create|add|query|remove|info|compact``: the persistent index (:mod:`neardup.online`).

Kept light: the index and its storage are imported only when an action runs.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import UserError


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``index`` with its actions to ``subparsers``."""
    from ..cli_options import add_align_options, add_input_options, add_method_options
    from ..extract import DEFAULT_EXTRACTOR, EXTRACTORS
    from ..io.readers import FILE_IDS
    from ..io.writers import FORMATS

    p = subparsers.add_parser("index", help="a persistent index: check and add documents as they arrive, across runs")
    actions = p.add_subparsers(dest="action", required=True)

    c = actions.add_parser("create", help="make an empty index for a method")
    c.add_argument("index", metavar="DIR", help="folder of the new index")
    c.add_argument("--window", metavar="N|DURATION",
                   help="keep and compare only the last N documents, or those of the last 30m, 48h, 7d ... by their "
                        "time/date field (else arrival time) (off: all)")
    c.add_argument("--sync", choices=("full", "normal"), default="full",
                   help="full: every acknowledged add survives a power cut; normal: survives a crash of the process, "
                        "faster (full)")
    c.add_argument("--extract", choices=sorted(EXTRACTORS), default=DEFAULT_EXTRACTOR,
                   help=f"how HTML pages become text, fixed for the index ({DEFAULT_EXTRACTOR})")
    c.add_argument("--partial", action="store_true",
                   help="also keep each document's seeds and word offsets (not its text) and report the passages a "
                        "new document shares with earlier ones, located, as `neardup partial` does")
    add_align_options(c, prefix="partial-")
    add_method_options(c)

    for action, what in (("add", "check and add: each new document's matches, then store it"),
                         ("query", "check only: each document's matches, nothing stored")):
        a = actions.add_parser(action, help=what)
        a.add_argument("index", metavar="DIR", help="the index folder")
        a.add_argument("inputs", nargs="+", metavar="INPUT", help="inputs, as dedup reads them")
        a.add_argument("-o", "--output", required=True, metavar="OUTDIR", help="folder for matches and summary.json")
        add_input_options(a, extract=None, unset="the index's, fixed at create; a different one is an error")
        a.add_argument("--format", choices=FORMATS, default="jsonl", help="format of matches (jsonl)")
        a.add_argument("--batch-size", type=int, default=1000, help="documents per batch (one commit each) (1000)")
        a.add_argument("--strict", action="store_true", help="stop with exit code 2 at the first bad record")
        a.add_argument("--quiet", action="store_true", help="no progress bar and no summary on stderr")
        a.add_argument("--file-ids", choices=FILE_IDS[1:], default="given",
                       help="ids of documents read from files: the input as given then the path inside a folder "
                            "(crawl/day1/index.html; unique across runs), the same from the absolute path, or the "
                            "path relative to the folder (given)")
        if action == "add":
            a.add_argument("--on-duplicate-id", choices=("fail", "skip", "replace"), default="fail",
                           help="a document whose id is in the index already: fail (exit 2, nothing of its batch "
                                "written), skip it (counted as skipped), or replace the stored one (fail)")
            a.add_argument("--sync", choices=("full", "normal"),
                           help="as for `index create`, for this run's commits (the index's, set at create)")

    r = actions.add_parser("remove", help="remove documents by id")
    r.add_argument("index", metavar="DIR", help="the index folder")
    r.add_argument("ids", nargs="*", metavar="ID", help="ids to remove")
    r.add_argument("--ids-file", metavar="FILE", help="also the ids in FILE, one a line")

    i = actions.add_parser("info", help="method, window, documents, size on disk")
    i.add_argument("index", metavar="DIR", help="the index folder")
    i.add_argument("--check", action="store_true", help="also verify every page and every document's keys")
    i.add_argument("--json", action="store_true", help="print as JSON")

    k = actions.add_parser("compact", help="evict documents outside the window and rewrite the file smaller")
    k.add_argument("index", metavar="DIR", help="the index folder")
    return p


def run(args: argparse.Namespace) -> int:
    """One action of ``neardup index``."""
    if args.action in ("add", "query"):
        return _cmd_add(args, add=args.action == "add")
    return {"create": _cmd_create, "remove": _cmd_remove, "info": _cmd_info, "compact": _cmd_compact}[args.action](args)


def _cmd_create(args: argparse.Namespace) -> int:
    from ..align.aligner import DEFAULT_ALIGN
    from ..cli_options import align_params, method_options
    from ..online.index import Index

    options = method_options(args)
    align = align_params(args, "partial-")
    if align != DEFAULT_ALIGN and not args.partial:
        raise UserError("--partial-* options set the aligner of --partial; add --partial")
    with Index.create(args.index, window=args.window, sync=args.sync, extract=args.extract,
                      partial=align if args.partial else False, **options) as index:
        info = index.info()
    window = f", window {info['window']}" if info["window"] else ""
    partial = ", copied passages (--partial)" if info["partial"] else ""
    print(f"created {args.index}: {info['method']} at threshold {info['threshold']:g}{window}{partial}",
          file=sys.stderr)
    return 0


def _cmd_add(args: argparse.Namespace, add: bool) -> int:
    from ..cli_options import input_fields
    from ..job import print_report
    from ..online.run import index_files

    from ..io.writers import check_outputs_apart

    if args.batch_size < 1:
        raise UserError(f"--batch-size must be at least 1, got {args.batch_size}")
    check_outputs_apart(args.inputs, args.output)
    s = index_files(args.index, args.inputs, args.output, add=add, prefer_html=args.html, fields=input_fields(args),
                    strict=args.strict, fmt=args.format, batch_size=args.batch_size, extract=args.extract,
                    on_duplicate=getattr(args, "on_duplicate_id", "fail"), file_ids=args.file_ids,
                    sync=getattr(args, "sync", None),
                    progress=not args.quiet and sys.stderr.isatty())
    if not args.quiet:
        late = f" ({s['late']:,} late: checked, not added)" if add and s.get("late") else ""
        what = f"added {s['added']:,}{late}, " if add else ""
        lines = [f"matches    {what}{s['documents_matched']:,} of {s['checked']:,} documents matched "
                 f"({s['matches']:,} matches)"]
        if "partials" in s:
            lines.append(f"passages   {s['documents_with_passages']:,} documents share passages with earlier ones "
                         f"({s['partials']:,} pairs, {s['passages']:,} passages)")
        lines.append(f"index      {s['index_documents_after']:,} documents in {args.index}")
        lines.extend(f"warning    {w}" for w in s.get("warnings", ()))
        if s.get("index_access") == "read-only storage":
            lines.append("access     read-only storage: the index was opened immutable")
        print_report(s, f"{args.output}/", lines)
    return 0


def _cmd_remove(args: argparse.Namespace) -> int:
    from ..online.index import Index

    ids = list(args.ids)
    if args.ids_file:
        with open(args.ids_file, encoding="utf-8") as fh:
            ids += [line.strip() for line in fh if line.strip()]
    if not ids:
        raise UserError("give ids to remove, or --ids-file")
    with Index.open(args.index) as index:
        removed = index.remove(ids)
        left = len(index)
    missing = len(set(ids)) - len(removed)
    print(f"removed {len(removed):,} documents ({missing:,} not in the index); {left:,} left", file=sys.stderr)
    return 0


def _cmd_info(args: argparse.Namespace) -> int:
    from ..online.index import Index

    with Index.open(args.index, write=False, verify=not args.check) as index:
        info = index.info()
        words_warning = index.words_warning()
        if args.check:
            info["problems"] = index.check()
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        params = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in info["params"].items() if v is not None)
        per_doc = f" ({info['bytes_per_document']:,.0f} per document)" if info["documents"] else ""
        print(f"index      {info['path']} (format {info['format']} v{info['version']})")
        if info["access"] == "read-only storage":
            print("access     read-only storage: opened immutable (no -shm/-wal files made); nothing may change it "
                  "meanwhile")
        print(f"method     {info['method']} {params}")
        print(f"window     {info['window'] or 'none'}")
        print(f"sync       {info['sync']}")
        if words_warning:
            print(f"words      {info['words']}: {words_warning}")
        if info["partial"]:
            knobs = " ".join(f"{k}={v}" for k, v in info["partial"].items())
            print(f"partial    {knobs}; {info['seed_rows']:,} seeds")
        print(f"documents  {info['documents']:,}")
        print(f"size       {info['bytes'] / 1e6:,.1f} MB{per_doc}")
        if args.check:
            print("check      " + ("ok" if not info["problems"] else "; ".join(info["problems"])))
    if args.check and info["problems"]:
        return 1
    return 0


def _cmd_compact(args: argparse.Namespace) -> int:
    from ..online.index import Index

    with Index.open(args.index) as index:
        done = index.compact()
        n = len(index)
    print(f"compacted {args.index}: {done['bytes_before'] / 1e6:,.1f} MB -> {done['bytes_after'] / 1e6:,.1f} MB, "
          f"{n:,} documents", file=sys.stderr)
    return 0
