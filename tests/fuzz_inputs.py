"""Generated faulty inputs for every file command, and the contract each run must keep.

Used by ``tests/test_fuzz.py`` (a few examples, in CI) and ``bench/fuzz_faults.py`` (many).
A case is a folder of files: JSONL (valid, invalid, wrong types, BOMs), pages (hidden
roots, wrong or nonsense charsets, legacy encodings, UTF-16), text files, random bytes,
each possibly gzip-compressed or truncated.  :func:`check_case` runs each command on it
and checks: exit 0 or 2, never a traceback; exit 2 prints one line; after exit 0 the
summary accounts for every input (read = kept + rejected) and is marked complete.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import tempfile
from pathlib import Path

import orjson
from hypothesis import strategies as st

from neardup.cli import main

WORDS = ["minister", "said", "tuesday", "bank", "rates", "storm", "city", "report", "police", "market",
         "новости", "министр", "café", "naïve", "東京", "経済", "١٢٣", "emoji😀", "!!!", "", "\ufffd"]
CHARSETS = ["utf-8", "cp1251", "cp1252", "latin-1", "idna", "punycode", "utf-16", "no-such", "base64", "koi8-r"]
ENCODINGS = ["utf-8", "cp1251", "cp1252", "utf-16", "utf-16-le", "latin-1", "koi8-r"]
ROOTS = ["<html>", "<html hidden>", '<html style="visibility:hidden">', "", "<html><html>"]

text_st = st.lists(st.sampled_from(WORDS), min_size=0, max_size=60).map(" ".join)


@st.composite
def jsonl_bytes(draw) -> bytes:
    lines = []
    for n in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["record", "record", "record", "html", "bad-json", "bytes", "list", "no-id",
                                     "int-text", "blank"]))
        rid = draw(st.sampled_from([str(n), "dup", n, None, "", True]))
        if kind == "record":
            line = orjson.dumps({"id": rid, "text": draw(text_st)})
        elif kind == "html":
            line = orjson.dumps({"id": rid, "html": draw(page_text())})
        elif kind == "bad-json":
            line = b'{"id": "x", "text": '
        elif kind == "bytes":
            line = draw(st.binary(max_size=40)).replace(b"\n", b" ")
        elif kind == "list":
            line = b"[1, 2]"
        elif kind == "no-id":
            line = orjson.dumps({"text": draw(text_st)})
        elif kind == "int-text":
            line = orjson.dumps({"id": rid, "text": 5})
        else:
            line = b"   "
        lines.append(line)
    data = b"\n".join(lines) + b"\n"
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + data


@st.composite
def page_text(draw) -> str:
    root = draw(st.sampled_from(ROOTS))
    charset = draw(st.sampled_from(CHARSETS))
    body = " ".join(f"<p>{draw(text_st)}</p>" for _ in range(draw(st.integers(0, 4))))
    return f'{root}<head><meta charset="{charset}"><title>{draw(text_st)}</title></head><body>{body}</body></html>'


@st.composite
def page_bytes(draw) -> bytes:
    encoding = draw(st.sampled_from(ENCODINGS))
    return draw(page_text()).encode(encoding, errors="replace")


@st.composite
def damaged(draw, data: bytes) -> bytes:
    """``data``, maybe gzipped, maybe cut short or with bytes overwritten."""
    if draw(st.booleans()):
        data = gzip.compress(data, mtime=0)
    fault = draw(st.sampled_from(["none", "none", "truncate", "overwrite"]))
    if fault == "truncate" and data:
        data = data[: draw(st.integers(0, len(data) - 1))]
    elif fault == "overwrite" and data:
        at = draw(st.integers(0, len(data) - 1))
        data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at + 8:]
    return data


@st.composite
def fuzz_case(draw) -> dict[str, bytes]:
    """A folder's files: name -> bytes."""
    files: dict[str, bytes] = {}
    for n in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["jsonl", "html", "html", "txt", "junk"]))
        if kind == "jsonl":
            raw, name = draw(jsonl_bytes()), f"f{n}.jsonl"
        elif kind == "html":
            raw, name = draw(page_bytes()), f"f{n}.html"
        elif kind == "txt":
            raw, name = draw(text_st).encode(draw(st.sampled_from(ENCODINGS)), errors="replace"), f"f{n}.txt"
        else:
            raw, name = draw(st.binary(max_size=200)), f"f{n}.html"
        data = draw(damaged(raw))
        files[name + (".gz" if data[:2] == b"\x1f\x8b" else "")] = data
    return files


COMMANDS = {
    "dedup": lambda inp, out: ["dedup", *inp, "-o", str(out / "o")],
    "contain": lambda inp, out: ["contain", *inp, "-o", str(out / "o")],
    "partial": lambda inp, out: ["partial", *inp, "-o", str(out / "o")],
    "stats": lambda inp, out: ["stats", "build", *inp, "-o", str(out / "s.npz")],
    "extract": lambda inp, out: ["extract", *inp, "--extractor", "heuristic", "--jsonl", str(out / "x.jsonl")],
}


def check_case(files: dict[str, bytes], commands=tuple(COMMANDS), extract: str = "heuristic") -> None:
    """Run ``commands`` on the folder ``files`` (and on each JSONL file as an argument); check the contract."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "in"
        root.mkdir()
        for name, data in files.items():
            (root / name).write_bytes(data)
        jsonl = sorted(str(root / n) for n in files if ".jsonl" in n)
        for inputs in ([str(root)], *([j] for j in jsonl[:1])):
            for command in commands:
                out = Path(tmp) / f"out-{command}"
                out.mkdir(exist_ok=True)
                argv = COMMANDS[command](inputs, out)
                if command in ("dedup", "contain", "partial"):
                    argv += ["--extract", extract]
                _check_run(argv, out, command)


def _check_run(argv: list[str], out: Path, command: str) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(argv)
    text = err.getvalue()
    assert "Traceback" not in text and rc in (0, 2), (argv, rc, text)
    if rc == 2:
        lines = text.splitlines()  # (extract names each rejected input as it goes)
        assert lines[-1].startswith("neardup: error: ") and sum(x.startswith("neardup: error") for x in lines) == 1, text
        return
    if command in ("dedup", "contain", "partial"):
        s = orjson.loads((out / "o" / "summary.json").read_bytes())
        d = s["documents"]
        assert d["read"] == d["kept"] + d["rejected"] and d["kept"] > 0 and s["complete"] is True, (argv, s)
