#!/usr/bin/env node
// mlp.js: trains a two-layer perceptron from Node.js on a synthetic three-class spiral
// (300 training and 300 held-out points, not linearly separable) with full-batch gradient
// descent, and prints the held-out accuracy.
//
//     node examples/mlp.js [steps] [cpu|cuda|cuda:N]
//
// The data and the initial weights are made on the host, so every device starts from the same
// numbers; on CUDA, training reads the device only when it prints the loss.
// Every step runs inside nabla.tidy, so the step's tensors are released when it ends rather
// than when the garbage collector gets to them: the live-tensor count stays flat.
'use strict';

const nb = require('..');

const CLASSES = 3, PER_CLASS = 100, HIDDEN = 64;

/** Points on three interleaved spiral arms with Gaussian noise; labels are the arm. */
function spiral(noise) {
  const n = CLASSES * PER_CLASS;
  const r = nb.linspace(0.05, 1, PER_CLASS, { dtype: 'float64' }).asTypedArray();
  const jitter = nb.randn([n], { dtype: 'float64' }).asTypedArray();
  const xy = new Float32Array(2 * n), labels = new BigInt64Array(n);
  for (let c = 0; c < CLASSES; c++) {
    for (let i = 0; i < PER_CLASS; i++) {
      const k = c * PER_CLASS + i;
      const theta = (c * 2 * Math.PI) / CLASSES + 4 * r[i] + noise * jitter[k];
      xy[2 * k] = r[i] * Math.sin(theta);
      xy[2 * k + 1] = r[i] * Math.cos(theta);
      labels[k] = BigInt(c);
    }
  }
  return { x: nb.fromTypedArray(xy, [n, 2]), y: nb.fromTypedArray(labels, [n]) };
}

/** x @ w^T + b for x [N, in], w [out, in] (PyTorch's Linear layout), b [out]: what
 *  nn.functional.linear computes, written with broadcasting and a sum over the last dim,
 *  whose gradients every build has (linear's own gradient comes with the linalg formulas). */
const dense = (x, w, b) => x.unsqueeze(1).mul(w).sum(2).add(b);

function main(steps, device = 'cpu') {
  nb.manualSeed(0);
  const onDevice = ({ x, y }) => ({ x: x.to(device), y: y.to(device) });
  const train = onDevice(spiral(0.2)), test = onDevice(spiral(0.2));
  const init = (shape, fanIn) => nb.randn(shape).mul(Math.sqrt(2 / fanIn)).to(device).requiresGrad_();
  const params = [init([HIDDEN, 2], 2), nb.zeros([HIDDEN], { device, requiresGrad: true }),
                  init([CLASSES, HIDDEN], HIDDEN), nb.zeros([CLASSES], { device, requiresGrad: true })];
  const [w1, b1, w2, b2] = params;
  const forward = (x) => dense(dense(x, w1, b1).relu(), w2, b2);
  const accuracy = (data) => nb.tidy(() => nb.noGrad(() => forward(data.x).argmax(1).eq(data.y).float().mean().item()));

  const lr = 0.5;
  const t0 = process.hrtime.bigint();
  let loss = NaN, live0 = 0;
  const losses = {};  // step -> loss, at the steps that print
  for (let step = 1; step <= steps; step++) {
    const report = step === 1 || step === steps || step % 100 === 0;
    nb.tidy(() => {
      const l = nb.nn.functional.crossEntropy(forward(train.x), train.y);
      l.backward();
      nb.noGrad(() => params.forEach((p) => { const g = p.grad; p.sub_(g.mul(lr)); g.dispose(); p.grad = null; }));
      if (report) losses[step] = loss = l.item();  // the only read of the device
    });
    if (step === 1) live0 = nb.memoryStats().live_tensors;
    if (report) console.log(`step ${step}: loss ${loss.toFixed(4)}, live tensors ${nb.memoryStats().live_tensors}`);
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const result = { loss, losses, device, trainAccuracy: accuracy(train), testAccuracy: accuracy(test), steps, ms,
                   liveTensorsAfterFirstStep: live0, liveTensorsAtEnd: nb.memoryStats().live_tensors };
  console.log(`on ${device}: train accuracy ${(100 * result.trainAccuracy).toFixed(1)}%, held-out accuracy ` +
              `${(100 * result.testAccuracy).toFixed(1)}% after ${steps} steps (${(ms / steps).toFixed(2)} ms/step)`);
  return result;
}

if (require.main === module) main(Number(process.argv[2] || 1000), process.argv[3] || 'cpu');

module.exports = { main };
