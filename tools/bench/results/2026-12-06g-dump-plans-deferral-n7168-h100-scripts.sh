# Session 103, call 1 (scratch/s103a.sh)
#!/usr/bin/env bash
# Session 103, call 1: HEAD (gpubin-h, embedded templates) vs the peeled-block descriptor patch
# (t-peel) vs no deferral (t-nodefer) on 192 x 128 pair rows, both modes, alternated; then a
# --wgrad-configs run of 192 x 128 pairs (deferred) on the two thin rows beside their picks.
H=scratch/gpubin-h
export LD_LIBRARY_PATH=$PWD/$H:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
start=$SECONDS
run() {  # name, template dir or "", bench args...
  local name=$1 t=$2; shift 2
  echo "=== $name ($((SECONDS - start)) s)"
  if [ -n "$t" ]; then export JITFP8_TEMPLATE_DIR=$PWD/$t; else unset JITFP8_TEMPLATE_DIR; fi
  JITFP8_CACHE_DIR=/tmp/c-$name timeout 150 $H/jitfp8-bench "$@" 2>&1 | grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||rror"
  unset JITFP8_TEMPLATE_DIR
}
echo "=== dump plans test ($((SECONDS - start)) s)"
JITFP8_CACHE_DIR=/tmp/c-t timeout 120 $H/jitfp8_gpu_tests "[dump],[tuned]" 2>&1 | tail -4
W="gemm --wgrad-only --iters 10"
S="24576,4096,1536;16384,4096,1536;2112,4096,1168;16384,7168,1168;8192,7168,1280;24576,7168,1536;32768,7168,1024;12288,2048,1280"
for r in 1 2; do
  run head "" $W --wgrad-shapes "$S"
  run peel scratch/t-peel $W --wgrad-shapes "$S"
  run nodefer scratch/t-nodefer $W --wgrad-shapes "$S"
done
echo "=== configs on the thin rows ($((SECONDS - start)) s)"
JITFP8_CACHE_DIR=/tmp/c-head timeout 200 $H/jitfp8-bench gemm --wgrad-only --iters 10 \
  --wgrad-shapes "7168,4096,2048;4096,4096,7168;6144,4096,2048;8192,4096,2048" \
  --wgrad-configs "192x128:0:2a:1:2:0;192x128:0:2b:1:2:0;192x128:0:2a:1:2:1;128x128:0:2a:2:2:0;256x128:0:2a:2:2:0" 2>&1 | tail -60
echo "done after $((SECONDS - start)) s"

# Call 2
export LD_LIBRARY_PATH=$PWD/scratch/gpubin-h:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64; JITFP8_CACHE_DIR=/tmp/c-d scratch/gpubin-h/jitfp8_gpu_tests "the dump of a dispatched gemm_fp8_nt kernel names the plan that chose it" -d yes 2>&1 | tail -4; JITFP8_CACHE_DIR=/tmp/c-g timeout 400 tools/gpu_test_groups.sh scratch/gpubin-h/jitfp8_gpu_tests 2>&1 | tail -30

# Call 3 (H200): scratch/s103c.sh; t-prefA = templates + -prefetch-later.patch, t-prefB the same with kDeferPrefetchKb = 1
#!/usr/bin/env bash
# Session 103, call 3: the deferred epilogue's D prefetch in accumulate mode, one K block later
# (t-prefA: with the next tile's first load) and two (t-prefB: its second), against main
# (embedded), alternated; the deferred-epilogue GPU case on t-prefA.
H=scratch/gpubin-h
export LD_LIBRARY_PATH=$PWD/$H:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
start=$SECONDS
run() {  # name, template dir or "", bench args...
  local name=$1 t=$2; shift 2
  echo "=== $name ($((SECONDS - start)) s)"
  if [ -n "$t" ]; then export JITFP8_TEMPLATE_DIR=$PWD/$t; else unset JITFP8_TEMPLATE_DIR; fi
  JITFP8_CACHE_DIR=/tmp/c-$name timeout 150 $H/jitfp8-bench "$@" 2>&1 | grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||rror"
  unset JITFP8_TEMPLATE_DIR
}
echo "=== deferred-epilogue case on t-prefA ($((SECONDS - start)) s)"
JITFP8_TEMPLATE_DIR=$PWD/scratch/t-prefA JITFP8_CACHE_DIR=/tmp/c-t timeout 120 $H/jitfp8_gpu_tests "gemm_fp8_wgrad's deferred epilogue*" 2>&1 | tail -2
W="gemm --wgrad-only --iters 10"
S="24576,4096,1536;16384,4096,1536;2112,4096,1168;16384,7168,1168;8192,7168,1280;24576,7168,1536;32768,7168,1024;12288,2048,1280"
for r in 1 2; do
  run head "" $W --wgrad-shapes "$S"
  run prefA scratch/t-prefA $W --wgrad-shapes "$S"
  run prefB scratch/t-prefB $W --wgrad-shapes "$S"
done
echo "=== [wgrad] on t-prefA ($((SECONDS - start)) s)"
JITFP8_TEMPLATE_DIR=$PWD/scratch/t-prefA JITFP8_CACHE_DIR=/tmp/c-t timeout 200 $H/jitfp8_gpu_tests "[wgrad]" 2>&1 | tail -2
echo "done after $((SECONDS - start)) s"

# Call 4 (H100): scratch/s103d.sh; t-prefC = templates + -prefetch-earlier.patch (kDeferEarlier 1), t-prefD the same with kDeferEarlier = 2
#!/usr/bin/env bash
# Session 103, call 4: the deferred epilogue's D prefetch in accumulate mode, one K block earlier (t-prefC) and two (t-prefD),
# against main (embedded), alternated.
H=scratch/gpubin-h
export LD_LIBRARY_PATH=$PWD/$H:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
start=$SECONDS
run() {  # name, template dir or "", bench args...
  local name=$1 t=$2; shift 2
  echo "=== $name ($((SECONDS - start)) s)"
  if [ -n "$t" ]; then export JITFP8_TEMPLATE_DIR=$PWD/$t; else unset JITFP8_TEMPLATE_DIR; fi
  JITFP8_CACHE_DIR=/tmp/c-$name timeout 150 $H/jitfp8-bench "$@" 2>&1 | grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||rror"
  unset JITFP8_TEMPLATE_DIR
}
W="gemm --wgrad-only --iters 10"
S="24576,4096,1536;16384,4096,1536;2112,4096,1168;16384,7168,1168;8192,7168,1280;24576,7168,1536;32768,7168,1024;12288,2048,1280"
for r in 1 2; do
  run head "" $W --wgrad-shapes "$S"
  run prefC scratch/t-prefC $W --wgrad-shapes "$S"
  run prefD scratch/t-prefD $W --wgrad-shapes "$S"
done
echo "done after $((SECONDS - start)) s"
