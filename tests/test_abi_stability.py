"""The ABI lock (abi/abi_lock.json): the build matches it, and a change is reported
as a diff that must be acknowledged, or refused from 1.0 on when it breaks binaries."""
from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "abi"))
import stability  # noqa: E402

needs_tools = pytest.mark.skipif(shutil.which("cc") is None or shutil.which("nm") is None,
                                 reason="needs cc and nm")


@pytest.fixture(scope="module")
def lock():
    return json.loads(stability.LOCK.read_text())


@needs_tools
def test_build_matches_the_lock():
    result = subprocess.run([sys.executable, str(ROOT / "abi" / "stability.py"), "check"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_lock_records_signatures_ownership_versions_layouts_and_constants(lock):
    add = lock["functions"]["nb_add"]
    assert add["signature"].startswith("nb_status nb_add(const nb_tensor* a")
    assert add["ownership"] == "out: new reference (nb_tensor_release)" and add["since"]
    assert "borrowed string" in lock["functions"]["nb_last_error_message"]["ownership"]
    stats = lock["structs"]["nb_memory_stats"]
    assert stats["offsets"]["struct_size"] == 0 and stats["size"] >= 8 * len(stats["offsets"]) - 8
    assert lock["constants"]["NB_ERR_SHAPE"] == 2 and lock["constants"]["NB_BF16"] == 3


def _changed(lock, version="0.1.0"):
    now = copy.deepcopy(lock)
    now["version"] = version
    del now["functions"]["nb_sub"]
    now["functions"]["nb_mul"]["signature"] = now["functions"]["nb_mul"]["signature"].replace("dst", "into")
    now["functions"]["nb_new_thing"] = {"signature": "nb_status nb_new_thing(void)", "ownership": "nothing",
                                        "since": version}
    now["structs"]["nb_memory_stats"]["size"] += 8
    now["constants"]["NB_ERR_SHAPE"] = 12
    return now


def test_a_change_prints_a_diff_to_acknowledge(lock):
    lines, breaking = stability.diff(lock, _changed(lock))
    text = "\n".join(lines)
    assert "- function nb_sub: removed" in text
    assert "~ function nb_mul:" in text and "+ function nb_new_thing: added" in text
    assert "~ struct nb_memory_stats:" in text and "~ constant NB_ERR_SHAPE: 2 -> 12" in text
    assert len(breaking) == 4 and not any("nb_new_thing" in b for b in breaking)
    problems = stability.check(lock, _changed(lock), None, stability.installed_paths()[0])
    assert any("acknowledge" in p for p in problems)
    assert not any("breaking changes within" in p for p in problems)  # before 1.0 a diff is enough


def test_from_1_0_breaking_changes_fail_and_cannot_be_written(lock, tmp_path):
    old = copy.deepcopy(lock)
    old["version"] = "1.0.0"
    now = _changed(lock, "1.0.0")
    problems = stability.check(old, now, None, stability.installed_paths()[0])
    assert any("breaking changes within major version 1" in p for p in problems)
    refused = stability.write(tmp_path / "lock.json", now, old)
    assert refused and "refusing to write" in refused[0] and not (tmp_path / "lock.json").exists()
    assert stability.write(tmp_path / "lock.json", _changed(lock, "2.0.0"), old) == []  # a new major may break


def test_from_1_0_additions_are_accepted(lock, tmp_path):
    old = copy.deepcopy(lock)
    old["version"] = "1.0.0"
    now = copy.deepcopy(old)
    now["version"] = "1.1.0"
    now["functions"]["nb_new_thing"] = {"signature": "nb_status nb_new_thing(void)", "ownership": "nothing",
                                        "since": "1.1.0"}
    assert stability.diff(old, now)[1] == []
    assert stability.write(tmp_path / "lock.json", now, old) == []


def test_a_const_on_a_pointee_is_not_breaking_but_a_type_is(lock):
    """`const nb_tensor* const*` -> `nb_tensor* const*` passes the same address: old binaries keep working (so
    nb_backward could take &loss without a cast); a changed type or pointer depth still breaks."""
    old = copy.deepcopy(lock)
    old["version"] = "1.0.0"
    sig = old["functions"]["nb_backward"]["signature"]
    old["functions"]["nb_backward"]["signature"] = sig.replace("nb_tensor* const*", "const nb_tensor* const*")
    now = copy.deepcopy(old)
    now["functions"]["nb_backward"]["signature"] = sig
    lines, breaking = stability.diff(old, now)
    assert breaking == [] and any("nb_backward" in line and "(not breaking)" in line for line in lines)
    now["functions"]["nb_backward"]["signature"] = sig.replace("int32_t n,", "int64_t n,")
    assert len(stability.diff(old, now)[1]) == 1
    now["functions"]["nb_backward"]["signature"] = sig.replace("nb_tensor* const* outputs", "nb_tensor* outputs")
    assert len(stability.diff(old, now)[1]) == 1
