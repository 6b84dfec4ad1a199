"""Rows of any shape to Parquet in bounded memory: parts, one unified schema, a clear error on a clash."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from neardup.cli import main
from neardup.errors import UserError
from neardup.io import parquet_rows
from neardup.io.writers import write_rows


def test_rows_are_written_in_parts_and_read_back_as_given(tmp_path, monkeypatch):
    monkeypatch.setattr(parquet_rows, "PART_ROWS", 3)
    rows = [{"id": f"r{i}", "n": i, "spans": [[i, i + 1]]} for i in range(7)]
    rows[1]["url"] = None  # null in the first part, a string in a later one
    rows[5]["url"] = "https://x.example/5"
    rows[6]["score"] = 0.5  # a column that first appears in the last part
    rows[4]["n"] = 4.5  # integers and a fraction: floating point
    path = tmp_path / "t.parquet"
    assert write_rows(path, iter(rows), "parquet") == 7
    table = pq.read_table(path)
    assert table.column_names == ["id", "n", "spans", "url", "score"]
    back = table.to_pylist()
    assert [r["id"] for r in back] == [f"r{i}" for i in range(7)]
    assert [r["n"] for r in back] == [0, 1, 2, 3, 4.5, 5, 6]
    assert back[5]["url"] == "https://x.example/5" and back[1]["url"] is None and back[6]["score"] == 0.5
    assert back[0]["spans"] == [[0, 1]]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.parquet"]  # no part left


@pytest.mark.parametrize("rows", [
    [{"id": 1}, {"id": "b"}],  # within one part
    [{"id": 1}, {"id": 2}, {"id": 3}, {"id": "d"}],  # across parts
])
def test_a_field_of_two_types_is_named(tmp_path, monkeypatch, rows):
    monkeypatch.setattr(parquet_rows, "PART_ROWS", 3)
    with pytest.raises(UserError, match="field 'id' holds values of different types.*write .jsonl instead"):
        write_rows(tmp_path / "t.parquet", iter(rows), "parquet")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.parquet"] or not list(tmp_path.iterdir())


def test_unique_as_parquet_with_mixed_field_types_is_one_line_and_writes_nothing(tmp_path, capsys):
    a, b = (" ".join(f"{w}{i}" for i in range(40)) for w in ("alpha", "beta"))
    src = tmp_path / "m.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ({"id": "a", "n": 1, "text": a},
                                                           {"id": "b", "n": "two", "text": b})))
    rc = main(["dedup", str(src), "-o", str(tmp_path / "o"), "--unique", str(tmp_path / "u.parquet"), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "field 'n'" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.jsonl"]
