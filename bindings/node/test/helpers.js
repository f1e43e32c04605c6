// helpers.js: a seeded generator and float64 references for the tests.
'use strict';

const assert = require('node:assert/strict');

/** mulberry32: a small seeded generator of floats in [0, 1). */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Nested arrays of uniform values in [lo, hi). */
function uniform(r, shape, lo = -1, hi = 1) {
  if (shape.length === 0) return lo + (hi - lo) * r();
  return Array.from({ length: shape[0] }, () => uniform(r, shape.slice(1), lo, hi));
}

const f32 = (x) => Math.fround(x);

/** Asserts two nested arrays are equal within rtol/atol elementwise. */
function close(actual, expected, { rtol = 1e-5, atol = 1e-6 } = {}, path = '') {
  if (Array.isArray(expected)) {
    assert.equal(actual.length, expected.length, `length at ${path || 'top'}`);
    expected.forEach((e, i) => close(actual[i], e, { rtol, atol }, `${path}[${i}]`));
    return;
  }
  const ok = Number.isNaN(expected) ? Number.isNaN(actual) : Math.abs(actual - expected) <= atol + rtol * Math.abs(expected);
  assert.ok(ok, `at ${path || 'scalar'}: got ${actual}, expected ${expected}`);
}

const map = (a, f) => (Array.isArray(a) ? a.map((x) => map(x, f)) : f(a));
const zip = (a, b, f) => (Array.isArray(a) ? a.map((x, i) => zip(x, b[i], f)) : f(a, b));

function matmul(a, b) {
  return a.map((row) => b[0].map((_, j) => row.reduce((s, v, k) => s + v * b[k][j], 0)));
}

module.exports = { rng, uniform, f32, close, map, zip, matmul };
