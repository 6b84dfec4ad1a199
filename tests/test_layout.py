"""The house's rules that a reader cannot see at a glance: no import cycles, tasks apart, short modules.

Imports are counted over every import a module makes, at its top or inside a function (a
function-level import still ties two modules together), except those under ``if
TYPE_CHECKING``.  The tasks (``contain``, ``partial``, ``online``) import none of each other:
what they share lives beside them (the aligner in ``align``, PDC in ``pdc``, simulator truth
in ``evaluate``, windows in ``windows``); engines import no task (a task composes what an
engine offers).  A module over 400 lines says why in its docstring (a paragraph starting
"Length:").
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "neardup"
MAX_LINES = 400


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(x) for n in ast.walk(tree) if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"
                   for b in n.body for x in ast.walk(b)}
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rsplit(".", 1)[0]
            target = (f"{base}.{node.module}" if node.module else base) if node.level else node.module
            found.update(f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target for a in node.names)
    return {m for m in found if m in modules and m != name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _cycles(graph) == []


#: Packages of one task each: none imports another, and no engine imports any.
TASKS = ("neardup.contain", "neardup.partial", "neardup.online")


def _package(module: str, packages: tuple[str, ...]) -> str | None:
    return next((p for p in packages if module == p or module.startswith(p + ".")), None)


def _crossings(graph: dict[str, set[str]]) -> list[str]:
    """Imports from one task's package into another's, and from ``neardup.engines`` into a task's."""
    out = []
    for name, targets in sorted(graph.items()):
        home = _package(name, TASKS) or _package(name, ("neardup.engines",))
        for target in sorted(targets):
            there = _package(target, TASKS)
            if home is not None and there is not None and there != home:
                out.append(f"{name} -> {target}")
    return out


def test_crossing_finder_finds_a_crossing():
    graph = {"neardup.partial.run": {"neardup.contain.truth", "neardup.partial.cli", "neardup.align.aligner"},
             "neardup.engines.spark": {"neardup.partial.detector"}, "neardup.cli": {"neardup.online.cli"}}
    assert _crossings(graph) == ["neardup.engines.spark -> neardup.partial.detector",
                                 "neardup.partial.run -> neardup.contain.truth"]


def test_tasks_import_none_of_each_other_and_engines_import_no_task():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _crossings(graph) == []


def test_long_modules_say_why():
    unexplained = []
    for name, path in _modules().items():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > MAX_LINES:
            doc = ast.get_docstring(ast.parse(text)) or ""
            if "Length:" not in doc:
                unexplained.append(f"{name}: {text.count(chr(10))} lines")
    assert unexplained == []


def _method_switches(source: str, names: set[str]) -> list[str]:
    """Where ``source`` asks a detection method for its name or its private state: a comparison of
    a ``.name`` (or a variable called ``name``) with a registered method's name, or an attribute
    starting with ``_`` read off something called ``method``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            asks_name = any((isinstance(o, ast.Attribute) and o.attr == "name") or (isinstance(o, ast.Name) and o.id == "name")
                            for o in operands)
            literals = {c.value for o in operands for c in ast.walk(o) if isinstance(c, ast.Constant)}
            if asks_name and literals & names:
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            owner_name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
            if owner_name == "method":
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_method_switch_finder_finds_switches():
    names = {"minhash", "simhash"}
    assert _method_switches("if method.name == 'simhash':\n    k = method._top\n", names) == [
        "line 1: method.name == 'simhash'", "line 2: method._top"]
    assert _method_switches("name = method.name\nif name in ('minhash', 'x'):\n    pass\n", names) != []
    assert _method_switches("if self.signature == 'imatch' or plan.kind == 'keys':\n    pass\n", names) == []


def test_no_switch_on_method_names_outside_methods():
    """Engines and indexes read what a method declares (``corpus_statistics``, ``candidate_plan``),
    never its name or private state (issue 31): adding a method edits ``methods/`` only."""
    from neardup.methods import REGISTRY

    found = []
    for name, path in _modules().items():
        if not name.startswith("neardup.methods"):
            found += [f"{name} {where}" for where in _method_switches(path.read_text(encoding="utf-8"), set(REGISTRY))]
    assert found == []
