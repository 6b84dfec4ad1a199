"""`eval` answers the user's question: tuned for B-cubed, or the dedup outcome at a given threshold."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from neardup.cli import main
from neardup.evaluate.cluster_measures import b3, best_bcubed_threshold
from neardup.evaluate.measures import prf
from neardup.evaluate.summary import evaluate_scores

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample.jsonl"


def _eval(capsys, *argv):
    assert main(["eval", str(SAMPLE), "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_given_threshold_reports_what_dedup_gives_at_it(capsys, tmp_path):
    report = _eval(capsys, "--method", "ffp", "--threshold", "0.3")
    assert report["threshold"] == 0.3
    out = tmp_path / "out"
    assert main(["dedup", str(SAMPLE), "-o", str(out), "--method", "ffp", "--threshold", "0.3", "--quiet"]) == 0
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    ids = [r["id"] for r in rows]
    pred = {i: -1 - n for n, i in enumerate(ids)}
    for line in (out / "clusters.jsonl").read_text().splitlines():
        c = json.loads(line)
        pred.update({i: c["cluster"] for i in c["ids"]})
    expected = b3([pred[i] for i in ids], [r["cluster"] for r in rows])
    assert report["b3_f1"] == pytest.approx(expected.f1, abs=1e-9)


#: The method and threshold of the copy columns' test.
FFP_AT_01 = ("--method", "ffp", "--threshold", "0.1")


def _dedup_outcome(docs: Path, out: Path, *options: str) -> tuple[set[frozenset[str]], list[int]]:
    """The pairs ``dedup`` lists that are not ``shares`` and its cluster per document (singletons apart)."""
    assert main(["dedup", str(docs), "-o", str(out), "--quiet", *options]) == 0
    pairs = {frozenset((p["a"], p["b"])) for p in map(json.loads, (out / "pairs.jsonl").read_text().splitlines())
             if p.get("relation") != "shares"}
    ids = [json.loads(line)["id"] for line in docs.read_text().splitlines()]
    pred = {i: -1 - n for n, i in enumerate(ids)}
    for c in map(json.loads, (out / "clusters.jsonl").read_text().splitlines()):
        pred.update({i: c["cluster"] for i in c["ids"]})
    return pairs, [pred[i] for i in ids]


@pytest.mark.slow
def test_the_copy_columns_are_what_dedup_gives_with_relations(capsys, tmp_path):
    """On stories that quote each other and end with their site's About paragraph, the copy
    measures are dedup's own listed copies and clusters; the plain ones are dedup --no-relations'."""
    from neardup.evaluate.corpora import shipped_articles
    from neardup.evaluate.labeled import read_truth_clusters
    from neardup.evaluate.synth import SynthConfig, write_corpus

    write_corpus(shipped_articles(), tmp_path, 3, 150, SynthConfig(p_shared_quote=1.0, p_site_about=0.5))
    docs = tmp_path / "docs.jsonl"
    truth = {i: c for i, (c, _) in read_truth_clusters(tmp_path / "truth.jsonl").items()}
    assert main(["eval", str(docs), "--truth", str(tmp_path / "truth.jsonl"), "--json", "--method", "ffp",
                 "--threshold", "0.1"]) == 0
    report = json.loads(capsys.readouterr().out)
    ids = [json.loads(line)["id"] for line in docs.read_text().splitlines()]
    code = {c: k for k, c in enumerate(sorted(set(truth.values())))}
    true = [code[truth[i]] if i in truth else -1 - n for n, i in enumerate(ids)]
    positives = {frozenset((x, y)) for k, x in enumerate(ids) for y in ids[k + 1:]
                 if truth.get(x) is not None and truth.get(x) == truth.get(y)}
    copies, clusters = _dedup_outcome(docs, tmp_path / "on", *FFP_AT_01)
    tp = len(copies & positives)
    assert report["copy_f1"] == pytest.approx(prf(tp, len(copies) - tp, len(positives) - tp).f1, abs=1e-9)
    assert report["copy_b3_f1"] == pytest.approx(b3(clusters, true).f1, abs=1e-9)
    _, plain = _dedup_outcome(docs, tmp_path / "off", *FFP_AT_01, "--no-relations")
    assert report["b3_f1"] == pytest.approx(b3(plain, true).f1, abs=1e-9)
    assert report["copy_b3_f1"] > report["b3_f1"]  # the quotes merge stories only without relations
    assert main(["eval", str(docs), "--truth", str(tmp_path / "truth.jsonl"), "--json", "--method", "ffp",
                 "--threshold", "0.1", "--no-relations"]) == 0
    assert json.loads(capsys.readouterr().out)["copy_f1"] is None


def test_json_says_null_for_an_undefined_measure(capsys):
    """Strict JSON: the copy columns without relations, and the threshold of a method that finds
    nothing, are null (they were a bare NaN, which is not JSON)."""
    assert main(["eval", str(SAMPLE), "--json", "--compare", "ffp,imatch", "--no-relations"]) == 0
    reports = json.loads(capsys.readouterr().out, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))
    assert reports[0]["copy_f1"] is None and reports[0]["f1"] == 1.0
    assert reports[1]["threshold"] is None and reports[1]["max_f1"] == 0.0


def test_the_dedup_columns_count_only_the_pairs_the_index_proposes(capsys, tmp_path):
    """With banding that proposes few candidates, B-cubed and the copy columns are dedup's outcome,
    not that of every pair above the threshold (copy F1 was 0.977 where dedup lists 2 pairs)."""
    options = ("--method", "minhash", "--threshold", "0.3", "--bands", "4", "--rows", "32")
    report = _eval(capsys, *options)
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    ids, true = [r["id"] for r in rows], [r["cluster"] for r in rows]
    story = dict(zip(ids, true))
    positives = {frozenset((x, y)) for k, x in enumerate(ids) for y in ids[k + 1:] if story[x] == story[y]}
    copies, clusters = _dedup_outcome(SAMPLE, tmp_path / "on", *options)
    tp = len(copies & positives)
    assert report["candidate_recall"] < 0.1 and len(copies) < 10
    assert report["copy_f1"] == pytest.approx(prf(tp, len(copies) - tp, len(positives) - tp).f1, abs=1e-9)
    assert report["copy_b3_f1"] == pytest.approx(b3(clusters, true).f1, abs=1e-9)
    _, plain = _dedup_outcome(SAMPLE, tmp_path / "off", *options, "--no-relations")
    assert report["b3_f1"] == pytest.approx(b3(plain, true).f1, abs=1e-9)


def test_tuning_for_bcubed_never_gives_worse_clusters_than_tuning_for_pairs(capsys):
    pair = _eval(capsys, "--method", "minhash", "--shingle-size", "3")
    cluster = _eval(capsys, "--method", "minhash", "--shingle-size", "3", "--tune-for", "bcubed")
    assert cluster["b3_f1"] >= pair["b3_f1"]


def test_best_bcubed_threshold_prefers_the_clusters_over_the_pairs():
    # two stories of three; one cross pair scores between the true pairs
    i = np.array([0, 0, 1, 3, 3, 4, 2])
    j = np.array([1, 2, 2, 4, 5, 5, 3])
    s = np.array([0.9, 0.8, 0.85, 0.9, 0.8, 0.85, 0.7])
    truth = np.array([0, 0, 0, 1, 1, 1])
    thr = best_bcubed_threshold(s, i, j, 6, truth, "components")
    assert 0.7 < thr <= 0.8
    report = evaluate_scores(s, truth[i] == truth[j], i, j, 6, truth, objective="bcubed", clustering="components")
    assert report["b3_f1"] == 1.0


def test_best_bcubed_threshold_looks_above_where_most_pairs_score():
    # unrelated pairs crowd at 0.45-0.55 (SimHash, cosine), 40 bridges at 0.65, true pairs 0.75-1:
    # score quantiles alone put the candidates in the crowd and chose 0.83 (B-cubed F1 0.95)
    from neardup.evaluate.cluster_measures import all_pair_labels

    rng = np.random.default_rng(0)
    truth = np.repeat(np.arange(30), 4)
    i, j, same = all_pair_labels(truth)
    s = np.where(same, rng.uniform(0.75, 1.0, i.size), rng.uniform(0.45, 0.55, i.size))
    s[np.flatnonzero(~same)[:40]] = 0.65
    thr = best_bcubed_threshold(s, i, j, truth.size, truth, "components")
    assert 0.65 < thr <= s[same].min() and thr in s  # a score a pair has
    assert evaluate_scores(s, same, i, j, truth.size, truth, thr, clustering="components")["b3_f1"] == 1.0


def test_the_help_of_plot_names_every_plot_it_writes(capsys):
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name in ("thresholds.png", "pr.png", "scores.png", "roc.png", "learning_curve.png"):
        assert name in text


@pytest.mark.slow
def test_plots_mark_thresholds_and_add_pr_scores_and_bcubed(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from neardup.evaluate import plots

    seen = {}
    real = plots.write_plots

    def spy(curves, outdir, title, marks=None, bcubed=None):
        seen.update(marks=marks, bcubed=bcubed)
        return real(curves, outdir, title, marks=marks, bcubed=bcubed)

    monkeypatch.setattr(plots, "write_plots", spy)
    assert main(["eval", str(SAMPLE), "--method", "minhash", "--tune-for", "bcubed", "--plot", str(tmp_path),
                 "--json"]) == 0
    for name in ("thresholds.png", "pr.png", "scores.png", "roc.png"):
        assert (tmp_path / name).stat().st_size > 10_000
    assert seen["marks"]["minhash"]["default"] == 0.8 and 0 < seen["marks"]["minhash"]["chosen"] < 0.8
    thresholds, f1 = seen["bcubed"]["minhash"]
    assert len(thresholds) == len(f1) and 0 <= f1.min() and f1.max() == pytest.approx(1.0)


@pytest.mark.slow
def test_the_precision_recall_dot_sits_at_the_chosen_threshold(tmp_path, monkeypatch):
    # issue 29 item 4: the sweep's thresholds decrease; the dot was looked up as if they increased
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from neardup.evaluate import plots
    from neardup.evaluate.measures import threshold_sweep

    rng = np.random.default_rng(0)
    labels = rng.random(400) < 0.3
    scores = np.where(labels, rng.uniform(0.3, 1.0, 400), rng.uniform(0.0, 0.5, 400))
    chosen = 0.35
    flagged = scores >= chosen
    want_recall = (flagged & labels).sum() / labels.sum()
    want_precision = (flagged & labels).sum() / flagged.sum()
    sweep = threshold_sweep(scores, labels)
    k = plots.chosen_point(sweep.thresholds, chosen)
    assert sweep.recall[k] == pytest.approx(want_recall) and sweep.precision[k] == pytest.approx(want_precision)

    dots = []
    real_close = plt.close

    def keep(fig=None):
        for ax in getattr(fig, "axes", []):
            if ax.get_xlabel() == "recall":
                dots.extend((ln.get_xdata()[0], ln.get_ydata()[0]) for ln in ax.lines if ln.get_marker() == "o")
        return real_close(fig)

    monkeypatch.setattr(plt, "close", keep)
    plots.write_plots({"m": (scores, labels)}, tmp_path, "t", marks={"m": {"chosen": chosen}})
    assert dots == [(pytest.approx(want_recall), pytest.approx(want_precision))]


@pytest.mark.slow
def test_folds_print_every_split_the_spread_and_an_evaluated_threshold(capsys, tmp_path):
    # issue 29 item 5: one mean threshold, never evaluated itself; per-split values only in --json
    argv = ["eval", str(SAMPLE), "--method", "minhash", "--shingle-size", "3", "--folds", "3", "--split-seed", "1"]
    report = _eval(capsys, *argv[2:])
    chosen = [run["threshold"] for run in report["per_split"]]
    assert report["recommended_threshold"] in chosen
    assert report["recommended_threshold"] == sorted(chosen)[1]  # the median
    assert main([*argv, "--plot", str(tmp_path)]) == 0
    printed = capsys.readouterr()
    out = printed.out
    for k, run in enumerate(report["per_split"]):
        assert f"| {k + 1}     | {run['threshold']:.3f}" in out
    assert f"chosen thresholds {min(chosen):.3f} to {max(chosen):.3f}" in out
    assert f"recommended threshold: {report['recommended_threshold']:.3f}" in out
    row = next(line for line in out.splitlines() if line.startswith("| minhash"))
    assert row.split("|")[3].strip() == f"{report['recommended_threshold']:.3f}"
    assert "the plots cover all 1,128 pairs of sample.jsonl, development and held-out halves together" in printed.err


def test_every_plot_labels_its_axes_and_its_lines_and_titles_fit(tmp_path, monkeypatch):
    """fix-look: the scores histogram says what its y axis counts and what its vertical lines are;
    a single-panel figure's long title is wrapped, not cut at the figure's edges."""
    import matplotlib.pyplot as plt

    from neardup.evaluate import plots

    figures = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig: (figures.append(fig), close(fig)))
    rng = np.random.default_rng(1)
    scores, labels = rng.random(200), rng.random(200) < 0.3
    title = "goldset-dev (all 586,986 pairs of goldset-dev)"
    plots.write_plots({"m": (scores, labels)}, tmp_path, title, marks={"m": {"default": 0.1, "chosen": 0.4}})
    for fig in figures:
        for ax in fig.axes:
            assert ax.get_xlabel()
            assert "\n" in ax.get_title() or len(ax.get_title()) <= 48
    hist = figures[2].axes[0]
    assert hist.get_ylabel() == "pairs (log scale)"
    legend = [t.get_text() for t in hist.get_legend().get_texts()]
    assert "default threshold 0.100" in legend and "chosen threshold 0.400" in legend
