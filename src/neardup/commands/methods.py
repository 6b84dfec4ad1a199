"""``neardup methods``: the detection methods and their parameters (from the registry)."""

from __future__ import annotations

import argparse

from ..methods import REGISTRY, method_params

#: No kernel runs: the program does not load numba's runtime before this command.
KERNELS = False


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``methods`` to ``subparsers``."""
    return subparsers.add_parser("methods", help="list the detection methods and their parameters")


def run(args: argparse.Namespace) -> int:
    """Print each method, its summary and its options with their defaults."""
    for name, cls in sorted(REGISTRY.items()):
        print(f"{name}: {cls.summary}")
        for spec in method_params(cls):
            flag = "--" + spec.name.replace("_", "-")
            print(f"    {flag:<18} {spec.default!r:<8} {spec.help}")
    return 0
