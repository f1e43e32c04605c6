"""Maps the Python package: its top-level import graph (static, from the AST) and its cycles.

    python tools/package_map.py            # the cycles among nabla's modules, and each module's imports
    python tools/package_map.py --methods  # also which module attaches which Tensor attribute (imports nabla)

An edge A -> B means that executing A's module body imports B: `import`/`from` statements at
module level (also inside `if`/`try`/`with` and class bodies, which run at import time), not
inside functions and not under `if TYPE_CHECKING:`. Importing a.b.c also runs a and a.b; those
implicit parent edges count unless the parent is a package A sits in (already being imported).
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "bindings" / "python" / "nabla"
ROOT = "nabla"


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package: dotted name -> file (compiled ones included, as leaves)."""
    found = {}
    build = package.parent / "meson.build"  # a source tree: extensions are built elsewhere
    names = re.findall(r"extension_module\('(\w+)'", build.read_text()) if build.exists() else []
    names += [p.name.partition(".")[0] for p in package.glob("*.so")]
    for name in names:
        found[f"{ROOT}.{name}"] = package / f"{name}.so"
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_package(name: str, mods: dict[str, Path]) -> bool:
    return mods[name].name == "__init__.py"


def _top_level_imports(tree: ast.Module):
    """The Import/ImportFrom nodes that run when the module body runs."""
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else None
            if name != "TYPE_CHECKING":
                todo[:0] = node.body + node.orelse
        elif isinstance(node, ast.Try):
            todo[:0] = node.body + [n for h in node.handlers for n in h.body] + node.orelse + node.finalbody
        elif isinstance(node, (ast.With, ast.ClassDef, ast.For, ast.While)):
            todo[:0] = node.body + getattr(node, "orelse", [])


def _resolve(importer: str, node: ast.ImportFrom, mods: dict[str, Path]) -> str:
    base = importer if _is_package(importer, mods) else importer.rpartition(".")[0]
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    if node.level == 0:
        return node.module or ""
    return f"{base}.{node.module}" if node.module else base


def _with_parents(target: str, importer: str, mods: dict[str, Path]):
    """target and the packages above it that importing it runs, less those importer sits in."""
    parts = target.split(".")
    for i in range(1, len(parts) + 1):
        name = ".".join(parts[:i])
        if name in mods and (name == target or not (importer == name or importer.startswith(name + "."))):
            yield name


def _local_imports(tree: ast.Module):
    """The Import/ImportFrom nodes inside functions: they run when the function is called."""
    top = set(map(id, _top_level_imports(tree)))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top:
            yield node


def import_graph(mods: dict[str, Path] | None = None, local: bool = False) -> dict[str, set[str]]:
    """module -> the nabla modules its body imports (local: those its functions import instead)."""
    mods = mods or modules()
    graph: dict[str, set[str]] = {}
    pick = _local_imports if local else _top_level_imports
    for name, path in mods.items():
        edges = graph[name] = set()
        if path.suffix != ".py":
            continue
        for node in pick(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                source = _resolve(name, node, mods)
                targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in mods else source for a in node.names]
            for target in targets:
                if target == ROOT or target.startswith(ROOT + "."):
                    edges.update(m for m in _with_parents(target, name, mods) if m != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        v = todo.pop()
        if v == goal:
            return True
        if v not in seen:
            seen.add(v)
            todo.extend(graph.get(v, ()))
    return False


def deferred_cycles(graph: dict[str, set[str]] | None = None,
                    local: dict[str, set[str]] | None = None) -> list[tuple[str, str]]:
    """(A, B) for each function-local import in A of a module B that imports A back at top level:
    an import put in a function to dodge a cycle."""
    graph = graph or import_graph()
    local = local or import_graph(local=True)
    return sorted((a, b) for a, targets in local.items() for b in targets
                  if b not in graph[a] and _reaches(graph, b, a))


def method_setters() -> dict[str, list[str]]:
    """Tensor attribute -> the modules whose bodies set it, in order (the last one's value stays),
    found by running `import nabla` under an import hook; needs nabla importable."""
    import importlib.abc
    import importlib.util

    setters: dict[str, list[str]] = {}
    claimed: list[set[str]] = [set()]  # per running module: attributes its nested imports set

    def snapshot() -> dict[str, int]:
        cls = getattr(sys.modules.get("nabla._tensor"), "Tensor", None)
        return {k: id(v) for k, v in vars(cls).items()} if cls is not None else {}

    class Recorder(importlib.abc.MetaPathFinder):
        def find_spec(self, fullname, path, target=None):
            if fullname != ROOT and not fullname.startswith(ROOT + "."):
                return None
            sys.meta_path.remove(self)
            try:
                spec = importlib.util.find_spec(fullname)
            finally:
                sys.meta_path.insert(0, self)
            if spec is None or not hasattr(spec.loader, "exec_module"):
                return spec
            inner = spec.loader

            class Loader(importlib.abc.Loader):
                def create_module(self, s):
                    return inner.create_module(s)

                def exec_module(self, module):
                    before = snapshot()
                    claimed.append(set())
                    try:
                        inner.exec_module(module)
                    finally:
                        nested = claimed.pop()
                        after = snapshot()
                        changed = {k for k, v in after.items() if before.get(k) != v}
                        for k in sorted(changed - nested):
                            setters.setdefault(k, []).append(fullname)
                        claimed[-1].update(changed)

            spec.loader = Loader()
            return spec

    sys.meta_path.insert(0, Recorder())
    __import__(ROOT)
    return setters


def main(argv: list[str]) -> int:
    graph = import_graph()
    found = cycles(graph)
    print(f"{len(graph)} modules, {sum(map(len, graph.values()))} top-level import edges, {len(found)} cycles")
    for component in found:
        print("cycle:", " ".join(component))
        for m in component:
            print(f"    {m} -> {', '.join(sorted(graph[m] & set(component)))}")
    deferred = deferred_cycles(graph)
    print(f"{len(deferred)} function-local imports of a module that imports the importer back:")
    for a, b in deferred:
        print(f"    {a} -> {b}")
    if "--methods" in argv:
        setters = method_setters()
        by_module: dict[str, list[str]] = {}
        for attr, mods in setters.items():
            by_module.setdefault(mods[-1], []).append(attr)
        print(f"{len(setters)} Tensor attributes, set by {len(by_module)} modules:")
        for module, attrs in sorted(by_module.items(), key=lambda kv: -len(kv[1])):
            print(f"    {module}: {len(attrs)}")
        for attr, mods in sorted(setters.items()):
            if len(mods) > 1:
                print(f"    {attr} set by {' then '.join(mods)}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
