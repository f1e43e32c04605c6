// nabla for Node.js: tensors, ops and autograd over libnabla's C ABI (through koffi).
'use strict';

const native = require('./lib/native.js');
const errors = require('./lib/errors.js');
const { Tensor, tidy } = require('./lib/tensor.js');
const { ops } = require('./lib/ops.js');
require('./lib/methods.js');
const factory = require('./lib/factory.js');
const autograd = require('./lib/autograd.js');
const { functional } = require('./lib/nn.js');
const serialization = require('./lib/serialization.js');
const { cuda, parse: parseDevice } = require('./lib/device.js');

// Ops as functions: nabla.add(a, b), nabla.matmul(a, b), nabla.sum(t, 1), ... (a number as
// first argument becomes a tensor).
const asTensor = (x) => (x instanceof Tensor ? x : factory.tensor(x));
const fromMethod = (name) => (x, ...args) => asTensor(x)[name](...args);
const functions = {};
for (const name of Object.getOwnPropertyNames(Tensor.prototype)) {
  const d = Object.getOwnPropertyDescriptor(Tensor.prototype, name);
  if (typeof d.value === 'function' && name !== 'constructor' && !name.startsWith('_') && !name.startsWith('to') && !name.endsWith('_')) {
    functions[name] = fromMethod(name);
  }
}

const cat = (tensors, dim = 0, { out } = {}) => ops.cat(tensors, dim, { out });
const stack = (tensors, dim = 0, { out } = {}) => ops.stack(tensors, dim, { out });
const where = (condition, a, b) => ops.where(condition, a, b);

const DTYPES = {};
for (const name of Object.keys(require('./lib/dtype.js').CODES)) DTYPES[name] = name;

module.exports = {
  ...functions,
  ...DTYPES,
  ...factory,
  cat, stack, where,
  Tensor,
  tidy,
  ops,
  nn: { functional },
  autograd: { backward: autograd.backward, grad: autograd.grad },
  backward: autograd.backward,
  noGrad: autograd.noGrad,
  enableGrad: autograd.enableGrad,
  isGradEnabled: autograd.isGradEnabled,
  setGradEnabled: autograd.setGradEnabled,
  save: serialization.save,
  load: serialization.load,
  errors,
  ...errors,
  /** The raw C ABI: every function of the manifest (fn), the constants (C) and the manifest tables. */
  native: { fn: native.fn, C: native.C, abi: native.abi, koffi: native.koffi, libraryPath: native.libraryPath },
  version: native.fn.nb_version_string(),
  cuda,
  /** Allocator counters of a device (nb_memory_stats; default: the CPU). */
  memoryStats(device = 'cpu') {
    const s = { struct_size: native.koffi.sizeof(native.types.nb_memory_stats) }, d = parseDevice(device);
    errors.check(native.fn.nb_memory_stats_get(d.type, d.index, s));
    return s;
  },
  _liveHooks: autograd.liveHooks,
};
