# Session 101's device scripts (neither ran: no machine came). s101a: the full A/B; s101b: the trimmed one.
# To set up (from the repository root, on main's code):
#   for v in new:defer noepi:noepi; do d=scratch/t-${v%%:*}; rm -rf $d; mkdir -p $d;
#     git archive HEAD templates | tar -x -C $d --strip-components=1;
#     (cd $d && patch -p2 < ../../tools/bench/results/2026-12-06e-wgrad-deferred-epilogue-built-not-measured-cpu-${v#*:}.patch); done
#   scratch/gpubin-e: main's jitfp8-bench, jitfp8_gpu_tests and libjitfp8.so* (templates embedded: the baseline)
# ---- scratch/s101a.sh
#!/usr/bin/env bash
# Session 101, call 1: the weight-gradient epilogue under the next tile's first wgmma (t-new:
# the working tree's templates; t-defer: 128 x 128 tiles through the ring-turns loop instead of a
# peeled turn) against main's templates (embedded in gpubin-e) and a no-epilogue bound (t-noepi),
# alternated; the K-grouped bench (kernel restructured, not deferred); the [wgrad] GPU tests.
# Carry: .deps scratch/gpubin-e scratch/t-defer scratch/t-new scratch/t-noepi scratch/s101a.sh
B=${B:-scratch/gpubin-e}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
start=$SECONDS
run() {  # name, template dir or "", bench args...
  local name=$1 dir=$2; shift 2
  echo "=== $name ($((SECONDS - start)) s)"
  if [ -n "$dir" ]; then
    JITFP8_CACHE_DIR=/tmp/c-$name JITFP8_TEMPLATE_DIR=$PWD/$dir timeout 200 $B/jitfp8-bench "$@" 2>&1 | grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \|"
  else
    JITFP8_CACHE_DIR=/tmp/c-$name timeout 200 $B/jitfp8-bench "$@" 2>&1 | grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \|"
  fi
}
W="gemm --wgrad-only --iters 10"
run base "" $W
run new scratch/t-new $W
run base "" $W
run new scratch/t-new $W
echo "=== tests ($((SECONDS - start)) s)"
JITFP8_CACHE_DIR=/tmp/c-new JITFP8_TEMPLATE_DIR=$PWD/scratch/t-new timeout 150 $B/jitfp8_gpu_tests "[wgrad]" 2>&1 | tail -4
run noepi scratch/t-noepi $W
run base "" moe --only kgrouped --iters 5
run new scratch/t-new moe --only kgrouped --iters 5
echo "done after $((SECONDS - start)) s"
# ---- scratch/s101b.sh
#!/usr/bin/env bash
# Session 101 (trimmed, little device time left): the weight-gradient epilogue under the next
# tile's first wgmma (t-new: the working tree's templates) against main's (embedded in
# gpubin-e), two alternated rounds; then the [wgrad] GPU tests on t-new; then the no-epilogue bound.
# Carry: .deps scratch/gpubin-e scratch/t-new scratch/t-noepi scratch/s101b.sh
B=${B:-scratch/gpubin-e}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
start=$SECONDS
run() {  # name, template dir or "", bench args...
  local name=$1 dir=$2; shift 2
  echo "=== $name ($((SECONDS - start)) s)"
  if [ -n "$dir" ]; then export JITFP8_TEMPLATE_DIR=$PWD/$dir; else unset JITFP8_TEMPLATE_DIR; fi
  JITFP8_CACHE_DIR=/tmp/c-$name timeout 100 $B/jitfp8-bench "$@" 2>&1 | grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \|"
  unset JITFP8_TEMPLATE_DIR
}
W="gemm --wgrad-only --iters 10"
run base "" $W
run new scratch/t-new $W
echo "=== tests ($((SECONDS - start)) s)"
JITFP8_CACHE_DIR=/tmp/c-new JITFP8_TEMPLATE_DIR=$PWD/scratch/t-new timeout 120 $B/jitfp8_gpu_tests "[wgrad]" 2>&1 | tail -4
run base "" $W
run new scratch/t-new $W
run noepi scratch/t-noepi $W
echo "done after $((SECONDS - start)) s"
