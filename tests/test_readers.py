"""Every kind of bad input is reported with file and line, counted, or fatal with --strict."""

import gzip
import sys

import orjson
import pytest

from neardup import Deduplicator, Fields, InputError
from neardup.cli import main
from neardup.io.readers import Record, Rejection, decode_html, read_input, read_inputs


def write_lines(path, lines):
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def reasons(items):
    return [(i.line, i.reason) for i in items if isinstance(i, Rejection)]


def test_jsonl_bad_records_are_rejected_with_line_numbers(tmp_path):
    path = write_lines(
        tmp_path / "in.jsonl",
        [
            b'{"id": "a", "text": "fine text here", "lang": "en"}',
            b"{not json",
            b'{"text": "no id"}',
            b'{"id": "c"}',
            b'{"id": "d", "text": "   "}',
            b'{"id": "e", "text": 42}',
            b'["a", "list"]',
            b'{"id": "f", "text": "caf\xe9 latin-1"}',
            b"",
            b'{"id": 7, "html": "<p>numeric id is fine</p>"}',
        ],
    )
    items = list(read_input(path))
    assert reasons(items) == [
        (2, "invalid JSON"),
        (3, "missing id"),
        (4, "missing text"),
        (5, "empty text"),
        (6, "text is not a string"),
        (7, "not a JSON object"),
    ]
    records = [i for i in items if isinstance(i, Record)]
    assert [r.id for r in records] == ["a", "f", "7"]  # a legacy-encoded line is decoded, not rejected
    assert records[1].text == "café latin-1" and records[1].encoding == "cp1252"
    assert records[0].fields["lang"] == "en" and records[2].html.startswith("<p>")
    assert str(path) in items[1].message() and ":2:" in items[1].message()


def test_empty_inputs_are_reported(tmp_path):
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "emptydir").mkdir()
    items = list(read_inputs([tmp_path / "empty.jsonl", tmp_path / "emptydir"]))
    assert [i.reason for i in items] == ["empty input", "empty input"]


def test_directory_reading_gzip_binary_and_unsupported(tmp_path):
    root = tmp_path / "pages"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("plain text file")
    (root / "sub" / "b.html.gz").write_bytes(gzip.compress(b"<html><body><p>zipped page</p></body></html>"))
    (root / "c.htm").write_bytes(b"\x00\x01\x02binary")
    (root / "d.pdf").write_bytes(b"%PDF")
    (root / "e.txt").write_bytes(b"bad \xff\xfe bytes")
    (root / "f.txt").write_text("   \n")
    items = list(read_input(root))
    got = [(i.id if isinstance(i, Record) else i.reason) for i in items]
    assert got == ["a.txt", "binary file", "unsupported file type", "e.txt", "empty text", "sub/b.html.gz"]
    assert items[3].encoding is not None and items[3].text.startswith("bad ")  # legacy bytes decoded, not rejected
    assert items[-1].html.startswith("<html>")


def test_jsonl_never_yields_a_lone_surrogate(tmp_path):
    # orjson refuses lone surrogates, escaped or as bytes, so a JSONL record is not checked for them again
    # (records.record_from_mapping's unicode_checked); a line decoded from a legacy encoding still is.
    path = write_lines(tmp_path / "in.jsonl", [
        b'{"id": "a", "html": "<p>x\\udc80y</p>"}',
        b'{"id": "b", "html": "<p>x\\ud800</p>"}',
        b'{"id": "c", "html": "<p>x\xed\xa0\x80y</p>"}',
        b'{"id": "d", "html": "<p>caf\xe9 \\ud83d\\ude00</p>"}',
    ])
    items = list(read_input(path))
    assert reasons(items) == [(1, "invalid JSON"), (2, "invalid JSON")]
    assert [i.id for i in items if isinstance(i, Record)] == ["c", "d"]
    for item in items:
        if isinstance(item, Record):
            item.html.encode("utf-8")  # no lone surrogate


def test_gzip_jsonl_and_parquet_inputs(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{"id": "x", "text": "first doc"}, {"id": "y", "text": None, "html": "<b>second</b>"}]
    (tmp_path / "in.jsonl.gz").write_bytes(gzip.compress(b"\n".join(orjson.dumps(r) for r in rows)))
    table = pa.table({"id": ["x", "y"], "text": ["first doc", None], "html": [None, "<b>second</b>"]})
    pq.write_table(table, tmp_path / "in.parquet")
    for name in ("in.jsonl.gz", "in.parquet"):
        recs = list(read_input(tmp_path / name))
        assert [(r.id, r.text, r.html) for r in recs] == [("x", "first doc", None), ("y", None, "<b>second</b>")]


def test_unknown_and_missing_inputs_raise(tmp_path):
    (tmp_path / "x.docx").write_text("a,b")
    with pytest.raises(InputError, match="unknown input type"):
        list(read_input(tmp_path / "x.docx"))
    with pytest.raises(InputError, match="no such file"):
        list(read_input(tmp_path / "missing.jsonl"))


def test_html_decoding_prefers_valid_utf8_then_declared_charset_then_cp1252():
    assert decode_html('<meta charset="iso-8859-1"><p>caf\xe9</p>'.encode("latin-1")).endswith("café</p>")
    # a page re-encoded to UTF-8 that kept its old declaration
    assert decode_html('<meta charset="iso-8859-1"><p>café</p>'.encode("utf-8")).endswith("café</p>")
    assert "café" in decode_html("<p>café</p>".encode("utf-8"))
    assert "“quoted”" in decode_html("<p>“quoted”</p>".encode("cp1252"))


def test_pipeline_counts_duplicates_ids_and_textless_pages(tmp_path):
    path = write_lines(
        tmp_path / "in.jsonl",
        [
            orjson.dumps({"id": "a", "text": "the same words again and again"}),
            orjson.dumps({"id": "a", "text": "a duplicate id"}),
            orjson.dumps({"id": "b", "html": "<script>only script</script>"}),
            orjson.dumps({"id": "c", "text": "?! -- !!"}),
            b"{broken",
        ],
    )
    result = Deduplicator().run(read_input(path))
    summary = result.summary()
    assert summary["documents"] == {
        "read": 5,
        "kept": 1,
        "rejected": 4,
        "rejected_by_reason": {
            "duplicate id": 1,
            "invalid JSON": 1,
            "no text after extraction": 1,
            "no words": 1,
        },
    }
    assert any(":2: duplicate id" in m for m in summary["rejections"])


def test_strict_mode_raises_on_first_rejection(tmp_path):
    path = write_lines(tmp_path / "in.jsonl", [b'{"id": "a", "text": "ok"}', b"{broken"])
    with pytest.raises(InputError, match=r"in.jsonl:2: invalid JSON"):
        Deduplicator(strict=True).run(read_input(path))


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32", "utf-32-be"])
@pytest.mark.parametrize("gzipped", [False, True])
def test_utf16_and_utf32_jsonl_is_read_by_its_byte_order_mark(tmp_path, encoding, gzipped):
    # Excel's "Unicode text" and PowerShell write UTF-16 with a mark; read as bytes, every line was invalid JSON
    text = "\n".join(['{"id": "a", "text": "caf\u00e9 \u6771\u4eac \u2028 one"}', "", "{broken",
                      '{"id": "b", "text": "two \U0001f600"}']) + "\n"
    data = text.encode(encoding)
    if encoding.endswith("be"):  # the endian-named codecs write no mark: add it
        data = "\ufeff".encode(encoding) + data
    path = tmp_path / ("in.jsonl.gz" if gzipped else "in.jsonl")
    path.write_bytes(gzip.compress(data) if gzipped else data)
    items = list(read_input(path))
    assert reasons(items) == [(3, "invalid JSON")]
    records = [i for i in items if isinstance(i, Record)]
    assert [(r.id, r.text, r.line) for r in records] == [("a", "caf\u00e9 \u6771\u4eac \u2028 one", 1),
                                                          ("b", "two \U0001f600", 4)]
    mark = encoding if encoding.endswith("be") else f"{encoding}-{sys.byteorder[0]}e"  # the plain codecs: native
    assert {r.encoding for r in records} == {mark}


def test_an_id_that_is_there_but_unusable_says_what_is_wrong(tmp_path):
    path = write_lines(tmp_path / "in.jsonl", [orjson.dumps({"id": rid, "text": "x y"}) for rid in
                                               (None, "", True, [1], {"a": 1})] + [b'{"text": "x y"}'])
    assert [(i.reason, i.detail) for i in read_input(path)] == [
        ("missing id", "'id' is null"), ("missing id", "'id' is empty"),
        ("missing id", "'id' is true, not a string or number"), ("missing id", "'id' is a list, not a string or number"),
        ("missing id", "'id' is an object, not a string or number"), ("missing id", "no 'id' field")]


def test_a_named_text_field_is_not_replaced_by_the_html(tmp_path, capsys):
    # a mistyped --text-field once read every record from its html, silently; a mistyped --id-field is rejected
    rows = [{"id": "a", "body": "the body text", "html": "<p>the page</p>"}, {"id": "b", "html": "<p>a page</p>"},
            {"id": "c", "body": None, "html": "<p>a page</p>"}]
    path = write_lines(tmp_path / "in.jsonl", [orjson.dumps(r) for r in rows])
    items = list(read_input(path, fields=Fields(text="body")))
    assert items[0].text == "the body text"
    assert [(i.reason, i.detail) for i in items[1:]] == [
        ("missing text", "no 'body' field: the text field asked for; 'html' is not read in its place"),
        ("missing text", "'body' is null: the text field asked for; 'html' is not read in its place")]
    assert items[1].row == rows[1]  # --unique writes it back
    assert [i.html for i in read_input(path, prefer_html=True, fields=Fields(text="body"))][1:] == ["<p>a page</p>"] * 2
    assert [i.html for i in read_input(path)] == [r["html"] for r in rows]  # the default 'text' falls back to html
    assert main(["dedup", str(path), "-o", str(tmp_path / "o"), "--text-field", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no usable record" in err and "missing text (no 'nope' field" in err
