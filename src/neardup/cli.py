"""The ``neardup`` command: builds the parser from the command modules and runs one command.

Every command is a module of :mod:`neardup.commands` (``add_parser``, ``run``), registered
here one way (:func:`build_parser`).  Exit codes (:func:`neardup.runner.run_command`): 0 success;
2 a user error (unusable arguments or files, bad input in ``--strict`` mode, no usable record),
one line; 1 a bug in neardup, with its traceback; 130/143 interrupted by SIGINT/SIGTERM.
"""

from __future__ import annotations

import argparse
import gc
import sys
from importlib import import_module
from typing import Any, Callable, Sequence

from .commands import COMMANDS
from .runner import run_command


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("neardup")
    except PackageNotFoundError:  # run from a source tree that was never installed
        from . import __version__

        return __version__


class _VersionAction(argparse._VersionAction):
    """``--version``, the version read only when it is asked for: looking it up in the installed
    package's metadata (and importing ``importlib.metadata``, which ``report`` does not otherwise
    need) cost every start of every command (docs/results.md, issue 28's fourth pass)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        self.version = f"neardup {_version()}"
        super().__call__(parser, namespace, values, option_string)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``neardup`` parser: every command's, or only ``command``'s when it names one (its options
    are the same; building the others would import their machinery for nothing).

    Each command module's ``run`` (and ``warm``, and whether it runs ``kernels``) are the defaults
    of its parser, which :func:`main` reads after parsing.
    """
    parser = argparse.ArgumentParser(
        prog="neardup", description="Find the same news story wherever it was republished."
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in (command,) if command in COMMANDS else COMMANDS:
        module = import_module(f".commands.{name}", __package__)
        module.add_parser(sub).set_defaults(func=module.run, warm=getattr(module, "warm", None),
                                            kernels=getattr(module, "KERNELS", True))
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
    args.command_line = argv  # as typed: what eval records of how it was run
    kernels = args.kernels
    func = _after_start_up(args.func, kernels) if program else args.func
    if getattr(args, "workers", None) is not None:  # the input stage's extraction processes, for this command
        func = _with_workers(func)
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


def _with_workers(func: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``func`` with the input stage's extraction processes set from ``--workers`` (a bad value is
    the user's error, reported as any other), and set back after it (a caller of main() keeps its own)."""

    def run(args: argparse.Namespace) -> int:
        from .workers import using

        with using(args.workers):
            return func(args)

    return run


def _after_start_up(func: Callable[[argparse.Namespace], int], kernels: bool) -> Callable[[argparse.Namespace], int]:
    """``func`` run once the program's start-up has ended: on the first run the kernels of dedup
    and eval on text and HTML compiled in one go (:func:`neardup.compile_once.compile_all`), numba's
    runtime loaded and the command's warm-up run first when it runs ``kernels``
    (:func:`neardup.startup.start_kernels`), inside the command's error and interrupt handling, so a
    Ctrl-C during start-up ends the program as one during the job does."""

    def run(args: argparse.Namespace) -> int:
        import os

        from .startup import end_start_up, skip_numba_blas_probe, start_kernels

        warm = getattr(args, "warm", None)
        if kernels:
            from .compile_once import WARM_UP_DOCS, compile_all

            if not os.environ.get("NEARDUP_PLAIN_START"):
                skip_numba_blas_probe()  # compiled as the program compiles them (see neardup.startup)
            compile_all(WARM_UP_DOCS, getattr(args, "method", None), bool(getattr(args, "quiet", False)))
            start_kernels(None if warm is None else lambda: warm(args))
        else:
            end_start_up()
        return func(args)

    return run


if __name__ == "__main__":
    sys.exit(main())
