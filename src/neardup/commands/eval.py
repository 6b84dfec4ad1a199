"""``neardup eval``: measure a method on labeled data; score a contain or partial output against truth."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from typing import Any

from ..cli_options import add_input_options, add_method_options, given_params, input_fields
from ..cluster import CLUSTERINGS
from ..errors import UserError
from ..methods import REGISTRY, method_defaults
from ..relations import DEFAULT_MIN_COVERAGE
from .present import eval_table, plot_inputs, plots_cover, splits_table, threshold_marks


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``eval`` to ``subparsers``."""
    p = subparsers.add_parser("eval", help="measure a method on labeled data (pairwise P/R/F1, AU-ROC, B3, ...)")
    p.add_argument("dataset", metavar="DATASET", help="folder of cluster sub-folders, or JSONL/Parquet with 'cluster'")
    p.add_argument("--truth", metavar="FILE", help="ground-truth JSONL of clusters (as `neardup synth` writes)")
    p.add_argument("--pairs", metavar="FILE", help="JSONL of labeled pairs {a, b, label}: score only these")
    p.add_argument("--containments", metavar="FILE",
                   help="score this `neardup contain` output against --truth (containment P/R/F1, direction must be right)")
    p.add_argument("--partials", metavar="FILE",
                   help="score this `neardup partial` output against --truth (span and pair P/R/F1)")
    p.add_argument("--compare", metavar="M1,M2,...", help="evaluate several methods and print one table")
    tuning = p.add_mutually_exclusive_group()  # a threshold from DEVSET, or from each split's development half
    tuning.add_argument("--tune-on", metavar="DEVSET",
                        help="choose the threshold by Max F1 on DEVSET, report DATASET at it")
    tuning.add_argument("--folds", "--splits", dest="splits", type=_at_least(1), metavar="K",
                        help="K random half splits of DATASET by cluster: tune (and train, for a learning method) "
                             "on one half, report the other; mean and spread over the K splits")
    p.add_argument("--split-seed", type=_at_least(0), default=0,
                   help="seed of the first split (0; split r uses seed + r)")
    p.add_argument("--learning-curve", nargs="?", type=_sizes, const=_sizes("10,30,60,120,240,480"),
                   metavar="N1,N2,...",
                   help="for a learning method: held-out max F1 when trained on N random documents of the "
                        "development half, for each N (10,30,60,120,240,480), over the --folds splits (5)")
    p.add_argument("--tune-for", choices=("pair", "bcubed"), default="pair",
                   help="what the chosen threshold maximizes: pair F1, or B-cubed F1 of the clusters dedup makes "
                        "(pair); a --threshold given is used as is, and the report is what dedup gives at it")
    p.add_argument("--cluster", choices=CLUSTERINGS, default=CLUSTERINGS[0],
                   help=f"how B-cubed clusters are made from the pairs, as in dedup ({CLUSTERINGS[0]})")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("-o", "--output", metavar="DIR",
                   help="write DIR/eval.json: the reports as --json prints them (each with its run record) and "
                        "each method's scores of same-story and different-story pairs, binned, for neardup report")
    p.add_argument("--plot", metavar="DIR", help="write thresholds.png, pr.png, scores.png, roc.png and, with "
                                                  "--learning-curve, learning_curve.png into DIR")
    p.add_argument("--min-coverage", type=float, default=DEFAULT_MIN_COVERAGE, metavar="C",
                   help="the relations' coverage for the copy columns (what dedup lists and clusters at the "
                        f"threshold: copies, not shares) ({DEFAULT_MIN_COVERAGE})")
    p.add_argument("--no-relations", dest="relations", action="store_false",
                   help="leave out the copy columns (faster: no passages aligned)")
    add_input_options(p)
    add_method_options(p)
    return p


def _at_least(least: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number of at least ``least`` (else an error naming the option, exit 2)."""

    def whole(text: str) -> int:
        try:
            value: int | None = int(text)
        except ValueError:
            value = None
        if value is None or value < least:
            raise argparse.ArgumentTypeError(f"must be a whole number of at least {least}, got {text!r}")
        return value

    return whole


def _sizes(text: str) -> tuple[int, ...]:
    """An argparse ``type``: ``--learning-curve``'s training-set sizes, whole numbers of at least 1."""
    try:
        return tuple(_at_least(1)(n) for n in text.split(","))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be whole numbers of at least 1, comma-separated, got {text!r}") from None


def run(args: argparse.Namespace) -> int:
    """Evaluate, print the table (or JSON), write the plots."""
    from ..evaluate.copies import aligned_coverage
    from ..evaluate.curves import learning_curve
    from ..evaluate.harness import evaluate
    from ..evaluate import provenance
    from ..evaluate.labeled import load_labeled
    from ..io.writers import check_outputs_apart

    if args.containments or args.partials:
        if args.output or args.plot:  # they were ignored: a run that writes nothing it was asked to
            raise UserError(f"{'-o' if args.output else '--plot'} is for a method's evaluation; with --containments "
                            "or --partials eval prints its JSON on stdout (redirect it to a file)")
        return _eval_located(args)
    check_outputs_apart([args.dataset, *filter(None, (args.tune_on, args.truth, args.pairs))],
                        files=[args.plot, args.output])

    names = args.compare.split(",") if args.compare is not None else [args.method]
    for name in names:
        if name not in REGISTRY:
            raise UserError(f"unknown method {name!r}; choose from {', '.join(sorted(REGISTRY))}")
    given = given_params(args)
    fields = input_fields(args)
    data = load_labeled(args.dataset, args.extract, truth=args.truth, pairs=args.pairs, prefer_html=args.html,
                        fields=fields)
    tune = load_labeled(args.tune_on, args.extract, prefer_html=args.html, fields=fields) if args.tune_on else None
    for labeled, source in ((data, args.dataset), (tune, args.tune_on)):
        if labeled is not None:
            for line in labeled.stats.rejection_report(source):
                print(line, file=sys.stderr)
    run_record = provenance.run_record(args, data, tune)
    coverage = aligned_coverage(data, min_coverage=args.min_coverage) if args.relations else None
    reports, curves = [], {}
    for name in names:
        params = {k: v for k, v in given.items() if k in method_defaults(name)}
        fixed = params.get("threshold") if "threshold" in given else None
        report, scored = evaluate(data, name, params, tune=tune, splits=args.splits, split_seed=args.split_seed,
                                  objective=args.tune_for, threshold=fixed, clustering=args.cluster,
                                  coverage=coverage, min_coverage=args.min_coverage)
        if args.learning_curve:
            report["learning_curve"] = learning_curve(data, name, params, args.learning_curve, args.splits or 5,
                                                      args.split_seed)
        report["run"] = run_record
        reports.append(report)
        curves[name] = scored
    if args.output:
        _write_output(args.output, reports, curves)
    if args.plot:
        from ..evaluate.plots import write_learning_curves, write_plots

        lines, marks, bcubed = plot_inputs(curves, reports, args)
        from ..methods import get_method

        learns = get_method(names[0], **{k: v for k, v in given.items() if k in method_defaults(names[0])}).learns
        covers = plots_cover(reports[0], data.name, learns)
        paths = write_plots(lines, args.plot, f"{data.name} ({covers.split(';')[0]})", marks=marks, bcubed=bcubed)
        if args.learning_curve:
            paths.append(write_learning_curves({r["method"]: r["learning_curve"] for r in reports}, args.plot, data.name))
        for path in paths:
            print(f"wrote {path}", file=sys.stderr)
        print(f"the plots cover {covers}", file=sys.stderr)
    if args.json:
        print(_json(reports[0] if len(reports) == 1 else reports))
    else:
        print(eval_table(reports))
        if any("per_split" in r for r in reports):
            print(splits_table(reports))
        for r in reports:
            if "learning_curve" in r:
                print(f"\n{r['method']} learning curve (held-out max F1, mean +- std over splits):")
                for row in r["learning_curve"]:
                    print(f"  {row['documents']:>5} documents: {row['max_f1']:.3f} +- {row['max_f1_std']:.3f} ({row['runs']} splits)")
    return 0


def _write_output(folder: str, reports: list[dict[str, Any]], scored: dict[str, Any]) -> None:
    """``folder/eval.json``: the ``reports`` and the pictures of their scores (written whole)."""
    from pathlib import Path

    from ..io.writers import atomic_file
    from ..report.pictures import eval_pictures

    marks = {r["method"]: threshold_marks(r, scored[r["method"]]) for r in reports}
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    with atomic_file(out / "eval.json") as tmp:
        Path(tmp).write_text(_json({"reports": reports, "pictures": eval_pictures(reports, scored, marks)}) + "\n",
                             encoding="utf-8")
    print(f"wrote {out / 'eval.json'}", file=sys.stderr)


def _eval_located(args: argparse.Namespace) -> int:
    """``eval --containments`` / ``--partials``: score a contain/partial output against --truth."""
    if not args.truth:
        raise UserError("--containments and --partials need --truth (the simulator's truth.jsonl)")
    if args.containments:
        from ..contain.evaluate import evaluate_containment_files

        report = {"task": "containment", **evaluate_containment_files(args.containments, args.truth)}
    else:
        from ..partial.evaluate import evaluate_partial_files

        report = {"task": "partial", **evaluate_partial_files(args.partials, args.truth, [args.dataset], args.extract)}
    print(_json(report))
    return 0


def _json(report: Any) -> str:
    """``report`` as JSON any reader takes: an undefined measure (``nan``, say the copy columns with
    relations off) is ``null``, not the bare ``NaN`` that is not JSON."""
    import json

    return json.dumps(_nulls(report), indent=2, default=float)


def _nulls(value: Any) -> Any:
    """``value`` with every float that is not finite, at any depth of dicts and lists, made ``None``."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _nulls(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nulls(v) for v in value]
    return value
