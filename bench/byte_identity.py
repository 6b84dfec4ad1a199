"""Outputs of every command on reference settings, as sha256 digests: record them, check them later.

A restructuring that must not change behaviour is checked by recording before it and checking
after::

    python bench/byte_identity.py record identity.json      # before (a few minutes on 2 cores)
    python bench/byte_identity.py check identity.json       # after: lists every output that changed
    python bench/byte_identity.py check identity.json --quick   # the runs on the sample only
    python bench/byte_identity.py check identity.json --only 'contain|partial'   # runs named so (+ synth)

The runs: ``neardup synth`` of 20,000 documents (seed 7); ``neardup dedup`` with every method's
defaults on ``examples/sample.jsonl`` and on that corpus; ``neardup contain`` with every method on
the sample and its two main methods (align, codet) on the corpus; ``neardup partial`` with both
methods on both; ``neardup index create/add/query`` and ``neardup explain`` on the sample.  Every
run works in one scratch folder with relative paths, so a summary's paths do not depend on where
it runs.  A ``summary.json`` is compared without what differs run to run (``seconds``, memory
traces, versions); every other file byte for byte, except the index's own store (its SQLite file
holds times; its answers, ``matches.jsonl``, are compared).

``--extraction DIR`` adds ``neardup extract PAGES --jsonl OUT`` on every page of each collection
under ``DIR`` (``../shared/data/extraction``: each sub-folder is one), the pages given as JSON lines
``{"id", "html"}`` the way the extraction bench gives them, and ``extract-features``: per collection
with gold text, the digest of what the bench's models train on (the rich block features, training
labels and block texts of every page; the training pages' texts are rewritten after the split, which
``extract``'s outputs do not show).  A speed change to the extractor is checked on all of them
without re-running the quality bench::

    python bench/byte_identity.py record extract.json --only extract --extraction ../shared/data/extraction
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Summary keys that differ between two runs of the same job (timings, memory, versions).
VOLATILE = {"seconds", "memory", "trace", "version", "wall", "rss", "peak_rss_mb"}

#: Files not compared: the index's own store holds creation times and the writer's process id.
UNCOMPARED = ("index/",)

METHODS = ("andd", "ffp", "imatch", "minhash", "simhash", "spotsigs", "wsample")
CONTAIN_METHODS = ("align", "codet", "ffp", "dsc", "imatch", "simhash")


#: The folders whose pages the extraction runs read (the page as crawled, not an annotated copy).
PAGE_FOLDERS = ("original", "html", "input")


def page_files(collection: Path) -> list[Path]:
    """Every page file of an extraction collection (``.htm``/``.html`` under :data:`PAGE_FOLDERS`), sorted."""
    return sorted(p for p in collection.rglob("*.htm*")
                  if p.suffix in (".htm", ".html") and p.parent.name in PAGE_FOLDERS)


def write_pages(collection: Path, out: Path) -> None:
    """``collection``'s pages as JSON lines ``{"id", "html"}`` (id: the path inside it), decoded as
    the extraction bench decodes them (:func:`neardup.extract.datasets.read_html`)."""
    from neardup.extract.datasets import read_html

    with open(out, "w", encoding="utf-8") as fh:
        for path in page_files(collection):
            fh.write(json.dumps({"id": str(path.relative_to(collection)), "html": read_html(path)}) + "\n")


def feature_digests(extraction: Path) -> dict[str, str]:
    """Per collection of ``extraction`` that has gold text, the sha256 of its pages' rich block
    features, training labels and block texts, in load order (this process's neardup)."""
    import numpy as np

    from neardup.errors import UserError
    from neardup.extract.datasets import load
    from neardup.extract.features import rich_features
    from neardup.extract.train import examples, training_labels

    found = {}
    for collection in sorted(c for c in extraction.iterdir() if c.is_dir()):
        try:
            pages = load(collection)
        except UserError:  # no gold text (trafilatura-eval's snippets)
            continue
        digest = hashlib.sha256()
        for ex in examples(pages):
            rows = rich_features(ex.page, ex.stats)
            for a in (rows.rows, rows.cols, rows.vals, *(m for _, m in rows.blocks), training_labels(ex)):
                digest.update(np.ascontiguousarray(a).tobytes())
            digest.update("\x00".join(ex.page.texts).encode("utf-8", "surrogatepass"))
        found[collection.name] = digest.hexdigest()
    return found


def runs(extraction: Path | None = None) -> list[tuple[str, list[str]]]:
    """(name, neardup arguments) of every reference run, in order; later runs read earlier outputs;
    with ``extraction``, an ``extract`` run per collection folder in it (pages from :func:`write_pages`)."""
    out: list[tuple[str, list[str]]] = [("synth", ["synth", "-o", "corpus", "--docs", "20000", "--seed", "7", "--quiet"])]
    for corpus, path in (("sample", "sample.jsonl"), ("corpus", "corpus/docs.jsonl")):
        out += [(f"dedup-{m}-{corpus}", ["dedup", path, "-o", f"dedup-{m}-{corpus}", "--method", m, "--quiet"])
                for m in METHODS]
        contain = CONTAIN_METHODS if corpus == "sample" else ("align", "codet")
        out += [(f"contain-{m}-{corpus}", ["contain", path, "-o", f"contain-{m}-{corpus}", "--method", m, "--quiet"])
                for m in contain]
        out += [(f"partial-{m}-{corpus}", ["partial", path, "-o", f"partial-{m}-{corpus}", "--method", m, "--quiet"])
                for m in ("align", "pdc")]
    out += [
        ("dedup-unique-sample", ["dedup", "sample.jsonl", "-o", "dedup-unique-sample", "--unique", "unique.jsonl",
                                 "--quiet"]),
        ("index-create", ["index", "create", "index", "--partial"]),
        ("index-add", ["index", "add", "index", "sample.jsonl", "-o", "index-add", "--quiet"]),
        ("index-query", ["index", "query", "index", "sample.jsonl", "-o", "index-query", "--quiet"]),
        ("explain", ["explain", "d00000001", "d00000007", "--in", "sample.jsonl", "--json"]),
    ]
    if extraction is not None:
        out += [(f"extract-{c.name}", ["extract", f"{c.name}.pages.jsonl", "--jsonl", f"extract-{c.name}.jsonl"])
                for c in sorted(extraction.iterdir()) if c.is_dir()]
    return out


def _stable(value: object) -> object:
    """``value`` without the keys of :data:`VOLATILE`, at any depth."""
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return value


def digest(path: Path) -> str:
    """sha256 of a file; of a summary.json, of its stable part."""
    data = path.read_bytes()
    if path.name == "summary.json":
        data = json.dumps(_stable(json.loads(data)), sort_keys=True).encode()
    return hashlib.sha256(data).hexdigest()


def selected(quick: bool = False, only: str | None = None,
             extraction: Path | None = None) -> list[tuple[str, list[str]]]:
    """The reference runs to make: all (the extraction runs with ``extraction``); ``quick``, those on
    the sample; ``only``, those whose name the regular expression finds something in (with the synth
    run when one of them reads its corpus)."""
    chosen = [(name, argv) for name, argv in runs(extraction)
              if not (quick and (name == "synth" or name.endswith("-corpus")))
              and (only is None or name == "synth" or re.search(only, name))]
    if not any(name.endswith("-corpus") for name, _ in chosen):
        chosen = [(name, argv) for name, argv in chosen if name != "synth"]
    return chosen


def record(work: Path, quick: bool = False, only: str | None = None,
           extraction: Path | None = None) -> dict[str, dict[str, str]]:
    """Run the reference runs :func:`selected` in ``work``; the digest of every file each one wrote."""
    shutil.copy(ROOT / "examples" / "sample.jsonl", work / "sample.jsonl")
    found: dict[str, dict[str, str]] = {}
    for name, argv in selected(quick, only, extraction):
        if name.startswith("extract-") and extraction is not None:
            write_pages(extraction / name.removeprefix("extract-"), work / argv[1])
        before = {p for p in work.rglob("*") if p.is_file()}
        done = subprocess.run([sys.executable, "-m", "neardup", *argv], cwd=work, capture_output=True, text=True)
        files = {p for p in work.rglob("*") if p.is_file() and not str(p.relative_to(work)).startswith(UNCOMPARED)}
        files -= before
        found[name] = {str(p.relative_to(work)): digest(p) for p in sorted(files)}
        found[name]["exit"] = str(done.returncode)
        if name == "explain":  # its output is what it prints
            found[name]["stdout"] = hashlib.sha256(done.stdout.encode()).hexdigest()
        print(f"{name}: exit {done.returncode}, {len(files)} files", file=sys.stderr, flush=True)
    if extraction is not None and not quick and (only is None or re.search(only, "extract-features")):
        found["extract-features"] = feature_digests(extraction)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("record", "check"))
    parser.add_argument("digests", type=Path, help="JSON of digests (record writes it, check reads it)")
    parser.add_argument("--workdir", type=Path, help="scratch folder (default: a temporary one, removed after)")
    parser.add_argument("--quick", action="store_true",
                        help="only the runs on the sample (seconds, not minutes); check compares those only")
    parser.add_argument("--only", metavar="REGEX",
                        help="only the runs whose name matches (e.g. 'contain|partial'); check compares those only")
    parser.add_argument("--extraction", type=Path, metavar="DIR",
                        help="also extract every page of each collection folder in DIR (e.g. ../shared/data/extraction)")
    args = parser.parse_args()
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=False)
        found = record(args.workdir, args.quick, args.only, args.extraction)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            found = record(Path(tmp), args.quick, args.only, args.extraction)
    if args.mode == "record":
        args.digests.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
        print(f"recorded {sum(len(v) for v in found.values())} digests of {len(found)} runs -> {args.digests}")
        return 0
    expected = {run: {f: d for f, d in digests.items() if not f.startswith(UNCOMPARED)}
                for run, digests in json.loads(args.digests.read_text()).items()}
    if args.quick or args.only:
        expected = {run: digests for run, digests in expected.items() if run in found}
    changed = [f"{run}: {file}" for run in sorted(set(expected) | set(found))
               for file in sorted(set(expected.get(run, {})) | set(found.get(run, {})))
               if expected.get(run, {}).get(file) != found.get(run, {}).get(file)]
    for line in changed:
        print(f"changed {line}")
    print(f"{len(changed)} of {sum(len(v) for v in expected.values())} digests changed")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
