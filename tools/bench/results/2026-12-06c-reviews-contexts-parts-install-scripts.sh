# Session 99's device scripts (2026-12-06c)

# ---- call 3: scratch/s99a.sh
#!/usr/bin/env bash
# Session 99, call 1: the function-loading probe (lazy and eager), this session's GPU test
# changes (gap filler, out-of-range group ends, past-capacity K-grouped with the workspace, 300
# colwise groups), and three template mutants the changed tests must catch.
# Carry: .deps scratch/gpubin-d scratch/s99a.sh
B=${B:-scratch/gpubin-d}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cs
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
start=$SECONDS
nvcc -O2 -arch=sm_90a -std=c++20 tools/bench/probes/function_loading.cu -lnvrtc -L/usr/local/cuda/lib64/stubs -lcuda -o /tmp/fl
(echo "# lazy (default)"; /tmp/fl; echo; echo "# CUDA_MODULE_LOADING=EAGER"; CUDA_MODULE_LOADING=EAGER /tmp/fl) > $OUT/function_loading.txt 2>&1
echo "probe rc $? after $((SECONDS - start)) s"; cat $OUT/function_loading.txt
t() {  # name, filter...
  local name=$1; shift
  timeout 300 $B/jitfp8_gpu_tests "$@" > $OUT/$name.txt 2>&1; local rc=$?
  echo "$name rc $rc after $((SECONDS - start)) s: $(tail -2 $OUT/$name.txt | tr '\n' ' ')"
  grep -B3 -A12 FAILED $OUT/$name.txt | head -30
}
t quant "[quantize_1x128],[quant]"
t colwise "quantize_grouped_colwise*"
t contiguous "grouped contiguous GEMM matches*"
t past_capacity "gemm_fp8_grouped_wgrad computes experts past*"
# Mutants (JITFP8_TEMPLATE_DIR): each must make its test fail.
mutant() {  # name, file, old, new, filter
  rm -rf /tmp/mut && cp -r templates /tmp/mut
  python3 - "$2" "$3" "$4" <<'PY'
import sys
p, old, new = "/tmp/mut/" + sys.argv[1], sys.argv[2], sys.argv[3]
s = open(p).read(); assert s.count(old) == 1, (p, old); open(p, "w").write(s.replace(old, new))
PY
  JITFP8_TEMPLATE_DIR=/tmp/mut JITFP8_CACHE_DIR=/tmp/cs-$1 timeout 300 $B/jitfp8_gpu_tests "$5" > $OUT/mutant-$1.txt 2>&1
  echo "mutant $1 rc $? after $((SECONDS - start)) s: $(tail -2 $OUT/mutant-$1.txt | tr '\n' ' ')"
}
mutant gap-1x128 quant/quantize_1x128.cuh "if (elem < tile_len[i]) {" "if (elem < 128) {" "[quantize_1x128]"
mutant gap-tile quant/quantize_tile.cuh "inside = r < m && col0 + e < k;" "inside = r < m;" "[quant]"
mutant ends-clamp moe/grouping.cuh "tables[i] = v < 0 ? 0u : (u32)v > M ? M : (u32)v;" "tables[i] = (u32)v;" "grouped contiguous GEMM matches*"
echo "done after $((SECONDS - start)) s"

# ---- call 4: scratch/s99b.sh
#!/usr/bin/env bash
# Session 99, call 4: the whole GPU suite on this session's code (moe_contiguous_layout's new
# rule and its test, the messages, set_cache_roots, prewarm's rules), the dispatch stress and
# the exit-order program.
# Carry: .deps scratch/gpubin-d scratch/s99b.sh
B=${B:-scratch/gpubin-d}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cs
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
start=$SECONDS
GROUP_TIMEOUT_S=400 tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests
echo "suite rc $? after $((SECONDS - start)) s"
for f in $OUT/tests-*.log; do echo "$(basename $f): $(grep -E 'All tests passed|test cases:|assertions:' $f | tail -2 | tr '\n' ' ')"; done
grep -h -B2 -A12 "FAILED" $OUT/tests-*.log | head -60
timeout 120 $B/jitfp8_gpu_dispatch_stress 16 8 2>&1 | tail -3; echo "stress rc ${PIPESTATUS[0]} after $((SECONDS - start)) s"
timeout 60 $B/jitfp8_exit_order /tmp/eo; echo "exit-order rc $?"
echo "done after $((SECONDS - start)) s"
