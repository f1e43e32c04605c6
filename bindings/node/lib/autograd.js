// autograd.js: backward(), gradients, grad mode and tensor hooks over the C autograd engine.
// Grad mode is per thread in C; JavaScript runs a main thread (and workers, each its own
// thread), so noGrad(fn) covers what fn does synchronously, not work after an await.
'use strict';

const { koffi, C, fn, types } = require('./native.js');
const { check, errorFor, NablaError } = require('./errors.js');
const { Tensor } = require('./tensor.js');

const handles = (ts) => BigUint64Array.from(ts, (t) => (t === null || t === undefined ? 0n : t.handle));
const list = (x) => (x === undefined || x === null ? [] : Array.isArray(x) ? x : [x]);

// A JavaScript exception thrown inside a callback that C called: C sees a status, and the
// call that started it (backward) rethrows the original exception.
let pending = null;
function fail(e) {
  pending = e;
  return fn.nb_set_error(e instanceof NablaError ? e.status : C.NB_ERR_AUTOGRAD, String(e && e.message || e));
}
function rethrow(status) {
  const e = pending;
  pending = null;
  if (status === 0) return;
  throw e || errorFor(status);
}

/** Computes the gradients of outputs (seeded with gradOutputs, or 1 for one-element outputs)
 *  and accumulates them into the leaves' .grad. */
function backward(outputs, gradOutputs = null, { retainGraph = false, createGraph = false } = {}) {
  const outs = list(outputs);
  const grads = gradOutputs === null ? null : handles(list(gradOutputs));
  rethrow(fn.nb_backward(handles(outs), grads, outs.length, retainGraph || createGraph ? 1 : 0, createGraph ? 1 : 0));
}

Tensor.prototype.backward = function (gradient = null, opts = {}) { backward([this], gradient === null ? null : [gradient], opts); };

/** The gradients of outputs with respect to inputs (PyTorch's torch.autograd.grad); .grad is left alone. */
function grad(outputs, inputs, { gradOutputs = null, retainGraph = false, createGraph = false, allowUnused = false } = {}) {
  const outs = list(outputs), ins = list(inputs);
  const result = new BigUint64Array(ins.length);
  rethrow(fn.nb_autograd_grad(handles(outs), gradOutputs === null ? null : handles(list(gradOutputs)), outs.length,
                              handles(ins), ins.length, retainGraph || createGraph ? 1 : 0, createGraph ? 1 : 0,
                              allowUnused ? 1 : 0, result));
  return Array.from(result, (h) => (h === 0n ? null : new Tensor(h)));
}

const isGradEnabled = () => fn.nb_grad_enabled() === 1;
/** Sets grad mode for this thread; returns the previous setting. */
const setGradEnabled = (on) => fn.nb_set_grad_enabled(on ? 1 : 0) === 1;

function withGrad(on, body) {
  const prev = fn.nb_set_grad_enabled(on ? 1 : 0);
  try {
    return body();
  } finally {
    fn.nb_set_grad_enabled(prev);
  }
}
/** Runs body with grad mode off (PyTorch's `with torch.no_grad()`), returning its result. */
const noGrad = (body) => withGrad(false, body);
const enableGrad = (body) => withGrad(true, body);

// ---- hooks: one registered C callback serves every hook; the payload is a key into `hooks` ----
const hooks = new Map();
let nextKey = 1n;
let hookCallbacks = null;

function callbacks() {
  if (hookCallbacks === null) {
    const call = koffi.register((payload, gradHandle, replacement) => {
      try {
        const f = hooks.get(payload);
        fn.nb_tensor_retain(gradHandle);
        const g = new Tensor(gradHandle);
        const r = f(g);
        if (r instanceof Tensor && r.handle !== gradHandle) {
          fn.nb_tensor_retain(r.handle);
          koffi.encode(replacement, 'uint64_t', r.handle);
        }
        g.dispose();
        return 0;
      } catch (e) {
        return fail(e);
      }
    }, koffi.pointer(types.nb_grad_hook_fn));
    const destroy = koffi.register((payload) => { hooks.delete(payload); }, koffi.pointer(types.nb_deleter_fn));
    hookCallbacks = { call, destroy };
  }
  return hookCallbacks;
}

/** Adds hook(grad) -> Tensor|undefined, called with this tensor's gradient during backward
 *  (a returned Tensor replaces it). Returns a handle whose remove() takes the hook off. */
Tensor.prototype.registerHook = function (hook) {
  const { call, destroy } = callbacks();
  const key = nextKey++;
  hooks.set(key, hook);
  const id = new BigInt64Array(1);
  const status = fn.nb_tensor_register_hook(this.handle, call, key, destroy, id);
  if (status !== 0) { hooks.delete(key); throw errorFor(status); }
  const t = this;
  return { id: id[0], remove() { if (!t.isDisposed) check(fn.nb_tensor_remove_hook(t.handle, id[0])); } };
};

/** How many hooks are alive (their payloads not yet destroyed), for tests. */
const liveHooks = () => hooks.size;

module.exports = { backward, grad, noGrad, enableGrad, isGradEnabled, setGradEnabled, liveHooks };
