// nn.js: nabla.nn.functional with PyTorch's argument names (options objects for keywords).
'use strict';

const { C } = require('./native.js');
const { ops } = require('./ops.js');

const REDUCTION = { none: C.NB_REDUCTION_NONE, mean: C.NB_REDUCTION_MEAN, sum: C.NB_REDUCTION_SUM };
function reduction(r) {
  const code = REDUCTION[r];
  if (code === undefined) throw new TypeError(`${r} is not a valid value for reduction`);
  return code;
}

const functional = {
  /** x @ weight^T + bias; x: [*, in], weight: [out, in], bias: [out] or null. */
  linear: (x, weight, bias = null) => ops.linear(x, weight, bias),
  relu: (x) => ops.relu(x),
  gelu: (x, { approximate = 'none' } = {}) => ops.gelu(x, approximate === 'tanh'),
  sigmoid: (x) => ops.sigmoid(x),
  tanh: (x) => ops.tanh(x),
  silu: (x) => ops.silu(x),
  leakyRelu: (x, negativeSlope = 0.01) => ops.leakyRelu(x, negativeSlope),
  softmax: (x, dim) => ops.softmax(x, dim, -1),
  logSoftmax: (x, dim) => ops.logSoftmax(x, dim, -1),
  dropout: (x, p = 0.5, training = true) => ops.dropout(x, p, training, null),
  /** input: [N, C] logits, target: [N] int64 class indices. */
  crossEntropy: (input, target, { weight = null, ignoreIndex = -100, reduction: r = 'mean', labelSmoothing = 0 } = {}) =>
    ops.crossEntropy(input, target, weight, ignoreIndex, reduction(r), labelSmoothing),
  nllLoss: (input, target, { weight = null, ignoreIndex = -100, reduction: r = 'mean' } = {}) =>
    ops.nllLoss(input, target, weight, ignoreIndex, reduction(r)),
  mseLoss: (input, target, { reduction: r = 'mean' } = {}) => ops.mseLoss(input, target, null, reduction(r)),
  l1Loss: (input, target, { reduction: r = 'mean' } = {}) => ops.l1Loss(input, target, null, reduction(r)),
  oneHot: (x, numClasses = -1) => ops.oneHot(x, numClasses),
};

module.exports = { functional };
