"""Benchmark near-duplicate detection: neardup against datasketch, rensa and a bare pass.

Every tool does the same job, each in a separate process: read a JSONL corpus, take the
word 5-shingles of every document (tokens = ``re.findall(r"\\w+", text.lower())``), sketch
them with 128-permutation MinHash, find candidates by LSH at threshold 0.8, keep the
candidates whose estimated Jaccard is at least 0.8, and write the pairs to a file.

* ``neardup``    -- ``neardup dedup CORPUS -o OUT --threshold 0.8 --shingle-size 5
  --num-perm 128 --quiet`` (run once untimed first, so numba's on-disk compile cache is
  filled and the timed runs measure the work, not the JIT compilation; its modules are
  compiled to bytecode first, see :func:`compile_neardup_bytecode`);
* ``datasketch`` -- ``MinHash.bulk`` + ``MinHashLSH`` (bands x rows chosen by datasketch);
* ``rensa``      -- ``RMinHash.from_token_sets`` + ``RMinHashLSH`` with 16 bands of 8 rows,
  the setting of rensa's README example for threshold 0.8 and 128 permutations;
* ``bare``       -- ``json.loads`` and the tokenizer regex per line, nothing else: the
  floor any Python pipeline over this input pays.

The datasketch and rensa jobs live in this file (``bench_minhash.py _job TOOL ...``); they
stream the documents, one shingle set in memory at a time, and keep a candidate pair
when the estimated Jaccard of its signatures is at least 0.8, as neardup does.

The corpus is made of real news text (Reuters-21578 and BBC News, read from
``../shared/data`` next to the repository): documents are runs of consecutive sentences
from randomly chosen articles, and 20% of the documents are planted near-duplicates (a
copy of another document with a few words replaced, inserted or deleted, 5-shingle
Jaccard about 0.9).  The planted pairs are the ground truth for recall and precision.

Wall seconds and peak RSS are measured per tool process with ``os.wait4``, from a small
launcher process (see :func:`measure`).  Results go to ``WORKDIR/minhash.json`` and ``.md``.

Usage::

    .venv/bin/python bench/bench_minhash.py [--docs 20000] [--words 400] [--seed 1]
        [--repeat 1] [--tools neardup,datasketch,rensa,bare] [--workdir bench/results]

This module imports only the standard library at the top, because it is also the
launcher (``bench_minhash.py _measure LOG CMD...``) and runs the peer jobs
(``bench_minhash.py _job TOOL CORPUS OUTDIR``), and must not inflate their start-up time
or memory.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT.parent / "shared" / "data"
DEFAULT_WORKDIR = REPO_ROOT / "bench" / "results"

TOOLS = ("neardup", "datasketch", "rensa", "bare")
SHINGLE_SIZE = 5
NUM_PERM = 128
THRESHOLD = 0.8
RENSA_BANDS = 16  # 16 bands x 8 rows, as in rensa's README example at threshold 0.8
RENSA_SEED = 42
DUP_SHARE = 0.2  # share of the documents that are planted near-duplicates
TARGET_JACCARD = 0.9  # aimed-at 5-shingle Jaccard of a planted pair with its source
CORPUS_VERSION = 2  # bump when the generator changes, so cached corpora are rebuilt

TOKEN_RE = re.compile(r"\w+")


# --------------------------------------------------------------------------- shingles


def tokenize(text: str) -> list[str]:
    """The benchmark's word tokens: ``re.findall(r"\\w+", text.lower())``."""
    return TOKEN_RE.findall(text.lower())


def shingle_set(tokens: list[str], k: int = SHINGLE_SIZE) -> set[str]:
    """Word k-shingles as space-joined strings (a shorter document is one shingle)."""
    if len(tokens) < k:
        return {" ".join(tokens)} if tokens else set()
    return {" ".join(tokens[i : i + k]) for i in range(len(tokens) - k + 1)}


def jaccard(a: set[str], b: set[str]) -> float:
    """Exact Jaccard similarity of two sets."""
    union = len(a | b)
    return len(a & b) / union if union else 1.0


# --------------------------------------------------------------------- source texts

BODY_RE = re.compile(r"<BODY>(.*?)</BODY>", re.S)
SIGNOFF_RE = re.compile(r"\s*\bReuter\s*$", re.I)
SENTENCE_END_RE = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"']))\s+(?=[\"'(]?[A-Z0-9])")


def load_articles(data_dir: Path) -> list[str]:
    """Article bodies of Reuters-21578 (``*.sgm``) and BBC News (``*/*.txt``, title dropped)."""
    texts = []
    for path in sorted((data_dir / "reuters21578").glob("*.sgm")):
        raw = path.read_text(encoding="latin-1")  # one file is not valid UTF-8
        for body in BODY_RE.findall(raw):
            texts.append(SIGNOFF_RE.sub("", html.unescape(body).replace("\x03", "")))
    for path in sorted((data_dir / "bbc-news").glob("*/*.txt")):
        _title, _, body = path.read_text(encoding="utf-8", errors="replace").partition("\n")
        texts.append(body)
    return texts


def is_prose(sentence: str, tokens: list[str]) -> bool:
    """True for a sentence of running text: 6-50 tokens, mostly words, not all capitals.

    This drops tables of figures, and also the run-on "sentences" of lists (awards,
    grain trades) that, hundreds of words long, would make two documents sharing one
    of them look alike.
    """
    if not 6 <= len(tokens) <= 50:
        return False
    if sum(t.isalpha() for t in tokens) < 0.75 * len(tokens):
        return False
    letters = [c for c in sentence if c.isalpha()]
    return sum(c.isupper() for c in letters) < 0.3 * len(letters)


def sentence_pool(articles: list[str]) -> list[list[str]]:
    """Per article, its prose sentences in order, each sentence kept once over all articles.

    Reuters holds hundreds of resent stories; keeping every sentence once makes sure
    two generated documents share text only where the generator put it on purpose.
    """
    seen: set[str] = set()
    pool = []
    for text in articles:
        kept = []
        for sentence in SENTENCE_END_RE.split(" ".join(text.split())):
            tokens = tokenize(sentence)
            key = " ".join(tokens)
            if key in seen or not is_prose(sentence, tokens):
                continue
            seen.add(key)
            kept.append(sentence)
        if kept:
            pool.append(kept)
    return pool


# --------------------------------------------------------------------------- corpus


def passages(pool: list[list[str]], rng: random.Random):
    """Endless shuffled stream of passages: runs of 2-5 consecutive sentences of one article.

    Each pass over the pool cuts the articles at new random places and reshuffles, so
    when the corpus needs more text than the pool holds, a passage seen again is rarely
    cut the same way and never lands next to the same neighbours.
    """
    while True:
        chunks = []
        for sentences in pool:
            i = 0
            while i < len(sentences):
                size = rng.randint(2, 5)
                chunks.append(sentences[i : i + size])
                i += size
        rng.shuffle(chunks)
        yield from chunks


def compose_document(stream, words: int) -> str:
    """One document of about ``words`` tokens: one paragraph per passage, cut at a sentence."""
    paragraphs, count = [], 0
    while count < words:
        taken = []
        for sentence in next(stream):
            taken.append(sentence)
            count += len(tokenize(sentence))
            if count >= words:
                break
        paragraphs.append(" ".join(taken))
    return "\n\n".join(paragraphs)


def plant_near_duplicate(text: str, vocab: list[str], rng: random.Random) -> str:
    """A copy of ``text`` with a few words replaced, inserted or deleted at random places.

    One edit changes at most ``k`` of the ``n`` shingles and adds at most ``k``, so ``e``
    edits give Jaccard about ``(n - k e) / (n + k e)``; solving for TARGET_JACCARD gives
    the mean number of edits, rounded up or down at random to keep that mean.
    """
    parts = re.split(r"(\s+)", text)
    items = list(zip(parts[0::2], parts[1::2] + [""]))  # (word, following whitespace)
    n = len(tokenize(text))
    mean_edits = n * (1 - TARGET_JACCARD) / (SHINGLE_SIZE * (1 + TARGET_JACCARD))
    edits = int(mean_edits) + (rng.random() < mean_edits % 1)
    for _ in range(max(1, edits)):
        i = rng.randrange(len(items))
        kind = rng.choice(("replace", "insert", "delete"))
        if kind == "replace":
            items[i] = (rng.choice(vocab), items[i][1])
        elif kind == "insert":
            items.insert(i, (rng.choice(vocab), " "))
        elif len(items) > 1:
            del items[i]
    return "".join(word + space for word, space in items).strip()


def corpus_paths(workdir: Path, docs: int, words: int, seed: int) -> tuple[Path, Path]:
    """The cached corpus JSONL and its ground-truth JSON for these parameters."""
    stem = f"corpus-v{CORPUS_VERSION}-n{docs}-w{words}-s{seed}"
    return workdir / f"{stem}.jsonl", workdir / f"{stem}.truth.json"


def build_corpus(workdir: Path, docs: int, words: int, seed: int) -> tuple[Path, dict]:
    """Make (or reuse) the corpus; returns its path and the truth (planted pairs + stats)."""
    corpus, truth_path = corpus_paths(workdir, docs, words, seed)
    if corpus.exists() and truth_path.exists():
        truth = json.loads(truth_path.read_text())
        truth["cached"] = True
        return corpus, truth
    if not DATA_DIR.is_dir() or not (
        any((DATA_DIR / "reuters21578").glob("*.sgm")) or any((DATA_DIR / "bbc-news").glob("*/*.txt"))
    ):
        sys.exit(
            f"bench_minhash: no source texts in {DATA_DIR} (expected reuters21578/*.sgm or "
            "bbc-news/*/*.txt); the benchmark needs the shared data folder next to the repository."
        )
    start = time.perf_counter()
    rng = random.Random(seed)
    pool = sentence_pool(load_articles(DATA_DIR))
    vocab = [word for sentences in pool for sentence in sentences for word in sentence.split()]
    n_dups = round(docs * DUP_SHARE)
    stream = passages(pool, rng)
    texts = [compose_document(stream, words) for _ in range(docs - n_dups)]
    sources = rng.sample(range(len(texts)), n_dups)
    texts += [plant_near_duplicate(texts[s], vocab, rng) for s in sources]
    order = list(range(docs))
    rng.shuffle(order)  # position in the file -> index in texts
    ids = [""] * docs
    workdir.mkdir(parents=True, exist_ok=True)
    tmp = corpus.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        for position, index in enumerate(order):
            ids[index] = f"doc{position:06d}"
            fh.write(json.dumps({"id": ids[index], "text": texts[index]}) + "\n")
    planted = [(s, docs - n_dups + d) for d, s in enumerate(sources)]  # (source, copy) in texts
    pairs = [[ids[s], ids[c]] for s, c in planted]
    sims = [jaccard(shingle_set(tokenize(texts[s])), shingle_set(tokenize(texts[c]))) for s, c in planted]
    lengths = [len(tokenize(t)) for t in texts]
    truth = {
        "pairs": pairs,
        "docs": docs,
        "mean_tokens": round(statistics.fmean(lengths), 1),
        "source_articles": len(pool),
        "source_sentences": sum(len(s) for s in pool),
        "planted_jaccard": {
            "mean": round(statistics.fmean(sims), 4),
            "min": round(min(sims), 4),
            "p05": round(statistics.quantiles(sims, n=20)[0], 4) if len(sims) > 1 else round(sims[0], 4),
            "max": round(max(sims), 4),
        },
        "build_seconds": round(time.perf_counter() - start, 1),
    }
    truth_path.write_text(json.dumps(truth))
    tmp.replace(corpus)
    truth["cached"] = False
    return corpus, truth


# ------------------------------------------------------------ peer jobs (child side)


def shingle_sets(corpus: Path, ids: list[str], phases: dict):
    """Yield each document's 5-shingle set in file order, appending its id to ``ids``.

    Streaming keeps one document's shingles in memory at a time, as a real pipeline
    would.  The time spent here (reading, JSON, tokenizing, shingling) is summed into
    ``phases["read+shingle"]``, so a consumer's own time is its wall time minus that.
    """
    phases["read+shingle"] = 0.0
    with open(corpus, encoding="utf-8") as fh:
        for line in fh:
            start = time.perf_counter()
            record = json.loads(line)
            ids.append(record["id"])
            shingles = shingle_set(tokenize(record["text"]))
            phases["read+shingle"] += time.perf_counter() - start
            yield shingles


def job_bare(corpus: Path, phases: dict, info: dict) -> list[tuple[str, str, float]]:
    """Read and tokenize only: the floor of any Python pipeline on this input."""
    start = time.perf_counter()
    with open(corpus, encoding="utf-8") as fh:
        for line in fh:
            tokenize(json.loads(line)["text"])
    phases["read+tokenize"] = time.perf_counter() - start
    return []


def job_datasketch(corpus: Path, phases: dict, info: dict) -> list[tuple[str, str, float]]:
    """datasketch: ``MinHash.bulk``, ``MinHashLSH`` insert + query, estimated-Jaccard check."""
    from datasketch import MinHash, MinHashLSH

    ids: list[str] = []
    start = time.perf_counter()
    as_bytes = ([s.encode("utf-8") for s in shingles] for shingles in shingle_sets(corpus, ids, phases))
    sketches = MinHash.bulk(as_bytes, num_perm=NUM_PERM)
    phases["sketch"] = time.perf_counter() - start - phases["read+shingle"]
    start = time.perf_counter()
    lsh = MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM)
    info["lsh"] = f"{lsh.b}x{lsh.r}"
    for i, sketch in enumerate(sketches):
        lsh.insert(i, sketch, check_duplication=False)
    phases["lsh insert"] = time.perf_counter() - start
    start = time.perf_counter()
    pairs = []
    for i, sketch in enumerate(sketches):
        for j in lsh.query(sketch):
            if j > i and (score := sketch.jaccard(sketches[j])) >= THRESHOLD:
                pairs.append((ids[i], ids[j], score))
    phases["query+verify"] = time.perf_counter() - start
    return pairs


def job_rensa(corpus: Path, phases: dict, info: dict) -> list[tuple[str, str, float]]:
    """rensa: ``RMinHash.from_token_sets``, ``RMinHashLSH`` insert + query, estimated-Jaccard check."""
    from rensa import RMinHash, RMinHashLSH

    ids: list[str] = []
    start = time.perf_counter()
    sketches = RMinHash.from_token_sets(shingle_sets(corpus, ids, phases), NUM_PERM, RENSA_SEED)
    phases["sketch"] = time.perf_counter() - start - phases["read+shingle"]
    start = time.perf_counter()
    lsh = RMinHashLSH(THRESHOLD, NUM_PERM, RENSA_BANDS)
    info["lsh"] = f"{RENSA_BANDS}x{NUM_PERM // RENSA_BANDS}"
    lsh.insert_many(sketches)
    phases["lsh insert"] = time.perf_counter() - start
    start = time.perf_counter()
    pairs = []
    for i, (sketch, candidates) in enumerate(zip(sketches, lsh.query_all(sketches))):
        for j in candidates:
            if j > i and (score := sketch.jaccard(sketches[j])) >= THRESHOLD:
                pairs.append((ids[i], ids[j], score))
    phases["query+verify"] = time.perf_counter() - start
    return pairs


JOBS = {"bare": job_bare, "datasketch": job_datasketch, "rensa": job_rensa}


def run_job(tool: str, corpus: Path, outdir: Path) -> None:
    """Child entry point: run one peer job, write ``pairs.jsonl`` and ``info.json``."""
    phases: dict[str, float] = {}
    info: dict = {"lsh": "—"}
    pairs = JOBS[tool](corpus, phases, info)
    start = time.perf_counter()
    outdir.mkdir(parents=True, exist_ok=True)
    with open(outdir / "pairs.jsonl", "w", encoding="utf-8") as fh:
        for a, b, score in pairs:
            fh.write(json.dumps({"a": a, "b": b, "score": round(score, 6)}) + "\n")
    phases["write"] = time.perf_counter() - start
    info["phases"] = {k: round(v, 3) for k, v in phases.items()}
    (outdir / "info.json").write_text(json.dumps(info))


# ------------------------------------------------------------------ parent side


def tool_command(tool: str, corpus: Path, outdir: Path) -> list[str]:
    """The command line that runs ``tool`` on ``corpus`` as a separate process."""
    if tool == "neardup":
        exe = Path(sys.executable).with_name("neardup")
        neardup = str(exe) if exe.exists() else shutil.which("neardup") or "neardup"
        return [neardup, "dedup", str(corpus), "-o", str(outdir), "--method", "minhash", "--threshold", str(THRESHOLD),
                "--shingle-size", str(SHINGLE_SIZE), "--num-perm", str(NUM_PERM), "--quiet"]
    return [sys.executable, str(Path(__file__).resolve()), "_job", tool, str(corpus), str(outdir)]


def compile_neardup_bytecode() -> None:
    """Compile the neardup package's modules to bytecode, as installing a package does.

    Installed packages come with their ``.pyc`` files (datasketch's, numba's and numpy's
    here do); an editable checkout run with ``PYTHONDONTWRITEBYTECODE`` set compiles every
    neardup module from source in every run instead, 0.05 s that no user of an installed
    neardup pays.  The files go to ``__pycache__`` next to the sources (git ignores them).
    """
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("neardup")
    for path in spec.submodule_search_locations if spec else ():
        compileall.compile_dir(path, quiet=1)


def own_peak_mb() -> float | None:
    """This process's own peak RSS (``VmHWM``), which unlike ``ru_maxrss`` starts afresh at exec."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    return round(int(found.group(1)) / 1024, 1) if found else None


def measure(cmd: list[str], log_path: Path) -> None:
    """Launcher side: run ``cmd``, print its wall and CPU seconds and peak RSS as JSON on stdout.

    ``os.wait4`` gives the resource usage of that one child.  Linux carries a process's
    peak RSS over ``exec`` from the image it replaces, so a tool started straight from the
    benchmark would inherit the benchmark's own peak (the corpus generator's memory); this
    small fresh launcher process sits in between, and what a tool inherits is at most the
    launcher's own peak, reported as ``floor_mb``.
    """
    floor = own_peak_mb()
    with open(log_path, "wb") as log:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    result = {"seconds": round(seconds, 3), "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 3),
              "peak_mb": round(usage.ru_maxrss / 1024, 1),  # Linux: KiB
              "floor_mb": floor, "returncode": proc.returncode}
    print(json.dumps(result))


def run_child(cmd: list[str], log_path: Path) -> dict:
    """Run ``cmd`` as a separate process through the launcher; its seconds and peak MB."""
    launcher = [sys.executable, str(Path(__file__).resolve()), "_measure", str(log_path), *cmd]
    done = subprocess.run(launcher, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"bench_minhash: the launcher failed:\n{done.stderr}")
    result = json.loads(done.stdout)
    if result.pop("returncode") != 0:
        sys.exit(f"bench_minhash: {' '.join(cmd)} failed; see {log_path}")
    return result


def read_pairs(path: Path) -> set[tuple[str, str]]:
    """The unordered pairs of a pairs JSONL file (fields ``a`` and ``b``)."""
    pairs = set()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            pairs.add((min(row["a"], row["b"]), max(row["a"], row["b"])))
    return pairs


def phases_of(tool: str, outdir: Path) -> dict:
    """Where the time went inside one run, as the tool reports it."""
    if tool == "neardup":
        seconds = json.loads((outdir / "summary.json").read_text())["seconds"]
        return {k: v for k, v in seconds.items() if k != "total"}
    return json.loads((outdir / "info.json").read_text())["phases"]


def lsh_setting(tool: str, outdir: Path) -> str:
    """The LSH bands x rows a tool used (neardup's is asked of its package, untimed)."""
    if tool != "neardup":
        return json.loads((outdir / "info.json").read_text())["lsh"]
    code = ("from neardup.methods.minhash import MinHashMethod as M; "
            f"b = M(threshold={THRESHOLD}, num_perm={NUM_PERM}).banding(); print(f'{{b.bands}}x{{b.rows}}')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else "?"


def ratio(num: float | None, den: float | None) -> str:
    """``num / den`` as ``1.23x``, or a dash when either is missing."""
    return f"{num / den:.2f}x" if num and den else "—"


def render_table(results: dict) -> str:
    """The markdown table of the best runs."""
    nd = results.get("neardup", {}).get("seconds")
    bare = results.get("bare", {}).get("seconds")
    lines = [
        "| tool | LSH bands x rows | seconds | CPU s | peak MB | pairs | recall | precision "
        "| neardup speedup | time / bare |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for tool, r in results.items():
        scored = tool != "bare"  # the bare pass finds no pairs by design
        pairs = str(r["pairs"]) if scored else "—"
        recall = f"{r['recall']:.4f}" if scored else "—"
        precision = f"{r['precision']:.4f}" if scored else "—"
        speedup = ratio(r["seconds"], nd) if tool != "neardup" else "1.00x"
        lines.append(
            f"| {tool} | {r['lsh']} | {r['seconds']:.2f} | {r['cpu_seconds']:.2f} | {r['peak_mb']:.0f} | {pairs} | {recall} | {precision} | "
            f"{speedup} | {ratio(r['seconds'], bare)} |"
        )
    return "\n".join(lines)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=20_000, help="documents in the corpus (20000)")
    parser.add_argument("--words", type=int, default=400, help="tokens per document, about (400)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the corpus generator (1)")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per tool; the best is reported (1)")
    parser.add_argument("--tools", default=",".join(TOOLS), help=f"comma list, a subset of {','.join(TOOLS)}")
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR, help="corpus cache and results")
    args = parser.parse_args(argv)
    args.tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = sorted(set(args.tools) - set(TOOLS))
    if unknown or not args.tools:
        parser.error(f"--tools: unknown {unknown}; choose from {','.join(TOOLS)}")
    if args.docs < 10 or args.words < 20 or args.repeat < 1:
        parser.error("need --docs >= 10, --words >= 20 and --repeat >= 1")
    return args


def main(argv: list[str]) -> None:
    """Build the corpus, time every tool, score its pairs, print and save the table."""
    args = parse_args(argv)
    workdir = args.workdir.resolve()
    corpus, truth = build_corpus(workdir, args.docs, args.words, args.seed)
    planted = {(min(a, b), max(a, b)) for a, b in truth["pairs"]}
    pj = truth["planted_jaccard"]
    built = "cached" if truth["cached"] else f"built in {truth['build_seconds']} s"
    print(f"corpus: {corpus} ({built})")
    print(f"  {truth['docs']} docs, {truth['mean_tokens']} tokens on average, from "
          f"{truth['source_sentences']} unique sentences of {truth['source_articles']} articles")
    print(f"  {len(planted)} planted near-duplicate pairs, exact 5-shingle Jaccard with their source: "
          f"mean {pj['mean']}, min {pj['min']}, 5th percentile {pj['p05']}, max {pj['max']}")
    print(f"job: word {SHINGLE_SIZE}-shingles, {NUM_PERM} permutations, LSH threshold {THRESHOLD}, "
          f"pairs kept at estimated Jaccard >= {THRESHOLD}; rensa uses {RENSA_BANDS} bands x "
          f"{NUM_PERM // RENSA_BANDS} rows; {os.cpu_count()} CPUs")

    out_root = workdir / "out"
    out_root.mkdir(parents=True, exist_ok=True)
    if "neardup" in args.tools:
        compile_neardup_bytecode()
        warm = run_child(tool_command("neardup", corpus, out_root / "neardup"), out_root / "neardup.log")
        print(f"neardup warm-up run (untimed, fills numba's on-disk compile cache): {warm['seconds']:.2f} s")

    runs: dict[str, list[dict]] = {tool: [] for tool in args.tools}
    for r in range(args.repeat):
        for tool in args.tools:
            outdir = out_root / tool
            run = run_child(tool_command(tool, corpus, outdir), out_root / f"{tool}.log")
            run["phases"] = phases_of(tool, outdir)
            runs[tool].append(run)
            print(f"  run {r + 1}/{args.repeat} {tool}: {run['seconds']:.2f} s "
                  f"(CPU {run['cpu_seconds']:.2f} s), {run['peak_mb']:.0f} MB")

    results = {}
    for tool in args.tools:
        best = min(runs[tool], key=lambda run: run["seconds"])
        found = read_pairs(out_root / tool / "pairs.jsonl")
        hits = len(found & planted)
        results[tool] = {
            "lsh": lsh_setting(tool, out_root / tool),
            **best,
            "pairs": len(found),
            "recall": hits / len(planted) if planted else 0.0,
            "precision": hits / len(found) if found else 0.0,
            "runs": runs[tool],
        }

    table = render_table(results)
    where = "\n".join(
        f"- {tool}: " + ", ".join(f"{k} {v:.2f} s" for k, v in r["phases"].items()) for tool, r in results.items()
    )
    best_of = f"best of {args.repeat} runs" if args.repeat > 1 else "one run"
    header = (f"{args.docs} docs x ~{args.words} words, seed {args.seed}, {best_of} per tool; "
              "neardup speedup = tool seconds / neardup seconds; time / bare = tool seconds / bare seconds")
    floor = max((run["floor_mb"] or 0) for tool_runs in runs.values() for run in tool_runs)
    notes = (f"seconds = wall time of the whole process (best run), CPU s = its user + system time "
             f"({os.cpu_count()} CPUs; CPU s above seconds means more than one core was busy). "
             f"peak MB = peak RSS of the process; its floor is {floor:.0f} MB (the launcher's RSS, "
             "inherited at exec). neardup ran once untimed before, to fill numba's on-disk compile cache, "
             "after its modules were compiled to bytecode (as an installed package has them).")
    print(f"\n{header}\n\n{table}\n\n{notes}\n\nwhere the time goes (as each tool reports it):\n{where}")

    report = {
        "config": {"docs": args.docs, "words": args.words, "seed": args.seed, "repeat": args.repeat,
                   "tools": args.tools, "shingle_size": SHINGLE_SIZE, "num_perm": NUM_PERM,
                   "threshold": THRESHOLD, "rensa_bands": RENSA_BANDS, "cpus": os.cpu_count(),
                   "python": sys.version.split()[0]},
        "corpus": {k: v for k, v in truth.items() if k != "pairs"} | {"path": str(corpus), "planted_pairs": len(planted)},
        "results": results,
        "table": table,
    }
    (workdir / "minhash.json").write_text(json.dumps(report, indent=2))
    (workdir / "minhash.md").write_text(f"# MinHash near-duplicate benchmark\n\n{header}\n\n{table}\n\n"
                                        f"{notes}\n\nWhere the time goes:\n\n{where}\n")
    print(f"\nwrote {workdir / 'minhash.json'} and {workdir / 'minhash.md'}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "_job":
        run_job(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
    elif len(sys.argv) > 3 and sys.argv[1] == "_measure":
        measure(sys.argv[3:], Path(sys.argv[2]))
    else:
        main(sys.argv[1:])
