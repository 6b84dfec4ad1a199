"""``neardup dedup``: near-duplicate pairs and clusters of a corpus (:func:`neardup.run.dedup_files`).

:func:`warm` is the command's warm-up: the program runs it during start-up, so the job's
kernels load with the collector paused (:func:`neardup.startup.start_kernels`).
"""

from __future__ import annotations

import argparse
import sys

from ..cli_options import add_engine_options, add_job_options, add_method_options, engine_of, input_fields, method_options
from ..cluster import CLUSTERINGS
from ..errors import UserError
from ..relations import DEFAULT_MIN_COVERAGE, DEFAULT_UNIQUE_COVERAGE, SITE_MAX_DF
from .present import print_summary


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``dedup`` to ``subparsers``."""
    p = subparsers.add_parser("dedup", help="find near-duplicate pairs and clusters")
    add_job_options(p, "pairs, clusters")
    p.add_argument("--unique", metavar="FILE", help="also write the input records minus the duplicates (.jsonl or .parquet)")
    p.add_argument("--keep-rejected", action=argparse.BooleanOptionalAction, default=True,
                   help="--unique also writes the records that were rejected (no text, no words, undecodable): "
                        "they were not found to duplicate anything (on; --no-keep-rejected leaves them out)")
    p.add_argument("--cluster", choices=CLUSTERINGS, default=CLUSTERINGS[0],
                   help="how pairs become clusters: label propagation (resists chaining through a few bridging "
                        "pairs), leader (each member a near-duplicate of its representative), or connected "
                        f"components (the transitive closure) ({CLUSTERINGS[0]})")
    g = p.add_argument_group("relations (a quote is not a copy)")
    g.add_argument("--relations", dest="listed", metavar="R1,R2,...",
                   help="relations listed in pairs: duplicate, contains, contained, shares, similar "
                        "(duplicate,contains,contained,shares; similar: the method's pair shares no passage)")
    g.add_argument("--min-coverage", type=float, default=DEFAULT_MIN_COVERAGE, metavar="C",
                   help="a document covers another when the passages they share hold this share of the other's "
                        f"words; only such copies cluster ({DEFAULT_MIN_COVERAGE})")
    g.add_argument("--unique-coverage", type=float, default=DEFAULT_UNIQUE_COVERAGE, metavar="U",
                   help="--unique drops a document only when the document kept for it covers this share of its "
                        f"words ({DEFAULT_UNIQUE_COVERAGE})")
    g.add_argument("--site-max-df", type=int, default=SITE_MAX_DF, metavar="N",
                   help="a passage in more than N documents of one site (record field 'site', or the host of "
                        f"'url' or of a URL id) is that site's boilerplate and counts for nothing ({SITE_MAX_DF}; 0: off)")
    g.add_argument("--no-relations", dest="relations", action="store_false",
                   help="pairs and clusters by the method's score alone, as before relations (faster; no --unique)")
    add_method_options(p)
    add_engine_options(p)
    p.add_argument("--coalesce", action=argparse.BooleanOptionalAction, default=None,
                   help="with --engine spark (and no --unique) the executors write pairs and clusters: as one file "
                        "each (pairs.jsonl, as the local engine) with --coalesce, as part files (pairs/part-00000.jsonl "
                        "...) with --no-coalesce (by default one file while a table's parts hold at most 256 MB)")
    return p


def run(args: argparse.Namespace) -> int:
    """Find the pairs and clusters, write them, print the summary."""
    from ..run import dedup_files

    if args.unique and not args.relations:
        raise UserError("--unique needs the relations (it drops only documents that the one kept covers): "
                        "leave out --no-relations")
    if args.coalesce is False and (args.engine != "spark" or args.unique):
        raise UserError("--no-coalesce needs --engine spark and no --unique (otherwise each table is one file)")
    _, summary = dedup_files(
        args.inputs,
        args.output,
        unique=args.unique,
        relations=args.relations,
        min_coverage=args.min_coverage,
        unique_coverage=args.unique_coverage,
        listed=args.listed,
        site_max_df=args.site_max_df,
        keep_rejected=args.keep_rejected,
        coalesce=args.coalesce,
        cluster=args.cluster,
        fmt=args.format,
        prefer_html=args.html,
        fields=input_fields(args),
        extract=args.extract,
        strict=args.strict,
        progress=not args.quiet and sys.stderr.isatty(),
        engine=engine_of(args),
        **method_options(args),
    )
    if not args.quiet:
        print_summary(summary, args.output)
    return 0


def warm(args: argparse.Namespace) -> None:
    """Run the job's method over :data:`WARM_UP_DOCS` in process, loading every kernel the job
    will use (sketch, candidates, verification, clustering) during start-up."""
    from ..compile_once import WARM_UP_DOCS
    from ..pipeline import Deduplicator

    if engine_of(args) == "local":
        Deduplicator(cluster=args.cluster, **method_options(args)).run(WARM_UP_DOCS)
