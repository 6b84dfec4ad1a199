"""Pictures of an evaluation: measures against the threshold, precision-recall, scores, ROC.

One figure per kind, one line per method, written as PNG with matplotlib's Agg
backend (no display needed).  The thresholds that matter are marked on every figure
where a threshold shows: the method's default (dashed) and the one the evaluation
chose (solid).  With 7% positives (the GoldSet) the ROC curve says little; the
precision-recall curve and the histogram of positives' and negatives' scores say where
a threshold can go.  matplotlib is an optional dependency (``neardup[plot]``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import UserError
from .measures import threshold_sweep


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise UserError("--plot needs matplotlib: pip install -e '.[plot]' in the neardup checkout (or pip install matplotlib)") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def roc_curve(scores: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """False- and true-positive rates at every distinct threshold, from (0, 0) to (1, 1)."""
    order = np.argsort(-scores, kind="stable")
    s, y = scores[order], labels[order]
    last = np.r_[np.flatnonzero(np.diff(s)), s.shape[0] - 1]
    tp = np.cumsum(y)[last]
    fp = np.cumsum(~y)[last]
    tpr = np.r_[0.0, tp / max(int(y.sum()), 1)]
    fpr = np.r_[0.0, fp / max(int((~y).sum()), 1)]
    return fpr, tpr


def chosen_point(thresholds: np.ndarray, chosen: float | None) -> int | None:
    """The index of the sweep entry that threshold ``chosen`` gives, or None.

    ``thresholds`` are a :func:`threshold_sweep`'s, strictly *decreasing*; ``score >= chosen``
    flags exactly the pairs of the last entry whose threshold is still ``>= chosen``.  A
    threshold above every score flags nothing: the first entry is the nearest point drawn.
    """
    if chosen is None or not np.isfinite(chosen) or not thresholds.size:
        return None
    at_or_above = int(np.count_nonzero(thresholds >= chosen))
    return max(at_or_above - 1, 0)


def _mark(ax, marks: dict[str, float], color, labeled: bool = False) -> None:
    """Vertical lines at the default (dashed) and chosen (solid) thresholds (``labeled``: named in the legend)."""
    for kind, style in (("default", "--"), ("chosen", "-")):
        value = marks.get(kind)
        if value is not None and np.isfinite(value):
            ax.axvline(value, color=color, ls=style, lw=0.9, alpha=0.8,
                       label=f"{kind} threshold {value:.3f}" if labeled else None)


def _wrapped(title: str, width: int = 48) -> str:
    """``title`` on lines of at most ``width`` characters: a single-panel figure's title fits its width."""
    import textwrap

    return "\n".join(textwrap.wrap(title, width))


def write_plots(curves: dict[str, tuple[np.ndarray, np.ndarray]], outdir: str | Path, title: str,
                marks: dict[str, dict[str, float]] | None = None,
                bcubed: dict[str, tuple[np.ndarray, np.ndarray]] | None = None) -> list[Path]:
    """Write ``thresholds.png``, ``pr.png``, ``scores.png`` and ``roc.png`` for ``{method: (scores, labels)}``.

    ``marks``: per method, thresholds to mark, ``{"default": t, "chosen": t}``.
    ``bcubed``: per method, ``(thresholds, B-cubed F1)``: a fourth panel of ``thresholds.png``.
    """
    plt = _pyplot()
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    marks, bcubed = marks or {}, bcubed or {}
    colors = {name: f"C{k}" for k, name in enumerate(curves)}
    panels = ["precision", "recall", "F1"] + (["B-cubed F1 of the clusters"] if bcubed else [])
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.5), sharey=True)
    for name, (scores, labels) in curves.items():
        sweep = threshold_sweep(scores, labels)
        for ax, values in zip(axes, (sweep.precision, sweep.recall, sweep.f1)):
            ax.plot(sweep.thresholds, values, label=name, color=colors[name])
        if name in bcubed:
            axes[3].plot(*bcubed[name], label=name, color=colors[name])
        for ax in axes:
            _mark(ax, marks.get(name, {}), colors[name])
    for ax, what in zip(axes, panels):
        ax.set_xlabel("threshold")
        ax.set_title(what)
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.suptitle(f"{title}: measures against the threshold (dashed: default, solid: chosen)")
    fig.tight_layout()
    paths = [out / "thresholds.png"]
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(5.5, 5))
    for name, (scores, labels) in curves.items():
        sweep = threshold_sweep(scores, labels)
        ax.plot(sweep.recall, sweep.precision, label=name, color=colors[name])
        k = chosen_point(sweep.thresholds, marks.get(name, {}).get("chosen"))
        if k is not None:
            ax.plot(sweep.recall[k], sweep.precision[k], "o", color=colors[name])
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_title(_wrapped(f"{title}: precision-recall (dot: chosen threshold)"))
    ax.grid(alpha=0.3)
    ax.legend(loc="lower left")
    fig.tight_layout()
    paths.append(out / "pr.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)

    fig, axes = plt.subplots(1, len(curves), figsize=(5 * len(curves), 4), squeeze=False)
    for ax, (name, (scores, labels)) in zip(axes[0], curves.items()):
        bins = np.linspace(0.0, max(1.0, float(scores.max(initial=1.0))), 51)
        ax.hist(scores[~labels], bins=bins, alpha=0.6, label="different stories", color="grey")
        ax.hist(scores[labels], bins=bins, alpha=0.6, label="same story", color=colors[name])
        _mark(ax, marks.get(name, {}), "black", labeled=True)
        ax.set_yscale("log")
        ax.set_xlabel("score")
        ax.set_ylabel("pairs (log scale)")
        ax.set_title(f"{name}: scores of pairs")
        ax.legend()
    fig.tight_layout()
    paths.append(out / "scores.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(5.5, 5))
    for name, (scores, labels) in curves.items():
        fpr, tpr = roc_curve(scores, labels)
        ax.plot(fpr, tpr, label=name, color=colors[name])
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
    ax.set_xlabel("false-positive rate")
    ax.set_ylabel("true-positive rate")
    ax.set_title(_wrapped(f"{title}: ROC"))
    ax.legend(loc="lower right")
    fig.tight_layout()
    paths.append(out / "roc.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths


def write_learning_curves(curves: dict[str, list[dict]], outdir: str | Path, title: str) -> Path:
    """Write ``learning_curve.png``: held-out Max F1 (mean +- std) against training documents."""
    plt = _pyplot()
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for name, rows in curves.items():
        n = np.array([r["documents"] for r in rows], dtype=np.float64)
        mean = np.array([r["max_f1"] for r in rows])
        std = np.array([r["max_f1_std"] for r in rows])
        ax.errorbar(n, mean, yerr=std, marker="o", capsize=3, label=name)
    ax.set_xscale("log")
    ax.set_xlabel("training documents")
    ax.set_ylabel("held-out max F1")
    ax.set_title(_wrapped(f"{title}: learning curve"))
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    path = out / "learning_curve.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
