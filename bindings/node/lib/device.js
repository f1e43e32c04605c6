// device.js: device names ('cpu', 'cuda', 'cuda:1') as the C ABI's (device_type, index) pairs,
// and nabla.cuda: whether a CUDA device is there, how many, and waiting for queued work.
'use strict';

const { C, fn } = require('./native.js');
const { check, InvalidArgumentError } = require('./errors.js');

const COUNT = new Int32Array(1);
const TYPES = { cpu: C.NB_CPU, cuda: C.NB_CUDA };

/** {type, index} of a device name ('cpu', 'cuda', 'cuda:N') or of {type, index}; index -1 is the current device. */
function parse(device) {
  if (device === undefined || device === null) return { type: C.NB_CPU, index: 0 };
  if (typeof device === 'object' && 'type' in device) return { type: device.type, index: device.index ?? -1 };
  const m = /^(cpu|cuda)(?::(\d+))?$/.exec(String(device));
  if (m === null) {
    throw new InvalidArgumentError(`Expected one of cpu, cuda device type at start of device string: ${device}`,
                         C.NB_ERR_INVALID_ARGUMENT, 'NB_ERR_INVALID_ARGUMENT');
  }
  const type = TYPES[m[1]];
  return { type, index: m[2] !== undefined ? Number(m[2]) : type === C.NB_CPU ? 0 : -1 };
}

/** Whether a device argument names a device (rather than a dtype). */
function isDevice(x) {
  return (typeof x === 'string' && /^(cpu|cuda)(:\d+)?$/.test(x)) || (x !== null && typeof x === 'object' && 'type' in x);
}

const cuda = {
  /** The number of CUDA devices (0 when the plugin or driver is missing). */
  deviceCount() { return fn.nb_device_count(C.NB_CUDA, COUNT) === C.NB_OK ? COUNT[0] : 0; },
  isAvailable() { return cuda.deviceCount() > 0; },
  /** Why CUDA is not available (null when it is). */
  unavailableReason() { return fn.nb_device_unavailable_reason(C.NB_CUDA); },
  /** Waits for all work queued on the device (default: the current one). */
  synchronize(device = 'cuda') { check(fn.nb_device_synchronize(C.NB_CUDA, parse(device).index)); },
};

module.exports = { parse, isDevice, cuda };
