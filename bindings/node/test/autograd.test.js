'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const nb = require('..');
const { rng, uniform, close, map } = require('./helpers.js');

test('backward of a composite matches the analytic gradient', () => {
  const r = rng(5);
  const xa = uniform(r, [4, 3]);
  const x = nb.tensor(xa, { dtype: 'float64', requiresGrad: true });
  // loss = mean(tanh(x) * x)  ->  d/dx = (tanh(x) + x (1 - tanh(x)^2)) / n
  const loss = x.tanh().mul(x).mean();
  assert.match(loss.gradFn, /^MeanBackward/);
  assert.ok(loss.requiresGrad && !loss.isLeaf && x.isLeaf);
  loss.backward();
  close(x.grad.toArray(), map(xa, (v) => (Math.tanh(v) + v * (1 - Math.tanh(v) ** 2)) / 12), { rtol: 1e-12 });
});

test('gradients accumulate, broadcast back, and can be cleared', () => {
  const w = nb.ones([3], { dtype: 'float64', requiresGrad: true });
  const x = nb.tensor([[1, 2, 3], [4, 5, 6]], { dtype: 'float64' });
  x.mul(w).sum().backward();
  assert.deepEqual(w.grad.toArray(), [5, 7, 9]);
  x.mul(w).sum().backward();
  assert.deepEqual(w.grad.toArray(), [10, 14, 18]);
  w.grad = null;
  assert.equal(w.grad, null);
  const g = nb.tensor([[1, -1, 2], [0, 1, 1]], { dtype: 'float64' });
  x.mul(w).backward(g);
  assert.deepEqual(w.grad.toArray(), [1, 3, 12]);
});

test('noGrad records nothing and restores the mode, even when the body throws', () => {
  const w = nb.ones([2], { requiresGrad: true });
  const y = nb.noGrad(() => w.mul(2));
  assert.equal(y.requiresGrad, false);
  assert.equal(nb.isGradEnabled(), true);
  assert.throws(() => nb.noGrad(() => { throw new Error('inside'); }), /inside/);
  assert.equal(nb.isGradEnabled(), true);
  assert.equal(nb.noGrad(() => nb.enableGrad(() => w.mul(2).requiresGrad)), true);
});

test('autograd.grad returns gradients without touching .grad; create_graph gives second order', () => {
  const x = nb.tensor([1.5, -2], { dtype: 'float64', requiresGrad: true });
  const y = x.pow(3).sum();
  const [g] = nb.autograd.grad(y, [x], { createGraph: true });
  close(g.toArray(), [3 * 1.5 ** 2, 3 * 4], { rtol: 1e-14 });
  assert.equal(x.grad, null);
  const [gg] = nb.autograd.grad(g.sum(), [x]);
  close(gg.toArray(), [9, -12], { rtol: 1e-14 });
});

test('backward twice without retainGraph fails with an autograd error', () => {
  const x = nb.ones([2], { requiresGrad: true });
  const y = x.exp().sum();
  y.backward(null, { retainGraph: true });
  y.backward();
  assert.throws(() => y.backward(), (e) => e instanceof nb.AutogradError && e.status === nb.native.C.NB_ERR_AUTOGRAD);
});

test('an in-place write to a saved tensor is caught by its version', () => {
  const x = nb.ones([3], { requiresGrad: true });
  const e = x.exp();
  const y = e.exp().sum();  // saves e
  e.add_(1);
  assert.throws(() => y.backward(), (err) => err instanceof nb.AutogradError && /version/.test(err.message));
});

test('hooks see and replace gradients; their closures are released', () => {
  const w = nb.tensor([1, 2], { dtype: 'float64', requiresGrad: true });
  const seen = [];
  const h = w.registerHook((g) => { seen.push(g.toArray()); return g.mul(10); });
  w.mul(w).sum().backward();
  assert.deepEqual(seen, [[2, 4]]);
  assert.deepEqual(w.grad.toArray(), [20, 40]);
  const live = nb._liveHooks();
  h.remove();
  assert.equal(nb._liveHooks(), live - 1);
});

test('an exception in a hook aborts backward and reaches the caller unchanged', () => {
  const w = nb.ones([2], { requiresGrad: true });
  class Boom extends Error {}
  w.registerHook(() => { throw new Boom('from the hook'); });
  assert.throws(() => w.mul(2).sum().backward(), (e) => e instanceof Boom && e.message === 'from the hook');
  assert.equal(w.grad, null);
});

test('detach shares memory without history', () => {
  const x = nb.ones([2], { requiresGrad: true });
  const d = x.mul(3).detach();
  assert.equal(d.requiresGrad, false);
  assert.equal(d.gradFn, null);
});
