"""The ``neardup extract`` command: extract main content, train a model, evaluate extractors.

Three forms, dispatched on the first word after ``extract`` (``run`` may name the first)::

    neardup extract [run] INPUT... [--extract model|heuristic|none] [--model M] [--jsonl OUT]
    neardup extract train DATA... -o MODEL [--kind crf|logreg] [--seed S]
    neardup extract eval DATA... [--extractors none,heuristic,logreg,crf] [--folds K | --loco] [--model M]

``INPUT`` is anything ``neardup dedup`` reads (HTML/text files, folders, JSONL,
Parquet); each record becomes one JSON line ``{id, source, title, text}``.  ``DATA``
folders hold labeled pages (:mod:`neardup.extract.datasets`).
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from functools import lru_cache, partial
from typing import BinaryIO, Callable, Sequence

import orjson

from ..cli_options import add_workers_option
from ..errors import UserError
from ..extract.extractor import Extracted, extract, extract_heuristic
from ..extract.visible import visible_text

EXTRACTOR_CHOICES = ("model", "heuristic", "none")


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``extract`` to neardup's sub-commands."""
    p = subparsers.add_parser(
        "extract",
        help="main-content extraction (CEDAR): extract, train, eval",
        description="\n\n".join(__doc__.split("\n\n")[1:3]),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("argv", nargs=argparse.REMAINDER, metavar="...", help="[run] INPUT... | train DATA... | eval DATA...")
    return p


def run(args: argparse.Namespace) -> int:
    """Dispatch ``neardup extract ...`` (``args.argv``) to its form."""
    argv: list[str] = list(args.argv)
    if argv[:1] == ["train"]:
        return _train(argv[1:])
    if argv[:1] == ["eval"]:
        return _eval(argv[1:])
    if argv[:1] == ["run"]:  # `extract run|train|eval` (the README): the first form by its name
        argv = argv[1:]
    return _extract(argv)


def _extract_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="neardup extract", description="Extract title and main text of pages.")
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="HTML/text files, folders, JSONL or Parquet (gzip ok)")
    p.add_argument("--extract", "--extractor", dest="extractor", choices=EXTRACTOR_CHOICES, default="model",
                   help="which extractor, as --extract on every other command (model; --extractor is an alias)")
    p.add_argument("--model", metavar="M", help="a model file from `neardup extract train` (default: the shipped one)")
    p.add_argument("--jsonl", metavar="OUT", help="write JSON lines here (default: standard output)")
    p.add_argument("--strict", action="store_true", help="stop with exit code 2 at the first unreadable input")
    add_workers_option(p)
    return p


@lru_cache(maxsize=4)
def extractor(name: str, model_path: str | None = None) -> Callable[[str], Extracted]:
    """The ``html -> Extracted`` function called ``name`` (with ``model_path`` for ``model``)."""
    if name == "model":
        from ..extract.model import BlockModel

        model = BlockModel.load(model_path) if model_path else None
        return lambda html: extract(html, model)
    if name == "heuristic":
        return extract_heuristic
    if name == "none":
        return lambda html: Extracted("", visible_text(html))
    raise UserError(f"unknown extractor {name!r}; choose from {', '.join(EXTRACTOR_CHOICES)}")


def extracted_pages(name: str, model_path: str | None, pages: list[str]) -> list[Extracted | str]:
    """Each page's title and text by the extractor ``name``, or what went wrong, as one line (run in a
    worker process when there are several: :mod:`neardup.workers`)."""
    fn = extractor(name, model_path)
    out: list[Extracted | str] = []
    for html in pages:
        try:
            out.append(fn(html))
        except Exception as exc:  # one page, whatever went wrong in a parser, is one rejection
            out.append(f"{type(exc).__name__}: {exc}"[:200])
    return out


def _page(item: object) -> str | None:
    """The page of a record that has one (a record of text is written as it is)."""
    from ..io.readers import Record

    return item.html if isinstance(item, Record) else None


def _line(row: dict[str, str]) -> bytes | str:
    """One output line: ``json.dumps(row, ensure_ascii=False)`` and a newline, in UTF-8, made by orjson,
    which escapes a string exactly as ``json.dumps`` does without ``ensure_ascii`` (quote, backslash and
    the controls below U+0020; every other character as it is: ``tests/test_extract_fast.py`` checks every
    code point; the keys are plain ASCII names), several times faster than ``json`` and an encode
    (docs/results.md, issue 28's seventh pass).
    A string orjson refuses (a lone surrogate, as in a file name read with ``surrogateescape``) gets
    ``json.dumps``'s text, which the output's own encoding handles as it did before."""
    try:
        return b"{" + b", ".join(b'"%s": %s' % (key.encode(), orjson.dumps(value)) for key, value in row.items()) + b"}\n"
    except TypeError:
        return json.dumps(row, ensure_ascii=False) + "\n"


def _writer(fh: BinaryIO | None) -> Callable[[bytes | str], object]:
    """What writes a :func:`_line` to ``fh`` (a UTF-8 file, as bytes), or to standard output (as text)
    when there is none."""
    if fh is None:
        return lambda line: sys.stdout.write(line.decode("utf-8") if isinstance(line, bytes) else line)
    return lambda line: fh.write(line if isinstance(line, bytes) else line.encode("utf-8"))


def _extract(argv: Sequence[str]) -> int:
    """Extract every record; ``--jsonl`` is written whole or not at all.  A page the
    extractor fails on is rejected and named on stderr as it comes, as is any input that is not a
    record (there is no summary.json to list them); the counts by reason close the run."""
    from ..io.readers import Record, Rejection, read_inputs
    from ..io.records import located
    from ..io.writers import atomic_file, check_outputs_apart
    from ..job import RunStats
    from ..workers import in_order, parse_workers

    args = _extract_parser().parse_args(argv)
    check_outputs_apart(args.inputs, files=[args.jsonl])
    n_workers = parse_workers(args.workers)
    extractor(args.extractor, args.model)  # a bad model file is named before any input is read
    stats = RunStats()
    pages = partial(extracted_pages, args.extractor, args.model)
    with ExitStack() as stack:
        write = _writer(stack.enter_context(open(stack.enter_context(atomic_file(args.jsonl)), "wb"))
                        if args.jsonl else None)
        for item, got in in_order(read_inputs(args.inputs), _page, pages, len, n_workers, located):
            if isinstance(item, Rejection) and item.skipped:
                stats.reject(item)
                continue
            stats.read += 1
            if isinstance(item, Record):
                if isinstance(got, str):  # one page, whatever went wrong in a parser, is one rejection
                    item = Rejection(item.source, item.line, "extraction failed", got)
                else:
                    got = Extracted("", item.text or "") if got is None else got
                    stats.kept += 1
                    row = {"id": item.id, "source": item.source, "title": got.title, "text": got.text}
                    write(_line(row))
                    continue
            stats.reject(item, args.strict)
            print(f"neardup extract: rejected {item.message()}", file=sys.stderr)
        stats.require_usable()
    if stats.reasons:
        print(stats.rejection_report("neardup extract")[0], file=sys.stderr)  # each was named as it came
    return 0


def _train(argv: Sequence[str]) -> int:
    from ..extract.train import train
    from ..io.writers import check_outputs_apart

    p = argparse.ArgumentParser(prog="neardup extract train", description="Train a block classifier on labeled pages.")
    p.add_argument("data", nargs="+", metavar="DATA", help="folders of labeled pages (annotated/+original/, html/+gold/ or input/+GoldStandard/)")
    p.add_argument("-o", "--output", required=True, metavar="MODEL", help="model file to write (.npz)")
    p.add_argument("--kind", choices=("crf", "logreg"), default="crf", help="CE-BEST crf or CE-SIMPLE logreg (crf)")
    p.add_argument("--seed", type=int, default=0, help="random seed (0)")
    args = p.parse_args(argv)
    check_outputs_apart(args.data, files=[args.output])
    model = train(args.data, args.output, args.kind, args.seed)
    print(json.dumps(model.meta, indent=2), file=sys.stderr)
    return 0


def _eval(argv: Sequence[str]) -> int:
    import numpy as np

    from ..extract.datasets import load
    from ..extract.evaluate import EXTRACTOR_NAMES, collection_folds, markdown, neardup_runs, report, site_folds
    from ..extract.model import BlockModel
    from ..extract.train import examples

    p = argparse.ArgumentParser(
        prog="neardup extract eval",
        description="Score extractors against gold text (shingle P/R/F1) and gold blocks; "
        "logreg and crf by site-grouped cross-validation.",
    )
    p.add_argument("data", nargs="+", metavar="DATA", help="folders of labeled pages")
    p.add_argument("--extractors", default="none,heuristic,logreg,crf",
                   help=f"comma-separated, from {','.join(EXTRACTOR_NAMES)} (none,heuristic,logreg,crf); "
                   "'model' applies a trained model as it is")
    p.add_argument("--model", metavar="M", help="the model for 'model' (default: the shipped one)")
    p.add_argument("--folds", type=int, default=5, help="cross-validation folds, whole sites per fold (5)")
    p.add_argument("--loco", action="store_true",
                   help="leave one collection out instead: each DATA folder is one fold")
    p.add_argument("--seed", type=int, default=0, help="seed of the folds and of training (0)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = p.parse_args(argv)
    names = args.extractors.split(",")
    pages = load(*args.data)
    exs = examples(pages)
    folds = (collection_folds([lp.dataset for lp in pages]) if args.loco
             else site_folds([lp.site for lp in pages], args.folds, args.seed))
    model = BlockModel.load(args.model) if args.model else None
    results = report(pages, exs, neardup_runs(pages, exs, names, folds, args.seed, model))
    if args.json:
        print(json.dumps(results, indent=2, default=float))
    else:
        how = "leave-one-collection-out" if args.loco else "site-grouped CV"
        print(f"{len(pages)} pages, {len(set(lp.site for lp in pages))} sites, "
              f"{len(np.unique(folds))}-fold {how}, seed {args.seed}\n")
        print(markdown(results))
    return 0
