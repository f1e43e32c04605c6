// methods.js: ops as Tensor methods. Every op that takes a tensor first is a method with its C
// argument order (t.logsumexp([1], false)); the common ones below take PyTorch's arguments
// instead (t.sum(1, true), t.view(2, -1), t.add(b, { alpha: 2 })). Methods ending in `_` write
// in place and return the tensor.
'use strict';

const { abi, fn } = require('./native.js');
const device = require('./device.js');
const { Tensor } = require('./tensor.js');
const { ops, camel, methodInfo } = require('./ops.js');
const dtypes = require('./dtype.js');

const P = Tensor.prototype;
const dims = (args) => (args.length === 1 && Array.isArray(args[0]) ? args[0] : args);
const optDims = (d) => (d === undefined || d === null ? null : typeof d === 'number' ? [d] : d);
const lastOpts = (args) => (args.length && args[args.length - 1] !== null && typeof args[args.length - 1] === 'object' &&
  !Array.isArray(args[args.length - 1]) && !(args[args.length - 1] instanceof Tensor) ? args.pop() : {});

// ---- arithmetic and comparison: t.add(other, {alpha, out}), t.add_(other) ----
P.add = function (b, { alpha = 1, out } = {}) { return ops.add(this, b, alpha, { out }); };
P.sub = function (b, { alpha = 1, out } = {}) { return ops.sub(this, b, alpha, { out }); };
const ROUNDING = { undefined: 0, null: 0, trunc: 1, floor: 2 };
P.div = function (b, { roundingMode, out } = {}) {
  const mode = ROUNDING[roundingMode];
  if (mode === undefined) throw new TypeError(`div expected rounding_mode to be one of null, 'trunc', or 'floor' but found '${roundingMode}'`);
  return ops.div(this, b, mode, { out });
};
P.add_ = function (b, { alpha = 1 } = {}) { return ops.add(this, b, alpha, { out: this }); };
P.sub_ = function (b, { alpha = 1 } = {}) { return ops.sub(this, b, alpha, { out: this }); };
P.div_ = function (b, { roundingMode } = {}) { return this.div(b, { roundingMode, out: this }); };

// ---- reductions: t.sum(), t.sum(1), t.sum([0, 1], true, {dtype}) ----
for (const name of ['sum', 'mean', 'prod']) {
  P[name] = function (dim, keepdim = false, { dtype } = {}) {
    return ops[name](this, optDims(dim), keepdim, dtypes.code(dtype));
  };
}
for (const name of ['amax', 'amin', 'logsumexp', 'all', 'any']) {
  P[name] = function (dim, keepdim = false) { return ops[name](this, optDims(dim), keepdim); };
}
for (const [name, c] of [['var', 'var'], ['std', 'std']]) {
  P[name] = function (dim, { correction = 1, keepdim = false } = {}) { return ops[c](this, optDims(dim), correction, keepdim); };
}
/** t.max() -> the largest element; t.max(dim, keepdim) -> {values, indices}. */
P.max = function (dim, keepdim = false) {
  if (dim === undefined) return ops.amax(this, null, false);
  const [values, indices] = ops.maxDim(this, dim, keepdim);
  return { values, indices };
};
P.min = function (dim, keepdim = false) {
  if (dim === undefined) return ops.amin(this, null, false);
  const [values, indices] = ops.minDim(this, dim, keepdim);
  return { values, indices };
};
P.argmax = function (dim, keepdim = false) { return ops.argmax(this, optDims(dim), keepdim); };
P.argmin = function (dim, keepdim = false) { return ops.argmin(this, optDims(dim), keepdim); };
for (const name of ['softmax', 'logSoftmax', 'cumsum', 'cumprod']) {
  P[name] = function (dim, { dtype } = {}) { return ops[name](this, dim, dtypes.code(dtype)); };
}
P.norm = function (p = 2, dim, keepdim = false) { return ops.norm(this, p, optDims(dim), keepdim, -1); };

// ---- views and copies: t.view(2, -1), t.permute(1, 0), t.T ----
P.view = function (...shape) { return ops.tensorView(this, dims(shape)); };
P.reshape = function (...shape) { return ops.tensorReshape(this, dims(shape)); };
P.expand = function (...shape) { return ops.tensorExpand(this, dims(shape)); };
P.permute = function (...order) { return ops.tensorPermute(this, dims(order)); };
P.transpose = function (d0, d1) { return ops.tensorTranspose(this, d0, d1); };
P.t = function () { return this.ndim < 2 ? this.view(this.shape) : this.transpose(0, 1); };
Object.defineProperty(P, 'T', { get() { return this.permute([...Array(this.ndim).keys()].reverse()); } });
P.unsqueeze = function (dim) { return ops.tensorUnsqueeze(this, dim); };
P.squeeze = function (dim) { return ops.tensorSqueeze(this, optDims(dim)); };
P.flatten = function (start = 0, end = -1) { return ops.tensorFlatten(this, start, end); };
P.narrow = function (dim, start, length) { return ops.tensorNarrow(this, dim, start, length); };
P.select = function (dim, index) { return ops.tensorSelect(this, dim, index); };
/** Python's t[..., start:end:step] along dim. */
P.slice = function (dim, start = 0, end = Number.MAX_SAFE_INTEGER, step = 1) { return ops.tensorSlice(this, dim, start, end, step); };
P.contiguous = function () { return ops.tensorContiguous(this); };
P.clone = function () { return ops.tensorClone(this); };
/** PyTorch's to(): t.to('float64'), t.to('cuda'), t.to('cuda:1', 'float16'), t.to({ device, dtype, copy }).
 *  The tensor itself when nothing changes, unless copy. */
P.to = function (...args) {
  const opts = args.length && args[args.length - 1] !== null && typeof args[args.length - 1] === 'object' &&
    !device.isDevice(args[args.length - 1]) ? args.pop() : {};
  let { dtype, device: where, copy = false } = opts;
  if (args.length && device.isDevice(args[0])) where = args.shift();
  if (args.length) dtype = args.shift();
  const d = where === undefined ? { type: fn.nb_tensor_device_type(this.handle), index: fn.nb_tensor_device_index(this.handle) }
    : device.parse(where);
  return ops.tensorTo(this, dtypes.code(dtype ?? this.dtype), d.type, d.index, copy);
};
/** A copy on the CUDA device (default: the current one); the tensor itself when already there. */
P.cuda = function (index = -1) { return this.to({ type: abi.CONSTANTS.device.NB_CUDA, index }); };
/** A copy in host memory; the tensor itself when already there. */
P.cpu = function () { return this.to('cpu'); };
for (const [m, d] of [['float', 'float32'], ['double', 'float64'], ['half', 'float16'], ['long', 'int64'], ['int', 'int32'], ['bool', 'bool']]) {
  P[m] = function () { return this.to(d); };
}
P.copy_ = function (src) { ops.tensorCopy_(this, src); return this; };
P.clamp = function (min = -Infinity, max = Infinity, { out } = {}) { return ops.clamp(this, min ?? -Infinity, max ?? Infinity, { out }); };
P.fill_ = function (value) { ops.tensorCopy_(this, value instanceof Tensor ? value : require('./factory.js').scalarTensor(value)); return this; };

// ---- every other op of the manifest, in its C argument order, plus its in-place `_` form ----
for (const cname of Object.keys(abi.FUNCTIONS)) {
  const jsName = camel(cname);
  if (!ops[jsName] || !abi.FUNCTIONS[cname][2].startsWith('ops:')) continue;
  const { tensorFirst, hasDst } = methodInfo(cname);
  if (!tensorFirst) continue;
  const op = ops[jsName];
  if (!(jsName in P)) P[jsName] = function (...args) { return op(this, ...args); };
  if (hasDst && !(`${jsName}_` in P)) {
    P[`${jsName}_`] = function (...args) { const o = lastOpts(args); return op(this, ...args, { ...o, out: this }); };
  }
}

module.exports = { dims, optDims };
