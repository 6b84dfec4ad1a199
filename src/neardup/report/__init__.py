"""``neardup report``: one self-contained HTML file for the outputs of dedup, contain, partial, eval.

The report reads output folders (what each holds tells what it is: ``clusters.jsonl``
from ``dedup``, ``containments.jsonl`` from ``contain``, ``partials.jsonl`` from
``partial``, ``eval.json`` from ``eval --output``, PNG plots from ``eval --plot``), re-reads the inputs their ``summary.json``
names through the same input stage (so texts are the ones the detectors saw), and writes
one HTML file with everything inline: no CDN, no server, works offline.

The page is rendered by a little JavaScript from JSON embedded in it (Jinja2 writes the
shell): clusters by size, 50 to a page, the representative first and each member's score
to it; a pair opens side by side with its shared passages highlighted and linked (click
one to scroll to its copy); containments with their direction; located partial copies
highlighted at exactly the character spans of ``partials.jsonl``; an evaluation's measures
and the run it records; histograms (:mod:`.pictures`) of an evaluation's scores and of a
``dedup`` run's scores and coverage by relation, binned here and drawn as SVG.  Texts are embedded
only up to a budget (:data:`TEXT_BUDGET` characters, largest clusters first), so a report
of 100,000 documents stays small; pairs beyond it list ids and scores, and ``neardup
explain`` shows them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any, Callable, Sequence

from ..errors import UserError
from ..explain import shared_passages
from ..input_stage import Progress, progress_bar
from ..io.readers import FIELDS, Fields, read_inputs
from .pictures import dedup_pictures

#: Characters of document text embedded at most (largest clusters first).
TEXT_BUDGET = 8_000_000
#: Pairs whose shared passages are computed for highlighting at most (difflib per pair).
MAX_HIGHLIGHTED_PAIRS = 3000


#: A field the report reads: what it must be, a test of that, whether it is required (an optional
#: field may be missing or null).
_Field = tuple[str, Callable[[Any], bool], bool]


def _span(v: Any) -> bool:
    """``v`` is a ``[start, end]`` pair of character offsets."""
    return isinstance(v, list) and len(v) == 2 and all(type(x) is int for x in v)


def _picture(v: Any) -> bool:
    """``v`` is a histogram as :mod:`.pictures` makes them (the page draws it as it is)."""
    numbers = _NUMBER[1]
    return (isinstance(v, dict) and isinstance(v.get("title"), str) and isinstance(v.get("x"), str)
            and isinstance(v.get("edges"), list) and len(v["edges"]) >= 2 and all(numbers(e) for e in v["edges"])
            and isinstance(v.get("counts"), dict) and all(
                isinstance(c, list) and len(c) == len(v["edges"]) - 1 and all(type(n) is int for n in c)
                for c in v["counts"].values())
            and isinstance(v.get("marks"), dict) and all(numbers(m) for m in v["marks"].values()))


# What the report reads of each output, so a damaged one is the user's to fix (one line naming the
# file, the line and the field) rather than a traceback while the page is made.
_STR = "a string", lambda v: isinstance(v, str)
_NUMBER = "a number", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
_OBJECT = "an object", lambda v: isinstance(v, dict)
_STRINGS = "a list of strings", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v)
_ROWS: dict[str, dict[str, _Field]] = {
    "clusters": {"cluster": ("an integer", lambda v: type(v) is int, True), "ids": (*_STRINGS, True),
                 "representative": (*_STR, True),
                 "removed": ("a list of objects with an id", lambda v: isinstance(v, list) and all(
                     isinstance(r, dict) and isinstance(r.get("id"), str) for r in v), False)},
    "pairs": {"a": (*_STR, True), "b": (*_STR, True), "score": (*_NUMBER, True), "relation": (*_STR, False),
              "coverage_a": (*_NUMBER, False), "coverage_b": (*_NUMBER, False)},
    "containments": {"container": (*_STR, True), "contained": (*_STR, True), "score": (*_NUMBER, False)},
    "partials": {"a": (*_STR, True), "b": (*_STR, True), "coverage_a": (*_NUMBER, False),
                 "spans": ("a list of {a_chars: [start, end], b_chars: [start, end]}", lambda v: isinstance(v, list)
                           and all(isinstance(x, dict) and _span(x.get("a_chars")) and _span(x.get("b_chars"))
                                   for x in v), True)},
}
_SUMMARY: dict[str, _Field] = {
    "inputs": ("a list of file names", _STRINGS[1], True), "documents": (*_OBJECT, False),
    "parameters": (*_OBJECT, False), "read_as": (*_OBJECT, False), "warnings": (*_STRINGS, False),
}
_PARAMETERS: dict[str, _Field] = {"extract": (*_STR, False), "threshold": (*_NUMBER, False),
                                  "min_coverage": (*_NUMBER, False)}
_EVAL: dict[str, _Field] = {"reports": ("a list of objects with a method", lambda v: isinstance(v, list) and all(
                                isinstance(r, dict) and isinstance(r.get("method"), str) for r in v), True),
                            "pictures": ("a list of histograms {title, x, edges, counts, marks}", lambda v: isinstance(
                                v, list) and all(_picture(x) for x in v), True)}
_READ_AS: dict[str, _Field] = {"id_field": (*_STR, False), "text_field": (*_STR, False),
                               "html_field": (*_STR, False), "html": ("true or false", lambda v: isinstance(v, bool), False)}


#: What the summary page shows of each job's ``summary.json``.
_SHOWN = ("documents", "pairs", "relations", "relations_listed", "clusters", "documents_in_clusters", "largest_cluster",
          "duplicates_removable", "smallest_removed_coverage", "containments", "parameters", "warnings")


def _checked(row: Any, fields: dict[str, _Field], where: str) -> dict[str, Any]:
    """``row`` when it is a JSON object whose ``fields`` are what the report reads; else a
    :class:`UserError` naming ``where`` and the field."""
    if not isinstance(row, dict):
        raise UserError(f"{where}: not a JSON object")
    for name, (what, ok, required) in fields.items():
        value = row.get(name)
        if value is None:
            if required:
                raise UserError(f"{where}: {name!r} is {'null' if name in row else 'missing'}, must be {what}")
        elif not ok(value):
            raise UserError(f"{where}: {name!r} must be {what}, got {json.dumps(value, default=str)[:60]}")
    return row


def _jsonl(path: Path, fields: dict[str, _Field]) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(path.read_bytes().splitlines(), start=1):
        if line.strip():
            try:
                row = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise UserError(f"{path}:{number}: not a JSON line ({getattr(exc, 'msg', exc)})") from None
            rows.append(_checked(row, fields, f"{path}:{number}"))
    return rows


def _parquet(path: Path, fields: dict[str, _Field]) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    try:
        rows = pq.read_table(path).to_pylist()
    except Exception as exc:  # noqa: BLE001 -- whatever pyarrow met, the file is not readable output
        raise UserError(f"{path}: not a readable Parquet file ({type(exc).__name__}: {exc})") from None
    return [_checked(row, fields, f"{path}: row {number}") for number, row in enumerate(rows, start=1)]


def _json_file(path: Path, what: str) -> Any:
    """The JSON document ``path`` holds (``what`` it should be, for the error if it holds none)."""
    try:
        return json.loads(path.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not {what} ({getattr(exc, 'msg', exc)}): damaged or cut short?") from None


def _summary(path: Path) -> dict[str, Any]:
    """A job's ``summary.json``, checked for what the report reads of it (the inputs to read again, how
    they were read, what the summary table shows)."""
    s = _json_file(path, "a JSON summary")
    _checked(s, _SUMMARY, str(path))
    _checked(s.get("parameters") or {}, _PARAMETERS, f"{path}: parameters")
    _checked(s.get("read_as") or {}, _READ_AS, f"{path}: read_as")
    return s


def collect(folders: Sequence[str | Path]) -> dict[str, Any]:
    """What the output ``folders`` hold: summaries, clusters, pairs, containments, partials, plots.

    Outputs are read in either format the jobs write (``--format jsonl`` or ``parquet``); a file
    that is not what the report reads raises :class:`UserError` naming it (and its line).
    """
    found: dict[str, Any] = {"summaries": {}, "clusters": [], "pairs": [], "containments": [], "partials": [],
                             "plots": {}, "evaluations": [], "pictures": [], "inputs": [], "extract": None,
                             "read_as": None}
    holder: dict[str, Path] = {}  # which folder gave each kind of output (one of each: cluster numbers, plot names)

    def one_of_each(kind: str, folder: Path) -> None:
        if kind in holder and holder[kind] != folder:
            raise UserError(f"{holder[kind]} and {folder} both hold {kind}: a report shows one run of each kind "
                            "(its cluster numbers and plots would mix); make one report per run")
        holder[kind] = folder

    given: dict[Path, Path] = {}
    for f in folders:  # a folder given twice is read once
        given.setdefault(Path(f).resolve(), Path(f))
    for folder in given.values():
        if not folder.is_dir():
            raise UserError(f"{folder}: not a folder of neardup outputs")
        known = False
        for key in ("clusters", "pairs", "containments", "partials"):
            if (folder / f"{key}.jsonl").exists():
                one_of_each(key, folder)
                found[key] += _jsonl(folder / f"{key}.jsonl", _ROWS[key])
                known = True
            elif (folder / f"{key}.parquet").exists():
                one_of_each(key, folder)
                found[key] += _parquet(folder / f"{key}.parquet", _ROWS[key])
                known = True
        if (folder / "eval.json").exists():
            one_of_each("an evaluation (eval.json)", folder)
            evaluation = _checked(_json_file(folder / "eval.json", "a JSON evaluation"), _EVAL, str(folder / "eval.json"))
            found["evaluations"] += evaluation["reports"]
            found["pictures"] += evaluation["pictures"]
            known = True
        for png in sorted(folder.glob("*.png")):
            one_of_each(f"the plot {png.name}", folder)
            found["plots"][png.name] = "data:image/png;base64," + base64.b64encode(png.read_bytes()).decode()
            known = True
        summary = folder / "summary.json"
        if summary.exists():
            s = _summary(summary)
            found["summaries"][str(folder)] = {k: s[k] for k in _SHOWN if k in s}
            if (folder / "pairs.jsonl").exists() or (folder / "pairs.parquet").exists():
                found["pictures"] += dedup_pictures(found["pairs"], s.get("parameters") or {})
            found["inputs"] += [i for i in s["inputs"] if i not in found["inputs"]]
            found["extract"] = found["extract"] or (s.get("parameters") or {}).get("extract")
            found["read_as"] = found["read_as"] or s.get("read_as")
            known = True
        if not known:
            raise UserError(f"{folder}: holds no neardup outputs (summary.json, pairs/clusters/containments/"
                            "partials .jsonl or .parquet, eval.json, or plots)")
    return found


def _wanted_ids(found: dict[str, Any]) -> list[str]:
    """Ids whose texts the report shows, most useful first: partial and containment pairs, then clusters by size."""
    order: dict[str, None] = {}
    for p in found["partials"]:
        order.update({p["a"]: None, p["b"]: None})
    for c in found["containments"]:
        order.update({c["container"]: None, c["contained"]: None})
    for cluster in sorted(found["clusters"], key=lambda c: -len(c["ids"])):
        order.update(dict.fromkeys(cluster["ids"]))
    return list(order)


def load_texts(found: dict[str, Any], extract: str | None, prefer_html: bool, fields: Fields,
               budget: int = TEXT_BUDGET, bar: Progress | None = None) -> dict[str, str]:
    """Texts of the documents the report shows, within ``budget`` characters (the records read counted
    on ``bar``)."""
    from ..extract import DEFAULT_EXTRACTOR
    from ..input_stage import documents
    from ..job import RunStats

    wanted = _wanted_ids(found)
    rank = {i: k for k, i in enumerate(wanted)}
    texts: dict[str, str] = {}
    if not found["inputs"] or not wanted:
        return texts
    missing = [i for i in found["inputs"] if not Path(i).exists()]
    if missing:
        raise UserError(f"{missing[0]}: an input named in summary.json is not there (run report where the job ran)")
    for record, text in documents(read_inputs(found["inputs"], prefer_html, fields), extract or DEFAULT_EXTRACTOR,
                                  RunStats()):
        if bar is not None:
            bar.update(1)
        if record.id in rank:
            texts[record.id] = text
    kept, used = {}, 0
    for i in wanted:  # most useful first, until the budget is spent
        if i in texts and used + len(texts[i]) <= budget:
            kept[i] = texts[i]
            used += len(texts[i])
    return kept


def pair_views(found: dict[str, Any], texts: dict[str, str]) -> list[dict[str, Any]]:
    """Every pair the report can open, with the spans to highlight on each side."""
    views = []
    for p in found["partials"]:  # exactly the located spans
        spans = [{"a": s["a_chars"], "b": s["b_chars"]} for s in p["spans"]]
        views.append({"kind": "partial", "a": p["a"], "b": p["b"], "score": p.get("coverage_a"), "spans": spans})
    for c in found["containments"]:
        views.append({"kind": "containment", "a": c["container"], "b": c["contained"], "score": c.get("score"),
                      "spans": None})
    score = {(p["a"], p["b"]): p["score"] for p in found["pairs"]}
    score.update({(b, a): s for (a, b), s in list(score.items())})
    flip = {"contains": "contained", "contained": "contains"}
    relation = {(p["a"], p["b"]): p["relation"] for p in found["pairs"] if "relation" in p}
    relation.update({(b, a): flip.get(r, r) for (a, b), r in list(relation.items())})
    for cluster in sorted(found["clusters"], key=lambda c: -len(c["ids"])):
        rep = cluster["representative"]
        removed = {r["id"]: r for r in cluster.get("removed", ())}
        for member in cluster["ids"]:
            if member != rep:
                views.append({"kind": "cluster", "a": rep, "b": member, "score": score.get((rep, member)),
                              "relation": relation.get((rep, member)),
                              "removed": member in removed, "spans": None, "cluster": cluster["cluster"]})
    done = 0
    for v in views:
        if v["spans"] is None and v["a"] in texts and v["b"] in texts and done < MAX_HIGHLIGHTED_PAIRS:
            v["spans"] = [{"a": p["a_chars"], "b": p["b_chars"]} for p in shared_passages(texts[v["a"]], texts[v["b"]])]
            done += 1
    return views


def shown(found: dict[str, Any], texts: dict[str, str], views: list[dict[str, Any]], budget: int) -> dict[str, int]:
    """What the report's limits left out, for its summary page to say: the documents it shows and
    how many of their texts are embedded (``budget``), the pairs highlighted and those beyond
    :data:`MAX_HIGHLIGHTED_PAIRS` that show their texts without highlights."""
    with_texts = [v for v in views if v["a"] in texts and v["b"] in texts]
    unhighlighted = sum(v["spans"] is None for v in with_texts)
    return {"documents": len(_wanted_ids(found)), "embedded": len(texts), "budget": budget,
            "highlighted": len(with_texts) - unhighlighted, "unhighlighted": unhighlighted,
            "max_highlighted": MAX_HIGHLIGHTED_PAIRS}


#: Replaced by the page's Content-Security-Policy once the page is rendered (it hashes the app script).
CSP_PLACEHOLDER = "neardup-csp-placeholder"
_APP_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)


def embedded_json(data: Any) -> str:
    """``data`` as JSON safe inside ``<script type="application/json">``: every ``<``, ``>`` and ``&`` is a
    ``\\u`` escape, so no text in it (``</script>``, ``<!--<script>``) can end the element or put the
    HTML tokenizer in a state that swallows the page's own script."""
    text = json.dumps(data, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def content_security_policy(html: str) -> str:
    """The report's policy: nothing loaded from anywhere, no script but the page's own (by its hash),
    inline styles, plots as ``data:`` images."""
    hashes = " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(m.group(1).encode()).digest()).decode()}'"
                      for m in _APP_SCRIPT.finditer(html))
    return (f"default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; img-src data:; "
            "base-uri 'none'; form-action 'none'")


def build_report(folders: Sequence[str | Path], out: str | Path, prefer_html: bool | None = None,
                 fields: Fields | dict[str, str] | None = None, budget: int = TEXT_BUDGET,
                 progress: bool = False) -> Path:
    """Write the report of ``folders`` to ``out`` (one HTML file, written whole); returns its path.

    ``prefer_html`` and ``fields``: how to read the inputs again; by default as the jobs read
    them (``read_as`` in their ``summary.json``), else neardup's defaults.  ``fields`` may also
    name only some of them (``{"text": "body"}``): the others are the jobs'.  ``progress``: count the
    records read again on stderr, then say that the pairs' passages are being found.
    """
    from jinja2 import Environment, PackageLoader, select_autoescape

    from ..io.writers import atomic_file

    found = collect(folders)
    recorded = found["read_as"] or {}
    if not isinstance(fields, Fields):
        given = fields or {}
        fields = Fields(*(given.get(k) or recorded.get(f"{k}_field") or getattr(FIELDS, k) for k in ("id", "text", "html")))
    if prefer_html is None:
        prefer_html = bool(recorded.get("html", False))
    bar = progress_bar(progress)
    try:
        texts = load_texts(found, found["extract"], prefer_html, fields, budget, bar)
        bar.stage("finding the passages the pairs share, to highlight them")
        views = pair_views(found, texts)
    finally:
        bar.close()
    data = {
        "summaries": found["summaries"],
        "clusters": sorted(found["clusters"], key=lambda c: (-len(c["ids"]), c["cluster"])),
        "views": views,
        "texts": texts,
        "plots": found["plots"],
        "evaluations": found["evaluations"],
        "pictures": found["pictures"],
        "shown": shown(found, texts, views, budget),
    }
    env = Environment(loader=PackageLoader("neardup", "report"), autoescape=select_autoescape(["html", "j2"]))
    html = env.get_template("report.html.j2").render(title="neardup report", data=embedded_json(data),
                                                     csp=CSP_PLACEHOLDER)
    html = html.replace(CSP_PLACEHOLDER, content_security_policy(html), 1)
    path = Path(out)
    with atomic_file(path) as tmp:
        Path(tmp).write_text(html, encoding="utf-8")
    return path
