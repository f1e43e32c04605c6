'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const nb = require('..');
const { main } = require('../examples/mlp.js');

test('the MLP example learns the spiral and releases every step', () => {
  const log = console.log;
  console.log = () => {};
  let r;
  try {
    r = main(200);
  } finally {
    console.log = log;
  }
  assert.ok(r.loss < 0.3, `loss ${r.loss}`);
  assert.ok(r.testAccuracy >= 0.9, `held-out accuracy ${r.testAccuracy}`);
  assert.equal(r.liveTensorsAtEnd, r.liveTensorsAfterFirstStep);  // tidy released each step
  assert.ok(nb.memoryStats().live_tensors >= 0);
});
