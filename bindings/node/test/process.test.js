'use strict';

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');

test('a process that ran multithreaded kernels exits cleanly (the library stays mapped)', () => {
  // Backward over a few thousand elements wakes OpenMP's worker threads; at exit koffi
  // unloads what it loaded, and the workers must not lose their code under them.
  const script = `const nb = require(${JSON.stringify(ROOT)});
    const x = nb.randn(300, 2), w = nb.randn(64, 2, { requiresGrad: true });
    for (let i = 0; i < 20; i++) nb.tidy(() => { x.unsqueeze(1).mul(w).sum(2).sum().backward(); });
    console.log('done');`;
  for (let i = 0; i < 3; i++) {
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: '2' } });
    assert.equal(r.signal, null, `killed by ${r.signal}`);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'done');
  }
});
