"""Every pointer parameter of the ABI manifest carries an explicit direction and length
("pointers"), so a binding is generated without guessing; abi/gen.py refuses one without."""
from __future__ import annotations

import copy
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "abi"))
import gen  # noqa: E402

M = gen.load()
ENTRIES = {e["name"]: e for e in M["functions"] + M["ops"] + [t for t in M["types"] if t["kind"] == "callback"]}
HANDLES = gen.handle_types(M)


def _pointer_params():
    for name, fn in ENTRIES.items():
        for ctype, pname in fn["params"]:
            if "*" in ctype:
                yield name, ctype, pname


def test_every_pointer_parameter_has_direction_and_length():
    missing, seen = [], 0
    for name, ctype, pname in _pointer_params():
        base = re.sub(r"\bconst\b|\*", " ", ctype).split()[0]
        if base in HANDLES and ctype.count("*") == 1:
            assert pname not in ENTRIES[name].get("pointers", {}), f"{name}: handle {pname} is a value"
            continue
        seen += 1
        spec = ENTRIES[name].get("pointers", {}).get(pname)
        if spec is None or spec[0] not in ("in", "out", "inout") or spec[1] in (None, "", 0):
            missing.append(f"{name}({ctype} {pname}): {spec}")
    assert not missing, "\n".join(missing)
    assert seen > 300  # every nb_tensor** out, arrays, strings, out-values...
    assert gen.pointer_errors(M) == []


def _ptr(name, pname):
    return ENTRIES[name]["pointers"][pname]


@pytest.mark.parametrize("name, pname, spec", [
    # the cases the old "followed by a count" rule could not tell
    ("nb_tensor_from_external", "shape", ["in", "ndim"]),
    ("nb_tensor_from_external", "strides", ["in", "ndim"]),
    ("nb_tensor_as_strided", "strides", ["in", "ndim"]),
    ("nb_backward", "outputs", ["in", "n"]),
    ("nb_backward", "grad_outputs", ["in", "n"]),
    ("nb_autograd_grad", "grads", ["out", "n_inputs"]),
    ("nb_clip_grad_norm_", "grads", ["in", "n"]),  # nb_tensor* const*: an input array
    ("nb_cat", "tensors", ["in", "n"]),
    ("nb_max_pool2d", "kernel_size", ["in", 2]),
    ("nb_conv2d", "padding", ["in", 4]),
    ("nb_argmax", "dim", ["in", "scalar-optional"]),
    ("nb_sum", "dims", ["in", "ndims"]),
    ("nb_save", "meta_values", ["in", "n_meta"]),
    ("nb_tensor_copy_to_host", "dst", ["out", "nbytes"]),
    ("nb_memory_stats_get", "out", ["inout", 1]),
    ("nb_tensor_item_double", "out", ["out", 1]),
    ("nb_checkpoint_get", "name", ["in", "string"]),
    ("nb_add", "out", ["out", 1]),
    ("nb_custom_backward_fn", "grad_inputs", ["out", "n_grad_inputs"]),
])
def test_known_pointer_parameters(name, pname, spec):
    assert _ptr(name, pname) == spec


def _broken(mutate) -> list[str]:
    m = copy.deepcopy(M)
    mutate({e["name"]: e for e in m["functions"] + m["ops"]})
    return gen.pointer_errors(m)


def test_validator_refuses_missing_and_bad_entries():
    assert any("nb_cat" in e and "'tensors'" in e
               for e in _broken(lambda f: f["nb_cat"]["pointers"].pop("tensors")))
    assert any("direction 'sideways'" in e
               for e in _broken(lambda f: f["nb_cat"]["pointers"].__setitem__("tensors", ["sideways", "n"])))
    assert any("'n_things' names no parameter" in e
               for e in _broken(lambda f: f["nb_cat"]["pointers"].__setitem__("tensors", ["in", "n_things"])))
    assert any("length 0 must be at least 1" in e
               for e in _broken(lambda f: f["nb_conv2d"]["pointers"].__setitem__("stride", ["in", 0])))
    assert any("cannot be 'out'" in e
               for e in _broken(lambda f: f["nb_conv2d"]["pointers"].__setitem__("stride", ["out", 2])))
    assert any("'dim' is a int32_t" in e or "not a pointer parameter" in e
               for e in _broken(lambda f: f["nb_sum"]["pointers"].__setitem__("keepdim", ["in", 1])))
    assert any("is a double, not an integer" in e
               for e in _broken(lambda f: f["nb_add"]["pointers"].__setitem__("out", ["out", "alpha"])))


def test_gen_check_fails_on_a_missing_entry(tmp_path, monkeypatch):
    m = copy.deepcopy(M)
    next(f for f in m["ops"] if f["name"] == "nb_cat")["pointers"].pop("tensors")
    with pytest.raises(SystemExit, match="nb_cat: pointer parameter 'tensors'"):
        gen._outputs(m)
