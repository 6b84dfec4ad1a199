"""What an evaluation ran on and with: enough, in its output alone, for a reviewer to run it again.

``eval --json`` and ``eval --output`` carry, with each method's report (whose ``params``
are the method's every knob, its seed among them), a ``run`` record: the command line,
neardup's and its numeric libraries' versions, each labeled set's path and a digest of
what was read from it (the ids, texts and labels the methods saw: a changed file, another
extractor or other field options give another digest), the extractor and its shipped
model, and the evaluation's own settings (folds, split seed, tuning objective,
clustering, the copy columns' coverage).
"""

from __future__ import annotations

import argparse
import hashlib
import platform
import shlex
from importlib import metadata
from typing import Any

import orjson

from .labeled import LabeledSet


def data_digest(data: LabeledSet) -> str:
    """``sha256:`` of the documents as read (ids, texts, in order) and their labels (clusters, and the
    labeled pairs when there are any): equal digests, equal evaluation input."""
    h = hashlib.sha256(orjson.dumps([data.ids, data.texts]))
    h.update(data.cluster.astype("<i8").tobytes())
    for array in data.pairs or ():
        h.update(array.astype("<i8" if array.dtype.kind in "iub" else "<f8").tobytes())
    return f"sha256:{h.hexdigest()}"


def _labeled(path: str, data: LabeledSet) -> dict[str, Any]:
    return {"path": path, "documents": len(data), "digest": data_digest(data)}


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _extractor(name: str) -> dict[str, Any]:
    """The extractor, and for the shipped model its file and digest (a retrained model is another)."""
    if name != "model":
        return {"name": name}
    from ..extract.model import DEFAULT_MODEL, default_model_path

    digest = hashlib.sha256(default_model_path().read_bytes()).hexdigest()
    return {"name": name, "model": DEFAULT_MODEL, "digest": f"sha256:{digest}"}


def run_record(args: argparse.Namespace, data: LabeledSet, tune: LabeledSet | None) -> dict[str, Any]:
    """The ``run`` record of an ``eval`` with ``args`` on ``data`` (tuned on ``tune``)."""
    from .. import __version__
    from ..cli_options import input_fields
    from ..job import read_as

    argv = getattr(args, "command_line", None)
    return {
        "command": None if argv is None else shlex.join(["neardup", *argv]),
        "neardup": __version__,
        "python": platform.python_version(),
        "libraries": {name: _version(name) for name in ("numpy", "numba", "scipy")},
        "dataset": {**_labeled(args.dataset, data), "truth": args.truth, "pairs": args.pairs},
        "tune_on": None if tune is None else _labeled(args.tune_on, tune),
        "extractor": _extractor(args.extract),
        "read_as": read_as(args.html, input_fields(args)),
        "folds": args.splits,
        "split_seed": args.split_seed,
        "tune_for": args.tune_for,
        "cluster": args.cluster,
        "relations": args.relations,
        "min_coverage": args.min_coverage,
        "learning_curve": None if not args.learning_curve else list(args.learning_curve),
    }
