/* nabla._capsule: the Python side of DLPack that cffi cannot express (it has no
 * PyObject): wrapping an exported DLPack struct in a PyCapsule with the
 * protocol's names and destructor, and consuming a producer's capsule.
 * Tensor handles cross as integer addresses; statuses and messages stay in
 * libnabla's thread-local error (Python raises from it). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "nabla.h"
#include "nabla/dlpack.h"

static const char VERSIONED[] = "dltensor_versioned";
static const char USED_VERSIONED[] = "used_dltensor_versioned";
static const char LEGACY[] = "dltensor";
static const char USED_LEGACY[] = "used_dltensor";

/* A capsule nobody consumed still owns its struct: run the producer's deleter.
 * Consumed capsules were renamed "used_..." and own nothing. */
static void destroy_versioned(PyObject* capsule) {
    if (PyCapsule_IsValid(capsule, USED_VERSIONED)) return;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    DLManagedTensorVersioned* m = PyCapsule_GetPointer(capsule, VERSIONED);
    if (m == NULL) PyErr_WriteUnraisable(capsule);
    else if (m->deleter != NULL) m->deleter(m);
    PyErr_Restore(type, value, traceback);
}

static void destroy_legacy(PyObject* capsule) {
    if (PyCapsule_IsValid(capsule, USED_LEGACY)) return;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    DLManagedTensor* m = PyCapsule_GetPointer(capsule, LEGACY);
    if (m == NULL) PyErr_WriteUnraisable(capsule);
    else if (m->deleter != NULL) m->deleter(m);
    PyErr_Restore(type, value, traceback);
}

/* export(handle, versioned, device_type, device_index, copy) -> capsule, or None
 * when libnabla refused (its last error says why). */
static PyObject* export_capsule(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "export() takes 5 arguments");
        return NULL;
    }
    const nb_tensor* t = PyLong_AsVoidPtr(args[0]);
    int versioned = PyObject_IsTrue(args[1]);
    long device_type = PyLong_AsLong(args[2]), device_index = PyLong_AsLong(args[3]), copy = PyLong_AsLong(args[4]);
    if (PyErr_Occurred()) return NULL;
    void* managed = NULL;
    nb_status st = versioned ? nb_tensor_to_dlpack_versioned(t, (int32_t)device_type, (int32_t)device_index,
                                                             (int32_t)copy, &managed)
                             : nb_tensor_to_dlpack(t, (int32_t)device_type, (int32_t)device_index, (int32_t)copy,
                                                   &managed);
    if (st != NB_OK) Py_RETURN_NONE;
    PyObject* capsule = PyCapsule_New(managed, versioned ? VERSIONED : LEGACY,
                                      versioned ? destroy_versioned : destroy_legacy);
    if (capsule == NULL) {  /* the struct is still ours to release */
        if (versioned) ((DLManagedTensorVersioned*)managed)->deleter(managed);
        else ((DLManagedTensor*)managed)->deleter(managed);
    }
    return capsule;
}

/* consume(capsule) -> handle address; 0 when libnabla refused the tensor (the
 * capsule then keeps ownership). A capsule is renamed "used_..." only once
 * nabla owns its struct, so it cannot be consumed twice. */
static PyObject* consume_capsule(PyObject* self, PyObject* capsule) {
    (void)self;
    if (!PyCapsule_CheckExact(capsule)) {
        PyErr_Format(PyExc_TypeError, "from_dlpack: expected a DLPack capsule or an object with __dlpack__, got %s",
                     Py_TYPE(capsule)->tp_name);
        return NULL;
    }
    const char* name = PyCapsule_GetName(capsule);
    if (name == NULL && PyErr_Occurred()) return NULL;
    const int versioned = name != NULL && strcmp(name, VERSIONED) == 0;
    if (!versioned && (name == NULL || strcmp(name, LEGACY) != 0)) {
        if (name != NULL && (strcmp(name, USED_VERSIONED) == 0 || strcmp(name, USED_LEGACY) == 0))
            PyErr_SetString(PyExc_RuntimeError,
                            "from_dlpack received an invalid capsule: it was already consumed (a DLPack capsule "
                            "can be consumed only once)");
        else
            PyErr_Format(PyExc_RuntimeError,
                         "from_dlpack received an invalid capsule: expected the name 'dltensor_versioned' or "
                         "'dltensor', got %s%s%s", name ? "'" : "", name ? name : "none", name ? "'" : "");
        return NULL;
    }
    void* managed = PyCapsule_GetPointer(capsule, name);
    if (managed == NULL) return NULL;
    nb_tensor* t = NULL;
    nb_status st = versioned ? nb_tensor_from_dlpack_versioned(managed, &t) : nb_tensor_from_dlpack(managed, &t);
    if (st != NB_OK) return PyLong_FromLong(0);
    if (PyCapsule_SetName(capsule, versioned ? USED_VERSIONED : USED_LEGACY) != 0) {
        PyErr_Clear();  /* cannot happen for a valid capsule; keep ownership single either way */
    }
    return PyLong_FromVoidPtr(t);
}

/* ---- NumPy arrays through the buffer protocol ---- */

/* nabla's dtype of a buffer's struct format: one native-order code, -1 for any other. */
static int32_t dtype_of_format(const char* f, Py_ssize_t itemsize) {
    if (f == NULL) return NB_U8;
    if (f[0] == '@' || f[0] == '=' || f[0] == '<') f++;  /* little-endian hosts only (nabla's) */
    if (f[0] == '\0' || f[1] != '\0') return -1;
    switch (f[0]) {
        case 'f': return NB_F32;
        case 'd': return NB_F64;
        case 'e': return NB_F16;
        case 'b': return NB_I8;
        case 'h': return itemsize == 2 ? NB_I16 : -1;
        case 'i': return itemsize == 4 ? NB_I32 : -1;
        case 'l': case 'q': return itemsize == 8 ? NB_I64 : -1;
        case 'B': return NB_U8;
        case '?': return NB_BOOL;
        default: return -1;
    }
}

/* The deleter of a wrapped buffer: releases the exporter's view under the GIL,
 * from whichever thread drops nabla's last reference. After the interpreter
 * has begun finalizing, the view is left (the process is ending). */
static void release_view(void* payload) {
    Py_buffer* view = payload;
#if PY_VERSION_HEX >= 0x030D0000
    const int finalizing = Py_IsFinalizing();
#else
    const int finalizing = _Py_IsFinalizing();
#endif
    if (!finalizing) {
        PyGILState_STATE g = PyGILState_Ensure();
        PyBuffer_Release(view);
        PyGILState_Release(g);
    }
    PyMem_RawFree(view);
}

/* wrap_buffer(array) -> handle address of a CPU tensor on the array's memory
 * (holding its buffer until nabla's last reference goes), or None where the
 * exchange is not that simple (read-only, empty, a dtype nabla lacks,
 * negative or uneven strides, too many dims): the caller takes the DLPack
 * path, which handles or refuses those. */
static PyObject* wrap_buffer(PyObject* self, PyObject* obj) {
    (void)self;
    Py_buffer* view = PyMem_RawMalloc(sizeof *view);
    if (view == NULL) return PyErr_NoMemory();
    if (PyObject_GetBuffer(obj, view, PyBUF_RECORDS) != 0) {  /* read-only arrays refuse a writable view */
        PyErr_Clear();
        PyMem_RawFree(view);
        Py_RETURN_NONE;
    }
    const int32_t dtype = dtype_of_format(view->format, view->itemsize);
    int64_t shape[NB_MAX_DIMS], strides[NB_MAX_DIMS];
    int ok = dtype >= 0 && view->len > 0 && view->ndim <= NB_MAX_DIMS && view->itemsize == (Py_ssize_t)nb_dtype_size(dtype);
    for (int d = 0; ok && d < view->ndim; d++) {
        shape[d] = view->shape[d];
        const Py_ssize_t s = view->strides ? view->strides[d] : 0;
        ok = s >= 0 && s % view->itemsize == 0;
        strides[d] = s / view->itemsize;
    }
    nb_tensor* t = NULL;
    if (ok && view->strides != NULL &&
        nb_tensor_from_external(view->buf, shape, strides, view->ndim, dtype, NB_CPU, 0, release_view, view, &t) ==
            NB_OK) {
        PyObject* addr = PyLong_FromVoidPtr(t);
        if (addr == NULL) nb_tensor_release(t);  /* runs release_view */
        return addr;
    }
    PyBuffer_Release(view);  /* not taken: still ours */
    PyMem_RawFree(view);
    Py_RETURN_NONE;
}

/* ---- tensors to NumPy through the buffer protocol ---- */

/* A reference to a CPU tensor that exports its memory as a buffer (what
 * Tensor.numpy() hands to np.asarray; the array's base keeps it, and so the
 * tensor, alive). */
typedef struct {
    PyObject_HEAD
    nb_tensor* t;
} TensorBuffer;

static const char* format_of_dtype(int32_t dtype) {
    switch (dtype) {
        case NB_F32: return "f";
        case NB_F64: return "d";
        case NB_F16: return "e";
        case NB_I8: return "b";
        case NB_I16: return "h";
        case NB_I32: return "i";
        case NB_I64: return "q";
        case NB_U8: return "B";
        case NB_BOOL: return "?";
        default: return NULL;  /* bfloat16: no struct code, and NumPy has no such dtype */
    }
}

static int tensor_buffer_get(PyObject* obj, Py_buffer* view, int flags) {
    const nb_tensor* t = ((TensorBuffer*)obj)->t;
    const int readonly = nb_tensor_is_readonly(t) == 1;
    if ((flags & PyBUF_WRITABLE) && readonly) {
        PyErr_SetString(PyExc_BufferError, "numpy(): the tensor is read-only");
        return -1;
    }
    const int32_t ndim = nb_tensor_ndim(t), dtype = nb_tensor_dtype(t);
    const Py_ssize_t itemsize = (Py_ssize_t)nb_dtype_size(dtype);
    Py_ssize_t* dims = PyMem_Malloc(sizeof(Py_ssize_t) * 2 * (size_t)(ndim > 0 ? ndim : 1));
    if (dims == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    const int64_t* shape = nb_tensor_shape(t);
    const int64_t* strides = nb_tensor_strides(t);
    int64_t expected = 1;  /* the row-major stride of dim d */
    int row_major = 1;
    for (int32_t d = ndim - 1; d >= 0; d--) {
        dims[d] = (Py_ssize_t)shape[d];
        dims[ndim + d] = (Py_ssize_t)(strides[d] * itemsize);
        if (shape[d] != 1 && strides[d] != expected) row_major = 0;
        expected *= shape[d];
    }
    /* a consumer that takes no strides (or no shape) reads the buffer as row-major bytes */
    if (!row_major && expected != 0 && (flags & PyBUF_STRIDES) != PyBUF_STRIDES) {
        PyMem_Free(dims);
        PyErr_SetString(PyExc_BufferError, "numpy(): the tensor is not contiguous and strides were not requested");
        return -1;
    }
    view->buf = nb_tensor_data_ptr(t);
    Py_INCREF(obj);
    view->obj = obj;
    view->len = (Py_ssize_t)nb_tensor_numel(t) * itemsize;
    view->itemsize = itemsize;
    view->readonly = readonly;
    view->ndim = ndim;
    view->format = (flags & PyBUF_FORMAT) ? (char*)format_of_dtype(dtype) : NULL;
    view->shape = (flags & PyBUF_ND) == PyBUF_ND ? dims : NULL;
    view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? dims + ndim : NULL;
    view->suboffsets = NULL;
    view->internal = dims;
    return 0;
}

static void tensor_buffer_release(PyObject* obj, Py_buffer* view) {
    (void)obj;
    PyMem_Free(view->internal);
}

static void tensor_buffer_dealloc(PyObject* obj) {
    nb_tensor_release(((TensorBuffer*)obj)->t);
    Py_TYPE(obj)->tp_free(obj);
}

static PyBufferProcs tensor_buffer_procs = {tensor_buffer_get, tensor_buffer_release};

static PyTypeObject TensorBufferType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "nabla._capsule.TensorBuffer",
    .tp_basicsize = sizeof(TensorBuffer),
    .tp_dealloc = tensor_buffer_dealloc,
    .tp_as_buffer = &tensor_buffer_procs,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "a CPU tensor's memory as a buffer (Tensor.numpy)",
};

/* tensor_buffer(handle address) -> a TensorBuffer holding a new reference, or
 * None for a tensor NumPy cannot view this way (not on the CPU, bfloat16):
 * the caller then takes the DLPack path and its errors. */
static PyObject* tensor_buffer(PyObject* self, PyObject* arg) {
    (void)self;
    nb_tensor* t = PyLong_AsVoidPtr(arg);
    if (t == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "tensor_buffer: NULL handle");
        return NULL;
    }
    if (nb_tensor_device_type(t) != NB_CPU || format_of_dtype(nb_tensor_dtype(t)) == NULL) Py_RETURN_NONE;
    TensorBuffer* b = PyObject_New(TensorBuffer, &TensorBufferType);
    if (b == NULL) return NULL;
    nb_tensor_retain(t);
    b->t = t;
    return (PyObject*)b;
}

static PyMethodDef methods[] = {
    {"tensor_buffer", tensor_buffer, METH_O, "tensor_buffer(handle address) -> buffer exporter, or None: use DLPack"},
    {"wrap_buffer", wrap_buffer, METH_O, "wrap_buffer(array) -> tensor handle address, or None: use DLPack"},
    {"export", (PyCFunction)(void (*)(void))export_capsule, METH_FASTCALL,
     "export(handle, versioned, device_type, device_index, copy) -> capsule or None"},
    {"consume", consume_capsule, METH_O, "consume(capsule) -> tensor handle address, 0 on failure"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "nabla._capsule", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__capsule(void) {
    if (PyType_Ready(&TensorBufferType) < 0) return NULL;
    return PyModule_Create(&module);
}
