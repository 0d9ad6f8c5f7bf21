#!/usr/bin/env bash
# Session 90, call 1 (not run in session 90: no device was lent; for the next session with one):
# session 89's pending cases (s89d: the null-m_indices layout, the green context, prewarm-capture
# and tiered cases) and session 90's new green-context case (background builds and prewarm's
# workers serving a caller with a green context current); then the whole suite over the carried
# cache (session 90's cache changes on every build: temporaries locked by their writers, key locks
# closed in forked children, waiters compiling unlocked after a holder wrote nothing, lookups
# past unusable entries), cache verify, and the multi-process dispatch stress.
# Carry: .deps scratch/gpubin-h scratch/s90a.sh scratch/ctest2.tgz
B=scratch/gpubin-h
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
tar -C /tmp -xzf scratch/ctest2.tgz && export JITFP8_CACHE_DIR=/tmp/ctest2
mkdir -p /tmp/o1
trap 'tar -C /tmp -czf $OUT/o1.tgz o1' EXIT
start=$SECONDS
timeout 200 $B/jitfp8_gpu_tests "moe_contiguous_layout matches a CPU layout bit for bit,[green-ctx],prewarm with load makes the first*,[tiered]" --warn NoAssertions -d yes > /tmp/o1/focused.log 2>&1; echo "focused rc=$? after $((SECONDS - start)) s"
grep -E "^[0-9.]+ s:|passed|failed|FAILED|No test" /tmp/o1/focused.log | tail -30
grep -B3 -A12 "FAILED" /tmp/o1/focused.log | head -60
OUT_SAVE=$OUT
OUT=/tmp/o1 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "suite rc=$? after $((SECONDS - start)) s"
OUT=$OUT_SAVE
$B/jitfp8 cache verify --cache-dir /tmp/ctest2 2>&1 | tail -2
$B/jitfp8_gpu_dispatch_stress 16 8 2>&1 | tail -2; echo "stress rc=${PIPESTATUS[0]} after $((SECONDS - start)) s"
