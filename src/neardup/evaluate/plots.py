"""Pictures of an evaluation: precision, recall and F1 against the threshold, and ROC.

One figure per kind, one line per method, written as PNG with matplotlib's Agg
backend (no display needed).  matplotlib is an optional dependency (``neardup[plot]``).
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
        raise UserError("--plot needs matplotlib: pip install 'neardup[plot]'") from None
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


def write_plots(curves: dict[str, tuple[np.ndarray, np.ndarray]], outdir: str | Path, title: str) -> list[Path]:
    """Write ``thresholds.png`` and ``roc.png`` for ``{method: (scores, labels)}``."""
    plt = _pyplot()
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5), sharey=True)
    for name, (scores, labels) in curves.items():
        sweep = threshold_sweep(scores, labels)
        for ax, values in zip(axes, (sweep.precision, sweep.recall, sweep.f1)):
            ax.plot(sweep.thresholds, values, label=name)
    for ax, what in zip(axes, ("precision", "recall", "F1")):
        ax.set_xlabel("threshold")
        ax.set_title(what)
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.suptitle(f"{title}: measures against the threshold")
    fig.tight_layout()
    paths = [out / "thresholds.png"]
    fig.savefig(paths[0], dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(5.5, 5))
    for name, (scores, labels) in curves.items():
        fpr, tpr = roc_curve(scores, labels)
        ax.plot(fpr, tpr, label=name)
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
    ax.set_xlabel("false-positive rate")
    ax.set_ylabel("true-positive rate")
    ax.set_title(f"{title}: ROC")
    ax.legend(loc="lower right")
    fig.tight_layout()
    paths.append(out / "roc.png")
    fig.savefig(paths[1], dpi=110)
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
    ax.set_title(f"{title}: learning curve")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    path = out / "learning_curve.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
