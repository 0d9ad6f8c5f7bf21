#!/usr/bin/env bash
# The GPU tests as seven groups of tags in parallel processes on one GPU: the kernels the cases
# compile are built on all the host's cores at once, and the GPU runs several cases side by side.
# On H200 hosts (16 cores, 2026-12-04): 210 s on an empty kernel cache, 142 s on a cache an
# earlier run filled (the tensors past 4 GiB, with the quantizers' longest rows, the longest
# group), against about 10 minutes for the suite in one process (`gpu_check.sh tests`).
# Usage: tools/gpu_test_groups.sh [TESTS_BINARY]   (default: $build/tests/jitfp8_gpu_tests)
# Logs: $OUT (or ./gpu-check-out)/tests-<n>.log, with each case's duration. Exit status 1 if any
# group failed or ran past GROUP_TIMEOUT_S (default 540). Cases skipped for want of device memory
# are counted in the summary; export JITFP8_REQUIRE_LARGE_TENSORS=1 to fail them instead (a GPU
# known to have the memory: the H200's 139 GB hold the [large-tensors] group beside the others).
# The kernels compiled go to $JITFP8_CACHE_DIR. To skip most compiles in a later device call,
# point it at a folder that travels with the call (carried) and bring the folder back through
# $OUT: cache keys cover the templates and options, so an entry of a changed kernel is never used.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/gpu-check-out}
mkdir -p "$out"
tests=${1:-${BUILD_DIR:-$root/build-gpu}/tests/jitfp8_gpu_tests}
[ -x "$tests" ] || { echo "no test binary at $tests" >&2; exit 2; }

# The last group is every case the others leave out, so a case with a new tag still runs. The
# first two split [gemm], the longest family on an empty cache (about a third of the suite's
# time); the tensors past 4 GiB are the longest group on a filled one (78 s).
groups=("[gemm][splitk],[gemm][sm-limit]" "[gemm]~[splitk]~[sm-limit]" "[wgrad]" "[moe],[moe_wgrad]"
        "[quant]" "[large-tensors]" "~[gemm]~[wgrad]~[moe]~[moe_wgrad]~[quant]~[large-tensors]")
start=$SECONDS
for i in "${!groups[@]}"; do
  (
    log=$out/tests-$((i + 1)).log
    # --warn NoAssertions as ctest passes it: a case that checks nothing fails. A pattern that
    # matches no case fails too (Catch 2 takes one --warn, so not through --warn NoTests).
    timeout ${GROUP_TIMEOUT_S:-540} "$tests" "${groups[$i]}" --order rand -d yes --warn NoAssertions > "$log" 2>&1
    rc=$?
    grep -q "^No test cases matched" "$log" && [ $rc -eq 0 ] && rc=1
    # Cases skipped for want of device memory pass in Catch's totals: counted here
    # (JITFP8_REQUIRE_LARGE_TENSORS=1 fails them instead: tests/gpu/memory_skip.hpp).
    skips=$(grep -c "skipped:" "$log")
    echo "group $((i + 1)) ${groups[$i]}: rc=$rc after $((SECONDS - start)) s: $(grep -E "^(All tests passed|test cases)" "$log" | tail -1)$([ "$skips" -gt 0 ] && echo " ($skips skipped for memory)")"
  ) &
done > "$out/tests-groups.txt"
wait
sort -n -k2 "$out/tests-groups.txt"
for i in "${!groups[@]}"; do grep -B2 -A8 "FAILED" "$out/tests-$((i + 1)).log" | head -40; done
[ "$(grep -c " rc=0 " "$out/tests-groups.txt")" -eq ${#groups[@]} ]
