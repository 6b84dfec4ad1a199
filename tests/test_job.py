"""The house's shared parts: parameter objects (get_params / clone / no work in __init__) for every
method and located task, and the one Job every file command runs (tables, summary, all or nothing)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import pytest

from neardup.contain.detector import CONTAIN_ALIGN, ContainmentDetector
from neardup.errors import InputError, UserError
from neardup.io.readers import Record
from neardup.job import Job, JobOutput, RunStats, run_report
from neardup.methods import REGISTRY, get_method
from neardup.pdc.detector import PartialDetector, SentencePart

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample.jsonl"


def _docs(n: int | None = None) -> list[tuple[str, str]]:
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    return [(r["id"], r["text"]) for r in rows[:n]]


# -- parameter objects ---------------------------------------------------------------------
@pytest.mark.parametrize("build", [
    lambda: ContainmentDetector("codet", etl=0.5, window="48h", stopwords=["the", "a"]),
    lambda: ContainmentDetector(min_coverage=0.7, align=CONTAIN_ALIGN),
    lambda: PartialDetector(signature="spotsigs", gamma=2, antecedents=50),
    *[lambda name=name: get_method(name) for name in sorted(REGISTRY)],
])
def test_a_parameter_object_gives_back_what_it_was_built_with_and_clones(build: Any) -> None:
    obj = build()
    params = obj.get_params()
    assert set(params) == set(type(obj).param_names())
    again = obj.clone()
    assert type(again) is type(obj) and again is not obj
    assert again.get_params() == params
    changed = obj.clone(**{next(iter(params)): params[next(iter(params))]})
    assert changed.get_params() == params
    assert repr(obj).startswith(type(obj).__name__ + "(")


def test_building_a_task_reads_no_file_and_a_run_does(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.npz")
    det = ContainmentDetector("codet", stats=missing)  # nothing read yet: scikit-learn's rule
    pdc = PartialDetector(signature="imatch", stats=missing)
    assert det.get_params()["stats"] == missing and pdc.get_params()["stats"] == missing
    with pytest.raises((UserError, OSError)):
        det.run(_docs(5))
    with pytest.raises((UserError, OSError)):
        pdc.run(_docs(5))


def test_bad_parameters_are_refused_when_built() -> None:
    with pytest.raises(UserError):
        ContainmentDetector(window="soon")
    with pytest.raises(UserError):
        PartialDetector(tau=2.0)


@pytest.mark.parametrize("make", [lambda: PartialDetector(signature="imatch"),
                                  lambda: ContainmentDetector("codet")])
def test_a_second_run_does_not_see_the_first_runs_state(make: Any) -> None:
    docs = _docs()

    def found(det: Any) -> list:
        r = det.run(docs)
        return [(p.a, p.b) for p in r.pairs] if hasattr(r, "pairs") else [(c.container, c.contained)
                                                                         for c in r.containments]

    fresh = found(make())
    reused = make()
    reused.run(docs[:30])  # statistics of a smaller input, counted by the first run
    assert found(reused) == fresh
    assert reused.last_run.stats.kept == len(docs)


def test_pdc_reading_stage_is_the_same_whatever_the_batching() -> None:
    texts = [t for _, t in _docs(40)]
    whole = SentencePart.of(texts, count_words=True)
    merged = SentencePart.merge([SentencePart.of(texts[i:i + 7], count_words=True) for i in range(0, 40, 7)])
    for name in ("doc_counts", "starts", "ends", "tokens", "token_counts"):
        assert (getattr(whole, name) == getattr(merged, name)).all(), name
    assert whole.df is not None and merged.df is not None
    whole.df.compact()
    merged.df.compact()
    assert whole.df.n_docs == merged.df.n_docs == 40
    assert (whole.df.keys == merged.df.keys).all() and (whole.df.counts == merged.df.counts).all()
    a = PartialDetector(signature="imatch", batch_docs=3).run(_docs()).pairs
    assert a == PartialDetector(signature="imatch", batch_docs=1000).run(_docs()).pairs


# -- the Job -------------------------------------------------------------------------------
class _Echo:
    """A task for the tests: one row per record; fails on the record ``fail``, at the table ``fail_at``."""

    def __init__(self, fail_at: str | None = None) -> None:
        self.run_stats = RunStats()
        self.fail_at = fail_at

    def tables(self, job: Job) -> Iterator[tuple[str, Iterable[dict[str, Any]]]]:
        rows = []
        for r in job.records():
            self.run_stats.read += 1
            if isinstance(r, Record):
                self.run_stats.kept += 1
                rows.append({"id": r.id})
        yield "first", iter(rows)
        if self.fail_at == "second":
            raise RuntimeError("stopped between the tables")
        yield "second", ({"n": i} for i in range(len(rows)))

    def summary(self, inputs: Sequence[Any], total: float | None = None, **extra: Any) -> dict[str, Any]:
        return run_report(self.run_stats, inputs, {"task": "echo"}, total, **extra)


def test_a_job_writes_every_table_and_a_summary_saying_how_it_read(tmp_path: Path) -> None:
    out = tmp_path / "out"
    summary = Job([str(SAMPLE)], out).run(_Echo(), lambda o: {"extra": 1})
    assert sorted(p.name for p in out.iterdir()) == ["first.jsonl", "second.jsonl", "summary.json"]
    assert len((out / "first.jsonl").read_text().splitlines()) == summary["documents"]["kept"] > 0
    written = json.loads((out / "summary.json").read_text())
    assert written["extra"] == 1 and written["read_as"]["html"] is False and written["complete"] is True
    parquet = Job([str(SAMPLE)], tmp_path / "pq", fmt="parquet", describe_reading=False).run(_Echo())
    assert "read_as" not in parquet and (tmp_path / "pq" / "second.parquet").is_file()


def test_a_failed_job_leaves_the_previous_outputs_and_no_side_file(tmp_path: Path) -> None:
    out, side = tmp_path / "out", tmp_path / "unique.jsonl"
    Job([str(SAMPLE)], out).run(_Echo())
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(RuntimeError):
        with Job([str(SAMPLE)], out).writing() as o:
            o.side_file(side).write_text("x")
            o.run(_Echo(fail_at="second"))
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert not side.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_side_files_are_placed_with_the_folder(tmp_path: Path) -> None:
    side = tmp_path / "unique.jsonl"
    with Job([str(SAMPLE)], tmp_path / "out").writing() as o:
        o.side_file(side).write_text("kept\n")

        def after(out: JobOutput) -> dict[str, Any]:
            assert not side.exists()  # placed only when the job ends well
            return {}

        o.run(_Echo(), after)
    assert side.read_text() == "kept\n"


def test_a_job_with_no_usable_record_fails_and_writes_nothing(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"id": "a", "text": ""}\n')
    with pytest.raises(InputError, match="no usable record"):
        Job([str(empty)], tmp_path / "out").run(_Echo())
    assert not (tmp_path / "out").exists()
