'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const nb = require('..');
const { rng, uniform, f32, close, map, zip, matmul } = require('./helpers.js');

test('elementwise ops against float64 references, broadcasting a row', () => {
  const r = rng(1);
  const a = uniform(r, [3, 4]), b = uniform(r, [4], 0.5, 2);
  const ta = nb.tensor(a, { dtype: 'float64' }), tb = nb.tensor(b, { dtype: 'float64' });
  close(ta.add(tb, { alpha: 2 }).toArray(), a.map((row) => row.map((v, j) => v + 2 * b[j])), { rtol: 1e-15 });
  close(ta.mul(tb).toArray(), a.map((row) => row.map((v, j) => v * b[j])), { rtol: 1e-15 });
  close(nb.div(ta, tb).toArray(), a.map((row) => row.map((v, j) => v / b[j])), { rtol: 1e-15 });
  close(ta.exp().toArray(), map(a, Math.exp), { rtol: 1e-15 });
  close(ta.tanh().toArray(), map(a, Math.tanh), { rtol: 1e-15 });
  close(tb.log().toArray(), map(b, Math.log), { rtol: 1e-15 });
  close(ta.relu().toArray(), map(a, (v) => Math.max(v, 0)));
  close(ta.sigmoid().toArray(), map(a, (v) => 1 / (1 + Math.exp(-v))), { rtol: 1e-15 });
  close(ta.pow(2).toArray(), map(a, (v) => v * v), { rtol: 1e-15 });
  assert.deepEqual(ta.gt(0).toArray(), map(a, (v) => v > 0));
  close(ta.clamp(-0.5, 0.5).toArray(), map(a, (v) => Math.min(Math.max(v, -0.5), 0.5)));
});

test('float32 results are the float64 result rounded once', () => {
  const r = rng(2);
  const a = map(uniform(r, [64]), f32), b = map(uniform(r, [64]), f32);
  const got = nb.tensor(a, { dtype: 'float32' }).mul(nb.tensor(b, { dtype: 'float32' })).toArray();
  assert.deepEqual(got, zip(a, b, (x, y) => f32(x * y)));
});

test('type promotion: JavaScript numbers are wrapped scalars', () => {
  const i = nb.tensor([1, 2, 3], { dtype: 'int32' });
  assert.equal(i.add(2).dtype, 'int32');
  assert.equal(i.mul(2.5).dtype, 'float32');
  assert.deepEqual(i.mul(2.5).toArray(), [2.5, 5, 7.5]);
  assert.equal(i.add(nb.tensor([1], { dtype: 'int64' })).dtype, 'int64');
  assert.equal(nb.tensor([1.5], { dtype: 'float16' }).add(1).dtype, 'float16');
  assert.equal(i.gt(1).dtype, 'bool');
  assert.equal(i.div(2).dtype, 'float32');
  assert.deepEqual(i.div(2, { roundingMode: 'floor' }).toArray(), [0, 1, 1]);
});

test('reductions, with dims and keepdim', () => {
  const r = rng(3);
  const a = uniform(r, [3, 5]);
  const t = nb.tensor(a, { dtype: 'float64' });
  close(t.sum().item(), a.flat().reduce((s, v) => s + v, 0), { rtol: 1e-14 });
  close(t.sum(1).toArray(), a.map((row) => row.reduce((s, v) => s + v, 0)), { rtol: 1e-14 });
  assert.deepEqual(t.sum(0, true).shape, [1, 5]);
  close(t.mean([0, 1]).item(), a.flat().reduce((s, v) => s + v, 0) / 15, { rtol: 1e-14 });
  const { values, indices } = t.max(1);
  assert.deepEqual(values.toArray(), a.map((row) => Math.max(...row)));
  assert.deepEqual(indices.toArray(), a.map((row) => row.indexOf(Math.max(...row))));
  assert.deepEqual(t.argmax(1).toArray(), indices.toArray());
  assert.equal(t.argmax().item(), a.flat().indexOf(Math.max(...a.flat())));
  const sm = t.softmax(1).toArray();
  close(sm.map((row) => row.reduce((s, v) => s + v, 0)), [1, 1, 1], { rtol: 1e-14 });
  close(t.logsumexp([1], false).toArray(), a.map((row) => Math.log(row.reduce((s, v) => s + Math.exp(v), 0))), { rtol: 1e-14 });
});

test('matmul and linear against a float64 reference', () => {
  const r = rng(4);
  const a = uniform(r, [4, 3]), b = uniform(r, [3, 5]), bias = uniform(r, [5]);
  close(nb.matmul(nb.tensor(a, { dtype: 'float64' }), nb.tensor(b, { dtype: 'float64' })).toArray(), matmul(a, b), { rtol: 1e-14 });
  const wT = b[0].map((_, j) => b.map((row) => row[j]));  // weight [out, in]
  const y = nb.nn.functional.linear(nb.tensor(a, { dtype: 'float64' }), nb.tensor(wT, { dtype: 'float64' }), nb.tensor(bias, { dtype: 'float64' }));
  close(y.toArray(), matmul(a, b).map((row) => row.map((v, j) => v + bias[j])), { rtol: 1e-14 });
});

test('out= and in-place forms write into the given tensor', () => {
  const a = nb.ones(3), b = nb.full([3], 2.0);
  const out = nb.zeros(3);
  const res = a.add(b, { out });
  assert.equal(res, out);
  assert.deepEqual(out.toArray(), [3, 3, 3]);
  const v0 = a.version;
  assert.equal(a.mul_(b), a);
  assert.deepEqual(a.toArray(), [2, 2, 2]);
  assert.equal(a.version, v0 + 1);
  a.exp_();
  close(a.toArray(), [Math.exp(2), Math.exp(2), Math.exp(2)], { rtol: 1e-6 });
});

test('shape ops: cat, stack, views, flip, sort', () => {
  const x = nb.arange(6).view(2, 3);
  assert.deepEqual(nb.cat([x, x], 1).shape, [2, 6]);
  assert.deepEqual(nb.stack([x, x]).shape, [2, 2, 3]);
  assert.deepEqual(x.permute(1, 0).toArray(), [[0, 3], [1, 4], [2, 5]]);
  assert.deepEqual(x.unsqueeze(0).shape, [1, 2, 3]);
  assert.deepEqual(x.unsqueeze(0).squeeze().shape, [2, 3]);
  assert.deepEqual(x.flatten().toArray(), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(x.flip([1]).toArray(), [[2, 1, 0], [5, 4, 3]]);
  const [values, indices] = nb.tensor([3, 1, 2]).sort(0, true, false);
  assert.deepEqual(values.toArray(), [3, 2, 1]);
  assert.deepEqual(indices.toArray(), [0, 2, 1]);
  assert.deepEqual(nb.where(x.gt(2), x, 0).toArray(), [[0, 0, 0], [3, 4, 5]]);
});

test('errors: an Error subclass per status, with the code and the C message naming the op', () => {
  const a = nb.zeros(2, 3), b = nb.zeros(4);
  assert.throws(() => a.add(b), (e) => e instanceof nb.ShapeError && e instanceof nb.NablaError && e instanceof Error &&
    e.status === 2 && e.statusName === 'NB_ERR_SHAPE' && /^add: /.test(e.message) && /\[2, 3\]/.test(e.message) && /\[4\]/.test(e.message));
  assert.throws(() => a.sum(5), (e) => e instanceof nb.IndexError && e.status === nb.native.C.NB_ERR_INDEX && /sum/.test(e.message));
  assert.throws(() => nb.matmul(a, a), (e) => e instanceof nb.ShapeError && /matmul/.test(e.message));
  assert.throws(() => nb.tensor([1, 2]).requiresGrad_(), (e) => e.status !== 0 && /floating/i.test(e.message));
  assert.throws(() => a.view(5), { name: 'ShapeError', message: "view: shape '[5]' is invalid for input of size 6" });
  assert.throws(() => a.add('x'), TypeError);
  // a failed call leaves the out-parameter alone and leaks nothing
  const before = nb.memoryStats().live_tensors;
  for (let i = 0; i < 20; i++) assert.throws(() => a.add(b));
  assert.equal(nb.memoryStats().live_tensors, before);
});

test('every op of the manifest is a function of nabla.ops', () => {
  const { FUNCTIONS } = nb.native.abi;
  for (const [name, [, , group]] of Object.entries(FUNCTIONS)) {
    if (!group.startsWith('ops:')) continue;
    const js = name.slice(3).replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
    assert.equal(typeof nb.ops[js], 'function', name);
  }
  assert.equal(typeof nb.native.fn.nb_version, 'function');
  assert.equal(Object.keys(nb.native.fn).length, Object.keys(FUNCTIONS).length);
});
