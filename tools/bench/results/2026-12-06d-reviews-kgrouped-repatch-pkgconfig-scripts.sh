# Session 100 device scripts. Call 1:
#!/usr/bin/env bash
# Session 100, call 1: the whole GPU suite on this session's code (the K-grouped producer's
# tensor-map reuse fix, gemm_fp8_nt_with_config's template rules), the dispatch stress, then the
# K-grouped and weight-gradient benches beside cuBLASLt.
# Carry: .deps scratch/gpubin-d scratch/s100a.sh
B=${B:-scratch/gpubin-d}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cs
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
start=$SECONDS
GROUP_TIMEOUT_S=400 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests
echo "suite rc $? after $((SECONDS - start)) s"
for f in $OUT/tests-*.log; do echo "$(basename $f): $(grep -E 'All tests passed|test cases:|assertions:' $f | tail -2 | tr '\n' ' ')"; done
grep -h -B2 -A12 "FAILED" $OUT/tests-*.log | head -60
timeout 120 $B/jitfp8_gpu_dispatch_stress 16 8 2>&1 | tail -3; echo "stress rc ${PIPESTATUS[0]} after $((SECONDS - start)) s"
timeout 150 $B/jitfp8-bench moe --only kgrouped --iters 10 --json $OUT/kgrouped.json 2>&1 | tail -30
echo "kgrouped rc $? after $((SECONDS - start)) s"
timeout 120 $B/jitfp8-bench gemm --wgrad-only --iters 10 2>&1 | tail -14
echo "done after $((SECONDS - start)) s"

# Call 2 (and 3, after the case's fix):
#!/usr/bin/env bash
# Session 100, call 2: the new K-grouped re-patch case, the [moe_wgrad] group, and that case
# under compute-sanitizer memcheck and racecheck.
# Carry: .deps scratch/gpubin-d scratch/s100b.sh
B=${B:-scratch/gpubin-d}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cs
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
start=$SECONDS
T=$B/jitfp8_gpu_tests
timeout 200 $T "gemm_fp8_grouped_wgrad re-patches*" -s 2>&1 | grep -E "grouped wgrad|passed|failed|FAILED" | tail -12
echo "case rc ${PIPESTATUS[0]} after $((SECONDS - start)) s"
timeout 300 $T "[moe_wgrad]" --warn NoAssertions 2>&1 | tail -3
echo "moe_wgrad rc ${PIPESTATUS[0]} after $((SECONDS - start)) s"
S=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do
  timeout 150 $S --tool $tool --error-exitcode 3 $T "gemm_fp8_grouped_wgrad re-patches*" 2>&1 | tail -4
  echo "$tool rc ${PIPESTATUS[0]} after $((SECONDS - start)) s"
done

# Call 4: the mutant (a copy of templates/ whose sm90/gemm_fp8_1d1d.cuh traps where cur_start - 1 + kNumStages == issued):
JITFP8_TEMPLATE_DIR=$PWD/scratch/tmpl-mut JITFP8_CACHE_DIR=/tmp/cm timeout 120 scratch/gpubin-d/jitfp8_gpu_tests "gemm_fp8_grouped_wgrad re-patches*"
JITFP8_TEMPLATE_DIR=$PWD/scratch/tmpl-mut JITFP8_CACHE_DIR=/tmp/cm timeout 120 scratch/gpubin-d/jitfp8_gpu_tests "gemm_fp8_grouped_wgrad matches per-expert references"

# Call 5: the whole suite again on the final templates, the dispatch stress, the benches, exit-order:
#!/usr/bin/env bash
# Session 100, call 5: the whole GPU suite again on the final templates (inline constexpr constants; the K-grouped producer's
# tensor-map reuse fix, gemm_fp8_nt_with_config's template rules), the dispatch stress, then the
# K-grouped and weight-gradient benches beside cuBLASLt.
# Carry: .deps scratch/gpubin-d scratch/s100c.sh
B=${B:-scratch/gpubin-d}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cs
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
start=$SECONDS
GROUP_TIMEOUT_S=400 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests
echo "suite rc $? after $((SECONDS - start)) s"
for f in $OUT/tests-*.log; do echo "$(basename $f): $(grep -E 'All tests passed|test cases:|assertions:' $f | tail -2 | tr '\n' ' ')"; done
grep -h -B2 -A12 "FAILED" $OUT/tests-*.log | head -60
timeout 120 $B/jitfp8_gpu_dispatch_stress 16 8 2>&1 | tail -3; echo "stress rc ${PIPESTATUS[0]} after $((SECONDS - start)) s"
timeout 150 $B/jitfp8-bench moe --only kgrouped --iters 10 --json $OUT/kgrouped.json 2>&1 | tail -30
echo "kgrouped rc $? after $((SECONDS - start)) s"
timeout 120 $B/jitfp8-bench gemm --wgrad-only --iters 10 2>&1 | tail -14
timeout 60 $B/jitfp8_exit_order /tmp/eo; echo "exit-order rc $?"
echo "done after $((SECONDS - start)) s"
