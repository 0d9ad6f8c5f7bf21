#!/usr/bin/env bash
# One call on the GPU machine: build, GPU tests, compute-sanitizer, benchmarks.
# Usage (from the repository root, with .deps carried: the packages of tools/install_deps.sh
# unpacked under .deps/usr by ../shared/device/prepare-deps.sh; it builds into $BUILD_DIR or build-gpu/):
#   tools/gpu_check.sh [tests|tests-groups|random|stress|sanitize|sanitize-all|bench|bench-moe]...   (default: tests sanitize bench)
# Every run of the test binary passes --warn NoAssertions (as ctest does): a case that checks
# nothing fails; and a name or tag that matches no case ("No test cases matched" in its log) fails
# the step (Catch 2 takes one --warn, so not through --warn NoTests).
# Logs go to $OUT (or ./gpu-check-out): tests.log, tests-<n>.log, random-<seed>.log, stress.log, sanitize.log, sanitize-<tool>.log,
# bench_gemm.{txt,json}, bench_quant.{txt,json}, bench_moe.{txt,json}.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-check-out}
mkdir -p "$out"
build=${BUILD_DIR:-$root/build-gpu}  # BUILD_DIR outside a carried path survives between calls
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests sanitize bench)
export JITFP8_CACHE_DIR=${JITFP8_CACHE_DIR:-/tmp/jitfp8-gpu-check-cache}

rm -f "$out/build.log"  # a log of an earlier call would stand for a configure that failed now
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$root/.deps/usr" > "$out/cmake.log" 2>&1 &&
  cmake --build "$build" > "$out/build.log" 2>&1 ||
  { tail -40 "$out/$([ -s "$out/build.log" ] && echo build || echo cmake).log"; exit 1; }
tests=$build/tests/jitfp8_gpu_tests
# This build's libjitfp8 before any other on an inherited LD_LIBRARY_PATH: another build's copy
# (made with another compiler) fails to load beside these binaries (2026-12-04).
export LD_LIBRARY_PATH=$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
status=0
for step in "${steps[@]}"; do
  case $step in
    tests)
      # About 10 minutes on an H200 (2026-12-01), 70 s of it the tensors past 4 GiB; ctest's limit.
      timeout ${TESTS_TIMEOUT_S:-1200} "$tests" --order rand --warn NoAssertions > "$out/tests.log" 2>&1 || status=1
      grep -E "^dispatch:|^load-probe:|yardstick|test cases|assertions" "$out/tests.log"
      grep -B2 -A8 "FAILED" "$out/tests.log" | head -60 ;;
    tests-groups)
      # The same cases as seven groups of tags in parallel processes (tools/gpu_test_groups.sh):
      # minutes faster, while `tests` runs them in one process in a random order.
      "$root/tools/gpu_test_groups.sh" "$tests" || status=1 ;;
    random)
      # The [random] cases (the dispatch on random shapes) over other seeds than the suite's own:
      # RANDOM_SEEDS (default 1-8), each 45-70 s on a fresh H200 cache (2026-12-04), until RANDOM_TIMEOUT_S.
      end=$((SECONDS + ${RANDOM_TIMEOUT_S:-600}))
      for seed in ${RANDOM_SEEDS:-1 2 3 4 5 6 7 8}; do
        [ $SECONDS -lt $end ] || { echo "random: out of time before seed $seed"; break; }
        JITFP8_TEST_SEED=$seed timeout $((end - SECONDS + 5)) "$tests" "[random]" --warn NoAssertions > "$out/random-$seed.log" 2>&1 ||
          status=1
        grep -q "^No test cases matched" "$out/random-$seed.log" && status=1
        echo "random seed $seed: $(grep -E "^(All tests passed|test cases)" "$out/random-$seed.log" | tail -1)"
        grep -B2 -A8 "FAILED" "$out/random-$seed.log" | head -40
      done ;;
    sanitize)
      # Small shapes only: every kernel family under memcheck, the shared-memory kernels under
      # racecheck and synccheck.
      subset='[zeros],gemm_fp8_nt leaves the padding of a strided D untouched,gemm_fp8_wgrad leaves the padding of a strided D untouched,gemm_fp8_wgrad accumulates into D in place'
      # memcheck with --report-api-errors no, as sanitize-all (below) says why: the library checks
      # every driver call itself, and asks some it expects to fail (once per context and thread,
      # whether a green context is current: runtime/stream_sms.cpp).
      for tool in memcheck racecheck synccheck; do
        echo "== compute-sanitizer --tool $tool" | tee -a "$out/sanitize.log"
        options=(); [ "$tool" = memcheck ] && options=(--report-api-errors no)
        timeout ${SANITIZE_TIMEOUT_S:-300} compute-sanitizer --tool "$tool" "${options[@]}" --error-exitcode 3 "$tests" "$subset" --warn NoAssertions \
          >> "$out/sanitize.log" 2>&1
        rc=$?
        grep -q "^No test cases matched" "$out/sanitize.log" && [ $rc -eq 0 ] && rc=1
        echo "exit $rc" | tee -a "$out/sanitize.log"
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases" "$out/sanitize.log" | tail -2
        [ $rc -eq 0 ] || status=1
      done ;;
    stress)
      # Processes x threads dispatching on one empty cache (tests/stress/gpu_dispatch_stress.cpp).
      timeout ${STRESS_TIMEOUT_S:-300} "$build/tests/stress/jitfp8_gpu_dispatch_stress" 64 16 \
        > "$out/stress.log" 2>&1 || status=1
      tail -3 "$out/stress.log" ;;
    sanitize-all)
      # Every GPU test case under memcheck, racecheck and synccheck (or SANITIZE_TOOLS), each
      # (tool, case) in its own process with its own time limit, SANITIZE_JOBS at once (racecheck:
      # RACECHECK_JOBS, default 2: one case took 62 GB of host memory under it, and 14 at once
      # had the host kill one, 2026-12-04), except the timing micro-benchmark, the full-size
      # anchor/yardstick shapes and the tensors past 4 GiB, whose kernels are the same templates
      # at sizes the sanitizers would take hours over. A case name is matched up to its first
      # character that Catch's test spec treats specially, then '*'. Per-case logs stay in
      # $out/sanitize/. On an H200 host, 14 at once on a filled kernel cache (2026-12-04):
      # memcheck 85 s and synccheck 52 s for all 114 cases, racecheck 20 of them in 480 s.
      # memcheck runs with --report-api-errors no: the library checks every driver call itself,
      # and "encode_tensor_map rejects a description the driver rejects" provokes 3 rejections by
      # cuTensorMapEncodeTiled on purpose, which memcheck otherwise counts as errors.
      mkdir -p "$out/sanitize"
      "$tests" --list-test-names-only | grep -v -e '^$' -e 'micro-benchmark' -e 'anchor' \
        -e 'yardstick' -e 'load probe' -e 'GiB' | sed -e 's/[],[].*$//' -e 's/$/*/' | sort -u > "$out/sanitize-cases.txt"
      export tests out
      export SANITIZE_CASE_TIMEOUT_S=${SANITIZE_CASE_TIMEOUT_S:-300}
      tools=${SANITIZE_TOOLS:-memcheck racecheck synccheck}
      : > "$out/sanitize.log"
      for tool in $tools; do
        jobs=${SANITIZE_JOBS:-8}
        [ "$tool" = racecheck ] && jobs=${RACECHECK_JOBS:-2}
        awk -v t=$tool '{ print t "\t" NR "\t" $0 }' "$out/sanitize-cases.txt" | xargs -d '\n' -P "$jobs" -n 1 bash -c '
          IFS=$(printf "\t") read -r tool n spec <<< "$1"
          log=$out/sanitize/$tool.$n.log
          options=()
          [ "$tool" = memcheck ] && options=(--report-api-errors no)
          timeout $SANITIZE_CASE_TIMEOUT_S compute-sanitizer --tool $tool "${options[@]}" --error-exitcode 3 "$tests" "$spec" --warn NoAssertions > "$log" 2>&1
          rc=$?
          grep -q "^No test cases matched" "$log" && [ $rc -eq 0 ] && rc=1
          summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1 | sed "s/^=* *//")
          cases=$(grep -E "^(All tests passed|test cases)" "$log" | tail -1)
          echo "$tool rc=$rc | $spec | $summary | $cases"' _ >> "$out/sanitize.log"
      done
      for tool in $tools; do
        echo "== $tool: $(grep -c "^$tool rc=0 " "$out/sanitize.log") of $(grep -c "^$tool rc=" "$out/sanitize.log") cases clean"
        grep -E "^$tool rc=[1-9]" "$out/sanitize.log" | head -20
      done
      grep -q -E ' rc=[1-9]' "$out/sanitize.log" && status=1
      tar czf "$out/sanitize-logs.tgz" -C "$out" sanitize && rm -rf "$out/sanitize" ;;
    bench-moe)
      timeout ${BENCH_MOE_TIMEOUT_S:-400} "$build/tools/jitfp8" bench moe --json "$out/bench_moe.json" \
        > "$out/bench_moe.txt" 2>&1 || status=1
      cat "$out/bench_moe.txt" ;;
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
