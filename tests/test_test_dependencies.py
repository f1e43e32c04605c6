"""The README's test command (`pip install ".[test]" && python -m pytest -n auto`) works on a fresh machine: every
third-party module that the test command imports (tests/, the conformance suite
and the fuzzers it runs) is a runtime dependency or in the `test` extra."""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ["tests", "conformance"]
# Import name -> distribution name, where they differ.
DISTRIBUTION = {"yaml": "pyyaml", "PIL": "pillow"}
# Imported only by tests that need a GPU, through pytest.importorskip, so that
# they are skipped with the reason where the module is missing: CuPy has no
# CPU build, and a machine without a GPU could not use it.
GPU_ONLY = {"cupy"}


def _requirements() -> set[str]:
    text = (ROOT / "pyproject.toml").read_text()
    project = text[text.index("[project]"):]
    deps = re.search(r"^dependencies = \[(.*?)\]", project, re.M | re.S).group(1)
    test = re.search(r"^test = \[(.*?)\]", project, re.M | re.S).group(1)
    names = re.findall(r'"([A-Za-z0-9_.-]+)', deps + test)
    return {n.lower().replace("_", "-") for n in names}


def _local_names() -> set[str]:
    names = {"nabla"}
    for path in ROOT.rglob("*.py"):
        if not any(part.startswith(("build", ".")) for part in path.relative_to(ROOT).parts):
            names.add(path.stem)
            names.add(path.parent.name)
    return names


def _imports() -> dict[str, str]:
    found: dict[str, str] = {}
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    mods = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    mods = [node.module]
                elif (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "importorskip"
                      and node.args and isinstance(node.args[0], ast.Constant)):
                    mods = [node.args[0].value]
                else:
                    continue
                for mod in mods:
                    found.setdefault(mod.split(".")[0], str(path.relative_to(ROOT)))
    return found


def test_every_third_party_import_is_installed_by_the_test_extra():
    required = _requirements()
    local = _local_names()
    missing = {}
    for mod, where in _imports().items():
        if mod in sys.stdlib_module_names or mod in local or mod == "__future__" or mod in GPU_ONLY:
            continue
        dist = DISTRIBUTION.get(mod, mod).lower().replace("_", "-")
        if dist not in required:
            missing[mod] = where
    assert not missing, f"imported by the tests but not in pyproject's dependencies or `test` extra: {missing}"


def test_gpu_only_modules_are_imported_only_through_importorskip():
    for path in sorted((ROOT / "tests").rglob("*.py")):
        text = path.read_text()
        for mod in GPU_ONLY:
            assert not re.search(rf"^\s*(import|from) {mod}\b", text, re.M), f"{path.name} imports {mod} directly"


def test_the_scan_sees_the_known_test_dependencies():
    imports = _imports()
    assert {"pytest", "numpy", "torch", "scipy", "safetensors"} <= set(imports)


def _readme_test_command() -> str:
    text = (ROOT / "README.md").read_text()
    block = text[text.index("<!-- test-command -->"):text.index("<!-- /test-command -->")]
    return re.search(r"```sh\n(.*?)```", block, re.S).group(1)


def test_pytest_plugins_the_test_command_uses_are_in_the_test_extra():
    command = _readme_test_command()
    assert "pytest" in command
    if re.search(r"(^|\s)(-n|--numprocesses)(\s|=)", command):
        assert "pytest-xdist" in _requirements(), "the test command runs workers (-n): pytest-xdist must be in `test`"
