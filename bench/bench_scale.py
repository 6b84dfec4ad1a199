"""Scale: one million simulated documents, local engine and Spark local[2]; costs per document.

Runs ``dedup`` on one simulated corpus (``neardup synth`` of Reuters-21578 from
``../shared/data``; made once and cached) in separate processes:

* ``local`` -- the local engine as ``neardup dedup`` runs it;
* ``spill`` -- the local engine with a memory budget of 64 MB, so the sketches are
  spilled to disk and memory-mapped (what happens past half the free memory);
* ``spark`` -- ``--engine spark`` on ``local[2]`` with Spark's event log on; the shuffle
  bytes written and read are summed from the log, per neardup stage (each task is
  attributed to the stage running when it finished).  The executors read the input
  (:mod:`neardup.engines.spark_input`);
* ``spark-driver`` -- the same with the driver reading the input through the shared input
  stage (``SparkEngine(executors_read=False)``: how the Spark engine read before issue 32).

``--growth 25000,200000`` measures the driver's memory instead: each engine at each corpus size
(``neardup synth ../shared/data/reuters21578 --docs N --seed 5``), relations off (``--relations``:
on, ``dedup``'s defaults), and the growth of the driver Python process's peak anonymous memory per
added document between the smallest and the largest (the issue's bar: under 50 bytes per document).

Wall and CPU seconds and peak RSS come from ``os.wait4`` through bench_minhash's launcher
(for ``spark`` the peak is the Python driver's only: the JVM and the Python workers are
its children).  The pairs and clusters of every engine are compared byte for byte with
``local``'s.  Writes ``WORKDIR/scale.json`` and ``scale.md``: the measurements, the costs
per document, and the capacity plan for a billion documents computed from them (the
table of ``docs/scale.md``).

Usage::

    .venv/bin/python bench/bench_scale.py [--docs 1000000] [--method minhash] [--engines local,spill,spark]
        [--partitions 16] [--workdir bench/results/scale]
    .venv/bin/python bench/bench_scale.py --corpus DOCS.jsonl --docs 5000     # any corpus
    .venv/bin/python bench/bench_scale.py --growth 25000,200000 --engines spark,spark-driver
    .venv/bin/python bench/bench_scale.py --growth 25000,200000 --engines local,spark --relations
    .venv/bin/python bench/bench_scale.py --growth 3000000 --engines local,spark --shards 250000 --partitions 32

With both ``local`` and ``spark`` at the largest ``--growth`` size (minhash), the capacity plan is made
from that size's runs: core-hours from the Spark tasks' run time, hours on 50 executors of 8 cores and
their price at ``--core-hour-price``.
"""

from __future__ import annotations

import argparse
import filecmp
import glob
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_minhash import run_child  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT.parent / "shared" / "data"
NEARDUP = str(Path(sys.executable).with_name("neardup"))
#: Billion-document plan: documents, and a Spark task's input we aim at.
PLAN_DOCS = 1_000_000_000
TASK_BYTES = 256 << 20


def corpus_for(docs: int, workdir: Path, seed: int | None = None, shards: int | None = None) -> Path:
    """The cached simulated corpus of ``docs`` documents (made from Reuters-21578 if missing): its
    ``docs.jsonl``, or with ``shards`` its folder of Parquet shards of that many documents."""
    folder = workdir / (f"synth{docs}" if seed is None else f"synth{docs}-seed{seed}")
    path = folder / ("docs" if shards else "docs.jsonl")
    if not path.exists():
        source = DATA_DIR / "reuters21578"
        more = ([] if seed is None else ["--seed", str(seed)]) + ([] if not shards else ["--shards", str(shards)])
        subprocess.run([NEARDUP, "synth", str(source), "--docs", str(docs), "-o", str(folder), *more], check=True)
    return path


def job(engine: str, corpus: str, out: str, method: str, partitions: int, events: str, relations: bool = True) -> None:
    """Child side: one dedup run (``bench_scale.py _job ...``)."""
    from neardup.engines.local import LocalEngine
    from neardup.run import dedup_files

    if engine == "local":
        chosen: object = "local"
    elif engine == "spill":
        chosen = LocalEngine(memory_budget=64 << 20)
    else:
        from neardup.engines.spark import SparkEngine

        os.makedirs(events, exist_ok=True)
        work = str(Path(out).parent / "spark-work")
        shutil.rmtree(work, ignore_errors=True)
        chosen = SparkEngine(master="local[2]", partitions=partitions, work=work, executors_read=engine == "spark", conf={
            "spark.eventLog.enabled": "true", "spark.eventLog.dir": events, "spark.eventLog.compress": "false", "spark.driver.memory": "6g",
            "spark.sql.execution.arrow.maxRecordsPerBatch": "2000"})
    peaks = {"VmRSS": 0, "RssAnon": 0}

    def watch() -> None:  # anonymous memory apart: mapped spill files are page cache the kernel can drop
        while True:
            status = Path("/proc/self/status").read_text()
            for key in peaks:
                kb = int(status.split(f"{key}:")[1].split()[0])
                peaks[key] = max(peaks[key], kb)
            time.sleep(0.05)

    threading.Thread(target=watch, daemon=True).start()
    spark_cpu = SparkCpu() if engine.startswith("spark") else None
    if spark_cpu is not None:
        threading.Thread(target=spark_cpu.watch, daemon=True).start()
    start = time.time()
    _, summary = dedup_files([corpus], out, method=method, engine=chosen, relations=relations)
    summary["started"] = start
    if spark_cpu is not None:
        summary["spark_cpu_s"] = spark_cpu.total()
    summary["peak_anon_mb"] = round(peaks["RssAnon"] / 1024, 1)
    Path(out, "bench.json").write_text(json.dumps(summary))


class SparkCpu:
    """CPU seconds of every process under this one (Spark's JVM, the Python workers' daemon and its
    workers), summed from ``/proc`` samples every half second while the run goes on -- the workers
    are long-lived and their CPU is lost to their parents' counts when they are killed, so they are
    read while they live.  Unlike wall or task seconds, hardly moved by other work on the machine."""

    def __init__(self) -> None:
        self.seen: dict[int, float] = {}
        self.tick = os.sysconf("SC_CLK_TCK")
        self.me = os.getpid()

    def sample(self) -> None:
        parent: dict[int, int] = {}
        cpu: dict[int, float] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                parent[int(entry.name)] = int(fields[1])
                cpu[int(entry.name)] = sum(int(x) for x in fields[11:15]) / self.tick
        for pid, seconds in cpu.items():
            p = parent.get(pid, 0)
            while p > 1 and p != self.me:
                p = parent.get(p, 0)
            if p == self.me:
                self.seen[pid] = max(self.seen.get(pid, 0.0), seconds)

    def watch(self) -> None:
        while True:
            self.sample()
            time.sleep(0.5)

    def total(self) -> float:
        self.sample()
        return round(sum(self.seen.values()), 1)


def _lines(path: str):
    """Lines of an event log file, zstd-compressed (Spark 4's default) or not."""
    import io

    import pyarrow as pa

    raw = pa.input_stream(path, compression="zstd" if path.endswith(".zstd") else None)
    yield from io.TextIOWrapper(raw, encoding="utf-8")


def shuffle_by_stage(events: str, summary: dict) -> dict:
    """Shuffle bytes written/read and the tasks' seconds (``task_s``: the executors' run time, the
    core-seconds a cluster is paid for) per neardup stage, from the Spark event log."""
    bounds, t = [], summary["started"]
    for stage, seconds in summary["seconds"].items():
        if stage != "total":
            t += seconds
            bounds.append((stage, t * 1000))
    out: dict[str, dict[str, int]] = {}
    for log in glob.glob(os.path.join(events, "**", "*"), recursive=True):
        if os.path.isdir(log) or os.path.basename(log).startswith((".", "appstatus")):
            continue
        for line in _lines(log):
            if '"SparkListenerTaskEnd"' not in line:
                continue
            e = json.loads(line)
            metrics = e.get("Task Metrics") or {}
            finish = e["Task Info"]["Finish Time"]
            stage = next((s for s, end in bounds if finish <= end), bounds[-1][0])
            w = metrics.get("Shuffle Write Metrics", {}).get("Shuffle Bytes Written", 0)
            r = metrics.get("Shuffle Read Metrics", {})
            read = r.get("Remote Bytes Read", 0) + r.get("Local Bytes Read", 0)
            row = out.setdefault(stage, {"written": 0, "read": 0, "task_s": 0.0})
            row["written"] += w
            row["read"] += read
            row["task_s"] += metrics.get("Executor Run Time", 0) / 1000
    return out


def plan(docs: int, local: dict, spark: dict | None, num_perm: int, bands: int, price: float,
         executors: int = 50, cores: int = 8) -> list[str]:
    """The billion-document capacity plan, scaled from the measured per-document costs: storage and
    shuffle, the executors' core-hours (the CPU the JVM and its Python workers used, the lowest figure;
    the tasks' run time, which counts waiting too; the wall time of both cores, which also counts the
    gaps between jobs), the hours on ``executors`` x ``cores`` and their price at ``price`` per core-hour."""
    scale = PLAN_DOCS / docs
    sig = 4 * num_perm
    key = bands * (4 + 8 + 8)  # band, key, row per band
    lines = ["| quantity | per document (measured or by layout) | for 10^9 documents |", "|---|---|---|",
             f"| MinHash signature ({num_perm} x uint32) | {sig} B | {sig * PLAN_DOCS / 1e12:.2f} TB |",
             f"| band keys ({bands} bands x (band, key, row)) | {key} B | {key * PLAN_DOCS / 1e12:.2f} TB |",
             f"| local engine peak RSS | {local['peak_mb'] * 1e6 / docs:.0f} B | "
             f"{local['peak_mb'] * 1e6 * scale / 1e12:.2f} TB (one machine: no) |"]
    if spark:
        total_w = sum(s["written"] for s in spark["shuffle"].values())
        for stage, s in spark["shuffle"].items():
            lines.append(f"| Spark shuffle written, {stage} | {s['written'] / docs:.0f} B | "
                         f"{s['written'] * scale / 1e12:.2f} TB |")
        lines.append(f"| Spark shuffle written, all stages | {total_w / docs:.0f} B | {total_w * scale / 1e12:.2f} TB |")
        measured = [("CPU of the JVM and Python workers", spark.get("spark_cpu_s")),
                    ("tasks' run time", sum(s["task_s"] for s in spark["shuffle"].values())),
                    ("wall time x 2 cores (local[2])", spark["seconds"] * 2)]
        for what, core_s in ((w, c) for w, c in measured if c is not None):
            hours = core_s * scale / 3600
            lines.append(f"| Spark core-seconds, {what} | {core_s * 1e6 / docs:.1f} us | {hours:,.0f} core-hours: "
                         f"{hours / (executors * cores):.1f} h on {executors} x {cores} cores, "
                         f"${hours * price:,.0f} at ${price}/core-hour |")
    return lines


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--docs", type=int, default=1_000_000)
    p.add_argument("--corpus", help="a docs.jsonl to use instead of the simulated corpus")
    p.add_argument("--method", default="minhash")
    p.add_argument("--engines", default="local,spill,spark")
    p.add_argument("--partitions", type=int, default=16)
    p.add_argument("--workdir", default=str(REPO_ROOT / "bench" / "results" / "scale"))
    p.add_argument("--growth", help="corpus sizes (comma-separated): the driver's memory growth per document")
    p.add_argument("--relations", action="store_true", help="--growth at dedup's defaults (relations on; off without)")
    p.add_argument("--shards", type=int, help="simulated corpora as Parquet shards of this many documents")
    p.add_argument("--core-hour-price", type=float, default=0.048,
                   help="US$ per core-hour of the plan (0.048: an on-demand 8-vCPU 32 GB general-purpose "
                        "instance, AWS m5.2xlarge in us-east-1, at $0.384/h list price)")
    args = p.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    if args.growth:
        growth(sorted(int(n) for n in args.growth.split(",")), args, workdir)
        return
    corpus = Path(args.corpus) if args.corpus else corpus_for(args.docs, workdir, shards=args.shards)
    # warm numba's on-disk cache, so the timed runs measure the work
    subprocess.run([NEARDUP, "dedup", str(REPO_ROOT / "examples" / "sample.jsonl"), "-o", str(workdir / "warm"),
                    "--method", args.method, "--quiet"], check=True)
    results: dict[str, dict] = {}
    for engine in args.engines.split(","):
        out = workdir / f"out-{engine}"
        events = str(workdir / f"events-{engine}")
        shutil.rmtree(events, ignore_errors=True)
        cmd = [sys.executable, __file__, "_job", engine, str(corpus), str(out), args.method, str(args.partitions),
               events, "1"]
        r = run_child(cmd, workdir / f"{engine}.log")
        summary = json.loads((out / "bench.json").read_text())
        r.update(pairs=summary["pairs"], clusters=summary["clusters"], stages=summary["seconds"],
                 documents=summary["documents"]["kept"], peak_anon_mb=summary["peak_anon_mb"])
        if engine.startswith("spark"):
            r["shuffle"] = shuffle_by_stage(events, summary)
            work = workdir / "spark-work"
            r["parquet_bytes"] = {d.name: sum(f.stat().st_size for f in d.rglob("*") if f.is_file())
                                  for d in sorted(work.iterdir()) if d.is_dir()}
        if "local" in results and engine != "local":
            r["identical_to_local"] = all(filecmp.cmp(out / f, workdir / "out-local" / f, shallow=False)
                                          for f in ("pairs.jsonl", "clusters.jsonl"))
        results[engine] = r
        print(engine, json.dumps(r), flush=True)
    docs = next(iter(results.values()))["documents"]
    lines = [f"{docs:,} documents ({corpus}), method {args.method}", "",
             "| engine | wall s | CPU s | peak RSS MB | peak anonymous MB | bytes/doc (RSS) | pairs | clusters "
             "| same as local |", "|---|---|---|---|---|---|---|---|---|"]
    for engine, r in results.items():
        lines.append(f"| {engine} | {r['seconds']:.1f} | {r['cpu_seconds']:.1f} | {r['peak_mb']:.0f} | "
                     f"{r['peak_anon_mb']:.0f} | "
                     f"{r['peak_mb'] * 1e6 / docs:.0f} | {r['pairs']:,} | {r['clusters']:,} | "
                     f"{r.get('identical_to_local', '-')} |")
    for engine, r in results.items():
        lines.append(f"\n{engine} stages (s): " + ", ".join(f"{k} {v:.1f}" for k, v in r["stages"].items()))
        if "shuffle" in r:
            lines.append("spark shuffle MB written/read: " + ", ".join(
                f"{k} {v['written'] / 1e6:.0f}/{v['read'] / 1e6:.0f}" for k, v in r["shuffle"].items()))
            lines.append("spark stage outputs (Parquet MB): " + ", ".join(
                f"{k} {v / 1e6:.0f}" for k, v in r["parquet_bytes"].items()))
    if "local" in results and args.method == "minhash":
        from neardup.methods import get_method

        m = get_method("minhash")
        lines += ["", *plan(docs, results["local"], results.get("spark"), m.num_perm, m.banding().bands,
                            args.core_hour_price)]
    (workdir / "scale.json").write_text(json.dumps(results, indent=2))
    (workdir / "scale.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def growth(sizes: list[int], args: argparse.Namespace, workdir: Path) -> None:
    """Each engine at each size (relations off unless ``--relations``): the driver's peak anonymous memory,
    and its growth per document from the smallest size to the largest; written to ``growth.json`` /
    ``growth.md``."""
    results: dict[str, dict[int, dict]] = {}
    for engine in args.engines.split(","):
        for docs in sizes:
            corpus = corpus_for(docs, workdir, seed=5, shards=args.shards)
            out = workdir / f"growth-{engine}-{docs}"
            events = str(workdir / f"events-growth-{engine}-{docs}")
            shutil.rmtree(events, ignore_errors=True)
            cmd = [sys.executable, __file__, "_job", engine, str(corpus), str(out), args.method,
                   str(args.partitions), events, "1" if args.relations else "0"]
            r = run_child(cmd, workdir / f"growth-{engine}-{docs}.log")
            summary = json.loads((out / "bench.json").read_text())
            r.update(pairs=summary["pairs"], documents=summary["documents"]["kept"], stages=summary["seconds"],
                     peak_anon_mb=summary["peak_anon_mb"], load=os.getloadavg(), spark_cpu_s=summary.get("spark_cpu_s"))
            if engine.startswith("spark"):
                r["shuffle"] = shuffle_by_stage(events, summary)
            base = next(iter(results), engine)
            if base != engine:
                r["identical_to_first_engine"] = all(
                    filecmp.cmp(out / f, workdir / f"growth-{base}-{docs}" / f, shallow=False)
                    for f in ("pairs.jsonl", "clusters.jsonl"))
            results.setdefault(engine, {})[docs] = r
            print(engine, docs, json.dumps(r), flush=True)
    lo, hi = sizes[0], sizes[-1]
    lines = ["| engine | documents | wall s | driver peak RSS MB | driver peak anonymous MB | shuffle MB written "
             "| load (1 min) | same as first engine |", "|---|---|---|---|---|---|---|---|"]
    for engine, by_size in results.items():
        for r in by_size.values():
            shuffle = sum(s["written"] for s in r.get("shuffle", {}).values()) / 1e6
            lines.append(f"| {engine} | {r['documents']:,} | {r['seconds']:.1f} | {r['peak_mb']:.0f} | "
                         f"{r['peak_anon_mb']:.0f} | {shuffle:.0f} | {r['load'][0]:.1f} | "
                         f"{r.get('identical_to_first_engine', '-')} |")
    for engine, by_size in results.items():
        if lo in by_size and hi in by_size and hi > lo:
            grow = (by_size[hi]["peak_anon_mb"] - by_size[lo]["peak_anon_mb"]) * 1e6 / (
                by_size[hi]["documents"] - by_size[lo]["documents"])
            lines.append(f"\n{engine}: the driver's peak anonymous memory grows {grow:.0f} bytes per document "
                         f"from {lo:,} to {hi:,}")
    for engine, by_size in results.items():
        for docs, r in by_size.items():
            lines.append(f"\n{engine} {docs:,} stages (s): " + ", ".join(f"{k} {v:.1f}" for k, v in r["stages"].items()))
            if "shuffle" in r:
                lines.append(f"{engine} {docs:,} tasks' run time (s): " + ", ".join(
                    f"{k} {v['task_s']:.1f}" for k, v in r["shuffle"].items()))
    if hi in results.get("local", {}) and hi in results.get("spark", {}) and args.method == "minhash":
        from neardup.methods import get_method

        m = get_method("minhash")
        lines += ["", f"Plan from the {hi:,}-document runs:", "",
                  *plan(hi, results["local"][hi], results["spark"][hi], m.num_perm, m.banding().bands,
                        args.core_hour_price)]
    (workdir / "growth.json").write_text(json.dumps(results, indent=2))
    (workdir / "growth.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_job":
        job(*sys.argv[2:5], sys.argv[5], int(sys.argv[6]), sys.argv[7], sys.argv[8] == "1")
    else:
        main()
