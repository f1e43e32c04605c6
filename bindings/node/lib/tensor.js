// tensor.js: the Tensor class: one owned reference to an nb_tensor, its metadata, conversions
// to JavaScript values and typed arrays, and its autograd properties.
//
// Lifetime: a Tensor owns one reference. dispose() drops it at once; otherwise a
// FinalizationRegistry drops it some time after the Tensor becomes unreachable. JavaScript
// has no reference counting, so code that makes many tensors in a loop should dispose
// them (or use nabla.tidy) to return memory without waiting for the collector.
'use strict';

const { koffi, fn } = require('./native.js');
const { check, errorFor, NablaError } = require('./errors.js');
const dtypes = require('./dtype.js');

const OUT = new BigUint64Array(1);   // out-parameter slot (JavaScript runs one call at a time per thread)
const I64 = new BigInt64Array(1);
const F64 = new Float64Array(1);

const registry = new FinalizationRegistry((h) => fn.nb_tensor_release(h));
// A shared-memory view keeps its own reference to the tensor until the view is collected.
const viewRegistry = new FinalizationRegistry((h) => fn.nb_tensor_release(h));

let tidyScopes = null;  // stack of arrays collecting the tensors made inside nabla.tidy

class Tensor {
  /** Takes ownership of one reference to the handle h (internal: use nabla.tensor(), zeros(), ...). */
  constructor(h) {
    if (typeof h !== 'bigint' || h === 0n) throw new TypeError('nabla: Tensor wraps an nb_tensor handle; use nabla.tensor()');
    this._h = h;
    registry.register(this, h, this);
    if (tidyScopes !== null) tidyScopes[tidyScopes.length - 1].push(this);
  }

  /** The nb_tensor handle (a BigInt), for calls into the C ABI; throws after dispose(). */
  get handle() {
    if (this._h === null) throw new NablaError('Tensor used after dispose()', 1, 'NB_ERR_INVALID_ARGUMENT');
    return this._h;
  }

  /** Drops this Tensor's reference now; the memory returns when no other tensor or view uses it. */
  dispose() {
    if (this._h !== null) {
      registry.unregister(this);
      fn.nb_tensor_release(this._h);
      this._h = null;
    }
  }

  get isDisposed() { return this._h === null; }

  // ---- metadata ----
  get ndim() { return fn.nb_tensor_ndim(this.handle); }
  get shape() { return int64s(fn.nb_tensor_shape(this.handle), this.ndim); }
  size(dim) { const s = this.shape; return dim === undefined ? s : s[dim < 0 ? dim + s.length : dim]; }
  stride(dim) { const s = int64s(fn.nb_tensor_strides(this.handle), this.ndim); return dim === undefined ? s : s[dim < 0 ? dim + s.length : dim]; }
  get dtype() { return dtypes.NAMES[fn.nb_tensor_dtype(this.handle)]; }
  get device() {
    const h = this.handle;
    const type = fn.nb_device_type_name(fn.nb_tensor_device_type(h));
    return type === 'cpu' ? 'cpu' : `${type}:${fn.nb_tensor_device_index(h)}`;
  }
  numel() { return Number(fn.nb_tensor_numel(this.handle)); }
  isContiguous() { return fn.nb_tensor_is_contiguous(this.handle) === 1; }
  get version() { return Number(fn.nb_tensor_version(this.handle)); }

  // ---- values ----
  /** The value of a one-element tensor: a number (a BigInt for int64 beyond 2^53), or a boolean. */
  item() {
    const h = this.handle;
    const dt = this.dtype;
    if (dtypes.isFloating(dt)) {
      check(fn.nb_tensor_item_double(h, F64));
      return F64[0];
    }
    check(fn.nb_tensor_item_int(h, I64));
    if (dt === 'bool') return I64[0] !== 0n;
    return toNumber(I64[0]);
  }

  /** A copy of the elements, row-major, in a typed array of the dtype (float16/bfloat16: bit patterns). */
  toTypedArray() {
    const h = this.handle;
    const Arr = dtypes.ARRAYS[this.dtype];
    const out = new Arr(this.numel());
    check(fn.nb_tensor_copy_to_host(h, out, out.byteLength));
    return out;
  }

  /** A typed array sharing memory with this CPU tensor (no copy): writes go both ways. The
   *  tensor must be contiguous; the view keeps the memory alive even after dispose(). */
  asTypedArray() {
    const h = this.handle;
    if (fn.nb_tensor_device_type(h) !== dtypes.C.NB_CPU) {
      throw new NablaError(`asTypedArray: expected a CPU tensor, got ${this.device}`, dtypes.C.NB_ERR_DEVICE, 'NB_ERR_DEVICE');
    }
    if (!this.isContiguous()) {
      throw new NablaError('asTypedArray: the tensor is not contiguous (call .contiguous() first)', 1, 'NB_ERR_INVALID_ARGUMENT');
    }
    const Arr = dtypes.ARRAYS[this.dtype];
    const n = this.numel();
    if (n === 0) return new Arr(0);
    const buf = koffi.view(fn.nb_tensor_data_ptr(h), n * Arr.BYTES_PER_ELEMENT);
    fn.nb_tensor_retain(h);
    viewRegistry.register(buf, h);
    return new Arr(buf);
  }

  /** The elements as nested JavaScript arrays (a scalar for a 0-dim tensor), like PyTorch's tolist(). */
  toArray() {
    const dt = this.dtype;
    let flat;
    if (dt === 'float16' || dt === 'bfloat16') {
      const wide = this.to('float64');
      flat = wide.toTypedArray();
      wide.dispose();
    } else {
      flat = this.toTypedArray();
    }
    const conv = dt === 'bool' ? (v) => v !== 0 : dt === 'int64' ? toNumber : (v) => v;
    return nest(flat, this.shape, 0, { i: 0 }, conv);
  }

  toString() {
    if (this._h === null) return 'Tensor(<disposed>)';
    const extra = this.dtype === 'float32' || this.dtype === 'int64' ? '' : `, dtype=${this.dtype}`;
    const grad = this.requiresGrad ? (this.isLeaf ? ', requiresGrad=true' : `, gradFn=${this.gradFn}`) : '';
    return `tensor(${JSON.stringify(this.toArray(), (k, v) => (typeof v === 'bigint' ? Number(v) : v))}${extra}${grad})`;
  }

  [Symbol.for('nodejs.util.inspect.custom')]() { return this.toString(); }

  // ---- autograd ----
  get requiresGrad() { return fn.nb_tensor_requires_grad(this.handle) === 1; }
  set requiresGrad(v) { check(fn.nb_tensor_set_requires_grad(this.handle, v ? 1 : 0)); }
  /** Marks this leaf as requiring grad; returns this. */
  requiresGrad_(v = true) { this.requiresGrad = v; return this; }
  get isLeaf() { return fn.nb_tensor_is_leaf(this.handle) === 1; }
  /** The accumulated gradient (a new Tensor sharing it), or null. */
  get grad() {
    check(fn.nb_tensor_get_grad(this.handle, OUT));
    return OUT[0] === 0n ? null : new Tensor(OUT[0]);
  }
  set grad(g) { check(fn.nb_tensor_set_grad(this.handle, g === null || g === undefined ? null : g.handle)); }
  /** The name of the node that made this tensor ("MulBackward0"), or null for a leaf. */
  get gradFn() {
    check(fn.nb_tensor_grad_fn(this.handle, OUT));
    if (OUT[0] === 0n) return null;
    const node = OUT[0];
    const name = fn.nb_node_name(node);
    fn.nb_node_release(node);
    return name;
  }
  retainGrad() { check(fn.nb_tensor_retain_grad(this.handle)); return this; }
  get retainsGrad() { return fn.nb_tensor_retains_grad(this.handle) === 1; }
  detach() { return wrapOut(fn.nb_tensor_detach(this.handle, OUT)); }
  detach_() { check(fn.nb_tensor_detach_(this.handle)); return this; }
}

/** A Tensor for the handle a call left in OUT, or the error of its status. */
function wrapOut(status) {
  if (status !== 0) throw errorFor(status);
  return new Tensor(OUT[0]);
}

function int64s(ptr, n) {
  if (n <= 0) return [];
  return Array.from(koffi.decode(ptr, 'int64_t', n), Number);
}

function toNumber(b) {
  return b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
}

function nest(flat, shape, d, pos, conv) {
  if (d === shape.length) return conv(flat[pos.i++]);
  const out = new Array(shape[d]);
  for (let k = 0; k < shape[d]; k++) out[k] = nest(flat, shape, d + 1, pos, conv);
  return out;
}

/** Runs f, then disposes every tensor made during it except those it returns (a Tensor,
 *  or an array or object of them). */
function tidy(f) {
  if (tidyScopes === null) tidyScopes = [];
  tidyScopes.push([]);
  let result, made;
  try {
    result = f();
  } finally {
    made = tidyScopes.pop();
    if (tidyScopes.length === 0) tidyScopes = null;
  }
  const keep = new Set();
  const collect = (v) => {
    if (v instanceof Tensor) keep.add(v);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) Object.values(v).forEach(collect);
  };
  collect(result);
  for (const t of made) if (!keep.has(t)) t.dispose();
  if (tidyScopes !== null) for (const t of keep) tidyScopes[tidyScopes.length - 1].push(t);
  return result;
}

if (typeof Symbol.dispose === 'symbol') Tensor.prototype[Symbol.dispose] = Tensor.prototype.dispose;

module.exports = { Tensor, wrapOut, OUT, tidy, int64s, toNumber };
