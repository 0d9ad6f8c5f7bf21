# Session 102's device scripts (2026-12-06f). Setup, from the repository root on 566fc2e:
#   tools/bench/results/2026-12-06e-*-scripts.sh's setup lines make scratch/t-new and t-noepi
#     from 2026-12-06e's -defer.patch and -noepi.patch, and scratch/gpubin-e (main's binaries).
#   scratch/t-192: t-new with kDefer = !kGrouped && !kOverlap && kNumMathWGs == 3.
#   scratch/gpubin-f: the candidate (kDefer as landed but without kNumMulticast == 2), built and
#     copied as gpubin-e; scratch/t-hook: its templates with under_first_wgmma() moved above
#     load_scales; scratch/t-mut: its templates without the store after the walk.
# Carry: .deps and the folders each script names.
# ---- scratch/s102a.sh
#!/usr/bin/env bash
# Session 102, call 1: deferred wgrad epilogue (t-new) vs main (embedded in gpubin-e), alternated;
# [wgrad] GPU tests on t-new (incl. new 2000x3000x4096 128x128 multi-tile case); no-epilogue bound.
B=${B:-scratch/gpubin-e}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
start=$SECONDS
run() {  # name, template dir or "", bench args...
  local name=$1 dir=$2; shift 2
  echo "=== $name ($((SECONDS - start)) s)"
  if [ -n "$dir" ]; then export JITFP8_TEMPLATE_DIR=$PWD/$dir; else unset JITFP8_TEMPLATE_DIR; fi
  JITFP8_CACHE_DIR=/tmp/c-$name timeout 100 $B/jitfp8-bench "$@" 2>&1 | grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||rror"
  unset JITFP8_TEMPLATE_DIR
}
W="gemm --wgrad-only --iters 10"
run base "" $W
run new scratch/t-new $W
echo "=== tests ($((SECONDS - start)) s)"
JITFP8_CACHE_DIR=/tmp/c-new JITFP8_TEMPLATE_DIR=$PWD/scratch/t-new timeout 220 $B/jitfp8_gpu_tests "[wgrad]" 2>&1 | tail -6
run base "" $W
run new scratch/t-new $W
[ $((SECONDS - start)) -lt 470 ] && run noepi scratch/t-noepi $W
echo "done after $((SECONDS - start)) s"
# ---- scratch/s102b.sh
#!/usr/bin/env bash
# Session 102, call 3: deferred epilogue for 192-row tiles only (t-192) vs main, alternated, on
# the wgrad anchors and on shapes whose pick has 192-row tiles; then [wgrad] tests on t-192.
B=${B:-scratch/gpubin-e}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
start=$SECONDS
run() {  # name, template dir or "", bench args...
  local name=$1 dir=$2; shift 2
  echo "=== $name ($((SECONDS - start)) s)"
  if [ -n "$dir" ]; then export JITFP8_TEMPLATE_DIR=$PWD/$dir; else unset JITFP8_TEMPLATE_DIR; fi
  JITFP8_CACHE_DIR=/tmp/c-$name timeout 100 $B/jitfp8-bench "$@" 2>&1 | grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||rror"
  unset JITFP8_TEMPLATE_DIR
}
W="gemm --wgrad-only --iters 10"
S="300,3000,2048;300,7168,512;300,8192,1168;576,4096,512;576,14336,1168;2112,4096,1168;4096,7168,1536;16384,4096,1536;16384,7168,1168"
for r in 1 2; do
  run base "" $W
  run t192 scratch/t-192 $W
  run base "" $W --wgrad-shapes "$S"
  run t192 scratch/t-192 $W --wgrad-shapes "$S"
done
echo "=== tests ($((SECONDS - start)) s)"
JITFP8_CACHE_DIR=/tmp/c-t192 JITFP8_TEMPLATE_DIR=$PWD/scratch/t-192 timeout 200 $B/jitfp8_gpu_tests "[wgrad]" 2>&1 | tail -3
echo "done after $((SECONDS - start)) s"
# ---- scratch/s102c.sh
#!/usr/bin/env bash
# Session 102, call 4: the landing form (deferral for 192 x 128 epi 1 x 2 only; gpubin-f,
# embedded) vs main (gpubin-e), alternated; the new deferred-epilogue test, its mutant (t-mut: the
# last tile never stored) expected to fail; [wgrad] and [moe_wgrad]; racecheck/memcheck of the new case.
E=scratch/gpubin-e F=scratch/gpubin-f
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
start=$SECONDS
run() {  # name, bin dir, template dir or "", bench args...
  local name=$1 b=$2 t=$3; shift 3
  echo "=== $name ($((SECONDS - start)) s)"
  if [ -n "$t" ]; then export JITFP8_TEMPLATE_DIR=$PWD/$t; else unset JITFP8_TEMPLATE_DIR; fi
  LD_LIBRARY_PATH=$PWD/$b:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-$name timeout 100 $b/jitfp8-bench "$@" 2>&1 | grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||rror"
  unset JITFP8_TEMPLATE_DIR
}
T="gemm_fp8_wgrad's deferred epilogue*"
echo "=== mutant, expected to FAIL ($((SECONDS - start)) s)"
LD_LIBRARY_PATH=$PWD/$F:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-mut JITFP8_TEMPLATE_DIR=$PWD/scratch/t-mut timeout 100 $F/jitfp8_gpu_tests "$T" 2>&1 | grep -E "unwritten|test cases|passed" | head -4
echo "=== tests ($((SECONDS - start)) s)"
LD_LIBRARY_PATH=$PWD/$F:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-f timeout 240 $F/jitfp8_gpu_tests "[wgrad],[moe_wgrad]" 2>&1 | tail -3
W="gemm --wgrad-only --iters 10"
S="2112,4096,1168;16384,4096,1536;16384,7168,1168;300,8192,1168;4096,1536,2048"
for r in 1 2; do
  run base $E "" $W
  run land $F "" $W
  run hook $F scratch/t-hook $W
  run base $E "" $W --wgrad-shapes "$S"
  run land $F "" $W --wgrad-shapes "$S"
  run hook $F scratch/t-hook $W --wgrad-shapes "$S"
done
for tool in racecheck memcheck; do
  echo "=== $tool ($((SECONDS - start)) s)"
  opts=(); [ $tool = memcheck ] && opts=(--report-api-errors no)
  LD_LIBRARY_PATH=$PWD/$F:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-f timeout 110 /usr/local/cuda/bin/compute-sanitizer --tool $tool "${opts[@]}" --error-exitcode 3 $F/jitfp8_gpu_tests "$T" 2>&1 | grep -E "SUMMARY|test cases|passed" | tail -2; echo "rc=${PIPESTATUS[0]}"
done
echo "done after $((SECONDS - start)) s"
# ---- call 5 (one line)
F=scratch/gpubin-f; export LD_LIBRARY_PATH=$PWD/$F:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64; s=$SECONDS; echo "== mutant (expect FAIL)"; JITFP8_CACHE_DIR=/tmp/c-mut JITFP8_TEMPLATE_DIR=$PWD/scratch/t-mut timeout 60 $F/jitfp8_gpu_tests "gemm_fp8_wgrad's deferred epilogue*" > $OUT/mut.txt 2>&1; echo rc=$?; grep -E "unwritten|test cases" $OUT/mut.txt | head -3; echo "== tests $((SECONDS-s))"; JITFP8_CACHE_DIR=/tmp/c-f timeout 230 $F/jitfp8_gpu_tests "[wgrad],[moe_wgrad]" > $OUT/tests.txt 2>&1; echo rc=$?; tail -3 $OUT/tests.txt; echo "done $((SECONDS-s))"
# ---- call 2 (one line)
B=scratch/gpubin-e; export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64; s=$SECONDS; JITFP8_CACHE_DIR=/tmp/c-new JITFP8_TEMPLATE_DIR=$PWD/scratch/t-new timeout 200 $B/jitfp8_gpu_tests "[moe_wgrad],[pdl]" 2>&1 | tail -3; echo "t=$((SECONDS-s))"; for v in base new base new; do echo "== $v $((SECONDS-s))"; if [ $v = new ]; then export JITFP8_TEMPLATE_DIR=$PWD/scratch/t-new; else unset JITFP8_TEMPLATE_DIR; fi; JITFP8_CACHE_DIR=/tmp/c-$v timeout 100 $B/jitfp8-bench moe --only kgrouped --iters 5 2>&1 | grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ +\||rror"; done; echo done $((SECONDS-s))
# ---- call 6 (one line; scratch/gpubin-g: c76531a's jitfp8_gpu_tests and libjitfp8.so*)
G=scratch/gpubin-g; export LD_LIBRARY_PATH=$PWD/$G:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64; s=$SECONDS; nvidia-smi --query-gpu=name --format=csv,noheader; JITFP8_CACHE_DIR=/tmp/c-g timeout 60 $G/jitfp8_gpu_tests "gemm_fp8_wgrad's deferred epilogue*" > $OUT/new.txt 2>&1; echo rc=$? t=$((SECONDS-s)); grep -E "test cases|passed" $OUT/new.txt | tail -1; JITFP8_CACHE_DIR=/tmp/c-g timeout 130 $G/jitfp8_gpu_tests "[wgrad]" > $OUT/wgrad.txt 2>&1; echo rc=$? t=$((SECONDS-s)); tail -2 $OUT/wgrad.txt
