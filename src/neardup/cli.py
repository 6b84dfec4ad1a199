"""The ``neardup`` command: parses options and calls the API, nothing more.

Exit codes (:func:`neardup.job.run_command`): 0 success; 2 a user error (unusable
arguments or files, bad input in ``--strict`` mode, no usable record), one line; 1 a bug
in neardup, with its traceback; 130/143 interrupted by SIGINT/SIGTERM.

Length: the parsers of every command in one place, so their options read alike; the work is in
the modules each command imports when it runs.
"""

from __future__ import annotations

import argparse
import gc
import sys
from typing import Callable, Sequence

from .cli_options import (
    add_engine_options, add_input_options, add_job_options, add_method_options, engine_of, given_params, input_fields,
    method_options,
)
from .cluster import CLUSTERINGS
from .relations import DEFAULT_MIN_COVERAGE, DEFAULT_UNIQUE_COVERAGE, SITE_MAX_DF
from .errors import UserError
from .job import print_report, run_command
from .methods import REGISTRY, method_defaults, method_params


def _eval_located(args: argparse.Namespace) -> int:
    """``eval --containments`` / ``--partials``: score a contain/partial output against --truth."""
    import json

    if not args.truth:
        raise UserError("--containments and --partials need --truth (the simulator's truth.jsonl)")
    if args.containments:
        from .contain.evaluate import evaluate_containment_files

        report = {"task": "containment", **evaluate_containment_files(args.containments, args.truth)}
    else:
        from .partial.evaluate import evaluate_partial_files

        report = {"task": "partial", **evaluate_partial_files(args.partials, args.truth, [args.dataset], args.extract)}
    print(json.dumps(report, indent=2, default=float))
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    import json

    from .evaluate.copies import aligned_coverage
    from .evaluate.curves import learning_curve
    from .evaluate.harness import evaluate, load_labeled

    if args.containments or args.partials:
        return _eval_located(args)

    names = args.compare.split(",") if args.compare else [args.method]
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
    coverage = aligned_coverage(data) if args.relations else None
    reports, curves = [], {}
    for name in names:
        params = {k: v for k, v in given.items() if k in method_defaults(name)}
        fixed = params.get("threshold") if "threshold" in given else None
        report, scored = evaluate(data, name, params, tune=tune, splits=args.splits, split_seed=args.split_seed,
                                  objective=args.tune_for, threshold=fixed, clustering=args.cluster,
                                  coverage=coverage, min_coverage=args.min_coverage)
        if args.learning_curve:
            sizes = tuple(int(n) for n in args.learning_curve.split(","))
            report["learning_curve"] = learning_curve(data, name, params, sizes, args.splits or 5, args.split_seed)
        reports.append(report)
        curves[name] = scored
    if args.plot:
        from .evaluate.plots import write_learning_curves, write_plots

        lines, marks, bcubed = _plot_inputs(curves, reports, args)
        from .methods import get_method

        learns = get_method(names[0], **{k: v for k, v in given.items() if k in method_defaults(names[0])}).learns
        covers = _plots_cover(reports[0], data.name, learns)
        paths = write_plots(lines, args.plot, f"{data.name} ({covers.split(';')[0]})", marks=marks, bcubed=bcubed)
        if args.learning_curve:
            paths.append(write_learning_curves({r["method"]: r["learning_curve"] for r in reports}, args.plot, data.name))
        for path in paths:
            print(f"wrote {path}", file=sys.stderr)
        print(f"the plots cover {covers}", file=sys.stderr)
    if args.json:
        out = reports[0] if len(reports) == 1 else reports
        print(json.dumps(out, indent=2, default=float))
    else:
        print(_eval_table(reports))
        if any("per_split" in r for r in reports):
            print(_splits_table(reports))
        for r in reports:
            if "learning_curve" in r:
                print(f"\n{r['method']} learning curve (held-out max F1, mean +- std over splits):")
                for row in r["learning_curve"]:
                    print(f"  {row['documents']:>5} documents: {row['max_f1']:.3f} +- {row['max_f1_std']:.3f} ({row['runs']} splits)")
    return 0


def _plot_inputs(scored: dict, reports: list[dict], args: argparse.Namespace):
    """Scores and labels, the thresholds to mark, and the B-cubed curve of each method (for --plot)."""
    import numpy as np

    from .evaluate.cluster_measures import bcubed_curve

    curves, marks, bcubed = {}, {}, {}
    grid = np.linspace(0.02, 0.98, 49)
    for report in reports:
        name, sc = report["method"], scored[report["method"]]
        curves[name] = (sc.scores, sc.labels)
        default = method_defaults(name).get("threshold")
        if default is None and sc.method is not None:  # andd: its model's recorded threshold
            default = sc.method.method.decision_threshold()
        marks[name] = {"default": default, "chosen": report.get("recommended_threshold", report["threshold"])}
        bcubed[name] = (grid, bcubed_curve(sc.scores, sc.i, sc.j, len(sc.data.ids), sc.clusters, args.cluster, grid))
    return curves, marks, bcubed


def _plots_cover(report: dict, name: str, learns: bool = False) -> str:
    """Which pairs the plots of an evaluation show, and which threshold they mark as chosen."""
    if "per_split" in report:
        model = ", scored by the model trained on the first split's development half" if learns else ""
        return (f"all {report['pairs']:,} pairs of {name}, development and held-out halves together{model}; "
                f"chosen: the recommended threshold {report['recommended_threshold']:.3f}")
    if "tuned_on" in report:
        return f"all {report['pairs']:,} pairs of {name}; chosen: the threshold tuned on {report['tuned_on']}"
    return f"all {report['pairs']:,} pairs of {name}; chosen: the threshold the table reports"


def _splits_table(reports: list[dict]) -> str:
    """Per split: the threshold the development half chose and what the held-out half gave at it;
    then the spread and the recommended threshold (one that was evaluated)."""
    out = []
    for r in reports:
        if "per_split" not in r:
            continue
        rows = [["split", "thr (dev)", "dev max F1", "held-out P", "R", "F1", "B3 F1", "max F1"]]
        for k, run in enumerate(r["per_split"]):
            rows.append([str(k + r["split_seed"]), f"{run['threshold']:.3f}", f"{run['dev_max_f1']:.3f}",
                         f"{run['precision']:.3f}", f"{run['recall']:.3f}", f"{run['f1']:.3f}",
                         f"{run['b3_f1']:.3f}", f"{run['max_f1']:.3f}"])
        widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
        lines = ["| " + " | ".join(v.ljust(w) for v, w in zip(row, widths)) + " |" for row in rows]
        lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
        runs = r["per_split"]
        lo, hi = r["threshold_range"]
        f1 = [x["f1"] for x in runs]
        b3 = [x["b3_f1"] for x in runs]
        best = r["per_split"][r["recommended_split"]]
        out += [f"\n{r['method']}, per split (split = seed; the held-out half measured at its development "
                f"half's threshold):", *lines,
                f"spread: chosen thresholds {lo:.3f} to {hi:.3f}; held-out F1 {min(f1):.3f} to {max(f1):.3f}, "
                f"B-cubed F1 {min(b3):.3f} to {max(b3):.3f}",
                f"recommended threshold: {r['recommended_threshold']:.3f} (the median of the chosen thresholds, split "
                f"{r['recommended_split'] + r['split_seed']}'s: held-out F1 {best['f1']:.3f}, B-cubed F1 "
                f"{best['b3_f1']:.3f}); `neardup eval DATASET --threshold T` shows any threshold on all of it"]
    return "\n".join(out)


_COLUMNS = (
    ("method", "method", "{}"), ("max F1", "max_f1", "{:.3f}"), ("thr", "threshold", "{:.3f}"),
    ("P", "precision", "{:.3f}"), ("R", "recall", "{:.3f}"), ("F1", "f1", "{:.3f}"),
    ("AU-ROC", "auroc", "{:.4f}"), ("MCC", "mcc", "{:.3f}"), ("r", "pearson", "{:.3f}"),
    ("B3 P", "b3_precision", "{:.3f}"), ("B3 R", "b3_recall", "{:.3f}"), ("B3 F1", "b3_f1", "{:.3f}"),
    ("cand R", "candidate_recall", "{:.3f}"), ("copy F1", "copy_f1", "{:.3f}"), ("copy B3", "copy_b3_f1", "{:.3f}"),
    ("sec", "seconds", "{:.2f}"),
)


def _eval_table(reports: list[dict]) -> str:
    """A markdown table, one row per report, preceded by what was measured."""
    first = reports[0]
    best = "best B-cubed F1" if first.get("objective") == "bcubed" else "Max F1"
    how = (
        f"threshold {first['fixed_threshold']:g} as given" if first.get("fixed_threshold") is not None
        else f"threshold of {best} on {first['tuned_on']}" if "tuned_on" in first
        else (f"{first['splits']} random half splits by cluster, seed {first['split_seed']}: threshold of {best} on "
              "one half (training there too, for methods that learn), measures on the other; mean over splits; "
              "thr: the recommended threshold, the splits' median (per split below)")
        if "splits" in first
        else f"threshold of {best} on the dataset itself"
    )
    head = (
        f"{first['dataset']}: {first['documents']:,} documents, {first['pairs']:,} pairs, "
        f"{first['positives']:,} positive; {how}"
    )
    rows = [[c[0] for c in _COLUMNS]]
    rows += [[fmt.format(r.get("recommended_threshold", r[key]) if key == "threshold" else r[key])
              for _, key, fmt in _COLUMNS] for r in reports]
    widths = [max(len(row[c]) for row in rows) for c in range(len(_COLUMNS))]
    lines = ["| " + " | ".join(v.ljust(w) for v, w in zip(row, widths)) + " |" for row in rows]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return head + "\n\n" + "\n".join(lines)


def _cmd_dedup(args: argparse.Namespace) -> int:
    from .io.writers import check_outputs_apart
    from .run import dedup_files

    check_outputs_apart(args.inputs, args.output, [args.unique])  # before any work: never over an input
    if args.unique and not args.relations:
        raise UserError("--unique needs the relations (it drops only documents that the one kept covers): "
                        "leave out --no-relations")
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
        _print_summary(summary, args.output)
    return 0


#: Two copies of one story and another: what :func:`_warm_dedup` runs through the method.
WARM_UP_DOCS = [
    ("warm-up-1", "The council approved the new budget for the city's schools on Tuesday, after a long debate."),
    ("warm-up-2", "The council approved the new budget for the city's schools on Tuesday, after a long debate."),
    ("warm-up-3", "Heavy rain closed several roads in the north of the region, and more is expected this week."),
]


def _warm_dedup(args: argparse.Namespace) -> None:
    """Run the job's method over :data:`WARM_UP_DOCS` in process, loading every kernel the job
    will use (sketch, candidates, verification, clustering) during start-up."""
    from .pipeline import Deduplicator

    if engine_of(args) == "local":
        Deduplicator(cluster=args.cluster, **method_options(args)).run(WARM_UP_DOCS)


def _cmd_synth(args: argparse.Namespace) -> int:
    import itertools
    from dataclasses import fields

    from .evaluate.corpora import load_texts, shipped_articles
    from .evaluate.synth import SynthConfig, write_corpus

    from .job import RunStats

    rejected = RunStats()
    articles = (itertools.chain.from_iterable(load_texts(s, rejected) for s in args.sources) if args.sources
                else shipped_articles())
    knobs = {f.name: getattr(args, f.name) for f in fields(SynthConfig) if getattr(args, f.name, None) is not None}
    counts = write_corpus(articles, args.output, args.seed, args.docs, SynthConfig(**knobs))
    for line in rejected.rejection_report(" ".join(args.sources)):
        print(line, file=sys.stderr)
    if not args.quiet:
        kinds = ", ".join(f"{k} {counts.get(k, 0):,}" for k in ("original", "rewrite", "trim", "page"))
        print(
            f"wrote {counts['docs']:,} documents ({kinds}) in {counts['clusters']:,} clusters, "
            f"{counts['containment']:,} containments, {counts['partial']:,} partial copies -> "
            f"{args.output}/docs.jsonl, truth.jsonl",
            file=sys.stderr,
        )
    return 0


def _print_summary(s: dict, outdir: str) -> None:
    if "relations" in s:
        rel = s["relations"]
        unlisted = [r for r in rel if r not in s["relations_listed"] and rel[r]]
        lines = [f"pairs      {s['pairs']:,} pairs (from {s['candidate_pairs']:,} candidates): "
                 + ", ".join(f"{r} {rel[r]:,}" for r in s["relations_listed"])
                 + "".join(f"; {rel[r]:,} {r} not listed" for r in unlisted)]
        aligned = s["aligned"]
        if aligned.get("site_boilerplate_seeds"):
            lines.append(f"           boilerplate: {aligned['site_boilerplate_seeds']:,} seeds recurring "
                         "within one site ignored")
        smallest = s.get("smallest_removed_coverage")
        lines.append(f"clusters   {s['clusters']:,} clusters of copies holding {s['documents_in_clusters']:,} documents; "
                     f"{s['duplicates_removable']:,} removable duplicates"
                     + (f" (each covered >= {smallest:.0%} by the one kept)" if smallest is not None else ""))
    else:
        lines = [
            f"pairs      {s['pairs']:,} near-duplicate pairs (from {s['candidate_pairs']:,} candidates)",
            f"clusters   {s['clusters']:,} clusters holding {s['documents_in_clusters']:,} documents; "
            f"{s['duplicates_removable']:,} removable duplicates",
        ]
    lines.extend(f"warning    {w}" for w in s.get("warnings", ()))
    if "unique_file" in s:
        which = "rejected records kept" if s["unique_keeps_rejected"] else "rejected records left out"
        lines.append(f"unique     {s['unique_written']:,} records -> {s['unique_file']} ({which})")
    print_report(s, f"{outdir}/", lines)


def _cmd_explain(args: argparse.Namespace) -> int:
    import json

    from .explain import explain_texts, load_pair, render

    options = method_options(args)
    a, b = load_pair(args.a, args.b, args.inputs, args.extract, args.html, input_fields(args))
    explanation = explain_texts(a, b, **options)
    print(json.dumps(explanation.as_dict(), indent=2, default=float) if args.json else render(explanation))
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from .report import build_report

    given = {"id": args.id_field, "text": args.text_field, "html": args.html_field}
    path = build_report(args.folders, args.output, True if args.html else None,
                        {k: v for k, v in given.items() if v is not None})
    print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)
    return 0


def _cmd_methods(args: argparse.Namespace) -> int:
    for name, cls in sorted(REGISTRY.items()):
        print(f"{name}: {cls.summary}")
        for spec in method_params(cls):
            flag = "--" + spec.name.replace("_", "-")
            print(f"    {flag:<18} {spec.default!r:<8} {spec.help}")
    return 0


#: Commands whose runs need none of :func:`add_imported_commands`; ``neardup CMD ...`` for
#: one of these parses with a parser that leaves those out (same options, less start-up).
LEAN_COMMANDS = ("dedup", "eval", "methods")

#: Commands that run no kernel: the program does not load numba's runtime before them.
NO_KERNEL_COMMANDS = ("methods", "report")


def add_imported_commands(sub: argparse._SubParsersAction) -> None:
    """Add ``synth`` and the subcommands defined in other modules (extract, learn, ...).

    Building their options imports their machinery, a cost of every start-up (docs/costs.md).
    """
    p = sub.add_parser("synth", help="make a labeled corpus by simulating syndication of real articles")
    p.add_argument("sources", nargs="*", metavar="SOURCE",
                   help="Reuters-21578 folder, BBC folder or JSONL of texts (default: the shipped sample articles)")
    p.add_argument("-o", "--output", required=True, metavar="OUTDIR", help="folder for docs.jsonl and truth.jsonl")
    p.add_argument("--docs", type=int, help="number of documents (default: every story once)")
    p.add_argument("--seed", type=int, default=1, help="random seed (1)")
    p.add_argument("--quiet", action="store_true", help="no summary on stderr")
    g = p.add_argument_group("simulation knobs")
    from dataclasses import fields

    from .evaluate.synth import SynthConfig

    for f in fields(SynthConfig):
        if f.name != "start":
            g.add_argument("--" + f.name.replace("_", "-"), dest=f.name, type=type(f.default),
                           help=f"(default {f.default})")
    p.set_defaults(func=_cmd_synth)

    from .contain.cli import register as register_contain
    from .extract.cli import register as register_extract
    from .learn.cli import register as register_learn
    from .online.cli import register as register_online
    from .partial.cli import register as register_partial
    from .stats.cli import register as register_stats

    p = sub.add_parser("explain", help="why two documents are (or are not) the same story")
    p.add_argument("a", metavar="A", help="a .html/.txt file, or an id of a record in --in")
    p.add_argument("b", metavar="B", help="another file or id")
    p.add_argument("--in", dest="inputs", action="append", default=[], metavar="INPUT",
                   help="input(s) holding A and B as records (any input dedup reads); repeatable")
    p.add_argument("--json", action="store_true", help="print the explanation as JSON")
    add_input_options(p)
    add_method_options(p)
    p.set_defaults(func=_cmd_explain)

    p = sub.add_parser("report", help="one self-contained HTML report of dedup/contain/partial/eval outputs")
    p.add_argument("folders", nargs="+", metavar="OUTDIR", help="output folders of dedup, contain, partial, eval --plot")
    p.add_argument("-o", "--output", default="report.html", metavar="FILE", help="the HTML file (report.html)")
    p.add_argument("--html", action="store_true",
                   help="read the 'html' field (by default: as the jobs did, from their summary.json)")
    p.add_argument("--id-field", metavar="NAME", help="the id field (by default: the jobs', from their summary.json)")
    p.add_argument("--text-field", metavar="NAME", help="the text field (by default: the jobs')")
    p.add_argument("--html-field", metavar="NAME", help="the html field (by default: the jobs')")
    p.set_defaults(func=_cmd_report)

    register_extract(sub)
    register_learn(sub)
    register_stats(sub)
    register_contain(sub)
    register_partial(sub)
    register_online(sub)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("neardup")
    except PackageNotFoundError:  # run from a source tree that was never installed
        from . import __version__

        return __version__


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``neardup`` parser; for a ``command`` in :data:`LEAN_COMMANDS`, only the lean ones."""
    parser = argparse.ArgumentParser(
        prog="neardup", description="Find the same news story wherever it was republished."
    )
    parser.add_argument("--version", action="version", version=f"neardup {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("dedup", help="find near-duplicate pairs and clusters")
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
    p.set_defaults(func=_cmd_dedup, warm=_warm_dedup)

    p = sub.add_parser("eval", help="measure a method on labeled data (pairwise P/R/F1, AU-ROC, B3, ...)")
    p.add_argument("dataset", metavar="DATASET", help="folder of cluster sub-folders, or JSONL/Parquet with 'cluster'")
    p.add_argument("--truth", metavar="FILE", help="ground-truth JSONL of clusters (as `neardup synth` writes)")
    p.add_argument("--pairs", metavar="FILE", help="JSONL of labeled pairs {a, b, label}: score only these")
    p.add_argument("--containments", metavar="FILE",
                   help="score this `neardup contain` output against --truth (containment P/R/F1, direction must be right)")
    p.add_argument("--partials", metavar="FILE",
                   help="score this `neardup partial` output against --truth (span and pair P/R/F1)")
    p.add_argument("--compare", metavar="M1,M2,...", help="evaluate several methods and print one table")
    p.add_argument("--tune-on", metavar="DEVSET", help="choose the threshold by Max F1 on DEVSET, report DATASET at it")
    p.add_argument("--folds", "--splits", dest="splits", type=int, metavar="K",
                   help="K random half splits of DATASET by cluster: tune (and train, for a learning method) "
                        "on one half, report the other; mean and spread over the K splits")
    p.add_argument("--split-seed", type=int, default=0, help="seed of the first split (0; split r uses seed + r)")
    p.add_argument("--learning-curve", nargs="?", const="10,30,60,120,240,480", metavar="N1,N2,...",
                   help="for a learning method: held-out max F1 when trained on N random documents of the "
                        "development half, for each N (10,30,60,120,240,480), over the --folds splits (5)")
    p.add_argument("--tune-for", choices=("pair", "bcubed"), default="pair",
                   help="what the chosen threshold maximizes: pair F1, or B-cubed F1 of the clusters dedup makes "
                        "(pair); a --threshold given is used as is, and the report is what dedup gives at it")
    p.add_argument("--cluster", choices=CLUSTERINGS, default=CLUSTERINGS[0],
                   help=f"how B-cubed clusters are made from the pairs, as in dedup ({CLUSTERINGS[0]})")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--plot", metavar="DIR", help="write thresholds.png and roc.png into DIR")
    p.add_argument("--min-coverage", type=float, default=DEFAULT_MIN_COVERAGE, metavar="C",
                   help="the relations' coverage for the copy columns (what dedup lists and clusters at the "
                        f"threshold: copies, not shares) ({DEFAULT_MIN_COVERAGE})")
    p.add_argument("--no-relations", dest="relations", action="store_false",
                   help="leave out the copy columns (faster: no passages aligned)")
    add_input_options(p)
    add_method_options(p)
    p.set_defaults(func=_cmd_eval)

    if command not in LEAN_COMMANDS:
        add_imported_commands(sub)

    p = sub.add_parser("methods", help="list the detection methods and their parameters")
    p.set_defaults(func=_cmd_methods)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one ``neardup`` command; returns the exit code.

    As the program itself (``argv`` None) it ends the start-up :func:`neardup.__main__.program`
    began: numba's runtime is loaded before a command that runs kernels, with the garbage
    collector paused, and what start-up built is frozen (:func:`neardup.startup.start_kernels`);
    at the end it leaves the objects still alive to the operating system: they are frozen out
    of the collector, whose passes at interpreter shutdown would otherwise walk everything
    numba builds (docs/costs.md).
    """
    from .job import CLOCK

    program = argv is None
    if not program or CLOCK.started is None:
        CLOCK.start()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv[0] if argv else None).parse_args(argv)
    kernels = args.command not in NO_KERNEL_COMMANDS
    func = _after_start_up(args.func, kernels) if program else args.func
    try:
        if not kernels:
            return run_command(func, args)
        from .startup import compile_notice

        # the line is the program's: a caller of main() (a test, a script) gets its stderr as it was
        with compile_notice(quiet=not program or bool(getattr(args, "quiet", False))):
            return run_command(func, args)
    finally:
        CLOCK.started = None  # a library call after this command reports no wall time of it
        if program:
            gc.freeze()


def _after_start_up(func: Callable[[argparse.Namespace], int], kernels: bool) -> Callable[[argparse.Namespace], int]:
    """``func`` run once the program's start-up has ended: numba's runtime loaded and the
    command's warm-up run first when it runs ``kernels`` (:func:`neardup.startup.start_kernels`),
    inside the command's error and interrupt handling, so a Ctrl-C during start-up ends the
    program as one during the job does."""

    def run(args: argparse.Namespace) -> int:
        from .startup import end_start_up, start_kernels

        warm = getattr(args, "warm", None)
        if kernels:
            start_kernels(None if warm is None else lambda: warm(args))
        else:
            end_start_up()
        return func(args)

    return run


if __name__ == "__main__":
    sys.exit(main())
