"""Emit the C source of the cffi API-mode extension nabla._C.

    python build_cffi.py MANIFEST.json OUT.c

The cdef comes from the ABI manifest (abi/gen.py) and the compiled code
includes the real header, so the C compiler checks the two against each other.

Two binding-private additions keep host overhead per call low:
- For every `nb_status f(..., nb_tensor** out)` whose `out` the manifest marks
  ["out", 1] there is `nb_tensor* nbpy_f(...)`
  returning the new handle, or NULL after a failure (the status is then in
  nb_last_error_status()). Python thus needs no out-parameter buffer. (A
  function with several outputs keeps its other out-parameters in the twin.)
- The GIL stays held during calls (dropping and re-taking it costs more than a
  whole O(1) call such as a view); the core releases it through the blocking
  hooks nbpy_release_gil / nbpy_acquire_gil, installed at import, around work
  that is big enough to be worth another thread's time.
"""
import re
import sys
from pathlib import Path

import cffi

# nbpy_item_kind(t): 0 float, 1 int, 2 bool, -1 when t is not a one-element tensor.
# nbpy_address(t): the handle as an integer (for nabla._capsule), cheaper than int(ffi.cast(...)).
# nbpy_item_double / nbpy_item_int: the value; on failure NaN / INT64_MIN and
# nbpy_failed() returns 1 (checked only when the sentinel comes back).
ITEM_HELPERS = """
static _Thread_local int32_t nbpy_failed_flag;
static int32_t nbpy_failed(void) { int32_t f = nbpy_failed_flag; nbpy_failed_flag = 0; return f; }
static int32_t nbpy_item_kind(const nb_tensor* t) {
    if (nb_tensor_numel(t) != 1) return -1;
    int32_t d = nb_tensor_dtype(t);
    return nb_dtype_is_floating(d) ? 0 : d == NB_BOOL ? 2 : 1;
}
static double nbpy_item_double(const nb_tensor* t) {
    double v;
    if (nb_tensor_item_double(t, &v) != NB_OK) { nbpy_failed_flag = 1; return NAN; }
    return v;
}
static uintptr_t nbpy_address(const nb_tensor* t) { return (uintptr_t)t; }
static int64_t nbpy_item_int(const nb_tensor* t) {
    int64_t v;
    if (nb_tensor_item_int(t, &v) != NB_OK) { nbpy_failed_flag = 1; return INT64_MIN; }
    return v;
}
"""
ITEM_CDEF = """
int32_t nbpy_failed(void);
int32_t nbpy_item_kind(const nb_tensor* t);
double nbpy_item_double(const nb_tensor* t);
int64_t nbpy_item_int(const nb_tensor* t);
uintptr_t nbpy_address(const nb_tensor* t);
"""
GIL_HOOKS = """
static void* nbpy_release_gil(void) { return PyGILState_Check() ? (void*)PyEval_SaveThread() : NULL; }
static void nbpy_acquire_gil(void* state) { if (state != NULL) PyEval_RestoreThread((PyThreadState*)state); }
"""
GIL_HOOKS_CDEF = """
void* nbpy_release_gil(void);
void nbpy_acquire_gil(void* state);
"""
# Closures that call back into Python (autograd hooks, saved-tensor hooks and custom functions); the
# payload is a cffi handle on the Python object, released by nbpy_payload_release.
CALLBACKS_CDEF = """
extern "Python" nb_status nbpy_hook_call(void* payload, const nb_tensor* grad, nb_tensor** replacement);
extern "Python" nb_status nbpy_post_accumulate_hook_call(void* payload, nb_tensor* t);
extern "Python" nb_status nbpy_custom_backward(void* payload, int32_t n_grad_outputs, nb_tensor* const* grad_outputs,
                                               int32_t n_grad_inputs, nb_tensor** grad_inputs);
extern "Python" void nbpy_payload_release(void* payload);
extern "Python" nb_status nbpy_warning(void* payload, const char* message);
extern "Python" nb_status nbpy_saved_pack(void* payload, const nb_tensor* t, void** packed);
extern "Python" nb_status nbpy_saved_unpack(void* payload, void* packed, nb_tensor** out);
extern "Python" void nbpy_saved_free(void* payload, void* packed);
extern "Python" int64_t nbpy_stack_source(void* payload, char* buf, int64_t cap);
"""


def returning_helpers(gen, functions: list) -> tuple[str, str, dict]:
    """cdef lines, C definitions and {helper: wrapped function} for handle-returning twins."""
    cdef, src, wraps = [], [], {}
    for fn in functions:
        params = fn["params"]
        # The last parameter is one tensor slot written by the call (the manifest's direction and length).
        if (fn["returns"] != "nb_status" or not params or params[-1][0] != "nb_tensor**"
                or fn["pointers"].get(params[-1][1]) != ["out", 1] or fn.get("twin") is False):
            continue
        name = "nbpy_" + fn["name"][3:]
        args = params[:-1]
        proto = f"nb_tensor* {name}({gen._param_list(args)})"
        call = ", ".join([a for _, a in args] + ["&out"])
        cdef.append(proto + ";")
        src.append(f"static {proto} {{\n    nb_tensor* out = NULL;\n"
                   f"    return {fn['name']}({call}) == NB_OK ? out : NULL;\n}}")
        wraps[name] = fn["name"]
    return "\n".join(cdef) + "\n", "\n".join(src) + "\n", wraps


def keep_gil(code: str, names: set) -> str:
    """Removes the GIL release from the generated wrappers of `names`."""
    seen = set()

    def strip(match: re.Match) -> str:
        seen.add(match.group(2))
        body = match.group(0)
        return body.replace("  Py_BEGIN_ALLOW_THREADS\n", "").replace("  Py_END_ALLOW_THREADS\n", "")

    pattern = re.compile(r"(static PyObject \*\n_cffi_f_(\w+)\(PyObject \*self, PyObject \*\w+\)\n\{\n.*?\n\}\n)", re.S)
    out = pattern.sub(lambda m: strip(m) if m.group(2) in names else m.group(0), code)
    missing = names - seen
    if missing:  # the generated layout changed: fail loudly rather than release the GIL silently
        raise SystemExit(f"build_cffi: no generated wrapper found for {sorted(missing)}")
    return out


def main(manifest: str, out: str) -> None:
    sys.path.insert(0, str(Path(manifest).resolve().parent))
    import gen  # abi/gen.py

    m = gen.load(Path(manifest))
    functions = m["functions"] + m["ops"]
    helper_cdef, helper_src, wraps = returning_helpers(gen, functions)

    ffi = cffi.FFI()
    ffi.cdef(gen.cdef(m) + helper_cdef + ITEM_CDEF + GIL_HOOKS_CDEF + CALLBACKS_CDEF)
    # The hooks need the full C API (PyGILState_Check): meson defines _CFFI_NO_LIMITED_API.
    ffi.set_source("nabla._C", '#include <math.h>\n#include "nabla.h"\n' + helper_src + ITEM_HELPERS + GIL_HOOKS)
    ffi.emit_c_code(out)

    every = ({fn["name"] for fn in functions} | set(wraps) |
             {"nbpy_failed", "nbpy_item_kind", "nbpy_item_double", "nbpy_item_int", "nbpy_address"})
    path = Path(out)
    path.write_text(keep_gil(path.read_text(), every))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
