"""What the commands print and plot: ``eval``'s tables and plot inputs, ``dedup``'s summary lines.

Kept apart from the commands so the presentation can be read (and changed) in one place, and
from the measures themselves (:mod:`neardup.evaluate`), which compute and never format.
"""

from __future__ import annotations

import argparse

from ..job import print_report
from ..methods import method_defaults


def plot_inputs(scored: dict, reports: list[dict], args: argparse.Namespace):
    """Scores and labels, the thresholds to mark, and the B-cubed curve of each method (for --plot)."""
    import numpy as np

    from ..evaluate.cluster_measures import bcubed_curve

    curves, marks, bcubed = {}, {}, {}
    grid = np.linspace(0.02, 0.98, 49)
    for report in reports:
        name, sc = report["method"], scored[report["method"]]
        curves[name] = (sc.scores, sc.labels)
        marks[name] = threshold_marks(report, sc)
        bcubed[name] = (grid, bcubed_curve(sc.scores, sc.i, sc.j, len(sc.data.ids), sc.clusters, args.cluster, grid))
    return curves, marks, bcubed


def threshold_marks(report: dict, scored) -> dict[str, float | None]:
    """The thresholds a picture of ``report``'s scores marks: the method's default and the chosen one
    (the recommended threshold of ``--folds``, else the one the table reports)."""
    default = method_defaults(report["method"]).get("threshold")
    if default is None and scored.method is not None:  # andd: its model's recorded threshold
        default = scored.method.method.decision_threshold()
    return {"default": default, "chosen": report.get("recommended_threshold", report["threshold"])}


def plots_cover(report: dict, name: str, learns: bool = False) -> str:
    """Which pairs the plots of an evaluation show, and which threshold they mark as chosen."""
    if "per_split" in report:
        model = ", scored by the model trained on the first split's development half" if learns else ""
        return (f"all {report['pairs']:,} pairs of {name}, development and held-out halves together{model}; "
                f"chosen: the recommended threshold {report['recommended_threshold']:.3f}")
    if "tuned_on" in report:
        return f"all {report['pairs']:,} pairs of {name}; chosen: the threshold tuned on {report['tuned_on']}"
    return f"all {report['pairs']:,} pairs of {name}; chosen: the threshold the table reports"


def splits_table(reports: list[dict]) -> str:
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


def eval_table(reports: list[dict]) -> str:
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


def print_summary(s: dict, outdir: str) -> None:
    """The summary of a ``dedup`` run on stderr: pairs by relation, clusters, warnings, ``--unique``."""
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
        rejected = s.get("unique_rejected_written", 0)
        which = (f"{s['unique_written'] - rejected:,} documents kept, {rejected:,} rejected records written back"
                 if s["unique_keeps_rejected"] else "rejected records left out")
        lines.append(f"unique     {s['unique_written']:,} records -> {s['unique_file']} ({which})")
    print_report(s, f"{outdir}/", lines)
