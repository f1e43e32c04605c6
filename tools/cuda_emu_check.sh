#!/usr/bin/env bash
# cuda_emu_check.sh: runs nabla's CUDA kernels on the CPU, for CI on machines
# without a GPU. Builds libnabla_cuda.so from src/cuda as host C++ against the
# emulator (meson -Demulate_cuda=true: needs g++ and the CUDA toolkit headers,
# not nvcc or a driver), then, with NABLA_CUDA_PLUGIN pointing at it:
#   1. the emulator's own tests (tests/cuda/test_emu.cu);
#   2. the C tests that use CUDA (tests/test_c_programs.py; they compile against
#      the installed nabla through `python -m nabla.config`, so run this after
#      `pip install .`, as CI does);
#   3. the emulator's own tests under ThreadSanitizer (only they: a Python with
#      libtsan preloaded reports too much of Python's and torch's own threading);
#   4. under AddressSanitizer: the plugin rebuilt with -Db_sanitize=address; the
#      emulator's tests, a deliberate out-of-bounds kernel write (which must be
#      caught), then every pytest case on the cuda device (`-k cuda`: the `device`
#      fixture's cuda parameter and every test marked as needing CUDA) in a Python
#      with libasan preloaded, so an out-of-bounds access in any kernel fails CI.
#      Only the plugin is instrumented: kernels and the memory they get (cudaMalloc
#      is the C heap, so ASan's redzones surround it) are what this step is about.
#      Leak checking is off (Python and torch keep their caches until exit). The C
#      tests are not repeated under ASan: they would have to be rebuilt with the
#      preload in every compiler call. With --no-asan the pytest cases run on the
#      plain plugin instead.
#
# Usage: tools/cuda_emu_check.sh [--no-asan]      (PYTHON=... picks the interpreter)
# Build directories: build-emu/, build-emu-tsan/ and build-emu-asan/ in the repository root,
# reused when present. Takes ~5 minutes on 2 cores from scratch.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-python3}
ASAN=1
[ "${1:-}" = "--no-asan" ] && ASAN=0
cd "$ROOT"

T0=$SECONDS
step() { echo; echo "=== [$((SECONDS - T0)) s] $*"; }
trap 'echo "=== [$((SECONDS - T0)) s] end"' EXIT

# Fails unless nabla loads the plugin NABLA_CUDA_PLUGIN names (else every cuda test would skip).
require_device() {
    "$PY" -c "import nabla, sys; ok = nabla.cuda.is_available(); print('cuda:', nabla.cuda.device_count(), 'device(s)', nabla.cuda.unavailable_reason()); sys.exit(0 if ok else 1)"
}

build() {  # build DIR MESON_ARGS...: the plugin and test_emu only, not the rest of nabla
    local dir=$1
    shift
    [ -f "$dir/build.ninja" ] || meson setup "$dir" -Demulate_cuda=true "$@" >/dev/null
    ninja -C "$dir" src/cuda/libnabla_cuda.so src/cuda/test_emu
}

# Every pytest case that runs on the cuda device, plus the C programs that use CUDA.
PYTEST=("$PY" -m pytest -q -p no:cacheprovider -o addopts= -rfEs)
CUDA_TESTS=(tests -k "cuda and not test_cuda_build and not test_c_program"
            --ignore=tests/test_c_programs.py)
C_TESTS=(tests/test_c_programs.py -k "test_c_program and not valgrind and (device_runtime or dlpack or errors or random or basics)")

step "build the emulated plugin"
# -O1: the kernels here are checked for what they compute, not timed, and -O3 takes
# three times as long to compile the elementwise instantiations (~350 s vs ~110 s).
build build-emu -Dbuildtype=plain -Dcpp_args=-O1
export NABLA_CUDA_PLUGIN=$ROOT/build-emu/src/cuda/libnabla_cuda.so
require_device

step "the emulator's own tests"
NABLA_EMU_DEVICES=2 build-emu/src/cuda/test_emu

step "C tests on the emulated cuda device"
"${PYTEST[@]}" "${C_TESTS[@]}"

step "the emulator's own tests under ThreadSanitizer (streams, the block pool, fibers)"
[ -f build-emu-tsan/build.ninja ] ||
    meson setup build-emu-tsan -Demulate_cuda=true -Db_sanitize=thread -Db_lundef=false -Dbuildtype=plain \
        -Dcpp_args=-O1 >/dev/null
ninja -C build-emu-tsan src/cuda/test_emu
NABLA_EMU_DEVICES=2 TSAN_OPTIONS=halt_on_error=1:exitcode=66 build-emu-tsan/src/cuda/test_emu

if [ "$ASAN" = 0 ]; then
    step "pytest on the emulated cuda device"
    "${PYTEST[@]}" "${CUDA_TESTS[@]}"
    exit 0
fi

step "build the emulated plugin with AddressSanitizer"
build build-emu-asan -Db_sanitize=address -Db_lundef=false -Dbuildtype=plain -Dcpp_args=-O1
export NABLA_CUDA_PLUGIN=$ROOT/build-emu-asan/src/cuda/libnabla_cuda.so
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0

step "the emulator's own tests under ASan"
NABLA_EMU_DEVICES=2 build-emu-asan/src/cuda/test_emu
if out=$(build-emu-asan/src/cuda/test_emu --out-of-bounds 2>&1); then
    echo "$out"
    echo "FAILED: an out-of-bounds kernel write went unnoticed under ASan" >&2
    exit 1
fi
grep -q "heap-buffer-overflow" <<<"$out" || { echo "$out"; echo "FAILED: no ASan report" >&2; exit 1; }
echo "ok: ASan caught the out-of-bounds kernel write"

step "pytest on the emulated cuda device, under ASan"
export LD_PRELOAD=$(g++ -print-file-name=libasan.so)
require_device
"${PYTEST[@]}" "${CUDA_TESTS[@]}"
