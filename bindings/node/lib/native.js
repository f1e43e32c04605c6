// native.js: finds libnabla, loads it through koffi and binds the generated declarations.
//
// Where the library is looked for, in order:
//   1. NABLA_LIB: the path of libnabla.so (or of the directory holding it);
//   2. the Python package: `$NABLA_PYTHON -m nabla.config --libs` (python3, then python);
//   3. a meson build directory of this checkout (build/, builddir/).
// OpenBLAS (scipy-openblas32) is loaded first when the Python package names it.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const koffi = require('koffi');
const abi = require('./abi.generated.js');

const LIBNAME = process.platform === 'darwin' ? 'libnabla.dylib' : 'libnabla.so';
const REPO = path.resolve(__dirname, '..', '..', '..');

function fromPython() {
  const pythons = process.env.NABLA_PYTHON ? [process.env.NABLA_PYTHON] : ['python3', 'python'];
  for (const py of pythons) {
    const r = spawnSync(py, ['-m', 'nabla.config', '--libs'], { encoding: 'utf8' });
    if (r.status !== 0) continue;
    const dirs = r.stdout.split(/\s+/).filter((f) => f.startsWith('-L')).map((f) => f.slice(2));
    const lib = dirs.map((d) => path.join(d, LIBNAME)).find((p) => fs.existsSync(p));
    if (!lib) continue;
    const preload = dirs.map((d) => path.join(d, 'libscipy_openblas.so')).filter((p) => fs.existsSync(p));
    return { lib, preload, how: `${py} -m nabla.config` };
  }
  return null;
}

function locate() {
  const env = process.env.NABLA_LIB;
  if (env) {
    const lib = fs.existsSync(env) && fs.statSync(env).isDirectory() ? path.join(env, LIBNAME) : env;
    return { lib, preload: [], how: 'NABLA_LIB' };
  }
  const py = fromPython();
  if (py) return py;
  for (const dir of ['build', 'builddir']) {
    const lib = path.join(REPO, dir, LIBNAME);
    if (fs.existsSync(lib)) return { lib, preload: [], how: `${dir}/` };
  }
  throw new Error('nabla: libnabla not found: set NABLA_LIB to its path, install the Python package ' +
                  '(`pip install .`, found through `python -m nabla.config`), or build into build/');
}

/** Keeps the library mapped until the process ends. koffi unloads a library when the
 *  environment is torn down at exit, while the OpenMP worker threads libnabla started still
 *  run code of libgomp: dlclose would unmap it under them. */
function pin(file) {
  if (process.platform === 'win32') return;
  const libc = koffi.load(process.platform === 'darwin' ? 'libSystem.B.dylib' : 'libc.so.6');
  const dlopen = libc.func('void* dlopen(const char* file, int mode)');
  const RTLD_NOW = 2, RTLD_NODELETE = process.platform === 'darwin' ? 0x80 : 0x1000;
  if (dlopen(file, RTLD_NOW | RTLD_NODELETE) === null) throw new Error(`nabla: cannot pin ${file}`);
}

function load() {
  const where = locate();
  for (const p of where.preload) koffi.load(p);
  let lib;
  try {
    lib = koffi.load(where.lib);
  } catch (e) {
    throw new Error(`nabla: cannot load ${where.lib} (found through ${where.how}): ${e.message}`);
  }
  pin(where.lib);
  const bound = abi.declare(koffi, lib);
  const major = Math.floor(bound.fn.nb_version() / 10000);
  if (major !== abi.VERSION[0]) {  // a binding refuses a different major
    throw new Error(`nabla: libnabla ${bound.fn.nb_version_string()} has ABI major ${major}, ` +
                    `this package expects ${abi.VERSION[0]}`);
  }
  return { ...bound, path: where.lib, how: where.how };  // bound.missing: functions newer than the library
}

const native = load();
const C = {};  // every constant by name (NB_OK, NB_F32, ...)
for (const group of Object.values(abi.CONSTANTS)) Object.assign(C, group);

module.exports = { koffi, abi, C, fn: native.fn, types: native.types, missing: native.missing,
                   libraryPath: native.path, foundThrough: native.how };
