'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const v8 = require('node:v8');
const vm = require('node:vm');
const nb = require('..');

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const live = () => nb.memoryStats().live_tensors;

test('nested arrays round-trip with PyTorch dtype inference', () => {
  const i = nb.tensor([[1, 2, 3], [4, 5, 6]]);
  assert.deepEqual(i.shape, [2, 3]);
  assert.equal(i.dtype, 'int64');
  assert.deepEqual(i.toArray(), [[1, 2, 3], [4, 5, 6]]);
  assert.equal(nb.tensor([1.5, 2]).dtype, 'float32');
  assert.equal(nb.tensor([true, false]).dtype, 'bool');
  assert.deepEqual(nb.tensor([true, false]).toArray(), [true, false]);
  assert.equal(nb.tensor(2.5).ndim, 0);
  assert.equal(nb.tensor(2.5).item(), 2.5);
  assert.deepEqual(nb.tensor([]).shape, [0]);
  assert.throws(() => nb.tensor([[1, 2], [3]]), /expected sequence of length 2 at dim 1/);
});

test('every dtype holds its values; int64 beyond 2^53 comes back as BigInt', () => {
  for (const dtype of ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'int16', 'int32', 'int64', 'uint8']) {
    const t = nb.tensor([0, 1, 2, 100], { dtype });
    assert.equal(t.dtype, dtype);
    assert.deepEqual(t.toArray(), [0, 1, 2, 100], dtype);
  }
  assert.deepEqual(nb.tensor([0.1], { dtype: 'float16' }).toArray(), [0.0999755859375]);  // rounded once to binary16
  assert.deepEqual(nb.tensor([1.00390625], { dtype: 'bfloat16' }).toArray(), [1]);     // ties to even
  const big = nb.tensor([2n ** 62n, -5n]);
  assert.deepEqual(big.toArray(), [2n ** 62n, -5]);
  assert.equal(big.select(0, 0).item(), 2n ** 62n);
  assert.equal(nb.tensor([3], { dtype: 'int32' }).sum().item(), 3);
});

test('typed arrays: copies in and out, and views that share memory with the tensor', () => {
  const src = new Float32Array([1, 2, 3, 4, 5, 6]);
  const t = nb.fromTypedArray(src, [2, 3]);
  src[0] = 100;  // a copy: the tensor does not see it
  assert.equal(t.toArray()[0][0], 1);
  const view = t.asTypedArray();
  assert.ok(view instanceof Float32Array);
  view[1] = -7;  // shared: the tensor sees it
  assert.deepEqual(t.toArray()[0], [1, -7, 3]);
  t.add_(1);     // and the view sees the tensor's writes
  assert.equal(view[0], 2);
  const copy = t.toTypedArray();
  copy[0] = 0;
  assert.equal(view[0], 2);
  assert.throws(() => t.T.asTypedArray(), /not contiguous/);
  assert.deepEqual(Array.from(nb.tensor([1, 2], { dtype: 'int64' }).asTypedArray()), [1n, 2n]);
});

test('a shared view keeps its memory alive after the tensor is disposed', () => {
  const t = nb.arange(4, { dtype: 'float64' });
  const view = t.asTypedArray();
  t.dispose();
  assert.deepEqual(Array.from(view), [0, 1, 2, 3]);
});

test('views share storage and metadata follows', () => {
  const x = nb.arange(12, { dtype: 'float32' }).view(3, 4);
  const y = x.T.slice(0, 1, 4, 2);
  assert.deepEqual(y.shape, [2, 3]);
  assert.deepEqual(y.stride(), [2, 4]);
  assert.equal(y.isContiguous(), false);
  x.select(0, 0).copy_(nb.tensor([10, 20, 30, 40], { dtype: 'float32' }));
  assert.deepEqual(y.toArray(), [[20, 5, 9], [40, 7, 11]]);
  assert.equal(x.device, 'cpu');
});

test('dispose() returns memory at once; a disposed tensor refuses use', () => {
  const before = live();
  const ts = Array.from({ length: 50 }, () => nb.zeros(1000));
  assert.equal(live(), before + 50);
  const bytes = nb.memoryStats().allocated_bytes;
  ts.forEach((t) => t.dispose());
  assert.equal(live(), before);
  assert.ok(nb.memoryStats().allocated_bytes <= bytes - 50 * 4000);
  ts[0].dispose();  // twice is fine
  assert.throws(() => ts[0].shape, (e) => e instanceof nb.NablaError && /after dispose/.test(e.message));
  assert.equal(String(ts[0]), 'Tensor(<disposed>)');
});

test('tidy disposes what it made except what it returns', () => {
  const before = live();
  const kept = nb.tidy(() => {
    const a = nb.ones(10);
    const b = a.mul(2).add(1);
    return { b };
  });
  assert.equal(live(), before + 1);
  assert.deepEqual(kept.b.toArray().slice(0, 2), [3, 3]);
  kept.b.dispose();
  assert.equal(live(), before);
});

test('the FinalizationRegistry releases tensors nobody disposed', async () => {
  const before = live();
  (() => { for (let i = 0; i < 200; i++) nb.zeros(100); })();
  for (let i = 0; i < 10 && live() > before; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.ok(live() <= before, `${live()} tensors alive, ${before} before`);  // earlier garbage may go too
});

test('factories follow PyTorch', () => {
  assert.deepEqual(nb.zeros(2, 2).toArray(), [[0, 0], [0, 0]]);
  assert.deepEqual(nb.ones([2], { dtype: 'int32' }).toArray(), [1, 1]);
  assert.deepEqual(nb.full([2], 7).toArray(), [7, 7]);
  assert.equal(nb.full([2], 7).dtype, 'int64');
  assert.equal(nb.full([2], 0.5).dtype, 'float32');
  assert.deepEqual(nb.arange(1, 4).toArray(), [1, 2, 3]);
  assert.deepEqual(nb.linspace(0, 1, 3).toArray(), [0, 0.5, 1]);
  assert.deepEqual(nb.eye(2).toArray(), [[1, 0], [0, 1]]);
  nb.manualSeed(3);
  const a = nb.randn(5).toArray();
  nb.manualSeed(3);
  assert.deepEqual(nb.randn(5).toArray(), a);
  const r = nb.randint(0, 3, [100]).toArray();
  assert.ok(r.every((v) => v >= 0 && v < 3));
  assert.equal(nb.rand(2, 3).dtype, 'float32');
});
