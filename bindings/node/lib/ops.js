// ops.js: every op of the manifest as a JavaScript function, marshalled from its C parameter
// list (abi.generated.js FUNCTIONS), so ops added to the ABI appear here without code.
//
// Arguments follow the C parameters, with these conveniences:
//   const nb_tensor*                   a Tensor, a number/boolean/BigInt (a wrapped scalar), or null
//   nb_tensor* const*, direction in     an array of Tensors (its count parameter is filled in)
//   const int64_t*, direction in        an array of integers (its count filled in; a fixed
//                                       length checked), one integer, or null
//   nb_tensor* dst / dst_*             taken from a last options object: {out} / {dstValues, ...}
//                                      (in ops that also return tensors; else it is positional)
//   nb_tensor** (results)              returned: one Tensor, or an array of them (null where none)
//   nb_generator*                      a Generator or null (the default generator)
'use strict';

const { abi, fn } = require('./native.js');
const { errorFor } = require('./errors.js');
const { Tensor } = require('./tensor.js');

const SCALAR_OUT = new BigUint64Array(1);

/** nb_log_softmax -> logSoftmax (prefix 'nb_' or 'nb_tensor_' dropped). */
function camel(cname, prefix = 'nb_') {
  return cname.slice(prefix.length).replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
}

/** A wrapped-scalar handle for a JavaScript number (integers act as Python ints), boolean or BigInt. */
function scalarHandle(v) {
  let status;
  if (typeof v === 'boolean') status = fn.nb_scalar(0, v ? 1 : 0, abi.CONSTANTS.dtype.NB_BOOL, SCALAR_OUT);
  else if (typeof v === 'bigint') status = fn.nb_scalar(0, v, abi.CONSTANTS.dtype.NB_I64, SCALAR_OUT);
  else if (Number.isInteger(v) && Number.isSafeInteger(v) && !Object.is(v, -0)) {
    status = fn.nb_scalar(0, v, abi.CONSTANTS.dtype.NB_I64, SCALAR_OUT);
  } else status = fn.nb_scalar(v, 0, abi.CONSTANTS.dtype.NB_F64, SCALAR_OUT);
  if (status !== 0) throw errorFor(status);
  return SCALAR_OUT[0];
}

const NUMERIC = new Set(['int8_t', 'int16_t', 'int32_t', 'int64_t', 'uint8_t', 'uint16_t', 'uint32_t', 'uint64_t', 'double', 'float', 'nb_status']);

/** How each C parameter of `cname` is filled from JavaScript arguments, from the manifest's
 *  direction and length of every pointer parameter (FUNCTIONS' fifth column). */
function plan(cname) {
  const [, params, , , pointers] = abi.FUNCTIONS[cname];
  const steps = [];
  const returnsTensors = params.some(([ctype, pname]) => ctype === 'nb_tensor**' && pointers[pname][0] === 'out');
  // A count that an input array names as its length is filled from that array.
  const counts = new Map();
  for (const [pname, [dir, len]] of Object.entries(pointers)) {
    if (dir === 'in' && typeof len === 'string' && params.some(([, n]) => n === len) && !counts.has(len)) counts.set(len, pname);
  }
  for (const [ctype, pname] of params) {
    const ptr = pointers[pname];
    if (counts.has(pname)) steps.push({ kind: 'count', of: counts.get(pname) });
    else if (ctype === 'const nb_tensor*') steps.push({ kind: 'tensor', pname });
    else if (ctype === 'nb_tensor*' && pname.startsWith('dst') && returnsTensors) steps.push({ kind: 'dst', key: pname === 'dst' ? 'out' : camel('x_' + pname, 'x_') });
    else if (ctype === 'nb_tensor*') steps.push({ kind: 'tensor', pname, mutable: true });
    else if (ptr && ptr[0] === 'in' && /^(const )?nb_tensor\* const\*$/.test(ctype)) steps.push({ kind: 'tensors', pname });
    else if (ptr && ptr[0] === 'in' && ctype === 'const int64_t*') steps.push({ kind: 'ints', pname, length: ptr[1] });
    else if (ptr && ptr[0] === 'out' && ptr[1] === 1 && ctype === 'nb_tensor**') steps.push({ kind: 'result', pname, dstKey: pname === 'out' ? 'out' : camel('x_dst_' + pname, 'x_') });
    else if (ctype === 'nb_generator*') steps.push({ kind: 'generator', pname });
    else if (NUMERIC.has(ctype)) steps.push({ kind: 'number', pname, ctype });
    else steps.push({ kind: 'raw', pname });
  }
  return steps;
}

const isOptions = (v) => v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype;

/** The JavaScript function for the op `cname`. */
function makeOp(cname) {
  const steps = plan(cname);
  const cfn = fn[cname];
  const returnsStatus = abi.FUNCTIONS[cname][0] === 'nb_status';
  const positional = steps.filter((s) => s.kind !== 'dst' && s.kind !== 'result' && s.kind !== 'count').length;
  const hasDst = steps.some((s) => s.kind === 'dst');
  const resultSteps = steps.filter((s) => s.kind === 'result');
  const slots = resultSteps.map(() => new BigUint64Array(1));
  const jsName = camel(cname);

  const op = function (...args) {
    const opts = hasDst && args.length > positional && isOptions(args[args.length - 1]) ? args.pop() : null;
    if (args.length > positional) throw new TypeError(`${jsName}(): expected at most ${positional} arguments, got ${args.length}`);
    const cargs = [];
    const temps = [];
    const lengths = {};
    const countSlots = [];
    let a = 0, r = 0;
    try {
      for (const s of steps) {
        switch (s.kind) {
          case 'tensor': {
            const v = args[a++];
            if (v === undefined || v === null) cargs.push(null);
            else if (v instanceof Tensor) cargs.push(v.handle);
            else if (!s.mutable && (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint')) {
              const h = scalarHandle(v);
              temps.push(h);
              cargs.push(h);
            } else throw new TypeError(`${jsName}(): argument '${s.pname}' must be a Tensor${s.mutable ? '' : ' or a number'}`);
            break;
          }
          case 'tensors': {
            const v = args[a++];
            if (!Array.isArray(v)) throw new TypeError(`${jsName}(): argument '${s.pname}' must be an array of Tensors`);
            const arr = new BigUint64Array(v.length);
            v.forEach((t, k) => { arr[k] = t === null || t === undefined ? 0n : t.handle; });
            cargs.push(arr);
            lengths[s.pname] = v.length;
            break;
          }
          case 'ints': {
            let v = args[a++];
            // One integer for a fixed-length array repeats, as PyTorch's kernel_size=3 means (3, 3).
            if (typeof v === 'number' || typeof v === 'bigint') v = Array(typeof s.length === 'number' ? s.length : 1).fill(v);
            if (v === undefined || v === null) { cargs.push(null); lengths[s.pname] = 0; break; }
            if (typeof s.length === 'number' && v.length !== s.length) {
              throw new TypeError(`${jsName}(): argument '${s.pname}' must have ${s.length} elements, got ${v.length}`);
            }
            cargs.push(BigInt64Array.from(v, BigInt));
            lengths[s.pname] = v.length;
            break;
          }
          case 'count':
            countSlots.push([cargs.length, s.of]);
            cargs.push(0);
            break;
          case 'dst': {
            const t = opts ? opts[s.key] : undefined;
            cargs.push(t === undefined || t === null ? null : t.handle);
            break;
          }
          case 'result': {
            const slot = slots[r++];
            slot[0] = 0n;
            cargs.push(slot);
            break;
          }
          case 'generator': {
            const g = args[a++];
            cargs.push(g === undefined || g === null ? null : g.handle);
            break;
          }
          case 'number': {
            let v = args[a++];
            if (typeof v === 'boolean') v = v ? 1 : 0;
            if (typeof v !== 'number' && typeof v !== 'bigint') throw new TypeError(`${jsName}(): argument '${s.pname}' (${s.ctype}) must be a number, got ${v === undefined ? 'nothing' : typeof v}`);
            cargs.push(v);
            break;
          }
          default:
            cargs.push(args[a++]);
        }
      }
      for (const [k, of] of countSlots) cargs[k] = lengths[of];
      const ret = cfn(...cargs);
      if (!returnsStatus) return ret;
      if (ret !== 0) throw errorFor(ret);
    } finally {
      for (const h of temps) fn.nb_tensor_release(h);
    }
    const outs = slots.map((slot, k) => {
      const h = slot[0];
      if (h === 0n) return null;
      // With dst given, the result is dst itself: hand back the caller's Tensor.
      const dst = opts ? opts[resultSteps[k].dstKey] : null;
      if (dst instanceof Tensor && dst.handle === h) { fn.nb_tensor_release(h); return dst; }
      return new Tensor(h);
    });
    if (outs.length === 0) return undefined;
    return outs.length === 1 ? outs[0] : outs;
  };
  Object.defineProperty(op, 'name', { value: jsName });
  return op;
}

// Every op family, the views and the copies: ops.add, ops.tensorView, ops.maxPool2d, ...
const ops = {};
for (const [cname, [, , group]] of Object.entries(abi.FUNCTIONS)) {
  if (!fn[cname]) continue;  // newer than the library
  if (group.startsWith('ops:') || group === 'views' || group === 'copy' || group === 'creation') ops[camel(cname)] = makeOp(cname);
}

/** Whether an op takes a tensor first (so it is also a Tensor method) and writes to a dst. */
function methodInfo(cname) {
  const steps = plan(cname);
  return { tensorFirst: steps.length > 0 && steps[0].kind === 'tensor' && !steps[0].mutable,
           hasDst: steps.some((s) => s.kind === 'dst' && s.key === 'out') };
}

module.exports = { ops, makeOp, plan, camel, scalarHandle, methodInfo };
