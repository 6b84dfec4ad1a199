"""Inputs as users have them: field names, CSV/TSV, WARC, folders of shards, tables in memory."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import orjson
import pytest

from neardup import Deduplicator, Fields
from neardup.cli import main
from neardup.io.readers import Record, Rejection, looks_like_html, read_inputs

STORY = ("The city council voted seven to two on Tuesday to approve the construction of a new bridge "
         "across the northern harbor, ending a debate that has lasted almost four years. ") * 3
OTHER = ("A small bakery in the old town raised the price of its bread for the first time in ten years, "
         "blaming the cost of flour and energy for the change. ") * 3


def _summary(out):
    return orjson.loads((out / "summary.json").read_bytes())


def _pairs(out):
    return {(p["a"], p["b"]) for p in map(orjson.loads, (out / "pairs.jsonl").read_bytes().splitlines())}


def test_field_options_name_id_text_and_html(tmp_path):
    path = tmp_path / "docs.jsonl"
    rows = [{"key": "a", "body": STORY}, {"key": "b", "body": STORY + " Updated."}, {"key": "c", "body": OTHER}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out"
    assert main(["dedup", str(path), "-o", str(out), "--id-field", "key", "--text-field", "body", "--quiet"]) == 0
    assert _pairs(out) == {("a", "b")}
    assert main(["dedup", str(path), "-o", str(tmp_path / "bad"), "--quiet"]) == 2  # no 'id': nothing usable


def test_csv_and_tsv_rows_are_records(tmp_path):
    for sep, name in ((",", "docs.csv"), ("\t", "docs.tsv")):
        path = tmp_path / name
        text = f"id{sep}text\n" + "".join(f'{i}{sep}"{t}"\n' for i, t in (("a", STORY), ("b", STORY), ("c", OTHER)))
        path.write_text(text)
        out = tmp_path / f"out-{name}"
        assert main(["dedup", str(path), "-o", str(out), "--quiet"]) == 0
        assert _pairs(out) == {("a", "b")}
        assert _summary(out)["documents"]["read"] == 3


def _warc(path, records, compress=True):
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as fh:
        writer = WARCWriter(fh, gzip=compress)
        for url, ctype, body, *status in records:
            http = StatusAndHeaders(status[0] if status else "200 OK", [("Content-Type", ctype)], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(url, "response", payload=io.BytesIO(body),
                                                          http_headers=http))
        writer.write_record(writer.create_warc_record("https://x.example/req", "request",
                                                      payload=io.BytesIO(b"GET / HTTP/1.1\r\n\r\n")))


def test_warc_html_responses_are_pages_and_the_rest_is_counted(tmp_path):
    page = f"<html><body><article><p>{STORY}</p></article></body></html>".encode()
    _warc(tmp_path / "crawl.warc.gz", [
        ("https://a.example/1", "text/html; charset=utf-8", page),
        ("https://b.example/2", "text/html", page),
        ("https://a.example/logo.png", "image/png", b"\x89PNG...."),
    ])
    items = list(read_inputs([tmp_path / "crawl.warc.gz"]))
    pages = [i for i in items if isinstance(i, Record)]
    assert [p.id for p in pages] == ["https://a.example/1", "https://b.example/2"]
    assert pages[0].fields["date"] and pages[0].html
    reasons = sorted(i.reason for i in items if isinstance(i, Rejection) and i.skipped)
    assert reasons == ["WARC request", "not HTML"]
    out = tmp_path / "out"
    assert main(["dedup", str(tmp_path / "crawl.warc.gz"), "-o", str(out), "--quiet"]) == 0
    assert _pairs(out) == {("https://a.example/1", "https://b.example/2")}
    docs = _summary(out)["documents"]
    assert docs["read"] == 2 and docs["kept"] == 2 and docs["rejected"] == 0 and docs["skipped"] == 2


def test_warc_records_that_are_not_pages_are_skipped_by_type_and_status_not_rejected(tmp_path, capsys):
    # issue 29 item 2: requests and metadata read as "rejected"; a 404 page was kept as an article
    page = f"<html><body><article><p>{STORY}</p></article></body></html>".encode()
    gone = f"<html><body><article><p>{OTHER}</p></article></body></html>".encode()
    _warc(tmp_path / "crawl.warc.gz", [
        ("https://a.example/1", "text/html", page),
        ("https://b.example/2", "text/html", page),
        ("https://a.example/missing", "text/html", gone, "404 Not Found"),
        ("https://a.example/old", "text/html", b"<html><body>Moved</body></html>", "301 Moved Permanently"),
        ("https://a.example/logo.png", "image/png", b"\x89PNG...."),
    ])
    out = tmp_path / "out"
    assert main(["dedup", str(tmp_path / "crawl.warc.gz"), "-o", str(out), "--strict"]) == 0
    err = capsys.readouterr().err
    docs = _summary(out)["documents"]
    assert docs["read"] == docs["kept"] == 2 and docs["rejected"] == 0
    assert docs["skipped_by_reason"] == {"HTTP 301 (redirect)": 1, "HTTP 404 (error)": 1, "WARC request": 1,
                                         "not HTML": 1}
    assert "documents  read 2   kept 2   rejected 0" in err
    assert "skipped 4 (not read): HTTP 301 (redirect) 1, HTTP 404 (error) 1" in err


@pytest.mark.parametrize("compress", [False, True])
def test_a_truncated_warc_keeps_no_cut_off_page_and_says_so(tmp_path, compress):
    # a crawl file cut short: warcio stops quietly, and kept the last page cut mid-word
    pages = [(f"https://a.example/{i}", "text/html", f"<html><body><p>{STORY} {i}</p></body></html>".encode())
             for i in range(3)]
    whole = tmp_path / "whole.warc"
    _warc(whole, pages, compress)
    data = whole.read_bytes()
    items = list(read_inputs([whole]))
    assert not any(isinstance(i, Rejection) and not i.skipped for i in items)
    _cuts_keep_whole_pages(tmp_path / "cut.warc", data, (len(data) - 30, len(data) * 2 // 3,
                                                         len(data) * 2 // 3 + 40, len(data) // 2))


def _cuts_keep_whole_pages(path: Path, data: bytes, cuts: tuple[int, ...]) -> None:
    """``data`` (a WARC of pages "STORY i") cut at each of ``cuts``: whole pages only, and one truncated file."""
    for cut in cuts:
        path.write_bytes(data[:cut])
        items = list(read_inputs([path]))
        kept = [i for i in items if isinstance(i, Record)]
        assert all(p.html == f"<html><body><p>{STORY} {p.id[-1]}</p></body></html>" for p in kept), cut
        assert [i.reason for i in items if isinstance(i, Rejection) and not i.skipped] == ["truncated file"], cut


def test_a_warc_gzipped_as_a_whole_is_read_whole(tmp_path):
    """`gzip crawl.warc` makes one gzip stream, where WARC tools gzip each record: warcio read the
    first page of it and stopped ("non-chunked gzip"), and the run lost the rest with exit 0."""
    pages = [(f"https://a.example/{i}", "text/html", f"<html><body><p>{STORY} {i}</p></body></html>".encode())
             for i in range(4)]
    plain = tmp_path / "crawl.warc"
    _warc(plain, pages, compress=False)
    whole = tmp_path / "whole.warc.gz"
    whole.write_bytes(gzip.compress(plain.read_bytes()))
    want = [(i.id, i.html) if isinstance(i, Record) else (i.reason, i.line) for i in read_inputs([plain])]
    got = [(i.id, i.html) if isinstance(i, Record) else (i.reason, i.line) for i in read_inputs([whole])]
    assert got == want and len([g for g in got if g[0].startswith("https")]) == 4
    data = whole.read_bytes()
    _cuts_keep_whole_pages(tmp_path / "cut.warc.gz", data, (len(data) - 10, len(data) * 2 // 3))


def test_a_folder_of_shards_is_read_as_records(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    shards = tmp_path / "shards"
    shards.mkdir()
    with gzip.open(shards / "part-0.jsonl.gz", "wt") as fh:
        fh.write(json.dumps({"id": "a", "text": STORY}) + "\n")
    pq.write_table(pa.table({"id": ["b", "c"], "text": [STORY, OTHER]}), shards / "part-1.parquet")
    out = tmp_path / "out"
    assert main(["dedup", str(shards), "-o", str(out), "--quiet"]) == 0
    assert _pairs(out) == {("a", "b")}
    assert _summary(out)["documents"]["rejected"] == 0


def test_two_folders_with_the_same_relative_path_keep_both_documents(tmp_path):
    for folder, text in (("left", STORY), ("right", STORY)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "story.txt").write_text(text)
    out = tmp_path / "out"
    left, right = str(tmp_path / "left"), str(tmp_path / "right")
    assert main(["dedup", left, right, "-o", str(out), "--quiet"]) == 0
    assert _pairs(out) == {(f"{left}/story.txt", f"{right}/story.txt")}
    assert _summary(out)["documents"]["rejected"] == 0


def test_a_text_field_holding_a_page_is_extracted_not_tokenized(tmp_path):
    nav = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(30))
    page = f"<!DOCTYPE html><html><head><title>t</title></head><body><ul>{nav}</ul><p>{STORY}</p></body></html>"
    assert looks_like_html(page) and not looks_like_html(STORY) and not looks_like_html("if a < b and c > d")
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps({"id": "page", "text": page}) + "\n" + json.dumps({"id": "clean", "text": STORY}) + "\n")
    out = tmp_path / "out"
    assert main(["dedup", str(path), "-o", str(out), "--quiet"]) == 0
    assert _pairs(out) == {("page", "clean")}
    assert _summary(out)["documents"]["notes"] == {"text fields that held a web page, extracted as HTML": 1}


def test_a_txt_file_holding_a_page_is_read_as_a_text_field_holding_one_is(tmp_path):
    """A `.txt` file and a record's text field holding the same page give the same pairs and passages
    (the file was compared markup and all); `--unique` writes it back as the text it was."""
    nav = "".join(f'<li><a href="/s{i}">Section {i}</a></li>' for i in range(30))
    page = f"<!DOCTYPE html><html><head><title>t</title></head><body><ul>{nav}</ul><p>{STORY}</p></body></html>"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "clean.txt").write_text(STORY)
    (tmp_path / "docs" / "page.txt").write_text(page)
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps({"id": "clean.txt", "text": STORY}) + "\n" + json.dumps({"id": "page.txt", "text": page}) + "\n")
    rows = {}
    for name, given in (("file", tmp_path / "docs"), ("field", path)):
        out = tmp_path / f"out-{name}"
        assert main(["dedup", str(given), "-o", str(out), "--quiet", "--unique", str(tmp_path / f"u-{name}.jsonl")]) == 0
        rows[name] = (out / "pairs.jsonl").read_text()
        assert _summary(out)["documents"]["notes"] == {"text fields that held a web page, extracted as HTML": 1}
    assert rows["file"] == rows["field"] and json.loads(rows["file"])["coverage_a"] == 1.0
    assert [sorted(json.loads(x)) for x in (tmp_path / "u-file.jsonl").read_text().splitlines()] == [["id", "text"]]


def test_urls_are_a_clear_error(tmp_path, capsys):
    assert main(["dedup", "s3://bucket/docs.parquet", "-o", str(tmp_path / "o"), "--quiet"]) == 2
    assert "s3://bucket/docs.parquet" in capsys.readouterr().err


def test_a_dataframe_with_field_names_in_the_api():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"key": ["a", "b", "c"], "body": [STORY, STORY, OTHER], "extra": [1, 2, 3]})
    result = Deduplicator(fields=Fields(id="key", text="body")).run(df)
    assert [(p.a, p.b) for p in result.pairs] == [("a", "b")]


def test_a_dataframe_s_missing_values_are_missing_as_in_its_parquet_file(tmp_path):
    """NaN in a DataFrame became the id "nan" (kept) where the same frame as Parquet has nulls (missing id)."""
    pd = pytest.importorskip("pandas")
    from neardup import dedup_files

    df = pd.DataFrame({"id": ["a", None, None, "d", "e"], "text": [STORY, STORY, STORY, None, STORY]})
    df.loc[1, "id"] = float("nan")
    summary = Deduplicator().run(df).summary()
    df.to_parquet(tmp_path / "df.parquet")
    _, from_file = dedup_files([str(tmp_path / "df.parquet")], str(tmp_path / "o"))
    for s in (summary, from_file):
        assert s["documents"]["kept"] == 2 and s["documents"]["rejected_by_reason"] == {
            "missing id": 2, "missing text": 1}, s["documents"]


class _FakeDataset:
    """What the API uses of a Hugging Face ``datasets.Dataset``: ``column_names`` and ``iter``."""

    def __init__(self, columns):
        self.columns = columns
        self.column_names = list(columns)

    def iter(self, batch_size):
        n = len(next(iter(self.columns.values())))
        for lo in range(0, n, batch_size):
            yield {k: v[lo:lo + batch_size] for k, v in self.columns.items()}


def test_a_dataset_in_the_api():
    ds = _FakeDataset({"url": ["a", "b", "c"], "content": [STORY, STORY, OTHER]})
    result = Deduplicator(fields=Fields(id="url", text="content")).run(ds)
    assert [(p.a, p.b) for p in result.pairs] == [("a", "b")]


def test_a_warc_page_is_decoded_by_the_charset_its_http_header_names(tmp_path):
    # the Content-Type's charset was ignored: a short KOI8-R or windows-1255 page without a <meta>
    # was left to the detector, which read it as cp932 or cp1125 (browsers obey the header first)
    pages = {"https://ru.example/1": ("koi8-r", "Новости дня: курс рубля снова упал."),
             "https://il.example/2": ("windows-1255", "חדשות: גשם כבד בצפון."),
             "https://ru.example/3": ("koi8-r", "Погода: завтра ожидается сильный ветер.")}
    _warc(tmp_path / "crawl.warc.gz", [
        (url, f"text/html; charset={enc}", f"<html><body><p>{text}</p></body></html>".encode(enc))
        for url, (enc, text) in pages.items()])
    # a stale <meta> the header overrides, as in browsers
    stale = '<html><head><meta charset="iso-8859-1"></head><body><p>Новости дня: курс рубля снова упал.</p></body></html>'
    _warc(tmp_path / "stale.warc.gz", [("https://ru.example/4", "text/html; charset=koi8-r", stale.encode("koi8-r"))])
    got = {r.id: r for r in read_inputs([tmp_path / "crawl.warc.gz", tmp_path / "stale.warc.gz"]) if isinstance(r, Record)}
    for url, (_, text) in pages.items():
        assert text in got[url].html
    assert "Новости дня" in got["https://ru.example/4"].html


def test_a_page_whose_declared_charset_reads_as_mojibake_is_detected():
    # a legacy page declaring iso-8859-1 (a stale template) decodes without error as any bytes do: the
    # declaration won, and Russian, Japanese or Arabic text became Latin-1 mojibake
    from neardup.io.decode import decode_page

    ru = ("Правительство утвердило новый бюджет на следующий год. Министр финансов заявил, что расходы на "
          "образование и здравоохранение вырастут, а дефицит останется в пределах трех процентов.")
    ja = "政府は今日、来年度の予算案を閣議決定した。一般会計の総額は過去最大となり、防衛費と社会保障費が大きく増えた。"
    ar = "أعلنت وزارة الصحة اليوم عن إطلاق حملة وطنية جديدة للتطعيم ضد الإنفلونزا الموسمية في جميع المحافظات."
    for text, enc in ((ru, "cp1251"), (ja, "shift_jis"), (ja, "euc_jp"), (ar, "cp1256")):
        html = f'<html><head><meta charset="iso-8859-1"></head><body><p>{text}</p></body></html>'
        decoded, used = decode_page(html.encode(enc))
        assert text in decoded, (enc, used, decoded[60:120])
    # a page in the charset it declares keeps it
    fr = '<meta charset="iso-8859-1"><p>Le président a déclaré mardi que la réforme serait votée à l\'été.</p>'
    assert decode_page(fr.encode("latin-1")) == (fr, "iso8859-1")
