'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const nb = require('..');

const tmp = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'nabla-')), 'ckpt.safetensors');

test('save and load round-trip named tensors and metadata through the C ABI', () => {
  const file = tmp();
  const w = nb.tensor([[1.5, -2], [3, 4]]);
  const idx = nb.tensor([7, 8, 9]);
  const flags = nb.tensor([true, false]);
  nb.save({ 'fc.weight': w, idx, flags }, file, { epoch: '3' });
  const back = nb.load(file, { metadata: true });
  assert.deepEqual(Object.keys(back.tensors), ['fc.weight', 'idx', 'flags']);
  assert.deepEqual(back.tensors['fc.weight'].toArray(), [[1.5, -2], [3, 4]]);
  assert.equal(back.tensors.idx.dtype, 'int64');
  assert.deepEqual(back.tensors.idx.toArray(), [7, 8, 9]);
  assert.deepEqual(back.tensors.flags.toArray(), [true, false]);
  assert.deepEqual(back.metadata, { epoch: '3' });
  assert.deepEqual(Object.keys(nb.load(file)), ['fc.weight', 'idx', 'flags']);
});

test('a corrupt file is an error naming the file and the tensor', () => {
  const file = tmp();
  const header = Buffer.from('{"evil":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}');
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(header.length));
  fs.writeFileSync(file, Buffer.concat([len, header, Buffer.alloc(8)]));
  assert.throws(() => nb.load(file), (e) => e instanceof nb.NablaError &&
    e.message.includes('is not a valid safetensors file') && e.message.includes("tensor 'evil' ends at byte 16") &&
    e.message.includes(file));
  assert.throws(() => nb.save({ x: 3 }, file), TypeError);
});
