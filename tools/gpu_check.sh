#!/usr/bin/env bash
# One call on the GPU machine: build, GPU tests, compute-sanitizer on a small subset, benchmarks.
# Usage (from the repository root, with .deps carried): tools/gpu_check.sh [tests|sanitize|bench]...
# (default: all three). Logs go to $OUT (or ./gpu-check-out) as tests.log, sanitize.log,
# bench_gemm.{txt,json}, bench_quant.{txt,json}.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-check-out}
mkdir -p "$out"
build=$root/build-gpu
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests sanitize bench)
export JITFP8_CACHE_DIR=${JITFP8_CACHE_DIR:-/tmp/jitfp8-gpu-check-cache}

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$root/.deps/usr" > "$out/cmake.log" 2>&1 &&
  cmake --build "$build" > "$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
tests=$build/tests/jitfp8_gpu_tests
status=0
for step in "${steps[@]}"; do
  case $step in
    tests)
      timeout ${TESTS_TIMEOUT_S:-400} "$tests" --order rand > "$out/tests.log" 2>&1 || status=1
      grep -E "^dispatch:|^load-probe:|yardstick|test cases|assertions" "$out/tests.log"
      grep -B2 -A8 "FAILED" "$out/tests.log" | head -60 ;;
    sanitize)
      # Small shapes only: every kernel family under memcheck, the shared-memory kernels under
      # racecheck and synccheck.
      subset='[zeros],gemm_fp8_nt leaves the padding of a strided D untouched,gemm_fp8_wgrad leaves the padding of a strided D untouched,gemm_fp8_wgrad accumulates into D in place'
      for tool in memcheck racecheck synccheck; do
        echo "== compute-sanitizer --tool $tool" | tee -a "$out/sanitize.log"
        timeout ${SANITIZE_TIMEOUT_S:-300} compute-sanitizer --tool "$tool" --error-exitcode 3 "$tests" "$subset" \
          >> "$out/sanitize.log" 2>&1
        rc=$?
        echo "exit $rc" | tee -a "$out/sanitize.log"
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases" "$out/sanitize.log" | tail -2
        [ $rc -eq 0 ] || status=1
      done ;;
    bench)
      timeout 200 "$build/tools/jitfp8" bench gemm --json "$out/bench_gemm.json" \
        > "$out/bench_gemm.txt" 2>&1 || status=1
      cat "$out/bench_gemm.txt"
      timeout 100 "$build/tools/jitfp8" bench quant --shapes "8192,7168" \
        --json "$out/bench_quant.json" > "$out/bench_quant.txt" 2>&1 || status=1
      cat "$out/bench_quant.txt" ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
exit $status
