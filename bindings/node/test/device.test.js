'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const nb = require('..');

const hasCuda = nb.cuda.isAvailable();
const noCuda = hasCuda ? false : `no CUDA device: ${nb.cuda.unavailableReason()}`;

test('device names: cpu is the default, and to() takes a dtype, a device or both', () => {
  const t = nb.tensor([1.5, 2.5]);
  assert.equal(t.device, 'cpu');
  assert.deepEqual(t.to('cpu', 'float64').toArray(), [1.5, 2.5]);
  assert.equal(t.to({ dtype: 'float64' }).dtype, 'float64');
  assert.equal(t.to('cpu', { copy: true }).dtype, 'float32');
  assert.equal(nb.zeros(2, { device: 'cpu' }).device, 'cpu');
  assert.deepEqual(t.cpu().toArray(), [1.5, 2.5]);
});

test('a malformed device string names itself', () => {
  assert.throws(() => nb.zeros(2, { device: 'cuda:x' }), (e) => e instanceof nb.InvalidArgumentError && /device string: cuda:x/.test(e.message));
  assert.throws(() => nb.tensor([1], { device: 'tpu' }), /device string: tpu/);
});

test('without CUDA, moving to it fails with the reason and nothing leaks', { skip: hasCuda && 'CUDA is available' }, () => {
  const live = nb.memoryStats().live_tensors;
  const t = nb.ones(3);
  assert.equal(nb.cuda.deviceCount(), 0);
  assert.ok(nb.cuda.unavailableReason().length > 0);
  assert.throws(() => t.to('cuda'), (e) => e instanceof nb.DeviceError && /CUDA/.test(e.message));
  assert.throws(() => t.cuda(), nb.DeviceError);
  assert.throws(() => nb.zeros(2, { device: 'cuda' }), nb.DeviceError);
  t.dispose();
  assert.equal(nb.memoryStats().live_tensors, live);
});

test('tensors round-trip through the CUDA device', { skip: noCuda }, () => {
  const t = nb.arange(6, { dtype: 'float32' }).view(2, 3);
  const d = t.cuda();
  assert.equal(d.device, 'cuda:0');
  assert.equal(d.to('cuda:0').device, 'cuda:0');
  const y = d.mul(2).add(nb.ones(3, { device: 'cuda' })).sum(1);
  nb.cuda.synchronize();
  assert.deepEqual(y.cpu().toArray(), [9, 27]);
  assert.equal(nb.randn(4, { device: 'cuda' }).device, 'cuda:0');
  assert.equal(nb.randint(0, 5, [3], { device: 'cuda' }).device, 'cuda:0');
  assert.equal(nb.full([2], 7, { device: 'cuda', dtype: 'int32' }).cpu().toArray()[1], 7);
  assert.ok(nb.memoryStats('cuda').struct_size > 0);
});
