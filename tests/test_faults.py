"""Issue 15's reproductions: every input fault is contained, counted and named; no traceback.

Each test feeds one fault to the commands that meet it and checks the contract: exit 0
with the fault counted and named (file, and line where there is one), or exit 2 with one
clean line when the fault is in an argument; read = kept + rejected; outputs whole.
"""

from __future__ import annotations

import gzip
import os
import random
import sys
from pathlib import Path

import numpy as np
import orjson
import pytest

from neardup import input_stage, pipeline
from neardup.cli import main
from neardup.io.readers import Record, read_input
from neardup.io.writers import write_rows

ARTICLE_WORDS = [f"w{i}" for i in range(5000)]


def article(seed: int, n: int = 120, alphabet: str | None = None) -> str:
    """A made-up article: ``n`` words drawn with ``seed`` (Cyrillic letters with ``alphabet``)."""
    rng = random.Random(seed)
    if alphabet:
        return " ".join("".join(rng.choice(alphabet) for _ in range(rng.randint(3, 9))) for _ in range(n)) + "."
    return " ".join(rng.choice(ARTICLE_WORDS) for _ in range(n)) + "."


def page(body: str, head: str = "", root: str = "<html>") -> str:
    return f"{root}<head>{head}<title>t</title></head><body><article><p>{body}</p><p>{body}</p></article></body></html>"


def run(argv: list[str], capsys) -> tuple[int, str]:
    rc = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return rc, err


def summary(outdir: Path) -> dict:
    s = orjson.loads((outdir / "summary.json").read_bytes())
    d = s["documents"]
    assert d["read"] == d["kept"] + d["rejected"] and s["complete"] is True
    return s


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    return path


# -- pages -----------------------------------------------------------------------------

@pytest.mark.parametrize("extract", ["model", "heuristic", "none"])
@pytest.mark.parametrize("command", ["dedup", "contain", "partial"])
def test_hidden_root_pages_never_stop_a_run(tmp_path, capsys, command, extract):
    root = tmp_path / "pages"
    root.mkdir()
    (root / "a.html").write_text(page(article(1), root="<html hidden>"))
    (root / "b.html").write_text(page(article(2), root='<html style="visibility:hidden">'))
    (root / "c.html").write_text(page(article(3)))
    rc, err = run([command, str(root), "-o", str(tmp_path / "o"), "--extract", extract], capsys)
    assert rc == 0
    s = summary(tmp_path / "o")
    assert s["documents"]["read"] == 3 and s["documents"]["kept"] >= 1


def test_a_page_the_extractor_fails_on_is_one_named_rejection(monkeypatch):
    real = input_stage.get_extractor

    def fragile(name):
        extract = real(name)
        return lambda html: (_ for _ in ()).throw(RuntimeError("parser broke")) if "BOOM" in html else extract(html)

    monkeypatch.setattr(input_stage, "get_extractor", fragile)
    docs = [Record("bad", None, page("BOOM " + article(1)), "in.jsonl", 4), Record("ok", None, page(article(2)), "in.jsonl", 5)]
    result = pipeline.Deduplicator().run(docs)
    assert result.ids == ["ok"]
    assert result.stats.rejections == ["in.jsonl:4: extraction failed (RuntimeError: parser broke)"]


def test_stats_build_and_extract_survive_hidden_roots(tmp_path, capsys):
    root = tmp_path / "pages"
    root.mkdir()
    (root / "a.html").write_text(page(article(1), root="<html hidden>"))
    (root / "b.html").write_text(page(article(2)))
    assert run(["stats", "build", str(root), "-o", str(tmp_path / "s.npz")], capsys)[0] == 0
    rc, _ = run(["extract", str(root), "--extractor", "heuristic", "--jsonl", str(tmp_path / "x.jsonl")], capsys)
    assert rc == 0 and (tmp_path / "x.jsonl").read_text().count("\n") >= 1


# -- damaged files -----------------------------------------------------------------------

def test_truncated_jsonl_gz_keeps_what_was_read_and_names_the_line(tmp_path, capsys):
    rows = [{"id": str(i), "text": article(i)} for i in range(300)]
    data = gzip.compress(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    path = tmp_path / "in.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    rc, err = run(["dedup", str(path), "-o", str(tmp_path / "o")], capsys)
    s = summary(tmp_path / "o")
    assert rc == 0 and 0 < s["documents"]["kept"] < 300
    assert s["documents"]["rejected_by_reason"] == {"unreadable file": 1}
    assert s["rejections"][0].startswith(f"{path}:") and "EOFError" in s["rejections"][0]


def test_damaged_html_gz_in_a_folder_is_named(tmp_path, capsys):
    root = tmp_path / "pages"
    root.mkdir()
    (root / "good.html").write_text(page(article(1)))
    (root / "bad.html.gz").write_bytes(gzip.compress(page(article(2)).encode())[:-30] + b"\x00" * 30)
    (root / "junk.html.gz").write_bytes(b"\x1f\x8b" + os.urandom(64))
    rc, _ = run(["dedup", str(root), "-o", str(tmp_path / "o")], capsys)
    s = summary(tmp_path / "o")
    assert rc == 0 and s["documents"]["kept"] == 1
    assert {m.split(":")[0] for m in s["rejections"]} == {str(root / "bad.html.gz"), str(root / "junk.html.gz")}


def test_corrupt_input_argument_exits_2_naming_the_file(tmp_path, capsys):
    path = tmp_path / "junk.jsonl.gz"
    path.write_bytes(b"\x1f\x8b" + os.urandom(100))
    rc, err = run(["dedup", str(path), "-o", str(tmp_path / "o")], capsys)
    assert rc == 2 and err.count("\n") == 1 and str(path) in err and "None" not in err
    assert not (tmp_path / "o").exists()


def test_parquet_with_a_bad_data_page_loses_only_its_row_group(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "in.parquet"
    texts = [article(i) for i in range(200)]
    pq.write_table(pa.table({"id": [str(i) for i in range(200)], "text": texts}), path, row_group_size=50)
    data = bytearray(path.read_bytes())
    data[1000:1400] = b"Z" * 400  # inside the first row group's data page
    path.write_bytes(bytes(data))
    rc, _ = run(["dedup", str(path), "-o", str(tmp_path / "o")], capsys)
    s = summary(tmp_path / "o")
    assert rc == 0 and s["documents"]["kept"] == 150
    assert s["rejections"] == [f"{path}:1: unreadable Parquet (row group 0, rows 1-50 lost: OSError: Corrupt snappy compressed data.)"] \
        or s["rejections"][0].startswith(f"{path}:1: unreadable Parquet (row group 0, rows 1-50 lost")


# -- decoding ----------------------------------------------------------------------------

CYRILLIC = "абвгдеёжзийклмнопрстуфхцчшщыэюя"


def test_cp1251_pages_declaring_utf8_are_decoded_and_not_paired(tmp_path, capsys):
    root = tmp_path / "ru"
    root.mkdir()
    for name, seed in (("a", 1), ("b", 2)):
        text = page(article(seed, alphabet=CYRILLIC), head='<meta charset="utf-8">')
        (root / f"{name}.html").write_bytes(text.encode("cp1251"))
    out = tmp_path / "o"
    unique = tmp_path / "unique.jsonl"
    rc, _ = run(["dedup", str(root), "-o", str(out), "--extract", "none", "--unique", str(unique)], capsys)
    s = summary(out)
    assert rc == 0 and s["pairs"] == 0 and s["documents"]["detected_encodings"] == {"cp1251": 2}
    assert len(unique.read_bytes().splitlines()) == 2  # --unique deletes neither
    texts = [r.html for r in read_input(root)]
    assert all("\ufffd" not in t and sum(c in CYRILLIC for c in t) > 500 for t in texts)


@pytest.mark.parametrize("charset", ["idna", "punycode", "no-such-charset", "base64"])
def test_nonsense_declared_charsets_do_not_stop_the_run(tmp_path, capsys, charset):
    root = tmp_path / "pages"
    root.mkdir()
    (root / "a.html").write_bytes(page("caf\u00e9 na\u00efve " + article(1), head=f'<meta charset="{charset}">').encode("cp1252"))
    (root / "b.html").write_text(page(article(2)))
    rc, _ = run(["dedup", str(root), "-o", str(tmp_path / "o"), "--extract", "none"], capsys)
    assert rc == 0 and summary(tmp_path / "o")["documents"]["kept"] == 2
    assert "café naïve" in next(read_input(root / "a.html")).html


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_pages_are_read_not_rejected_as_binary(tmp_path, encoding):
    path = tmp_path / "a.html"
    path.write_bytes(page("wide page " + article(1)).encode(encoding))
    record = next(read_input(path))
    assert isinstance(record, Record) and "wide page w" in record.html


def test_cp1252_text_files_are_decoded(tmp_path, capsys):
    path = tmp_path / "a.txt"
    path.write_bytes(("Caf\u00e9 cr\u00e8me \u201cquoted\u201d \u2014 " + article(1)).encode("cp1252"))
    record = next(read_input(path))
    assert isinstance(record, Record) and record.text.startswith("Café crème “quoted” —") and record.encoding == "cp1252"


def test_mostly_undecodable_documents_are_rejected_not_compared(tmp_path, capsys):
    rows = [{"id": str(i), "text": "\ufffd" * 300 + f" {i}"} for i in range(2)] + [{"id": "ok", "text": article(1)}]
    path = write_jsonl(tmp_path / "in.jsonl", rows)
    rc, _ = run(["dedup", str(path), "-o", str(tmp_path / "o")], capsys)
    s = summary(tmp_path / "o")
    assert rc == 0 and s["pairs"] == 0 and s["documents"]["rejected_by_reason"] == {"undecodable": 2}
    assert s["rejections"][0].startswith(f"{path}:1: undecodable")


def test_a_utf8_bom_keeps_the_first_jsonl_record(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + orjson.dumps({"id": "first", "text": "x y"}) + b"\n")
    assert [r.id for r in read_input(path)] == ["first"]


# -- special files and folders -------------------------------------------------------------

@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifos_and_devices_in_a_folder_are_skipped_and_counted(tmp_path, capsys):
    root = tmp_path / "pages"
    root.mkdir()
    (root / "a.txt").write_text(article(1))
    os.mkfifo(root / "pipe.txt")
    if Path("/dev/zero").exists():
        (root / "zero.txt").symlink_to("/dev/zero")
    rc, _ = run(["dedup", str(root), "-o", str(tmp_path / "o")], capsys)  # would hang or grow without bound
    s = summary(tmp_path / "o")
    assert rc == 0 and s["documents"]["kept"] == 1
    assert s["documents"]["rejected_by_reason"]["special file"] == (2 if Path("/dev/zero").exists() else 1)
    assert any(m.startswith(f"{root / 'pipe.txt'}: special file (a FIFO") for m in s["rejections"])
    rc, err = run(["dedup", str(root / "pipe.txt"), "-o", str(tmp_path / "o2")], capsys)
    assert rc == 2 and "FIFO" in err and err.count("\n") == 1


def test_symlinked_folders_are_counted_not_followed(tmp_path):
    root = tmp_path / "pages"
    (root / "real").mkdir(parents=True)
    (root / "real" / "a.txt").write_text(article(1))
    (root / "loop").symlink_to(root)
    items = list(read_input(root))
    assert [getattr(i, "id", None) or i.message() for i in items] == [
        f"{root / 'loop'}: symlinked folder (not followed: links can loop)", "real/a.txt"]


def test_a_broken_link_in_a_folder_is_named_as_one(tmp_path):
    # was "unsupported file type" (no suffix) or "unreadable file" (a .txt name)
    root = tmp_path / "pages"
    root.mkdir()
    (root / "a.txt").write_text(article(1))
    for name in ("gone", "gone.txt"):
        (root / name).symlink_to(tmp_path / "nowhere")
    items = list(read_input(root))
    assert [getattr(i, "id", None) or i.message() for i in items] == [
        "a.txt", *(f"{root / n}: broken link (it names {tmp_path / 'nowhere'}, which does not exist)"
                   for n in ("gone", "gone.txt"))]


def test_unreadable_and_vanished_folders_are_counted(tmp_path, capsys, monkeypatch):
    root = tmp_path / "pages"
    for sub in ("locked", "open"):
        (root / sub).mkdir(parents=True)
        (root / sub / "a.txt").write_text(article(len(sub)))
    real = os.scandir

    def scandir(path="."):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    items = list(read_input(root))
    assert [getattr(i, "id", None) or i.reason for i in items] == ["unreadable folder", "open/a.txt"]
    assert items[0].message().startswith(f"{root / 'locked'}: unreadable folder (PermissionError")


# -- outputs ---------------------------------------------------------------------------------

def test_a_failed_run_leaves_the_previous_outputs_untouched(tmp_path, capsys):
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": str(i), "text": article(i % 5)} for i in range(20)])
    out = tmp_path / "o"
    assert run(["dedup", str(path), "-o", str(out)], capsys)[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    (tmp_path / "file").write_text("not a folder")
    rc, err = run(["dedup", str(path), "-o", str(out), "--threshold", "0.3", "--unique", str(tmp_path / "file" / "u.jsonl")],
                  capsys)
    assert rc == 2 and err.count("\n") == 1 and "u.jsonl" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "in.jsonl", "o"]  # no temporary left


def test_an_output_folder_is_replaced_as_a_whole(tmp_path, capsys):
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": str(i), "text": article(i % 5)} for i in range(20)])
    out = tmp_path / "o"
    assert run(["dedup", str(path), "-o", str(out), "--format", "parquet"], capsys)[0] == 0
    assert run(["dedup", str(path), "-o", str(out)], capsys)[0] == 0
    assert sorted(p.name for p in out.iterdir()) == ["clusters.jsonl", "pairs.jsonl", "summary.json"]
    keep = tmp_path / "mine"
    keep.mkdir()
    (keep / "notes.txt").write_text("my own file")
    rc, err = run(["dedup", str(path), "-o", str(keep)], capsys)
    assert rc == 2 and "not a neardup output" in err and (keep / "notes.txt").exists()


@pytest.mark.parametrize("command,name", [("contain", "containments"), ("partial", "partials")])
def test_contain_and_partial_write_parquet_through_the_shared_writers(tmp_path, capsys, command, name):
    base = article(1, 200)
    rows = [{"id": "a", "text": base}, {"id": "b", "text": base.replace(". ", ".\n") + " " + article(2, 100)}]
    path = write_jsonl(tmp_path / "in.jsonl", rows)
    assert run([command, str(path), "-o", str(tmp_path / "o"), "--format", "parquet"], capsys)[0] == 0
    import pyarrow.parquet as pq

    assert (tmp_path / "o" / f"{name}.parquet").exists() and summary(tmp_path / "o")["inputs"] == [str(path)]
    pq.read_table(tmp_path / "o" / f"{name}.parquet")


def test_write_errors_name_the_file(tmp_path):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    with pytest.raises(OSError) as err:
        write_rows(Path("/dev/full"), ({"a": "x" * 100} for _ in range(100_000)))
    assert err.value.filename == "/dev/full"


# -- records, runs and reports -----------------------------------------------------------------

def test_no_usable_record_fails_with_the_reasons(tmp_path, capsys):
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": "a"}, {"id": "b", "text": "   "}])
    rc, err = run(["dedup", str(path), "-o", str(tmp_path / "o")], capsys)
    assert rc == 2 and "no usable record" in err and "missing text 1" in err and "empty text 1" in err
    assert not (tmp_path / "o").exists()


def test_unique_keeps_rejected_records_unless_asked(tmp_path, capsys):
    rows = [{"id": "a", "text": article(1)}, {"id": "a2", "text": article(1)}, {"id": "empty", "html": "<p></p>"},
            {"id": "none", "text": "!!! ???"}]
    path = write_jsonl(tmp_path / "in.jsonl", rows)
    for flag, expect in (([], ["a", "empty", "none"]), (["--no-keep-rejected"], ["a"])):
        unique = tmp_path / "u.jsonl"
        rc, err = run(["dedup", str(path), "-o", str(tmp_path / "o"), "--unique", str(unique), *flag], capsys)
        assert rc == 0 and [orjson.loads(x)["id"] for x in unique.read_bytes().splitlines()] == expect
        said = "3 records -> " if not flag else "1 records -> "
        assert said in err and ("(1 documents kept, 2 rejected records written back)" if not flag
                                else "(rejected records left out)") in err, err
        assert summary(tmp_path / "o")["unique_rejected_written"] == (2 if not flag else 0)


@pytest.mark.parametrize("command", ["dedup", "contain"])
def test_no_words_rejections_name_file_and_line(tmp_path, capsys, command):
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": article(1)}, {"id": "b", "text": "!!! ???"}])
    assert run([command, str(path), "-o", str(tmp_path / "o")], capsys)[0] == 0
    assert summary(tmp_path / "o")["rejections"] == [f"{path}:2: no words (b)"]


def test_stderr_says_how_many_rejections_summary_lists(tmp_path, capsys):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"not json\n" * 1200 + orjson.dumps({"id": "a", "text": article(1)}) + b"\n")
    rc, err = run(["dedup", str(path), "-o", str(tmp_path / "o")], capsys)
    assert rc == 0 and "1,195 more rejections (summary.json lists the first 1,000)" in err
    assert len(summary(tmp_path / "o")["rejections"]) == 1000


def test_imatch_partial_survives_documents_without_words(tmp_path, capsys):
    rows = [{"id": "a", "text": article(1, 200)}, {"id": "b", "text": "!!!"}, {"id": "c", "text": article(1, 200)}]
    path = write_jsonl(tmp_path / "in.jsonl", rows)
    rc, _ = run(["partial", str(path), "-o", str(tmp_path / "o"), "--method", "pdc", "--signature", "imatch"], capsys)
    assert rc == 0 and summary(tmp_path / "o")["documents"]["read"] == 3


def test_synth_skips_and_names_invalid_lines(tmp_path, capsys, articles):
    path = tmp_path / "src.jsonl"
    path.write_bytes(b"".join(orjson.dumps(a) + b"\n" for a in articles[:5]) + b"{broken\n")
    rc, err = run(["synth", str(path), "-o", str(tmp_path / "o")], capsys)
    assert rc == 0 and f"{path}:6: invalid JSON" in err and (tmp_path / "o" / "docs.jsonl").exists()


def test_malformed_stats_and_model_files_exit_2_naming_the_file(tmp_path, capsys):
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": str(i), "text": article(i)} for i in range(3)])
    stats = tmp_path / "s.npz"
    assert run(["stats", "build", str(path), "-o", str(stats)], capsys)[0] == 0
    stats.write_bytes(stats.read_bytes()[: stats.stat().st_size // 2])  # a save cut short
    model = tmp_path / "m.json"
    model.write_text('{"format": ')
    for argv in (["dedup", str(path), "-o", str(tmp_path / "o"), "--method", "wsample", "--stats", str(stats)],
                 ["dedup", str(path), "-o", str(tmp_path / "o"), "--method", "imatch", "--stats", str(stats)],
                 ["partial", str(path), "-o", str(tmp_path / "o"), "--method", "pdc", "--signature", "imatch",
                  "--stats", str(stats)],
                 ["contain", str(path), "-o", str(tmp_path / "o"), "--stats", str(stats)],
                 ["dedup", str(path), "-o", str(tmp_path / "o"), "--method", "andd", "--model", str(model)],
                 ["stats", "info", str(stats)]):
        rc, err = run(argv, capsys)
        assert rc == 2 and err.count("\n") == 1, (argv, err)
        assert str(stats if "npz" in " ".join(argv) else model) in err


def test_bugs_are_not_disguised_as_user_errors(monkeypatch, tmp_path, capsys):
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": "a", "text": article(1)}])

    def broken(*args, **kwargs):
        raise ValueError("an internal shape mismatch")

    monkeypatch.setattr("neardup.run.Deduplicator.run", broken)
    rc = main(["dedup", str(path), "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" in err and "please report" in err and "an internal shape mismatch" in err


def test_saved_files_are_written_whole(tmp_path):
    from neardup.stats.build import build_stats, load_stats

    path = write_jsonl(tmp_path / "in.jsonl", [{"id": str(i), "text": article(i)} for i in range(3)])
    build_stats([path], tmp_path / "s.npz")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "s.npz"]
    assert load_stats(tmp_path / "s.npz").n_docs == 3
    assert isinstance(np.load(tmp_path / "s.npz"), np.lib.npyio.NpzFile)


def test_fast_path_needs_no_detector(tmp_path):
    """Valid UTF-8 never loads the detector (start-up and speed)."""
    code = ("import sys; from neardup.io.readers import read_input; "
            f"list(read_input({str(tmp_path / 'a.html')!r})); print('charset_normalizer' in sys.modules)")
    (tmp_path / "a.html").write_text(page("café " + article(1)))
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"



def test_only_text_encodings_are_taken_from_declarations():
    from neardup.io.decode import decode, text_codec

    assert [text_codec(n) for n in ("UTF-8", "windows-1251", "latin1")] == ["utf-8", "cp1251", "iso8859-1"]
    assert [text_codec(n) for n in ("idna", "punycode", "base64", "rot13", "no-such")] == [None] * 5
    # a declaration that does not fit the bytes is not used: cp1251 bytes declared as utf-16
    russian = ("Министр финансов заявил во вторник, что правительство не будет повышать налоги в следующем году. "
               "По его словам, бюджет страны останется сбалансированным. ")
    text, used = decode(russian.encode("cp1251"), "utf-16")
    assert text == russian and used == "cp1251"


def test_outputs_are_replaced_whole_without_an_atomic_swap(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("neardup.io.writers._exchange", lambda a, b: False)
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": str(i), "text": article(i % 5)} for i in range(20)])
    out = tmp_path / "o"
    assert run(["dedup", str(path), "-o", str(out), "--format", "parquet"], capsys)[0] == 0
    assert run(["dedup", str(path), "-o", str(out)], capsys)[0] == 0
    assert sorted(p.name for p in out.iterdir()) == ["clusters.jsonl", "pairs.jsonl", "summary.json"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "o"]


def test_an_output_set_aside_by_a_killed_fallback_swap_is_restored(tmp_path, capsys):
    path = write_jsonl(tmp_path / "in.jsonl", [{"id": str(i), "text": article(i % 5)} for i in range(20)])
    out = tmp_path / "o"
    assert run(["dedup", str(path), "-o", str(out)], capsys)[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    out.rename(tmp_path / ".o.neardup-tmp-old")  # killed after the first rename of the fallback
    rc, _ = run(["dedup", str(path), "-o", str(out), "--unique", str(path / "u.jsonl")], capsys)  # fails
    assert rc == 2 and {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "o"]


def test_unique_keeps_records_with_empty_or_missing_text(tmp_path, capsys):
    # issue 29 item 3: "(rejected records kept)" was printed while records with empty text were dropped
    path = write_jsonl(tmp_path / "t.jsonl", [{"id": "a", "text": "x y"}, {"id": "b", "text": ""},
                                             {"id": "c"}, {"id": "d", "text": "  ", "extra": 1}])
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "p.txt").write_text(article(2))
    (folder / "empty.txt").write_text("")
    unique = tmp_path / "u.jsonl"
    rc, err = run(["dedup", str(path), str(folder), "-o", str(tmp_path / "o"), "--unique", str(unique)], capsys)
    rows = [orjson.loads(x) for x in unique.read_bytes().splitlines()]
    assert rc == 0 and "6 records -> " in err and "(2 documents kept, 4 rejected records written back)" in err
    assert [r["id"] for r in rows] == ["a", "b", "c", "d", f"{folder}/empty.txt", f"{folder}/p.txt"]
    assert rows[1] == {"id": "b", "text": ""} and rows[3] == {"id": "d", "text": "  ", "extra": 1}
    rc, err = run(["dedup", str(path), "-o", str(tmp_path / "o"), "--unique", str(unique), "--no-keep-rejected"],
                  capsys)
    assert [orjson.loads(x)["id"] for x in unique.read_bytes().splitlines()] == ["a"]
