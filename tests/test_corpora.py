"""Loaders of real article texts: tiny made-up files here, the real data when present."""

from pathlib import Path

import orjson
import pytest

from neardup.evaluate.corpora import ReutersStats, iter_bbc, iter_jsonl_texts, iter_reuters, load_texts

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

SGML = """<!DOCTYPE lewis SYSTEM "lewis.dtd">
<REUTERS TOPICS="YES" LEWISSPLIT="TRAIN" CGISPLIT="TRAINING-SET" OLDID="5544" NEWID="1">
<DATE>26-FEB-1987 15:01:01.79</DATE>
<TOPICS><D>cocoa</D><D>grain</D></TOPICS>
<PLACES><D>el-salvador</D></PLACES>
<UNKNOWN> 
&#5;&#5;&#5;C T
&#22;&#22;&#1;f0704&#31;reute
u f BC-BAHIA-COCOA-REVIEW   02-26 0105</UNKNOWN>
<TEXT>&#2;
<TITLE>BAHIA COCOA &lt;BCR> REVIEW</TITLE>
<DATELINE>    SALVADOR, Feb 26 - </DATELINE><BODY>Showers continued throughout the week in
the Bahia cocoa zone, &lt;Comissaria Smith> said.
    The dry period means the temporao
will be late this year &amp; beyond.
 Reuter
&#3;</BODY></TEXT>
</REUTERS>
<REUTERS TOPICS="NO" LEWISSPLIT="TRAIN" CGISPLIT="TRAINING-SET" OLDID="5545" NEWID="2">
<DATE>26-FEB-1987 15:02:20.00</DATE>
<TOPICS></TOPICS>
<TEXT TYPE="BRIEF">&#2;
******<TITLE>SHORT ITEM WITHOUT BODY</TITLE>
&#3;

</TEXT>
</REUTERS>
<REUTERS TOPICS="NO" LEWISSPLIT="TRAIN" CGISPLIT="TRAINING-SET" OLDID="5546" NEWID="3">
<DATE>26-FEB-1987 15:03:27.51</DATE>
<TOPICS></TOPICS>
<TEXT>&#2;
<TITLE>SECOND STORY</TITLE>
<BODY>One line only.
       
 REUTER...
&#3;</BODY></TEXT>
</REUTERS>
"""


@pytest.fixture
def reuters_dir(tmp_path):
    d = tmp_path / "reuters"
    d.mkdir()
    (d / "reut2-000.sgm").write_bytes(SGML.encode("latin-1"))
    (d / "reut2-001.sgm").write_bytes(SGML.replace('NEWID="', 'NEWID="1').encode("latin-1"))
    (d / "README.txt").write_text("not a story")
    return d


@pytest.fixture
def bbc_dir(tmp_path):
    d = tmp_path / "bbc"
    (d / "business").mkdir(parents=True)
    (d / "tech").mkdir()
    (d / "business" / "001.txt").write_text(
        "Profits rise at firm\n\nProfits rose 5% to £10m.\nIt was  a good year.\n\nShares rose.\n", encoding="utf-8"
    )
    (d / "tech" / "002.txt").write_bytes("Caf\xe9 gadgets\n\nA caf\xe9 sells gadgets.\n".encode("latin-1"))
    (d / "README.TXT").write_text("about")
    return d


def test_reuters_parses_and_counts(reuters_dir):
    stats = ReutersStats()
    docs = list(iter_reuters(reuters_dir, stats))
    assert stats == ReutersStats(files=2, stories=6, with_body=4, without_body=2)
    assert [d["id"] for d in docs] == ["reuters-1", "reuters-3", "reuters-11", "reuters-13"]
    first = docs[0]
    assert first["title"] == "BAHIA COCOA <BCR> REVIEW"
    assert first["text"] == (
        "Showers continued throughout the week in the Bahia cocoa zone, <Comissaria Smith> said.\n\n"
        "The dry period means the temporao will be late this year & beyond."
    )
    assert first["topics"] == ["cocoa", "grain"] and first["topic"] == "cocoa"
    assert first["places"] == ["el-salvador"]
    assert first["dateline"] == "SALVADOR, Feb 26"
    assert first["date"] == "26-FEB-1987 15:01:01.79"
    assert docs[1]["text"] == "One line only." and docs[1]["topic"] is None
    assert all("\x03" not in d["text"] and "Reuter" not in d["text"] for d in docs)


def test_reuters_single_file(reuters_dir):
    assert [d["id"] for d in iter_reuters(reuters_dir / "reut2-000.sgm")] == ["reuters-1", "reuters-3"]


def test_bbc(bbc_dir):
    docs = list(iter_bbc(bbc_dir))
    assert [d["id"] for d in docs] == ["bbc-business-001", "bbc-tech-002"]
    assert docs[0]["title"] == "Profits rise at firm"
    assert docs[0]["text"] == "Profits rose 5% to £10m. It was a good year.\n\nShares rose."
    assert docs[0]["topic"] == "business"
    assert docs[1]["title"] == "Café gadgets" and docs[1]["text"] == "A café sells gadgets."


def test_jsonl(tmp_path):
    p = tmp_path / "arts.jsonl"
    rows = [{"id": 7, "title": "T", "text": "Body.", "x": 1}, {"text": "No id."}, {"title": "no text"}, {"text": "  "}]
    p.write_bytes(b"\n".join(orjson.dumps(r) for r in rows) + b"\n\n")
    docs = list(iter_jsonl_texts(p))
    assert docs == [{"id": "7", "title": "T", "text": "Body.", "x": 1}, {"id": "arts-2", "title": "", "text": "No id."}]


def test_load_texts_dispatch(reuters_dir, bbc_dir, tmp_path):
    assert next(load_texts(reuters_dir))["id"] == "reuters-1"
    assert next(load_texts(str(bbc_dir)))["id"] == "bbc-business-001"
    p = tmp_path / "a.jsonl"
    p.write_bytes(b'{"text": "x"}\n')
    assert next(load_texts(p))["text"] == "x"
    with pytest.raises(ValueError):
        load_texts(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError):
        load_texts(empty)


def _real(name):
    path = DATA / name
    if not path.is_dir():
        pytest.skip(f"{path} not present")
    return path


@pytest.mark.slow
def test_real_reuters_counts():
    stats = ReutersStats()
    n = 0
    ids = set()
    for d in iter_reuters(_real("reuters21578"), stats):
        n += 1
        ids.add(d["id"])
        assert d["text"] and not d["text"].endswith("Reuter")
    assert n == len(ids) == stats.with_body == 19043
    assert stats.stories == 21578 and stats.without_body == 21578 - 19043


def test_real_bbc_counts():
    docs = list(load_texts(_real("bbc-news")))
    assert len(docs) == len({d["id"] for d in docs}) == 2225
    assert {d["topic"] for d in docs} == {"business", "entertainment", "politics", "sport", "tech"}
    assert all(d["title"] and d["text"] for d in docs)
