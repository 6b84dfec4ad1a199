"""CSV and TSV as spreadsheets and exports write them: malformed rows and headers are named rejections,
never silently kept or merged, and legacy and UTF-16/32 encodings are decoded and reported."""

from __future__ import annotations

import gzip
import sys

import orjson
import pytest

from neardup.cli import main
from neardup.io.readers import Record, Rejection, read_input

STORY = "the city council voted on tuesday to approve the construction of a new bridge over the harbor"
OTHER = "heavy rain closed several roads in the north and forecasters expect more storms this week"


def _items(path):
    items = list(read_input(path))
    records = {i.id: i for i in items if isinstance(i, Record)}
    return records, [(i.line, i.reason, i.detail) for i in items if isinstance(i, Rejection)]


@pytest.mark.parametrize("sep, name", [(",", "t.csv"), ("\t", "t.tsv")])
def test_a_row_with_more_fields_than_the_header_is_rejected_not_cut(tmp_path, capsys, sep, name):
    path = tmp_path / name
    path.write_text(f"id{sep}text\nr1{sep}{STORY}\nr3{sep}one{sep}two{sep}three\nr4{sep}{OTHER}{sep}\n"
                    f"r5\n{sep}{STORY}\n")
    records, rejected = _items(path)
    # a trailing empty field (spreadsheets write them) loses nothing: kept; a short row lacks its last fields
    assert sorted(records) == ["r1", "r4"] and records["r4"].text == OTHER
    assert rejected == [(3, "invalid CSV row", "4 fields, the header names 2"),
                        (5, "missing text", "a record needs a 'text' or 'html' field"),
                        (6, "missing id", "'id' is empty")]
    # --unique writes the rows back: an extra field once crashed it (a key None in the row)
    assert main(["dedup", str(path), "-o", str(tmp_path / "o"), "--unique", str(tmp_path / "u.jsonl")]) == 0
    assert "invalid CSV row" in capsys.readouterr().err
    assert [orjson.loads(x)["id"] for x in (tmp_path / "u.jsonl").read_bytes().splitlines()] == ["r1", "r4", "r5"]


def test_a_header_naming_a_field_twice_refuses_the_file(tmp_path, capsys):
    path = tmp_path / "dup.csv"
    path.write_text(f"id,text,title,text\nr1,{STORY},a title,another text\n")
    assert _items(path) == ({}, [(1, "invalid CSV header", "field 'text' named 2 times: columns 2 and 4")])
    assert main(["dedup", str(path), "-o", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}:1: invalid CSV header (field 'text' named 2 times" in err
    (tmp_path / "blank.csv").write_text(f"id,text,,\nr1,{STORY},,\n")  # unnamed columns are not fields
    assert list(_items(tmp_path / "blank.csv")[0]) == ["r1"]


def test_a_quote_never_closed_is_a_rejection_not_the_rest_of_the_file(tmp_path):
    path = tmp_path / "u.csv"
    path.write_text(f'id,text\nr1,{STORY}\nr5,"unterminated quote\nr6,swallowed\nr7,also swallowed\n')
    records, rejected = _items(path)
    assert list(records) == ["r1"]
    assert rejected == [(3, "invalid CSV row", "a quote is never closed: the file ends inside a quoted field, "
                                               "lines 3-5 read as this row")]
    # quoted fields may hold newlines and quotes; text after a closing quote is malformed
    path.write_text(f'id,text\nr1,"{STORY}\nits second line, ""quoted"""\nr2,"x"y\nr3,{STORY}\n')
    records, rejected = _items(path)
    assert records["r1"].text == f'{STORY}\nits second line, "quoted"' and records["r3"].line == 5
    assert rejected == [(4, "invalid CSV row", "',' expected after '\"'")]


def test_a_legacy_encoded_table_is_decoded_and_reported(tmp_path):
    path = tmp_path / "l1.csv"
    ascii_rows = "".join(f"a{i},{STORY}\n" for i in range(3000))  # over the first read's worth of bytes
    path.write_bytes(f"id,text\nr1,caf\u00e9 cr\u00e8me {STORY}\n{ascii_rows}r2,\u201cna\u00efve\u201d\n"
                     .encode("cp1252"))
    records, rejected = _items(path)
    assert rejected == [] and len(records) == 3002
    assert records["r1"].text == f"caf\u00e9 cr\u00e8me {STORY}" and records["r1"].encoding == "cp1252"
    assert records["r2"].text == "\u201cna\u00efve\u201d" and records["r2"].encoding == "cp1252"
    assert records["a0"].encoding is None  # ASCII rows are UTF-8
    assert main(["dedup", str(path), "-o", str(tmp_path / "o"), "--quiet", "--no-relations"]) == 0
    summary = orjson.loads((tmp_path / "o" / "summary.json").read_bytes())
    assert summary["documents"]["detected_encodings"] == {"cp1252": 2}


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
@pytest.mark.parametrize("gzipped", [False, True])
@pytest.mark.parametrize("sep, name", [(",", "t.csv"), ("\t", "t.tsv")])
def test_utf16_and_utf32_tables_are_read_by_their_byte_order_mark(tmp_path, encoding, gzipped, sep, name):
    text = (f"id{sep}text\nr1{sep}\"caf\u00e9 {STORY}\nsecond line\"\nr2{sep}\u6771\u4eac {STORY}\n"
            f"{sep}no id\nr4{sep}{STORY}\n")
    data = text.encode(encoding)
    if not encoding.endswith(("16", "32")):  # the endian-named codecs write no mark: add it
        data = "\ufeff".encode(encoding) + data
    path = tmp_path / (name + ".gz" if gzipped else name)
    path.write_bytes(gzip.compress(data) if gzipped else data)
    records, rejected = _items(path)
    assert {k: (r.text, r.line) for k, r in records.items()} == {
        "r1": (f"caf\u00e9 {STORY}\nsecond line", 2), "r2": (f"\u6771\u4eac {STORY}", 4), "r4": (STORY, 6)}
    assert rejected == [(5, "missing id", "'id' is empty")]
    mark = encoding if encoding.endswith("be") else f"{encoding}-{sys.byteorder[0]}e"  # the plain codecs: native
    assert {r.encoding for r in records.values()} == {mark}
