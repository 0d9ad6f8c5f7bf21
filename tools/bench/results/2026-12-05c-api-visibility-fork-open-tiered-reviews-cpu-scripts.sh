#!/usr/bin/env bash
# Session 91, call 1 (for the next session with a device; sessions 90 and 91 had none): session
# 89's pending cases (the null-m_indices layout, the green context, prewarm-capture and tiered
# cases) and the green-context case of sessions 90-91 (background builds and prewarm's workers
# serving a caller with a green context current, now checked through the worker's context); then
# the whole suite over the carried cache (session 90's cache changes, session 91's: hidden
# visibility with the tests on the static objects, a fork during a slow open, one foreground
# retry of a failed background build), cache verify, and the multi-process dispatch stress.
# Logs go straight under $OUT, so that a run cut off at the limit still brings them back.
# Carry: .deps scratch/gpubin-i scratch/s91a.sh scratch/ctest2.tgz
B=scratch/gpubin-i
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
tar -C /tmp -xzf scratch/ctest2.tgz && export JITFP8_CACHE_DIR=/tmp/ctest2
start=$SECONDS
timeout 150 $B/jitfp8_gpu_tests "moe_contiguous_layout matches a CPU layout bit for bit,[green-ctx],prewarm with load makes the first*,[tiered]" --warn NoAssertions -d yes > $OUT/focused.log 2>&1; echo "focused rc=$? after $((SECONDS - start)) s"
grep -E "passed|failed|FAILED|No test|warning" $OUT/focused.log | tail -20
grep -B3 -A12 "FAILED" $OUT/focused.log | head -60
GROUP_TIMEOUT_S=300 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "suite rc=$? after $((SECONDS - start)) s"
timeout 30 $B/jitfp8 cache verify --cache-dir /tmp/ctest2 2>&1 | tail -2
timeout 100 $B/jitfp8_gpu_dispatch_stress 16 8 > $OUT/stress.log 2>&1; echo "stress rc=$? after $((SECONDS - start)) s"; tail -2 $OUT/stress.log
