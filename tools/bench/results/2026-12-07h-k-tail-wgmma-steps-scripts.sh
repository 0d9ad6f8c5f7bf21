# Session 113 (2026-12-07h): the device scripts written for the K-tail wgmma-steps patch and bench gemm --padded-rows; none ran (no machine started).
# s33.sh: the timing comparison alone (gpubin-112 = HEAD a072726 / 3bcf39a, gpubin-113 = the patch applied); s32.sh: s33 plus the [quant], [quantize_1x128] and [moe] GPU tests; s31.sh: s33 with the whole GPU suite and a --padded-rows run.

# ===== s33.sh =====
# Session 113, call 1 (s32 without its tests, for the budget left): (1) old (gpubin-112) against new (gpubin-113: K's last
# block runs last_k_block_steps wgmma steps) on K-tail shapes: bench gemm forward, bench moe contiguous;
# (2) the [quant] and [quantize_1x128] GPU tests (q_row_stride, never run yet) beside the [moe] tests.
# Carry .deps scratch/gpubin-112 scratch/gpubin-113 scratch/s32.sh.
set -u
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for b in 112 113; do mkdir -p $OUT/$b; done
G="4096,2880,2880;16384,5120,2880;8192,2880,5824;16384,2880,4096"
for b in 112 113; do
  B=scratch/gpubin-$b
  export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
  JITFP8_CACHE_DIR=/tmp/c$b timeout 70 $B/jitfp8-bench gemm --forward-only --shapes "$G" > $OUT/$b/gemm.txt 2>&1
  echo "== $b gemm rc $?"; grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||inaccurate|rror" $OUT/$b/gemm.txt | cut -c1-150
  JITFP8_CACHE_DIR=/tmp/c$b timeout 70 $B/jitfp8-bench moe --only contiguous --shapes "16x2048,2880,2880;16x2048,5760,2880;8x4096,2880,2880" > $OUT/$b/contig.txt 2>&1
  echo "== $b contiguous rc $?"; grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||inaccurate|rror" $OUT/$b/contig.txt | cut -c1-150
done

# ===== s32.sh =====
# Session 113, call 1 (lean, for the budget left): (1) old (gpubin-112) against new (gpubin-113: K's last
# block runs last_k_block_steps wgmma steps) on K-tail shapes: bench gemm forward, bench moe contiguous;
# (2) the [quant] and [quantize_1x128] GPU tests (q_row_stride, never run yet) beside the [moe] tests.
# Carry .deps scratch/gpubin-112 scratch/gpubin-113 scratch/s32.sh.
set -u
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for b in 112 113; do mkdir -p $OUT/$b; done
G="4096,2880,2880;16384,5120,2880;8192,2880,5824;16384,2880,4096"
for b in 112 113; do
  B=scratch/gpubin-$b
  export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
  JITFP8_CACHE_DIR=/tmp/c$b timeout 70 $B/jitfp8-bench gemm --forward-only --shapes "$G" > $OUT/$b/gemm.txt 2>&1
  echo "== $b gemm rc $?"; grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||inaccurate|rror" $OUT/$b/gemm.txt | cut -c1-150
  JITFP8_CACHE_DIR=/tmp/c$b timeout 70 $B/jitfp8-bench moe --only contiguous --shapes "16x2048,2880,2880;16x2048,5760,2880;8x4096,2880,2880" > $OUT/$b/contig.txt 2>&1
  echo "== $b contiguous rc $?"; grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||inaccurate|rror" $OUT/$b/contig.txt | cut -c1-150
done
B=scratch/gpubin-113
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/ctest
timeout 150 $B/jitfp8_gpu_tests "[quant],[quantize_1x128]" -d yes > $OUT/quant-tests.txt 2>&1 &
q=$!
timeout 150 $B/jitfp8_gpu_tests "[moe]" -d yes > $OUT/moe-tests.txt 2>&1
echo "moe tests rc $?: $(grep -E "^(All tests passed|test cases)" $OUT/moe-tests.txt | tail -1)"
wait $q
echo "quant tests rc $?: $(grep -E "^(All tests passed|test cases)" $OUT/quant-tests.txt | tail -1)"
grep -h -B2 -A10 "FAILED" $OUT/quant-tests.txt $OUT/moe-tests.txt | head -40

# ===== s31.sh =====
# Session 113, call 1 (s30 trimmed: one gemm round, the suite after the timings): (1) the whole GPU suite at the K-tail change (gpubin-113: the 1D2D main loop runs
# last_k_block_steps wgmma steps in K's last block; the grouped lda / ldb and q_row_stride tests, never run yet);
# (2) old (gpubin-112) against new (gpubin-113) on K-tail shapes, in turns: bench gemm forward, bench moe contiguous;
# (3) bench gemm --padded-rows (new option).
# Carry .deps scratch/gpubin-112 scratch/gpubin-113 scratch/s30.sh.
set -u
export JITFP8_CACHE_DIR=/tmp/ctest
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for b in 112 113; do mkdir -p $OUT/$b; done
G="4096,2880,2880;16384,5120,2880;8192,2880,5824;16384,2880,4096"
for round in 1; do
  for b in 112 113; do
    B=scratch/gpubin-$b
    export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
    JITFP8_CACHE_DIR=/tmp/c$b timeout 80 $B/jitfp8-bench gemm --forward-only --shapes "$G" > $OUT/$b/gemm-$round.txt 2>&1
    echo "== $b gemm round $round rc $?"; grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||inaccurate|rror" $OUT/$b/gemm-$round.txt | cut -c1-150
  done
done
for b in 112 113; do
  B=scratch/gpubin-$b
  export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
  JITFP8_CACHE_DIR=/tmp/c$b timeout 80 $B/jitfp8-bench moe --only contiguous --shapes "16x2048,2880,2880;16x2048,5760,2880;8x4096,2880,2880" > $OUT/$b/contig.txt 2>&1
  echo "== $b contiguous rc $?"; grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||inaccurate|rror" $OUT/$b/contig.txt | cut -c1-150
done
B=scratch/gpubin-113
LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 OUT=$OUT GROUP_TIMEOUT_S=250 \
  tools/gpu_test_groups.sh $B/jitfp8_gpu_tests
echo "suite rc $?"
B=scratch/gpubin-113
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
JITFP8_CACHE_DIR=/tmp/c113 timeout 60 $B/jitfp8-bench gemm --forward-only --padded-rows --shapes "$G" > $OUT/113/gemm-padded.txt 2>&1
echo "== 113 gemm --padded-rows rc $?"; grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \||padded|inaccurate|rror" $OUT/113/gemm-padded.txt | cut -c1-150
