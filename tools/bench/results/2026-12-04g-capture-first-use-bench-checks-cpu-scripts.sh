#!/usr/bin/env bash
# Session 88, call 1 (for the next session with a device): the whole GPU suite on the final
# library over the carried cache (s87's sixth call, never run, plus session 88's runtime changes:
# full kernels built at once inside a capture, dropped background jobs, the hurried queue, the
# cluster-capacity retry), cache verify, the dispatch stress, and the bench's new accuracy paths
# (a poisoned D per check, the K-grouped accumulate check, the wider row sample) on a few shapes.
B=scratch/gpubin-d
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest
mkdir -p /tmp/o1
trap 'tar -C /tmp -czf $OUT/o1.tgz o1' EXIT
OUT_SAVE=$OUT
OUT=/tmp/o1 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "suite rc=$?"
OUT=$OUT_SAVE
$B/jitfp8 cache verify --cache-dir /tmp/ctest 2>&1 | tail -2
$B/jitfp8_gpu_dispatch_stress 16 8 2>&1 | tail -2; echo "stress rc=${PIPESTATUS[0]}"
$B/jitfp8-bench gemm --shapes "128,4096,7168;4096,7168,2048;100,2112,7168" --wgrad-shapes "4096,7168,2048" --iters 5 --json /tmp/o1/gemm.json 2>&1 | tail -20
$B/jitfp8-bench moe --only kgrouped,masked --iters 5 --json /tmp/o1/moe.json 2>&1 | tail -20
$B/jitfp8-bench moe --only kgrouped --uniform-tokens --shapes "4x1000,4096,7168" --iters 5 2>&1 | tail -6
