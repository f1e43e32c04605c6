// serialization.js: nabla.save / nabla.load, named tensors in safetensors files, over the C
// ABI's nb_save / nb_load (the file's header is checked there, once for every language).
'use strict';

const { fn } = require('./native.js');
const { check } = require('./errors.js');
const { Tensor, wrapOut, OUT } = require('./tensor.js');

const CK = new BigUint64Array(1);
const KEY = new BigUint64Array(1);
const VALUE = new BigUint64Array(1);

/** Writes {name: Tensor} (and string metadata) to path in the safetensors format. */
function save(tensors, path, metadata = {}) {
  const names = Object.keys(tensors);
  for (const n of names) {
    if (!(tensors[n] instanceof Tensor)) throw new TypeError(`nabla.save: '${n}' is not a Tensor`);
  }
  const handles = BigUint64Array.from(names, (n) => tensors[n].handle);
  const keys = Object.keys(metadata);
  const values = keys.map((k) => String(metadata[k]));
  check(fn.nb_save(path, names, handles, names.length, keys, values, keys.length));
}

/** Reads a safetensors file: {name: Tensor} in the file's order; with {metadata: true},
 *  {tensors, metadata}. */
function load(path, { metadata = false } = {}) {
  check(fn.nb_load(path, CK));
  const ck = CK[0];
  try {
    const tensors = {};
    const n = Number(fn.nb_checkpoint_count(ck));
    for (let i = 0; i < n; i++) {
      const name = fn.nb_checkpoint_name(ck, i);
      tensors[name] = wrapOut(fn.nb_checkpoint_tensor(ck, i, OUT));
    }
    if (!metadata) return tensors;
    const meta = {};
    const m = Number(fn.nb_checkpoint_metadata_count(ck));
    const key = [null], value = [null];
    for (let i = 0; i < m; i++) {
      check(fn.nb_checkpoint_metadata(ck, i, key, value));
      meta[key[0]] = value[0];
    }
    return { tensors, metadata: meta };
  } finally {
    fn.nb_checkpoint_release(ck);
  }
}

module.exports = { save, load };
