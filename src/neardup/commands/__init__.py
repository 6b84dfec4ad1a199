"""The ``neardup`` commands: one module per command, each with ``add_parser`` and ``run``.

``add_parser(subparsers)`` adds the command's parser (its options, nothing else) and returns
it; ``run(args)`` runs it and returns the exit code.  A module may also have ``warm(args)``,
a tiny job the program runs during start-up to load the command's kernels (``dedup``), and
``KERNELS = False`` when the command runs no kernel (the program then loads no numba runtime
before it).  :func:`neardup.cli.build_parser` registers every module of :data:`COMMANDS` this
one way; what the commands print beyond one line is in :mod:`.present`.

Kept light: a module imports its machinery inside ``run``, so building the parser is cheap.
"""

#: The commands, in the order ``neardup --help`` lists them (each the name of its module).
COMMANDS = ("dedup", "eval", "synth", "explain", "report", "extract", "train", "stats", "contain", "partial",
            "index", "serve", "methods")
