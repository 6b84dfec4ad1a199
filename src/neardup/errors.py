"""neardup's error taxonomy: what is the user's to fix, and what is a bug.

* :class:`UserError` -- an argument, option or file given by the user cannot be used
  (a bad parameter value, a missing or malformed stats/model file, an unwritable output).
  The command prints one line naming what is wrong and exits 2.
* :class:`InputError` -- a :class:`UserError` about input data: a record rejected in
  ``--strict`` mode, an input argument that cannot be read, a run in which no record
  could be used.
* :class:`EngineError` -- a :class:`UserError` about the engine the run was given: a
  Spark job that ran out of memory, lost its JVM or an executor, or made no progress for
  too long.  The line names the cause and the setting to change
  (``--spark-driver-memory``, ``--spark-partitions``, ``--spark-timeout``).
* Anything else is a bug: the command prints the traceback, asks for a report, exits 1.

Both subclass :class:`ValueError`, so API callers that catch ``ValueError`` for bad
parameters keep working; the command line never treats a plain ``ValueError`` (say, one
raised by numpy inside a kernel wrapper) as the user's fault.
"""

from __future__ import annotations


class UserError(ValueError):
    """Something the user gave cannot be used; the message says what and where."""


class InputError(UserError):
    """Input data cannot be used: a strict-mode rejection, an unreadable input, no usable record."""


class EngineError(UserError):
    """The engine could not finish the run (out of memory, a lost process, no progress); the
    message names the cause and the setting that changes it."""
