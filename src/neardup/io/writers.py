"""Writers: result tables and record streams as JSONL (orjson) or Parquet (pyarrow), written atomically.

Output is deterministic: rows are written in the order given, keys in a fixed order,
so the same input and seed give byte-identical files.

Output is all-or-nothing.  A job's files are written into a temporary folder beside
the output folder (:class:`OutputFolder`) and moved into place in one step at the end;
a single file (``--unique``, a statistics file, a model) is written under a temporary
name and renamed (:func:`atomic_file`).  A run that fails, is interrupted or is killed
leaves the previous outputs as they were (or nothing); one that succeeds replaces
them as a whole, so files of an older run (say ``pairs.parquet`` beside a new
``pairs.jsonl``) never linger.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
from glob import escape as glob_escape
from pathlib import Path
from typing import Any, Iterable, Iterator

import orjson

from ..errors import UserError

FORMATS = ("jsonl", "parquet")

#: Temporary files and folders of runs in progress, removed on an interrupt (see ``neardup.job``).
PENDING: set[Path] = set()

_TMP_TAG = ".neardup-tmp-"
_RENAME_EXCHANGE = 2  # renameat2 flag: swap two paths atomically (Linux >= 3.15)
_AT_FDCWD = -100


@contextlib.contextmanager
def _naming(path: Path) -> Iterator[None]:
    """Errors writing ``path`` name it (a full disk says which file it stopped)."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None


def write_rows(path: Path, rows: Iterable[dict[str, Any]], fmt: str = "jsonl") -> int:
    """Write ``rows`` to ``path`` as JSONL or Parquet; returns the number written.

    Nested values (lists of spans, of sentence pairs) are kept as nested Parquet columns; Parquet
    is written in bounded memory (:mod:`neardup.io.parquet_rows`).
    """
    with _naming(path):
        return _write_rows(path, rows, fmt)


def _write_rows(path: Path, rows: Iterable[dict[str, Any]], fmt: str) -> int:
    if fmt == "jsonl":
        n = 0
        with open(path, "wb") as fh:
            for row in rows:
                fh.write(orjson.dumps(row, option=orjson.OPT_SERIALIZE_NUMPY))
                fh.write(b"\n")
                n += 1
        return n
    if fmt == "parquet":
        from .parquet_rows import write_parquet_rows

        parts = path.with_name(f"{path.name}.parts")  # beside it: ".u.parquet.neardup-tmp-PID.parts" for a side file
        PENDING.add(parts)
        try:
            return write_parquet_rows(path, rows, parts)
        finally:
            _remove(parts)
            PENDING.discard(parts)
    raise UserError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")


def write_json(path: Path, obj: Any) -> None:
    """Write one JSON document, indented for people."""
    with _naming(path):
        path.write_bytes(orjson.dumps(obj, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY) + b"\n")


#: File name endings of the formats records are written in (``--unique``); no ending is JSON lines.
RECORD_SUFFIXES = {".jsonl": "jsonl", ".ndjson": "jsonl", ".jl": "jsonl", ".json": "jsonl", "": "jsonl",
                   ".parquet": "parquet", ".pq": "parquet"}


def format_for(path: Path) -> str:
    """``parquet`` for a ``.parquet``/``.pq`` file name, ``jsonl`` for ``.jsonl`` (``.ndjson``, ``.jl``,
    ``.json``) or none; any other ending (``.csv``, ``.gz``) is refused: the file would hold JSON lines
    under another format's name."""
    fmt = RECORD_SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise UserError(f"{path}: records are written as JSON lines (.jsonl) or Parquet (.parquet), not as "
                        f"{path.suffix} files; name the file so")
    return fmt


def _fsync(path: Path) -> None:
    """Flush ``path`` (a file or a folder) to disk, so a rename never publishes unwritten data."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _target(path: str | os.PathLike[str]) -> Path:
    """Where an output named ``path`` goes: its absolute path ("." or "out/" have a usable name only once
    resolved), and where it points when it is a symbolic link -- the output is written through the link
    (into the folder or file it names), never over the link itself."""
    final = Path(os.path.abspath(path))
    if final.is_symlink() or os.path.realpath(final.parent) != str(final.parent):
        final = Path(os.path.realpath(final))
    return final


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_outputs_apart(inputs: Iterable[str | os.PathLike[str]], outdir: str | os.PathLike[str] | None = None,
                        files: Iterable[str | os.PathLike[str] | None] = ()) -> None:
    """Refuse, before a job starts, outputs that would overwrite or swallow its inputs, or each other:
    an output file (``--unique``, ``--jsonl``, a model) that is an input or lies in an input folder (it
    would be replaced, or read back by the next run); an output folder that is an input, holds one (it
    is replaced as a whole) or lies in an input folder (the next run reads its outputs back); a file in
    the output folder (the folder replaces it).  Paths are compared after resolving links, so a link or
    a ``..`` path to an input is caught too."""
    ins = [(str(i), Path(os.path.realpath(i))) for i in inputs if "://" not in str(i)]
    out_folder = None if outdir is None else Path(os.path.realpath(outdir))
    for given in [f for f in files if f is not None]:
        out = Path(os.path.realpath(given))
        for name, real in ins:
            if out == real or (real.is_dir() and _inside(out, real)):
                what = "is the input" if out == real else "is inside the input folder"
                raise UserError(f"output {given} {what} {name}: it would be overwritten or read back; "
                                "choose a path outside the inputs")
        if out_folder is not None and _inside(out, out_folder):
            raise UserError(f"output {given} is inside the output folder {outdir}, which the run replaces as a "
                            "whole; choose a path outside it")
    if outdir is not None:
        for name, _ in ins:
            check_outputs_spare(name, outdir, "input", ": the next run would read its outputs back", "the inputs")


def check_outputs_spare(folder: str | os.PathLike[str], outdir: str | os.PathLike[str], what: str,
                        why: str = "", outside: str = "it") -> None:
    """Refuse an output folder that is, holds or lies in ``folder``, what the run reads and must
    keep (``what``: how to name it, an input, or the index of ``neardup index add``): the output
    folder is replaced as a whole, so it would delete ``folder``; inside it (``why``), it is read back
    or mixed in."""
    real, out = Path(os.path.realpath(folder)), Path(os.path.realpath(outdir))
    if _inside(real, out):
        raise UserError(f"output folder {outdir} holds the {what} {folder}, and is replaced as a whole by the run; "
                        "choose another folder")
    if real.is_dir() and _inside(out, real):
        raise UserError(f"output folder {outdir} is inside the {what} folder {folder}{why}; choose a folder outside "
                        f"{outside}")


def _tmp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}{_TMP_TAG}{os.getpid()}")


def _writable_parent(path: Path) -> Path:
    parent = path.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create folder {parent} for {path}: {exc.strerror}") from None
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UserError(f"cannot write {path}: folder {parent} is not writable")
    return parent


#: Passes of removing a temporary folder: a thread still writing into it (an interrupt stops the
#: main thread only) can add a file after a pass listed the folder, and the folder stays.
_REMOVE_PASSES = 5


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        for _ in range(_REMOVE_PASSES):
            shutil.rmtree(path, ignore_errors=True)
            if not path.exists():
                return
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def remove_pending() -> None:
    """Delete the temporary files and folders of runs in progress (on an interrupt)."""
    for path in list(PENDING):
        _remove(path)
        PENDING.discard(path)


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path to write ``path``'s content to; renamed onto ``path`` when the block ends well.

    On an error the temporary file is removed and ``path`` is left as it was.
    """
    final = _target(path)
    if final.is_dir():
        raise UserError(f"cannot write {final}: it is a folder")
    _writable_parent(final)
    _remove_stale(final)
    tmp = _tmp_name(final)
    PENDING.add(tmp)
    try:
        yield tmp
        _fsync(tmp)
        os.replace(tmp, final)
    finally:
        PENDING.discard(tmp)
        _remove(tmp)


def _remove_stale(final: Path) -> None:
    """Delete temporary outputs of ``final`` left by killed runs (their process is gone)."""
    prefix = f".{final.name}{_TMP_TAG}"
    for leftover in final.parent.glob(glob_escape(prefix) + "*"):
        pid = leftover.name[len(prefix):].split(".")[0]  # "PID", or "PID.parts": a Parquet file's parts
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            _remove(leftover)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False where unsupported."""
    try:
        renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    except (OSError, TypeError):  # no C library to load this way (Windows)
        return False
    if renameat2 is None:
        return False
    done = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return done == 0


class OutputFolder:
    """The files of one run, written into a temporary folder and moved into ``outdir`` at :meth:`commit`.

    An existing ``outdir`` is replaced as a whole; one that holds files but no
    ``summary.json`` (so not a neardup output) is refused rather than deleted.
    Used as a context manager: leaving the block without :meth:`commit` (an error)
    removes the temporary folder.
    """

    def __init__(self, outdir: str | os.PathLike[str]) -> None:
        self.final = _target(outdir)
        self._old = self.final.with_name(f".{self.final.name}{_TMP_TAG}old")
        if self._old.is_dir():  # a run killed between the two renames of the fallback: restore its old output
            if self.final.exists():
                _remove(self._old)
            else:
                os.rename(self._old, self.final)
        if self.final.exists() and not self.final.is_dir():
            raise UserError(f"output folder {self.final} is a file")
        if self.final.is_dir() and any(self.final.iterdir()) and not (self.final / "summary.json").is_file():
            raise UserError(f"output folder {self.final} holds files that are not a neardup output "
                            "(no summary.json); choose a new or empty folder")
        _writable_parent(self.final)
        _remove_stale(self.final)
        self.tmp = _tmp_name(self.final)
        _remove(self.tmp)
        PENDING.add(self.tmp)  # known to the interrupt handler before it exists: a signal between the two
        self.tmp.mkdir()  # steps leaves nothing behind

    def path(self, name: str) -> Path:
        """Where to write the output file ``name`` during the run."""
        return self.tmp / name

    def commit(self) -> None:
        """Move the written files into ``outdir`` in one step (the previous output is removed)."""
        for child in self.tmp.iterdir():
            _fsync(child)
        _fsync(self.tmp)
        if not self.final.exists():
            os.rename(self.tmp, self.final)
        elif not _exchange(self.tmp, self.final):
            # no atomic swap on this system: a kill between the two renames leaves no outdir
            # ("nothing", never a mix) and the old output aside, which the next run restores
            _remove(self._old)
            os.rename(self.final, self._old)
            os.rename(self.tmp, self.final)
            self.tmp = self._old
        _fsync(self.final.parent)
        PENDING.discard(self.tmp)
        _remove(self.tmp)  # after an exchange: the previous output

    def __enter__(self) -> "OutputFolder":
        return self

    def __exit__(self, *exc: object) -> None:
        PENDING.discard(self.tmp)
        if self.tmp != self.final and self.tmp.exists():
            _remove(self.tmp)
