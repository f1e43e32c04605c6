// dtype.js: dtype names and codes, and the typed arrays that hold each dtype's elements.
'use strict';

const { C, fn } = require('./native.js');

const CODES = {};  // 'float32' -> NB_F32, ...
const NAMES = [];  // code -> 'float32'
for (const [name, code] of Object.entries(require('./native.js').abi.CONSTANTS.dtype)) {
  const dname = fn.nb_dtype_name(code);
  CODES[dname] = code;
  NAMES[code] = dname;
}

// float16 and bfloat16 elements are exposed as their 16-bit patterns.
const ARRAYS = {
  float32: Float32Array, float64: Float64Array, float16: Uint16Array, bfloat16: Uint16Array,
  int8: Int8Array, int16: Int16Array, int32: Int32Array, int64: BigInt64Array,
  uint8: Uint8Array, bool: Uint8Array,
};

/** The code of a dtype given by name ('float32') or code; -1 for undefined/null. */
function code(dtype, fallback = -1) {
  if (dtype === undefined || dtype === null) return fallback;
  if (typeof dtype === 'number' && NAMES[dtype]) return dtype;
  const c = CODES[dtype];
  if (c === undefined) throw new TypeError(`nabla: unknown dtype ${String(dtype)}`);
  return c;
}

/** The dtype a typed array holds without conversion (null for other inputs). */
function ofTypedArray(a) {
  if (a instanceof Float32Array) return 'float32';
  if (a instanceof Float64Array) return 'float64';
  if (a instanceof Int8Array) return 'int8';
  if (a instanceof Int16Array) return 'int16';
  if (a instanceof Int32Array) return 'int32';
  if (a instanceof BigInt64Array) return 'int64';
  if (a instanceof Uint8Array) return 'uint8';
  return null;
}

const isFloating = (name) => fn.nb_dtype_is_floating(CODES[name]) === 1;

module.exports = { CODES, NAMES, ARRAYS, code, ofTypedArray, isFloating, C };
