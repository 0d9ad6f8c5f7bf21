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
for r in 1 2; do
  if [ $((r % 2)) = 1 ]; then a=old; b=new; else a=new; b=old; fi
  for v in $a $b; do t=""; [ $v = old ] && t=scratch/t-old; run $v "$t" $F; done
  for v in $a $b; do t=""; [ $v = old ] && t=scratch/t-old; run $v "$t" moe --only contiguous --shapes "8x80,4096,7168;8x160,4096,7168;8x240,4096,7168"; done
done
echo "=== whole GPU suite ($((SECONDS - start)) s)"
GROUP_TIMEOUT_S=$((570 - (SECONDS - start))) JITFP8_CACHE_DIR=/tmp/c-suite timeout $((585 - (SECONDS - start))) tools/gpu_test_groups.sh $H/jitfp8_gpu_tests 2>&1 | tail -15
echo "done after $((SECONDS - start)) s"
