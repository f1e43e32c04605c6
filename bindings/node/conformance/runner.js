#!/usr/bin/env node
// runner.js: nabla's conformance suite through the Node.js binding, calling the C ABI
// functions themselves (as koffi binds them from the generated declarations), never the
// Tensor layer.
//
//     node conformance/runner.js [--device cpu|cuda] [--filter TEXT] [CASE_FILE_OR_DIR...]
//
// One line per case, then `N passed, N failed, N skipped`; exit status 1 on any failure.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { koffi, C, fn, types, abi } = require('../lib/native.js');
const { DTYPES, CODE_TO_DTYPE, CaseTensor, readCases, f64FromHex, compare } = require('./casefile.js');

const SENTINEL = 0x5EB7n;  // planted in out-parameters; an error must leave it there
const U64_SENTINEL = 0xDEADBEEFn;

class Failure extends Error {}

function check(status, what) {
  if (status !== C.NB_OK) throw new Failure(`${what}: ${fn.nb_status_name(status)}: ${fn.nb_last_error_message()}`);
}

function liveTensors() {
  const stats = { struct_size: koffi.sizeof(types.nb_memory_stats) };
  check(fn.nb_memory_stats_get(C.NB_CPU, 0, stats), 'nb_memory_stats_get');
  return Number(stats.live_tensors);
}

/** A tensor's dtype, shape and row-major bytes, copied to the host. */
function readTensor(h) {
  const dtype = CODE_TO_DTYPE[fn.nb_tensor_dtype(h)];
  const ndim = fn.nb_tensor_ndim(h);
  const shape = ndim ? Array.from(koffi.decode(fn.nb_tensor_shape(h), 'int64_t', ndim), Number) : [];
  const nbytes = Number(fn.nb_tensor_numel(h)) * DTYPES[dtype][1];
  const buf = new Uint8Array(Math.max(nbytes, 1));
  check(fn.nb_tensor_copy_to_host(h, buf, nbytes), 'nb_tensor_copy_to_host');
  return new CaseTensor(dtype, shape, buf.subarray(0, nbytes));
}

const handles = (hs) => BigUint64Array.from(hs, (h) => h ?? 0n);

class Runner {
  constructor(device) {
    this.device = device === 'cuda' ? C.NB_CUDA : C.NB_CPU;
    const v = fn.nb_version();
    this.version = [Math.floor(v / 10000), Math.floor(v / 100) % 100];
    const count = new Int32Array(1);
    this.hasCuda = fn.nb_device_count(C.NB_CUDA, count) === C.NB_OK && count[0] > 0;
  }

  run(c) {
    const [major, minor] = c.abi.split('.').map(Number);
    if (major !== this.version[0] || minor > this.version[1]) {
      return ['SKIP', `needs ABI ${c.abi}, the library has ${this.version.join('.')}`];
    }
    for (const need of c.needs) {
      if (need === 'cuda' && !this.hasCuda) return ['SKIP', `needs cuda: ${fn.nb_device_unavailable_reason(C.NB_CUDA)}`];
    }
    if (this.device === C.NB_CUDA && !this.hasCuda) return ['SKIP', 'no CUDA device'];
    const baseline = liveTensors();
    this.caseDevice = c.device === 'cuda' ? C.NB_CUDA : c.device === 'cpu' ? C.NB_CPU : this.device;
    this.owned = [];
    this.gens = {};
    let verdict = 'PASS', why = '';
    try {
      if (c.kind === 'abi') {
        const proc = this[`abi_${c.call}`];
        if (!proc) throw new Failure(`unknown ABI procedure ${c.call}`);
        proc.call(this, c);
      } else {
        this.callCase(c);
      }
    } catch (e) {
      if (!(e instanceof Failure)) throw e;
      verdict = 'FAIL';
      why = e.message;
    } finally {
      for (const h of this.owned) fn.nb_tensor_release(h);
      for (const [name, g] of Object.entries(this.gens)) if (!c.consumes.includes(name)) fn.nb_generator_release(g);
      fn.nb_clear_error();
    }
    const leaked = liveTensors() - baseline;
    if (verdict === 'PASS' && leaked) return ['FAIL', `${leaked} tensors still alive after every handle was released`];
    return [verdict, why];
  }

  tensor(t, device = this.caseDevice) {
    const out = new BigUint64Array(1);
    const data = t.data.byteLength ? t.data : new Uint8Array(1);
    const shape = BigInt64Array.from(t.shape.length ? t.shape : [0], BigInt);
    check(fn.nb_tensor_from_host(data, shape, t.shape.length, DTYPES[t.dtype][0], device, 0, out), 'nb_tensor_from_host');
    this.owned.push(out[0]);
    return out[0];
  }

  callCase(c) {
    const inputs = {};
    for (const [name, t] of Object.entries(c.inputs)) inputs[name] = this.tensor(t);
    for (const [name, [seed, offset]] of Object.entries(c.generators)) {
      const g = new BigUint64Array(1);
      check(fn.nb_generator_create(seed, g), 'nb_generator_create');
      this.gens[name] = g[0];
      check(fn.nb_generator_set_state(g[0], seed, offset), 'nb_generator_set_state');
    }
    for (const name of c.requiresGrad) check(fn.nb_tensor_set_requires_grad(inputs[name], 1), 'nb_tensor_set_requires_grad');
    const cfn = fn[c.call];
    if (!cfn) throw new Failure(`the library has no ${c.call}`);
    const { args, slots } = this.buildArgs(c, inputs);
    const ret = cfn(...args);
    const status = abi.FUNCTIONS[c.call][0] === 'nb_status' ? ret : C.NB_OK;
    for (const [name, [kind, slot]] of Object.entries(slots)) {  // results we now own
      if (slot[0] === 0n || slot[0] === SENTINEL) continue;
      if (kind === 'out') this.owned.push(slot[0]);
      if (kind === 'genout') this.gens[name] = slot[0];
    }
    if (c.kind === 'error' && status === C.NB_OK && (c.status === 'NB_ERR_INDEX' || c.status === 'NB_ERR_INVALID_ARGUMENT') && this.caseDevice === C.NB_CUDA) {
      // a kernel's out-of-range index arrives at the next synchronisation
      return this.checkError(c, fn.nb_device_synchronize(C.NB_CUDA, 0), {});
    }
    if (c.kind === 'error') return this.checkError(c, status, slots);
    check(status, c.call);
    if (c.kind === 'grad') return this.checkGrads(c, inputs, slots);
    for (const [name, spec] of c.expects) this.checkExpect(c, name, spec, inputs, slots, ret);
    return undefined;
  }

  buildArgs(c, inputs) {
    const args = [], slots = {};
    for (const [kind, value] of c.args) {
      switch (kind) {
        case 't': args.push(inputs[value]); break;
        case 'null': args.push(null); break;
        case 'f64': args.push(f64FromHex(value)); break;
        case 'i32': args.push(Number(value)); break;
        case 'i64': case 'u64': args.push(BigInt(value)); break;
        case 'i64s': {
          const vs = value === '-' ? [] : value.split(',').map(BigInt);
          args.push(BigInt64Array.from(vs.length ? vs : [0n]));
          break;
        }
        case 'ts': args.push(handles(value.split(',').map((n) => (n === '_' ? null : inputs[n])))); break;
        case 'gen': args.push(this.gens[value]); break;
        case 'out': case 'genout': case 'u64out': {
          const slot = new BigUint64Array([kind === 'u64out' ? U64_SENTINEL : SENTINEL]);
          slots[value] = [kind, slot];
          args.push(slot);
          break;
        }
        default: throw new Failure(`unknown argument kind ${kind}`);
      }
    }
    return { args, slots };
  }

  checkError(c, status, slots) {
    const want = C[c.status];
    if (status !== want) {
      throw new Failure(`status ${fn.nb_status_name(status)}, expected ${c.status}` + (status ? ` (${fn.nb_last_error_message()})` : ''));
    }
    if (fn.nb_last_error_status() !== want) throw new Failure('nb_last_error_status() disagrees with the returned status');
    if (!fn.nb_last_error_message()) throw new Failure('empty error message');
    for (const [name, [kind, slot]] of Object.entries(slots)) {
      if (slot[0] !== (kind === 'u64out' ? U64_SENTINEL : SENTINEL)) throw new Failure(`out-parameter ${name} was written although the call failed`);
    }
  }

  resolve(name, inputs, slots) {
    if (name in slots) return slots[name][1][0];
    if (name in inputs) return inputs[name];
    throw new Failure(`the case names no output or input ${name}`);
  }

  checkExpect(c, name, spec, inputs, slots, ret) {
    if (spec[0] === 'u64') {
      const got = slots[name][1][0];
      if (got !== BigInt(spec[1])) throw new Failure(`${name} = ${got}, expected ${spec[1]}`);
    } else if (spec[0] === 'gen') {
      const g = name === 'default' ? fn.nb_default_generator() : this.gens[name] ?? slots[name][1][0];
      const seed = new BigUint64Array(1), offset = new BigUint64Array(1);
      check(fn.nb_generator_get_state(g, seed, offset), 'nb_generator_get_state');
      if (seed[0] !== BigInt(spec[1]) || offset[0] !== BigInt(spec[2])) {
        throw new Failure(`generator ${name} at (seed ${seed[0]}, offset ${offset[0]}), expected (${spec[1]}, ${spec[2]})`);
      }
    } else if (spec[0] === 'notnull') {
      if (ret === null || ret === 0n) throw new Failure(`${c.call} returned NULL`);
    } else {
      const why = compare(readTensor(this.resolve(name, inputs, slots)), new CaseTensor(spec[0], spec[1], spec[2]), c.tol);
      if (why) throw new Failure(`${name}: ${why}`);
    }
  }

  checkGrads(c, inputs, slots) {
    const outs = Object.keys(c.gradOutputs).map((n) => this.resolve(n, inputs, slots));
    const gouts = Object.values(c.gradOutputs).map((t) => this.tensor(t));
    const wrt = c.requiresGrad.map((n) => inputs[n]);
    const grads = new BigUint64Array(wrt.length);
    check(fn.nb_autograd_grad(handles(outs), handles(gouts), outs.length, handles(wrt), wrt.length, 0, 0, 1, grads), 'nb_autograd_grad');
    for (const g of grads) if (g !== 0n) this.owned.push(g);
    c.requiresGrad.forEach((name, i) => {
      const want = c.expectGrads[name];
      const got = grads[i] === 0n ? new CaseTensor(want.dtype, want.shape, new Uint8Array(want.data.byteLength))  // unused: zeros
        : readTensor(grads[i]);
      const why = compare(got, want, c.tol);
      if (why) throw new Failure(`gradient of ${name}: ${why}`);
    });
  }

  // ---- ABI-level procedures (README, "ABI-level cases") ----
  abi_version(c) {
    const v = fn.nb_version();
    const text = fn.nb_version_string();
    if (text !== `${Math.floor(v / 10000)}.${Math.floor(v / 100) % 100}.${v % 100}`) {
      throw new Failure(`nb_version_string() '${text}' disagrees with nb_version() ${v}`);
    }
    const [major, minor] = c.abi.split('.').map(Number);
    if (Math.floor(v / 10000) !== major || Math.floor(v / 100) % 100 < minor) throw new Failure(`version ${text} does not serve ABI ${c.abi}`);
  }

  abi_refcount(c) {
    const base = liveTensors();
    const x = this.tensor(c.inputs.x);
    this.expectLive(base + 1, 'after creating x');
    this.expectRefcount(x, 1);
    fn.nb_tensor_retain(x);
    this.expectRefcount(x, 2);
    fn.nb_tensor_release(x);
    this.expectRefcount(x, 1);
    const v = new BigUint64Array(1);
    check(fn.nb_tensor_unsqueeze(x, 0, v), 'nb_tensor_unsqueeze');
    this.expectLive(base + 2, 'after a view of x');
    this.disown(x);
    fn.nb_tensor_release(x);  // the view keeps the memory alive
    const same = Buffer.compare(readTensor(v[0]).data, c.inputs.x.data) === 0;
    fn.nb_tensor_release(v[0]);
    if (!same) throw new Failure('a view read different values once its base was released');
    this.expectLive(base, 'after releasing x and its view');
  }

  abi_refcount_autograd(c) {
    const base = liveTensors();
    const x = this.tensor(c.inputs.x);
    check(fn.nb_tensor_set_requires_grad(x, 1), 'nb_tensor_set_requires_grad');
    const y = new BigUint64Array(1), s = new BigUint64Array(1);
    check(fn.nb_exp(x, null, y), 'nb_exp');
    this.owned.push(y[0]);
    check(fn.nb_sum(y[0], null, 0, 0, -1, null, s), 'nb_sum');
    this.owned.push(s[0]);
    check(fn.nb_backward(handles([s[0]]), null, 1, 0, 0), 'nb_backward');
    const g = new BigUint64Array(1);
    check(fn.nb_tensor_get_grad(x, g), 'nb_tensor_get_grad');
    if (g[0] === 0n) throw new Failure('x has no gradient after backward');
    fn.nb_tensor_release(g[0]);
    for (const h of [s[0], y[0], x]) { this.disown(h); fn.nb_tensor_release(h); }
    this.expectLive(base, 'after releasing x, its graph and its gradient');
  }

  abi_error(c) {
    const a = this.tensor(c.inputs.a), b = this.tensor(c.inputs.b);
    const out = new BigUint64Array([SENTINEL]);
    const status = fn.nb_add(a, b, 1.0, null, out);
    const want = C[c.status];
    if (status !== want || fn.nb_last_error_status() !== want) {
      throw new Failure(`status ${status} / last ${fn.nb_last_error_status()}, expected ${want}`);
    }
    if (out[0] !== SENTINEL) throw new Failure('out-parameter written by a failed call');
    if (!fn.nb_last_error_message()) throw new Failure('empty error message');
    if (fn.nb_status_name(status) !== c.status) throw new Failure(`nb_status_name(${status}) is not ${c.status}`);
    fn.nb_clear_error();
    if (fn.nb_last_error_status() !== C.NB_OK || fn.nb_last_error_message()) throw new Failure('nb_clear_error left a status or a message');
  }

  abi_dlpack(c) {
    const versioned = c.id.includes('versioned');
    const exportFn = fn[versioned ? 'nb_tensor_to_dlpack_versioned' : 'nb_tensor_to_dlpack'];
    const importFn = fn[versioned ? 'nb_tensor_from_dlpack_versioned' : 'nb_tensor_from_dlpack'];
    if (!exportFn || !importFn) throw new Failure('the library has no DLPack functions');
    const base = liveTensors();
    const xt = c.inputs.x;
    const x = this.tensor(xt, C.NB_CPU);
    const m = new BigUint64Array(1);
    check(exportFn(x, -1, -1, 0, m), 'DLPack export');
    const dl = readDLTensor(m[0], versioned);
    const dataPtr = BigInt(fn.nb_tensor_data_ptr(x));
    if (dl.data !== dataPtr || dl.shape.join(',') !== xt.shape.join(',') || dl.device.join(',') !== '1,0') {
      throw new Failure(`exported DLTensor: data ${dl.data} vs ${dataPtr}, shape [${dl.shape}], device [${dl.device}]`);
    }
    if (dl.dtype.join(',') !== DL_DTYPE[xt.dtype].join(',')) throw new Failure(`exported dtype [${dl.dtype}], expected [${DL_DTYPE[xt.dtype]}]`);
    const y = new BigUint64Array(1);
    check(importFn(m[0], y), 'DLPack import');
    this.owned.push(y[0]);
    if (BigInt(fn.nb_tensor_data_ptr(y[0])) !== dataPtr) throw new Failure('the round trip copied the memory');
    this.disown(x);
    fn.nb_tensor_release(x);
    if (Buffer.compare(readTensor(y[0]).data, xt.data) !== 0) throw new Failure('values changed in the round trip');
    this.disown(y[0]);
    fn.nb_tensor_release(y[0]);
    this.expectLive(base, 'after releasing both ends (the deleter ran)');
  }

  disown(h) { this.owned.splice(this.owned.indexOf(h), 1); }

  expectLive(n, when) {
    const live = liveTensors();
    if (live !== n) throw new Failure(`${live} live tensors ${when}, expected ${n}`);
  }

  expectRefcount(h, n) {
    const rc = Number(fn.nb_tensor_refcount(h));
    if (rc !== n) throw new Failure(`refcount ${rc}, expected ${n}`);
  }
}

// ---- DLPack structs, read from memory (include/nabla/dlpack.h, the DLPack spec) ----
const DL_DTYPE = { f32: [2, 32, 1], f64: [2, 64, 1], f16: [2, 16, 1], bf16: [4, 16, 1], i8: [0, 8, 1],
                   i16: [0, 16, 1], i32: [0, 32, 1], i64: [0, 64, 1], u8: [1, 8, 1], bool: [6, 8, 1] };
let dlTypes = null;
function readDLTensor(address, versioned) {
  if (dlTypes === null) {
    const DLTensor = koffi.struct('nbjs_DLTensor', {
      data: 'uint64_t', device_type: 'int32_t', device_id: 'int32_t', ndim: 'int32_t', code: 'uint8_t', bits: 'uint8_t',
      lanes: 'uint16_t', shape: 'uint64_t', strides: 'uint64_t', byte_offset: 'uint64_t' });
    dlTypes = {
      versioned: koffi.struct('nbjs_DLManagedTensorVersioned', { major: 'uint32_t', minor: 'uint32_t', manager_ctx: 'uint64_t',
                                                                 deleter: 'uint64_t', flags: 'uint64_t', dl_tensor: DLTensor }),
      legacy: koffi.struct('nbjs_DLManagedTensor', { dl_tensor: DLTensor, manager_ctx: 'uint64_t', deleter: 'uint64_t' }),
    };
  }
  const m = koffi.decode(address, versioned ? dlTypes.versioned : dlTypes.legacy);
  const t = m.dl_tensor;
  return {
    data: BigInt(t.data) + BigInt(t.byte_offset),
    shape: t.ndim ? Array.from(koffi.decode(BigInt(t.shape), 'int64_t', t.ndim), Number) : [],
    device: [t.device_type, t.device_id],
    dtype: [t.code, t.bits, t.lanes],
  };
}

function caseFiles(paths) {
  const out = [];
  for (const p of paths) {
    if (fs.statSync(p).isDirectory()) out.push(...fs.readdirSync(p).filter((f) => f.endsWith('.txt')).sort().map((f) => path.join(p, f)));
    else out.push(p);
  }
  return out;
}

function main(argv) {
  let device = 'cpu', filter = '';
  const paths = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--device') device = argv[++i];
    else if (argv[i] === '--filter') filter = argv[++i];
    else paths.push(argv[i]);
  }
  if (paths.length === 0) paths.push(path.resolve(__dirname, '..', '..', '..', 'conformance', 'cases'));
  const runner = new Runner(device);
  let passed = 0, failed = 0, skipped = 0;
  for (const file of caseFiles(paths)) {
    for (const c of readCases(file)) {
      if (filter && !c.id.includes(filter)) continue;
      const [verdict, why] = runner.run(c);
      process.stdout.write(`${verdict} ${c.id}${why ? `: ${why}` : ''}\n`);
      if (verdict === 'PASS') passed++;
      else if (verdict === 'FAIL') failed++;
      else skipped++;
    }
  }
  process.stdout.write(`${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  return failed ? 1 : 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = { Runner, main };
