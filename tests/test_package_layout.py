"""The Python package's layout (bindings/python/nabla/README.md): module imports run one way, the
tensor core imports nothing above it, and every Tensor method is bound in one place."""
from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import nabla

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import package_map  # noqa: E402

PACKAGE = Path(nabla.__file__).resolve().parent

# The tensor core, lowest layer first: each may import (at top level or in a function) only the ones before it.
CORE = ("nabla._C", "nabla._lib", "nabla._warnings", "nabla._dtype", "nabla._device", "nabla._size", "nabla._format",
        "nabla._layout", "nabla._tensor")


@pytest.fixture(scope="module")
def mods():
    return package_map.modules(PACKAGE)


def test_the_cycle_finder_finds_a_cycle(tmp_path):
    pkg = tmp_path / "nabla"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import a\n")
    (pkg / "a.py").write_text("from .sub import b\n\ndef f():\n    from . import c\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("from .. import Tensor\n")  # a name from the package: runs nabla/__init__
    (pkg / "c.py").write_text("from . import a\n")
    found = package_map.modules(pkg)
    graph = package_map.import_graph(found)
    assert package_map.cycles(graph) == [["nabla", "nabla.a", "nabla.sub.b"]]
    assert package_map.deferred_cycles(graph, package_map.import_graph(found, local=True)) == [("nabla.a", "nabla.c")]


def test_top_level_imports_are_acyclic(mods):
    graph = package_map.import_graph(mods)
    assert sum(map(len, graph.values())) > 300  # the graph was read, not empty
    assert package_map.cycles(graph) == []


def test_the_tensor_core_imports_nothing_above_it(mods):
    graph, local = package_map.import_graph(mods), package_map.import_graph(mods, local=True)
    for i, name in enumerate(CORE):
        if name in graph:
            above = (graph[name] | local[name]) - set(CORE[:i])
            assert not above, f"{name} imports {sorted(above)}"


def _class_body_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor").body
    names = {"__module__", "__qualname__", "__doc__", "__slots__", "__weakref__", "_h", "_shape"}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


def test_every_tensor_method_is_bound_in_the_designated_place():
    """A fresh interpreter records which module's body set each Tensor attribute during `import nabla`:
    the class body of _tensor.py or _tensor_methods.py, once each."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import package_map; "
            "print(json.dumps(package_map.method_setters()))")
    out = subprocess.run([sys.executable, "-c", code, str(Path(package_map.__file__).parent)], check=True,
                         capture_output=True, text=True).stdout
    setters = json.loads(out.splitlines()[-1])
    assert set(setters) == set(vars(nabla.Tensor)), "the recorder saw every attribute"
    elsewhere = {name: mods for name, mods in setters.items()
                 if mods not in (["nabla._tensor"], ["nabla._tensor_methods"])}
    assert not elsewhere, f"Tensor attributes set outside _tensor.py / _tensor_methods.py, or twice: {elsewhere}"
    in_core = {name for name, mods in setters.items() if mods == ["nabla._tensor"]}
    assert in_core == _class_body_names(PACKAGE / "_tensor.py") & set(vars(nabla.Tensor))
    assert {"softmax", "__add__", "__getitem__", "copy_", "backward"} <= set(setters)
    assert setters["softmax"] == ["nabla._tensor_methods"]


def test_the_binder_refuses_a_second_binding():
    from nabla import _tensor_methods
    with pytest.raises(RuntimeError, match="Tensor.softmax is bound twice"):
        _tensor_methods._bind({"softmax": lambda self: self})
