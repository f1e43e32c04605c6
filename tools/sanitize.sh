#!/usr/bin/env bash
# tools/sanitize.sh: libnabla under AddressSanitizer + UndefinedBehaviorSanitizer.
#
#   tools/sanitize.sh [BUILD_DIR]        (default build-sanitize/, ignored by git)
#
# Configures a separate meson build (-Db_sanitize=address,undefined, -O1, no CUDA;
# hot loops cloned for AVX-512 and baseline only: NB_SANITIZER_CLONES in internal.h),
# builds libnabla only, then builds against it and runs: the C tests (tests/c),
# the C and C++ examples (bindings/c_examples), the ABI fuzzer's CI seeds (tests/fuzz) and
# the conformance C runner on every case. Leaks are errors. Exits non-zero on any
# sanitizer report or failing program. Needs python3 with meson, ninja, numpy and
# scipy-openblas32 (the build's own dependencies); not the nabla package.
#
# Third-party leak noise, if any appears, goes in tools/lsan.supp (each line names the
# library it is for; none is needed today); nabla's own code is never suppressed.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build-sanitize}
PY=${PYTHON:-python3}
CC=${CC:-cc}
FUZZ_EPISODES=${NB_SANITIZE_FUZZ_EPISODES:-20000}  # per seed, as tests/test_fuzz.py (CI_EPISODES in tests/fuzz/run.py)
cd "$ROOT"
start=$SECONDS

if [ ! -f "$BUILD/build.ninja" ]; then
  meson setup "$BUILD" -Db_sanitize=address,undefined -Db_lundef=false -Dcuda=disabled \
    -Dbuildtype=plain -Doptimization=1 -Ddebug=true -Dc_args='-fno-omit-frame-pointer -DNB_SANITIZER_CLONES' >"$BUILD.setup.log" 2>&1 ||
    { cat "$BUILD.setup.log"; exit 1; }
fi
ninja -C "$BUILD" libnabla.so | tail -1
echo "sanitize: libnabla built in $((SECONDS - start)) s"

OPENBLAS_LIB=$("$PY" -c 'import scipy_openblas32 as s; print(s.get_lib_dir())')
SAN=(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
LIBS=(-L"$BUILD" -lnabla -Wl,-rpath,"$BUILD" -L"$OPENBLAS_LIB" -Wl,--no-as-needed -lscipy_openblas
      -Wl,--as-needed -Wl,-rpath,"$OPENBLAS_LIB" -lpthread -lm)
CFLAGS=(-std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude "${SAN[@]}")
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1:allocator_may_return_null=1:detect_stack_use_after_return=0:strict_string_checks=1
export LSAN_OPTIONS=suppressions=$ROOT/tools/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export NB_TEST_QUICK=1 OMP_NUM_THREADS=2

BIN="$BUILD/programs"
mkdir -p "$BIN"
LOG="$BUILD/logs"
rm -rf "$LOG"
mkdir -p "$LOG"
failed=()

# run NAME CMD...: runs one program; a failure or any sanitizer report fails the step.
run() {
  local name=$1
  shift
  if "$@" >"$LOG/$name.log" 2>&1 && ! grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$LOG/$name.log"; then
    echo "  ok   $name"
  else
    echo "  FAIL $name (log: $LOG/$name.log)"
    grep -E -A30 "ERROR: (Address|Leak)Sanitizer|runtime error:|VIOLATION|CRASH|FAIL" "$LOG/$name.log" | head -60
    failed+=("$name")
  fi
}

build_c() {  # build_c OUT SOURCES... [EXTRA FLAGS]
  local out=$1
  shift
  "$CC" "${CFLAGS[@]}" "$@" "${LIBS[@]}" -o "$out"
}

echo "sanitize: [$((SECONDS - start)) s] C tests and examples"
for src in tests/c/test_*.c bindings/c_examples/*.c; do
  name=$(basename "$src" .c)
  build_c "$BIN/$name" "$src" -Itests/c
  run "$name" "$BIN/$name"
done
for src in tests/cpp/test_*.cpp bindings/c_examples/*.cpp; do  # C++, through nabla.hpp
  name=$(basename "$src" .cpp)_cpp
  "${CXX:-c++}" -std=c++17 -O1 -g -Wall -Wextra -Werror -pedantic-errors -Iinclude "${SAN[@]}" "$src" "${LIBS[@]}" \
    -o "$BIN/$name"
  run "$name" "$BIN/$name"
done

echo "sanitize: [$((SECONDS - start)) s] ABI fuzzer seeds"
"$PY" tests/fuzz/gen_calls.py "$BIN/fuzz_calls.inc"
build_c "$BIN/fuzz_abi" tests/fuzz/fuzz_abi.c tests/fuzz/fuzz_gen.c tests/fuzz/fuzz_dlpack.c -I"$BIN" -Itests/fuzz
# Known-bug families left out while unmerged: $NB_FUZZ_EXCLUDE, else tests/fuzz/known_bugs.txt.
exclude=${NB_FUZZ_EXCLUDE-$( { grep -v '^#' tests/fuzz/known_bugs.txt || true; } | awk 'NF {print $1}' | paste -sd, -)}
[ "$exclude" = none ] && exclude=
for seed in 1 2 3; do
  run "fuzz_abi-seed$seed" "$BIN/fuzz_abi" --seed "$seed" --episodes "$FUZZ_EPISODES" ${exclude:+--exclude "$exclude"}
done

echo "sanitize: [$((SECONDS - start)) s] conformance C runner"
build_c "$BIN/nb_conformance" conformance/c/runner.c
run conformance "$BIN/nb_conformance" conformance/cases/*.txt
tail -1 "$LOG/conformance.log" | sed 's/^/  /'

echo "sanitize: $((SECONDS - start)) s"
if [ ${#failed[@]} -ne 0 ]; then
  echo "sanitize: FAILED: ${failed[*]}"
  exit 1
fi
echo "sanitize: ok"
