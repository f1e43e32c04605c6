// casefile.js: reading conformance case files and comparing values, in plain Node.js (the
// part of a runner that does not touch nabla; conformance/README.md is the specification).
'use strict';

const fs = require('node:fs');

// case dtype name -> [NB_* code, element size]
const DTYPES = {
  f32: [0, 4], f64: [1, 8], f16: [2, 2], bf16: [3, 2], i8: [4, 1],
  i16: [5, 2], i32: [6, 4], i64: [7, 8], u8: [8, 1], bool: [9, 1],
};
const CODE_TO_DTYPE = Object.fromEntries(Object.entries(DTYPES).map(([n, [c]]) => [c, n]));
const FLOATS = new Set(['f32', 'f64', 'f16', 'bf16']);
const FORMAT = { f32: [24, -126], f64: [53, -1022], f16: [11, -14], bf16: [8, -126] };  // precision bits, min exponent
// tolerance class -> dtype -> [rtol, atol]; "exact" compares bits, "correctly_rounded" allows 1 ulp
const TOLERANCE = {
  transcendental: { f64: [1e-13, 1e-15], f32: [4e-6, 1e-6], f16: [2e-3, 1e-5], bf16: [1.6e-2, 1e-4] },
  accumulate: { f64: [1e-10, 1e-12], f32: [1e-4, 1e-5], f16: [1e-2, 1e-3], bf16: [5e-2, 1e-2] },
};

const hexBytes = (text) => (text === '-' ? new Uint8Array(0) : Uint8Array.from(Buffer.from(text, 'hex')));

/** A tensor of a case: dtype name, shape and little-endian bytes. */
class CaseTensor {
  constructor(dtype, shape, data) {
    this.dtype = dtype;
    this.shape = Array.isArray(shape) ? shape : shape === '-' ? [] : shape.split(',').map(Number);
    this.data = data instanceof Uint8Array ? data : hexBytes(data);
  }

  /** The elements as numbers (BigInt for i64, 0/1 for bool). */
  values() {
    const dv = new DataView(this.data.buffer, this.data.byteOffset, this.data.byteLength);
    const size = DTYPES[this.dtype][1];
    const out = [];
    for (let i = 0; i < this.data.byteLength / size; i++) {
      const o = i * size;
      switch (this.dtype) {
        case 'f32': out.push(dv.getFloat32(o, true)); break;
        case 'f64': out.push(dv.getFloat64(o, true)); break;
        case 'f16': out.push(halfToNumber(dv.getUint16(o, true))); break;
        case 'bf16': { const b = new DataView(new ArrayBuffer(4)); b.setUint32(0, dv.getUint16(o, true) << 16); out.push(b.getFloat32(0)); break; }
        case 'i8': out.push(dv.getInt8(o)); break;
        case 'i16': out.push(dv.getInt16(o, true)); break;
        case 'i32': out.push(dv.getInt32(o, true)); break;
        case 'i64': out.push(dv.getBigInt64(o, true)); break;
        case 'u8': case 'bool': out.push(dv.getUint8(o)); break;
        default: throw new Error(`unknown dtype ${this.dtype}`);
      }
    }
    return out;
  }
}

function halfToNumber(h) {
  const sign = h & 0x8000 ? -1 : 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** The cases of one file: {id, call, abi, kind, tol, needs, device, inputs, generators, args,
 *  expects, gradOutputs, requiresGrad, expectGrads, status, consumes}. */
function readCases(path) {
  const cases = [];
  let c = null;
  for (const raw of fs.readFileSync(path, 'utf8').split('\n')) {
    if (!raw || raw.startsWith('#')) continue;
    const sp = raw.indexOf(' ');
    const key = sp < 0 ? raw : raw.slice(0, sp);
    const rest = sp < 0 ? '' : raw.slice(sp + 1);
    const f = rest.split(' ');
    switch (key) {
      case 'case':
        c = { id: rest, tol: null, needs: [], inputs: {}, generators: {}, args: [], expects: [], gradOutputs: {},
              requiresGrad: [], expectGrads: {}, status: 'NB_OK', device: null, consumes: [] };
        break;
      case 'call': case 'abi': case 'kind': case 'tol': case 'status': case 'device': c[key] = rest; break;
      case 'needs': c.needs.push(rest); break;
      case 'consumes': c.consumes.push(rest); break;
      case 'requires_grad': c.requiresGrad.push(rest); break;
      case 'in': c.inputs[f[0]] = new CaseTensor(f[1], f[2], f[3]); break;
      case 'generator': c.generators[f[0]] = [BigInt(f[1]), BigInt(f[2])]; break;
      case 'arg': c.args.push([f[0], f.length > 1 ? f[1] : null]); break;
      case 'expect': c.expects.push([f[0], f.slice(1)]); break;
      case 'grad_output': c.gradOutputs[f[0]] = new CaseTensor(f[1], f[2], f[3]); break;
      case 'expect_grad': c.expectGrads[f[0]] = new CaseTensor(f[1], f[2], f[3]); break;
      case 'end': cases.push(c); break;
      default: throw new Error(`${path}: unknown line ${JSON.stringify(raw.slice(0, 40))}`);
    }
  }
  return cases;
}

/** A float64 from its bit pattern written as big-endian hex. */
function f64FromHex(text) {
  return Buffer.from(text, 'hex').readDoubleBE(0);
}

function ulp(x, dtype) {
  const [digits, emin] = FORMAT[dtype];
  let e = emin;
  if (x !== 0) {
    const b = new DataView(new ArrayBuffer(8));
    b.setFloat64(0, x);
    e = ((b.getUint16(0) >> 4) & 0x7ff) - 1023;  // floor(log2 |x|) for normal numbers
  }
  return 2 ** (Math.max(e, emin) - (digits - 1));
}

/** null when got matches want under the tolerance class, else why not. */
function compare(got, want, tol) {
  if (got.dtype !== want.dtype) return `dtype ${got.dtype}, expected ${want.dtype}`;
  if (got.shape.join(',') !== want.shape.join(',')) return `shape [${got.shape}], expected [${want.shape}]`;
  const g = got.values(), w = want.values();
  const bad = [];
  const isFloat = FLOATS.has(want.dtype);
  for (let i = 0; i < w.length; i++) {
    let ok;
    if (!isFloat) ok = g[i] === w[i];
    else if (tol === 'exact' || tol === null) ok = Object.is(g[i], w[i]) || (Number.isNaN(g[i]) && Number.isNaN(w[i]));
    else if (!Number.isFinite(w[i]) || !Number.isFinite(g[i])) ok = (Number.isNaN(g[i]) && Number.isNaN(w[i])) || g[i] === w[i];
    else if (tol === 'correctly_rounded') ok = Math.abs(g[i] - w[i]) <= ulp(w[i], want.dtype);
    else {
      const [rtol, atol] = TOLERANCE[tol][want.dtype];
      ok = Math.abs(g[i] - w[i]) <= atol + rtol * Math.abs(w[i]);
    }
    if (!ok) bad.push(i);
  }
  if (bad.length === 0) return null;
  const i = bad[0];
  return `${bad.length} of ${w.length} elements differ; first at flat index ${i}: got ${g[i]}, expected ${w[i]}`;
}

module.exports = { DTYPES, CODE_TO_DTYPE, FLOATS, CaseTensor, readCases, f64FromHex, compare, ulp };
