# Session 89's device scripts, in call order (run from the repository root with .deps and the named binaries carried).

# ==== scratch/s89a.sh
#!/usr/bin/env bash
# Session 88, call 1 (for the next session with a device): the whole GPU suite on the final
# library over the carried cache (s87's sixth call, never run, plus session 88's runtime changes:
# full kernels built at once inside a capture, dropped background jobs, the hurried queue, the
# cluster-capacity retry), cache verify, the dispatch stress, and the bench's new accuracy paths
# (a poisoned D per check, the K-grouped accumulate check, the wider row sample) on a few shapes.
B=scratch/gpubin-e
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

# ==== scratch/s89b.sh
#!/usr/bin/env bash
# Session 89, call 2: the whole GPU suite on this session's library (the schedulers' group width
# capped at the N-units, the tests' new checks: reference checks of the quick variants, poisoned
# yardsticks, K-grouped whole-expert scans, prewarm-capture counters, memory skips failing), on an
# empty kernel cache (the template change moves every GEMM key), with --warn NoAssertions
# and JITFP8_REQUIRE_LARGE_TENSORS=1. (Its first run, with the benches, failed every group on
# `--warn NoAssertions --warn NoTests`: Catch 2 takes one --warn.)
B=scratch/gpubin-f
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
export JITFP8_CACHE_DIR=/tmp/ctest2 JITFP8_REQUIRE_LARGE_TENSORS=1
mkdir -p /tmp/o2
trap 'tar -C /tmp -czf $OUT/o2.tgz o2 ctest2' EXIT
OUT_SAVE=$OUT
OUT=/tmp/o2 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "suite rc=$?"
OUT=$OUT_SAVE
$B/jitfp8 cache verify --cache-dir /tmp/ctest2 2>&1 | tail -1

# ==== scratch/s89c.sh
#!/usr/bin/env bash
# Session 89, call 3: compute-sanitizer racecheck on kernel families it has not covered yet
# (2026-12-04c reached 20 of 114 cases: none of the M-grouped GEMMs, split-K through DSMEM or the
# tile quantizers), and the case that ended with rc 9 under it there, alone. Three at a time (one
# case took 62 GB of host memory under racecheck), each case at most 270 s, on call 2's cache.
B=scratch/gpubin-f
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
tar -C /tmp -xzf scratch/ctest2.tgz && export JITFP8_CACHE_DIR=/tmp/ctest2
mkdir -p /tmp/o3
trap 'tar -C /tmp -czf $OUT/o3.tgz o3' EXIT
export B
printf '%s\n' \
  "a MoE dispatch on a cache hit performs no heap allocation*" \
  "grouped masked GEMM computes only rows below masked_m*" \
  "grouped contiguous GEMM matches per-expert references*" \
  "gemm_fp8_nt split-K configurations (DSMEM reduction) match the reference*" \
  "quantize_mxfp8 both orientations is bit-exact*" \
  "quantize_128x128 with the transposed copy is bit-exact*" |
  awk '{ print NR "\t" $0 }' | xargs -d '\n' -P 3 -n 1 bash -c '
    IFS=$(printf "\t") read -r n spec <<< "$1"
    log=/tmp/o3/racecheck.$n.log
    start=$SECONDS
    timeout 270 compute-sanitizer --tool racecheck --error-exitcode 3 $B/jitfp8_gpu_tests "$spec" --warn NoAssertions > "$log" 2>&1
    rc=$?
    echo "racecheck rc=$rc $((SECONDS - start))s | $spec | $(grep -E "RACECHECK SUMMARY" "$log" | tail -1 | sed "s/^=* *//") | $(grep -E "^(All tests passed|test cases)" "$log" | tail -1) | hazards: $(grep -c "Race reported\|Hazard" "$log")"' _
