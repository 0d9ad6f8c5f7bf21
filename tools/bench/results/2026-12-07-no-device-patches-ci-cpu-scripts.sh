# Session 105 (2026-12-07): the device calls written for the two carried patches; none got a
# machine (fifteen tries, see the results file). Set-up on this machine, from the repository
# root at 7a72769 or later (scratch/gpubin of this session may still be there: it is exactly this):
#   rm -rf scratch/t-old && mkdir -p scratch/t-old && git archive HEAD templates | tar -x -C scratch/t-old --strip-components=1
#   git apply tools/bench/results/2026-12-06g-dump-plans-deferral-n7168-h100-dump-checks-unrun.patch
#   git apply tools/bench/results/2026-12-06h-accumulators-defined-reviews-cpu-accumulators-unmeasured.patch
#   (cd build && ninja)   # 26 s here on a built tree
#   rm -rf scratch/gpubin && mkdir -p scratch/gpubin && cp build/tools/jitfp8 build/tools/jitfp8-bench build/tests/jitfp8_gpu_tests scratch/gpubin/ && cp -P build/libjitfp8.so* scratch/gpubin/
# then copy the script below into scratch/ and call it through `run` with carry
# [".deps", "scratch/gpubin", "scratch/t-old", "scratch/<script>"]. s1.sh takes LIMIT (seconds for
# the whole script, default 585) and ROUNDS (old/new bench rounds, default 2); s1min.sh is the
# least that still decides both patches; s2.sh, the anchors, is for a second call on the same
# machine.

#### scratch/s1.sh
#!/usr/bin/env bash
# Written for session 104 and never run: no device machine came (see the results file). For the
# next session: apply 2026-12-06g-dump-plans-deferral-n7168-h100-dump-checks-unrun.patch and
# -accumulators-unmeasured.patch, build, copy
# jitfp8, jitfp8-bench, jitfp8_gpu_tests and libjitfp8.so* into scratch/gpubin, and the templates
# before -accumulators-unmeasured.patch into scratch/t-old
# (git archive HEAD templates | tar -x -C scratch/t-old --strip-components=1, before applying it);
# carry .deps, scratch/gpubin, scratch/t-old and this script.
# Session 104, call 1: the dump checks of every GEMM op ([dump]); the remaining accumulators'
# definition against the templates before it (scratch/t-old) on the two kernels of DeepSeek-V3's
# manifest and the anchors whose code it changes (dense 64 x 128 tiles, 8 stages, N 7168 / K 16384,
# 27 of 1416 instructions; contiguous 128 x 160, N 4096 / K 7168, 8 groups of 80-240 rows, 36 of
# 4296); the whole suite.
H=scratch/gpubin
export LD_LIBRARY_PATH=$PWD/$H:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
start=$SECONDS
echo "=== [dump]"
JITFP8_CACHE_DIR=/tmp/c-dump timeout 200 $H/jitfp8_gpu_tests "[dump]" 2>&1 | tail -4
run() {  # name, template dir or "", bench args...
  local name=$1 t=$2; shift 2
  echo "=== $name $1 ($((SECONDS - start)) s)"
  if [ -n "$t" ]; then export JITFP8_TEMPLATE_DIR=$PWD/$t; else unset JITFP8_TEMPLATE_DIR; fi
  JITFP8_CACHE_DIR=/tmp/c-$name timeout 150 $H/jitfp8-bench "$@" 2>&1 | grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||rror"
  unset JITFP8_TEMPLATE_DIR
}
F="gemm --forward-only --iters 20 --shapes 128,7168,16384;64,7168,16384;128,4096,7168"
for r in $(seq 1 ${ROUNDS:-2}); do
  if [ $((r % 2)) = 1 ]; then a=old; b=new; else a=new; b=old; fi
  for v in $a $b; do t=""; [ $v = old ] && t=scratch/t-old; run $v "$t" $F; done
  for v in $a $b; do t=""; [ $v = old ] && t=scratch/t-old; run $v "$t" moe --only contiguous --shapes "8x80,4096,7168;8x160,4096,7168;8x240,4096,7168"; done
done
echo "=== whole GPU suite ($((SECONDS - start)) s)"
GROUP_TIMEOUT_S=$((${LIMIT:-585} - 15 - (SECONDS - start))) JITFP8_CACHE_DIR=/tmp/c-suite timeout $((${LIMIT:-585} - (SECONDS - start))) tools/gpu_test_groups.sh $H/jitfp8_gpu_tests 2>&1 | tail -15
echo "done after $((SECONDS - start)) s"

#### scratch/s1min.sh
#!/usr/bin/env bash
# Session 105, the last try on a small budget: the [dump] checks, then the two kernels whose code
# the accumulator patch changes, old (scratch/t-old) and new in turns, then as much of the suite's
# GEMM and MoE groups as the limit leaves. Carry: .deps scratch/gpubin scratch/t-old scratch/s1min.sh
H=scratch/gpubin
export LD_LIBRARY_PATH=$PWD/$H:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
start=$SECONDS
echo "=== [dump]"
JITFP8_CACHE_DIR=/tmp/c-dump timeout 90 $H/jitfp8_gpu_tests "[dump]" 2>&1 | tail -4
for v in old new old new; do
  if [ $v = old ]; then export JITFP8_TEMPLATE_DIR=$PWD/scratch/t-old; else unset JITFP8_TEMPLATE_DIR; fi
  echo "=== $v ($((SECONDS - start)) s)"
  JITFP8_CACHE_DIR=/tmp/c-$v timeout 60 $H/jitfp8-bench gemm --forward-only --iters 20 --shapes "128,7168,16384" 2>&1 | grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||rror"
  JITFP8_CACHE_DIR=/tmp/c-$v timeout 60 $H/jitfp8-bench moe --only contiguous --shapes "8x160,4096,7168" 2>&1 | grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||rror"
done
unset JITFP8_TEMPLATE_DIR
echo "=== [gemm]~[splitk]~[sm-limit] and [moe] ($((SECONDS - start)) s)"
JITFP8_CACHE_DIR=/tmp/c-new timeout $((${LIMIT:-300} - (SECONDS - start))) $H/jitfp8_gpu_tests "[gemm]~[splitk]~[sm-limit],[moe]" --warn NoAssertions 2>&1 | tail -3
echo "done after $((SECONDS - start)) s"

#### scratch/s2.sh
#!/usr/bin/env bash
# Session 105, call 2 (same warm machine, after s1.sh): the anchors (bench gemm and bench moe,
# the anchors' protocol: 2 GB flush, 20 iterations) on this session's binaries (both patches
# applied), an empty kernel cache. Carry: .deps scratch/gpubin scratch/s2.sh
B=scratch/gpubin
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_CACHE_DIR=/tmp/cbench
{ nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,power.limit,driver_version --format=csv,noheader; } > $OUT/host.txt 2>&1; cat $OUT/host.txt
start=$SECONDS
timeout ${GEMM_TIMEOUT:-280} $B/jitfp8-bench gemm --flush-mb 2048 --iters 20 --json $OUT/gemm.json > $OUT/gemm.txt 2>&1; echo "bench gemm rc $? after $((SECONDS - start)) s"
cut -c1-220 $OUT/gemm.txt
timeout $((580 - (SECONDS - start))) $B/jitfp8-bench moe --flush-mb 2048 --json $OUT/moe.json > $OUT/moe.txt 2>&1; echo "bench moe rc $? after $((SECONDS - start)) s"
cut -c1-200 $OUT/moe.txt | tail -45
