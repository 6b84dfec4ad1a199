"""Fuzz every file command with generated faulty inputs, for as long as you like.

    python bench/fuzz_faults.py --examples 2000 [--extract model] [--seed 1]

The same generators and contract as ``tests/test_fuzz.py`` (``tests/fuzz_inputs.py``),
many more examples, a random seed per run unless ``--seed`` is given, and the learned
extractor by default: exit 0 or 2 and never a traceback; exit 2 ends with one error
line; after exit 0 every input is accounted for (read = kept + rejected) and the summary
is complete.  Hypothesis prints the smallest failing case it finds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fuzz_inputs import COMMANDS, check_case, fuzz_case  # noqa: E402
from hypothesis import HealthCheck, given, seed, settings  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--examples", type=int, default=500, help="generated cases (500)")
    p.add_argument("--extract", default="model", choices=("model", "heuristic", "none"), help="extractor (model)")
    p.add_argument("--commands", default=",".join(COMMANDS), help=f"comma-separated ({','.join(COMMANDS)})")
    p.add_argument("--seed", type=int, help="Hypothesis seed (default: random)")
    args = p.parse_args()
    commands = tuple(args.commands.split(","))

    @settings(max_examples=args.examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(fuzz_case())
    def run(files):
        check_case(files, commands, args.extract)

    if args.seed is not None:
        run = seed(args.seed)(run)
    start = time.perf_counter()
    run()
    print(f"{args.examples} cases x {len(commands)} commands passed in {time.perf_counter() - start:.0f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
