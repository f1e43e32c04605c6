#!/usr/bin/env bash
# cuda_emu_check.sh: runs nabla's CUDA kernels on the CPU, for CI on machines
# without a GPU. Builds libnabla_cuda.so from src/cuda as host C++ against the
# emulator (meson -Demulate_cuda=true: needs g++ and the CUDA toolkit headers,
# not nvcc or a driver), under AddressSanitizer, and runs with it:
#   1. the emulator's own tests under ThreadSanitizer (only they: a Python with
#      libtsan preloaded reports too much of Python's and torch's own threading);
#   2. a deliberate out-of-bounds kernel write, which ASan must catch;
#   3. the emulator's own tests (tests/cuda/test_emu.cu);
#   4. every pytest case on the cuda device (`-k cuda`: the `device` fixture's cuda
#      parameter and every test marked as needing CUDA), so an out-of-bounds access
#      in any kernel fails CI, and the attention and convolution tests again with
#      NABLA_TENSOR_CORES=0 (float16/bfloat16 on the CUDA-core kernels);
#   5. the C tests that use CUDA (tests/test_c_programs.py; they compile against
#      the installed nabla through `python -m nabla.config`, so run this after
#      `pip install .`, as CI does).
# Steps 4 and 5 run with libasan preloaded (the programs themselves are not
# instrumented, the plugin is: kernels and the memory they get, cudaMalloc being
# the C heap with ASan's redzones around it, are what this is about). Leak
# checking is off (Python and torch keep their caches until exit).
# --no-asan builds the plain plugin (build-emu/) and runs 1, 3, 4 and 5 on it.
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

build() {  # build DIR MESON_ARGS...: the plugin, test_emu and the NCCL stand-in only, not the rest of nabla
    local dir=$1
    shift
    [ -f "$dir/build.ninja" ] || meson setup "$dir" -Demulate_cuda=true "$@" >/dev/null
    ninja -C "$dir" src/cuda/libnabla_cuda.so src/cuda/test_emu tests/nccl_standin/libnccl_standin.so
}

# Every pytest case that runs on the cuda device, plus the C programs that use CUDA.
PYTEST=("$PY" -m pytest -q -p no:cacheprovider -o addopts= -rfEs)
# The long runs on two workers (whole files each): CI runs this beside the sanitizer
# step, whose test phase is single-threaded and ends first.
PYTEST_2=("${PYTEST[@]}" -n 2 --dist loadfile)
CUDA_TESTS=(tests -k "cuda and not test_cuda_build and not test_c_program"
            --ignore=tests/test_c_programs.py)
C_TESTS=(tests/test_c_programs.py -k "(test_c_program and not valgrind and (device_runtime or dlpack or errors or random or basics or optim_list)) or test_train_mlp_on_cuda")

step "the emulator's own tests under ThreadSanitizer (streams, the block pool, fibers)"
[ -f build-emu-tsan/build.ninja ] ||
    meson setup build-emu-tsan -Demulate_cuda=true -Db_sanitize=thread -Db_lundef=false -Dbuildtype=plain \
        -Dcpp_args=-O1 >/dev/null
ninja -C build-emu-tsan src/cuda/test_emu
NABLA_EMU_DEVICES=2 TSAN_OPTIONS=halt_on_error=1:exitcode=66 build-emu-tsan/src/cuda/test_emu

# -Og: the kernels here are checked for what they compute, not timed. It compiles the
# kernel instantiations in a third of -O1's time (the elementwise ones: 33 s against
# 96 s under ASan) and the cuda tests run as fast as at -O1; -O0 compiles a little
# faster still but runs them a quarter slower.
if [ "$ASAN" = 0 ]; then
    step "build the emulated plugin"
    build build-emu -Dbuildtype=plain -Dcpp_args=-Og
    export NABLA_CUDA_PLUGIN=$ROOT/build-emu/src/cuda/libnabla_cuda.so
    emu=build-emu
else
    step "build the emulated plugin with AddressSanitizer"
    build build-emu-asan -Db_sanitize=address -Db_lundef=false -Dbuildtype=plain -Dcpp_args=-Og
    export NABLA_CUDA_PLUGIN=$ROOT/build-emu-asan/src/cuda/libnabla_cuda.so
    # no leak checks (Python and torch keep their caches); a huge request returns NULL, as malloc does
    export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:allocator_may_return_null=1
    emu=build-emu-asan
    if out=$(build-emu-asan/src/cuda/test_emu --out-of-bounds 2>&1); then
        echo "$out"
        echo "FAILED: an out-of-bounds kernel write went unnoticed under ASan" >&2
        exit 1
    fi
    grep -q "heap-buffer-overflow" <<<"$out" || { echo "$out"; echo "FAILED: no ASan report" >&2; exit 1; }
    echo "ok: ASan caught the out-of-bounds kernel write"
    export LD_PRELOAD=$(g++ -print-file-name=libasan.so)
fi
require_device

step "the emulator's own tests"
NABLA_EMU_DEVICES=2 "$emu"/src/cuda/test_emu

step "pytest on the emulated cuda device"
"${PYTEST_2[@]}" "${CUDA_TESTS[@]}"

step "attention and convolution with NABLA_TENSOR_CORES=0 (the CUDA-core half kernels)"
NABLA_TENSOR_CORES=0 "${PYTEST_2[@]}" tests/test_device_attention.py tests/test_device_conv_fused.py -k cuda

step "C tests on the emulated cuda device"
"${PYTEST[@]}" "${C_TESTS[@]}"
