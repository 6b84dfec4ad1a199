"""``neardup explain A B``: why two documents are (or are not) the same story (:mod:`neardup.explain`)."""

from __future__ import annotations

import argparse

from ..cli_options import add_input_options, add_method_options, input_fields, method_options


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``explain`` to ``subparsers``."""
    p = subparsers.add_parser("explain", help="why two documents are (or are not) the same story")
    p.add_argument("a", metavar="A", help="a .html/.txt file, or an id of a record in --in")
    p.add_argument("b", metavar="B", help="another file or id")
    p.add_argument("--in", dest="inputs", action="append", default=[], metavar="INPUT",
                   help="input(s) holding A and B as records (any input dedup reads); repeatable")
    p.add_argument("--json", action="store_true", help="print the explanation as JSON")
    add_input_options(p)
    add_method_options(p)
    return p


def _width() -> int:
    """The terminal's width (``COLUMNS`` when set), kept between 60 and 120 columns; 100 off a terminal."""
    import shutil

    return min(max(shutil.get_terminal_size((100, 24)).columns, 60), 120)


def run(args: argparse.Namespace) -> int:
    """Explain the pair, as text or JSON."""
    import json

    from ..explain import explain_texts, load_pair, render

    options = method_options(args)
    a, b = load_pair(args.a, args.b, args.inputs, args.extract, args.html, input_fields(args))
    explanation = explain_texts(a, b, **options)
    print(json.dumps(explanation.as_dict(), indent=2, default=float) if args.json else render(explanation, _width()))
    return 0
