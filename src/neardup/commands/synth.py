"""``neardup synth``: a labeled corpus of any size, by simulating syndication of real articles
(:mod:`neardup.evaluate.synth`)."""

from __future__ import annotations

import argparse
import sys


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``synth`` to ``subparsers`` (its simulation knobs come from :class:`SynthConfig`)."""
    p = subparsers.add_parser("synth", help="make a labeled corpus by simulating syndication of real articles")
    p.add_argument("sources", nargs="*", metavar="SOURCE",
                   help="Reuters-21578 folder, BBC folder or JSONL of texts (default: the shipped sample articles)")
    p.add_argument("-o", "--output", required=True, metavar="OUTDIR", help="folder for docs.jsonl and truth.jsonl")
    p.add_argument("--docs", type=int, help="number of documents (default: every story once)")
    p.add_argument("--seed", type=int, default=1, help="random seed (1)")
    p.add_argument("--shards", type=int, metavar="N",
                   help="write the documents as Parquet shards of N documents each (OUTDIR/docs/part-*.parquet) "
                        "instead of docs.jsonl: the form Spark's tasks read a large corpus in")
    p.add_argument("--quiet", action="store_true", help="no summary on stderr")
    g = p.add_argument_group("simulation knobs")
    from dataclasses import fields

    from ..evaluate.synth import SynthConfig

    for f in fields(SynthConfig):
        if f.name != "start":
            g.add_argument("--" + f.name.replace("_", "-"), dest=f.name, type=type(f.default),
                           help=f"{f.metadata['help']} ({f.default})")
    return p


def run(args: argparse.Namespace) -> int:
    """Simulate the corpus, write docs.jsonl and truth.jsonl, print what was made."""
    import itertools
    from dataclasses import fields

    from ..errors import UserError
    from ..evaluate.corpora import load_texts, shipped_articles
    from ..evaluate.synth import SynthConfig, write_corpus
    from ..io.writers import check_outputs_apart
    from ..job import RunStats

    check_outputs_apart(args.sources or [], args.output)
    rejected = RunStats()
    articles = (itertools.chain.from_iterable(load_texts(s, rejected) for s in args.sources) if args.sources
                else shipped_articles())
    knobs = {f.name: getattr(args, f.name) for f in fields(SynthConfig) if getattr(args, f.name, None) is not None}
    if args.shards is not None and args.shards < 1:
        raise UserError(f"--shards must be at least 1, not {args.shards}")
    counts = write_corpus(articles, args.output, args.seed, args.docs, SynthConfig(**knobs), args.shards)
    for line in rejected.rejection_report(" ".join(args.sources)):
        print(line, file=sys.stderr)
    if not args.quiet:
        kinds = ", ".join(f"{k} {counts.get(k, 0):,}" for k in ("original", "rewrite", "trim", "page"))
        print(
            f"wrote {counts['docs']:,} documents ({kinds}) in {counts['clusters']:,} clusters, "
            f"{counts['containment']:,} containments, {counts['partial']:,} partial copies -> "
            f"{args.output}/{'docs/' if args.shards else 'docs.jsonl'}, truth.jsonl",
            file=sys.stderr,
        )
    return 0
