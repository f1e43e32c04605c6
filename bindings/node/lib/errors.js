// errors.js: a failed nabla call becomes a JavaScript Error carrying the status and the C message.
'use strict';

const { abi, fn } = require('./native.js');

/** The base of every error nabla raises: `.status` (the nb_status code), `.statusName`
 *  ("NB_ERR_SHAPE") and `.cMessage` (the library's message, naming the op and its arguments). */
class NablaError extends Error {
  constructor(message, status, statusName) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.statusName = statusName;
    this.cMessage = message;
  }
}

// One subclass per status of the manifest: NB_ERR_SHAPE -> ShapeError, NB_ERR_OUT_OF_MEMORY ->
// OutOfMemoryError; a status added to the ABI gets its class without a change here.
const byStatus = new Map();
const classes = { NablaError };
for (const [name, code] of Object.entries(abi.CONSTANTS.status)) {
  if (code === 0) continue;
  const words = name.replace(/^NB_ERR_/, '').toLowerCase().split('_');
  const cls = words.map((w) => w[0].toUpperCase() + w.slice(1)).join('') + 'Error';
  const Sub = { [cls]: class extends NablaError {} }[cls];
  byStatus.set(code, Sub);
  classes[cls] = Sub;
}

/** The error for a failed call; reads this thread's last message. */
function errorFor(status) {
  const Cls = byStatus.get(status) || NablaError;
  return new Cls(fn.nb_last_error_message() || '', status, fn.nb_status_name(status));
}

/** Throws unless status is NB_OK. */
function check(status) {
  if (status !== 0) throw errorFor(status);
}

module.exports = { ...classes, errorFor, check };
