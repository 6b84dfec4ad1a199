"""``neardup contain``: which documents contain which (:mod:`neardup.contain`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UserError
from ..job import print_found
from ..contain.detector import CONTAIN_ALIGN, DEFAULT_COVERAGE, DEFAULT_ETL, DEFAULT_MAX_NEW, METHODS
from ..contain.words import DEFAULT_PREFIX

_STOPWORD_LISTS = ("english", "none")


def stopword_option(value: str) -> list[str] | None:
    """``english`` (neardup's list), ``none``, or a file with one word per line."""
    from ..text.stopwords import ENGLISH_STOPWORDS

    if value == "english":
        return sorted(ENGLISH_STOPWORDS)
    if value == "none":
        return None
    path = Path(value)
    if not path.is_file():
        raise UserError(f"--stopwords: expected english, none or a file, got {value!r}")
    return [w for w in path.read_text(encoding="utf-8").split() if w]


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``contain`` to ``subparsers`` (from ``ArgumentParser.add_subparsers``)."""
    from ..cli_options import add_align_options, add_engine_options, add_job_options

    p = subparsers.add_parser("contain", help="find which documents contain which (aligned coverage, CoDet, baselines)")
    add_job_options(p, "containments")
    p.add_argument("--method", choices=METHODS, default="align",
                   help="align: coverage by seed-and-extend passages, survives copy-editing; codet: the paper's "
                        "corpus tree; or one of the paper's baselines (align)")
    g = p.add_argument_group("words (codet and the baselines: align weighs no word)")
    g.add_argument("--word-prefix", type=int, default=DEFAULT_PREFIX,
                   help=f"letters a word is cut to, 0 = whole words; language-dependent ({DEFAULT_PREFIX})")
    g.add_argument("--stopwords", default="english", metavar="english|none|FILE", help="stopwords removed (english)")
    g.add_argument("--stats", metavar="FILE", help="word statistics for IDF (.npz of --save-stats); off = the input")
    g.add_argument("--save-stats", metavar="FILE", help="also save the input's word statistics for --stats")
    g = p.add_argument_group("CoDet")
    g.add_argument("--etl", type=float, default=DEFAULT_ETL, help=f"equivalency threshold level: CS/SCS needed ({DEFAULT_ETL})")
    g.add_argument("--depth", type=int, default=5, help="depth threshold DT: words of a sentence inserted (5)")
    g.add_argument("--suffixes", type=int, default=1, help="processed suffix count PSC (1: the sentence only)")
    g.add_argument("--no-sort", dest="sort_words", action="store_false", help="keep words in text order (word sorting off)")
    g = p.add_argument_group("align: containment as coverage by aligned passages")
    g.add_argument("--max-new-words", type=int, default=DEFAULT_MAX_NEW,
                   help=f"most consecutive words of the contained document outside aligned passages ({DEFAULT_MAX_NEW})")
    g.add_argument("--min-coverage", type=float, default=DEFAULT_COVERAGE,
                   help=f"least share of the contained document's words inside aligned passages ({DEFAULT_COVERAGE})")
    add_align_options(p, CONTAIN_ALIGN)
    g = p.add_argument_group("streaming")
    g.add_argument("--window", metavar="N|DURATION",
                   help="compare a document only with the N before it, or those of the last 30m, 48h, 7d ... (off: all)")
    g.add_argument("--batch-docs", type=int, default=1000, help="documents inserted per batch (1000)")
    g.add_argument("--trace", type=int, default=0, metavar="N", help="record memory in summary.json every N documents")
    p.add_argument("--truth", metavar="FILE", help="evaluate against a simulator's truth.jsonl (into summary.json)")
    add_engine_options(p)
    return p


def run(args: argparse.Namespace) -> int:
    from ..cli_options import align_params, engine_of, input_fields
    from ..contain.run import contain_files

    summary = contain_files(
        args.inputs, args.output, prefer_html=args.html, fields=input_fields(args), truth=args.truth,
        save_stats=args.save_stats,
        method=args.method, etl=args.etl, depth=args.depth, suffixes=args.suffixes, sort_words=args.sort_words,
        word_prefix=args.word_prefix, stopwords=stopword_option(args.stopwords), stats=args.stats,
        window=args.window, extract=args.extract, strict=args.strict, batch_docs=args.batch_docs,
        trace_every=args.trace, progress=not args.quiet and sys.stderr.isatty(), fmt=args.format,
        min_coverage=args.min_coverage, max_new_words=args.max_new_words, align=align_params(args),
        engine=engine_of(args),
    )
    if not args.quiet:
        print_found(summary, args.output, "containments", summary["containments"])
    return 0
