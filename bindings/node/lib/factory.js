// factory.js: making tensors: from JavaScript data (copied) or external typed arrays, and
// PyTorch's factories (zeros, ones, full, arange, linspace, eye, rand, randn, randint).
'use strict';

const { C, fn } = require('./native.js');
const { check } = require('./errors.js');
const { Tensor, wrapOut, OUT } = require('./tensor.js');
const { ops } = require('./ops.js');
const dtypes = require('./dtype.js');
const { parse: parseDevice } = require('./device.js');
const { dims } = require('./methods.js');

const shapeArg = (args) => BigInt64Array.from(dims(args), BigInt);
const lastOpts = (args) => (args.length && args[args.length - 1] !== null && typeof args[args.length - 1] === 'object' &&
  !Array.isArray(args[args.length - 1]) ? args.pop() : {});

function finish(t, requiresGrad) {
  if (requiresGrad) t.requiresGrad = true;
  return t;
}

/** The shape of nested arrays, checking that they are rectangular. */
function shapeOf(data) {
  const shape = [];
  for (let d = data; Array.isArray(d); d = d[0]) shape.push(d.length);
  return shape;
}

function flatten(data, shape, depth, out) {
  if (depth === shape.length) { out.push(data); return; }
  if (!Array.isArray(data) || data.length !== shape[depth]) {
    throw new TypeError(`tensor(): expected sequence of length ${shape[depth]} at dim ${depth}`);
  }
  for (const x of data) flatten(x, shape, depth + 1, out);
}

/** PyTorch's inference: any boolean -> bool, any non-integer number -> the default float dtype,
 *  integers -> int64. */
function inferDtype(flat) {
  if (flat.length && flat.every((v) => typeof v === 'boolean')) return 'bool';
  if (flat.every((v) => typeof v === 'bigint' || Number.isInteger(v) && !Object.is(v, -0))) return 'int64';
  return dtypes.NAMES[fn.nb_get_default_dtype()];
}

/** A new tensor holding a copy of data: a number, a nested array, or a typed array (with `shape`). */
function tensor(data, { dtype, shape, device, requiresGrad = false } = {}) {
  if (ArrayBuffer.isView(data)) return fromTypedArray(data, shape ?? [data.length], { dtype, device, requiresGrad });
  const shp = shapeOf(data);
  const flat = [];
  flatten(data, shp, 0, flat);
  const name = dtype ? dtypes.NAMES[dtypes.code(dtype)] : inferDtype(flat);
  let arr;
  if (name === 'float16' || name === 'bfloat16') arr = Float64Array.from(flat, Number);
  else if (name === 'int64') arr = BigInt64Array.from(flat, (v) => BigInt(typeof v === 'bigint' ? v : Math.trunc(Number(v))));
  else arr = dtypes.ARRAYS[name].from(flat, (v) => (typeof v === 'boolean' ? +v : Number(v)));
  const host = dtypes.ofTypedArray(arr) || name;
  const d = parseDevice(device);
  const t = wrapOut(fn.nb_tensor_from_host(arr, BigInt64Array.from(shp, BigInt), shp.length, dtypes.CODES[host], d.type, d.index, OUT));
  if (host === name) return finish(t, requiresGrad);
  const conv = t.to(name);
  t.dispose();
  return finish(conv, requiresGrad);
}

/** A new tensor copying a typed array (Float32Array -> float32, ..., or `dtype` to convert). */
function fromTypedArray(arr, shape = [arr.length], { dtype, device, requiresGrad = false } = {}) {
  const own = dtypes.ofTypedArray(arr);
  if (own === null) throw new TypeError('fromTypedArray(): unsupported typed array type');
  const d = parseDevice(device);
  const t = wrapOut(fn.nb_tensor_from_host(arr, BigInt64Array.from(shape, BigInt), shape.length, dtypes.CODES[own], d.type, d.index, OUT));
  if (!dtype || dtypes.NAMES[dtypes.code(dtype)] === own) return finish(t, requiresGrad);
  const conv = t.to(dtype);
  t.dispose();
  return finish(conv, requiresGrad);
}

/** A 0-dim tensor of value (dtype inferred as by tensor()). */
function scalarTensor(value, opts) { return tensor(value, opts); }

function filled(cfn) {
  return function (...args) {
    const { dtype, device, requiresGrad = false } = lastOpts(args);
    const shape = shapeArg(args), d = parseDevice(device);
    return finish(wrapOut(cfn(shape, shape.length, dtypes.code(dtype, fn.nb_get_default_dtype()), d.type, d.index, OUT)), requiresGrad);
  };
}

const zeros = filled(fn.nb_zeros);
const ones = filled(fn.nb_ones);
const empty = filled(fn.nb_empty);

function full(shape, value, { dtype, device, requiresGrad = false } = {}) {
  const s = BigInt64Array.from(shape, BigInt), { type, index } = parseDevice(device);
  const d = dtype ? dtypes.code(dtype) : typeof value === 'boolean' ? C.NB_BOOL : Number.isInteger(value) ? C.NB_I64 : fn.nb_get_default_dtype();
  const t = dtypes.isFloating(dtypes.NAMES[d]) ? fn.nb_full(s, s.length, Number(value), d, type, index, OUT)
    : fn.nb_full_int(s, s.length, BigInt(typeof value === 'boolean' ? +value : value), d, type, index, OUT);
  return finish(wrapOut(t), requiresGrad);
}

/** arange(end), arange(start, end, step = 1); integer arguments give int64, as in PyTorch. */
function arange(start, end, step = 1, { dtype, device } = {}) {
  if (typeof end === 'object' && end !== null) ({ dtype, device } = end), end = undefined;
  if (end === undefined) [start, end] = [0, start];
  const d = dtype ? dtypes.code(dtype) : [start, end, step].every(Number.isInteger) ? C.NB_I64 : fn.nb_get_default_dtype();
  const { type, index } = parseDevice(device);
  return wrapOut(fn.nb_arange(start, end, step, d, type, index, OUT));
}

function linspace(start, end, steps, { dtype, device } = {}) {
  const { type, index } = parseDevice(device);
  return wrapOut(fn.nb_linspace(start, end, steps, dtypes.code(dtype, fn.nb_get_default_dtype()), type, index, OUT));
}

function eye(n, m = n, { dtype, device } = {}) {
  if (typeof m === 'object') ({ dtype, device } = m), m = n;
  const { type, index } = parseDevice(device);
  return wrapOut(fn.nb_eye(n, m, dtypes.code(dtype, fn.nb_get_default_dtype()), type, index, OUT));
}

function random(op) {
  return function (...args) {
    const { dtype, device, requiresGrad = false } = lastOpts(args);
    const d = parseDevice(device);
    return finish(op(dims(args), dtypes.code(dtype, fn.nb_get_default_dtype()), d.type, d.index, null), requiresGrad);
  };
}
const rand = random(ops.rand);
const randn = random(ops.randn);

/** randint(low, high, shape) or randint(high, shape): int64 unless dtype says otherwise. */
function randint(low, high, shape, opts = {}) {
  if (Array.isArray(high)) [low, high, shape, opts] = [0, low, high, shape ?? {}];
  const { dtype, device } = opts, d = parseDevice(device);
  return ops.randint(low, high, shape, dtypes.code(dtype, C.NB_I64), d.type, d.index, null);
}

/** Seeds the default generator (PyTorch's manual_seed). */
function manualSeed(seed) { check(fn.nb_manual_seed(BigInt(seed))); }

module.exports = { tensor, fromTypedArray, scalarTensor, zeros, ones, empty, full, arange, linspace, eye, rand, randn, randint, manualSeed, Tensor };
