# Session 110's device scripts, run from the repository root on the device machine (s23.sh did not run: no device time left).

# ---- scratch/s21.sh
# Session 110, call 1: the whole GPU suite on HEAD (0701b7b) with the contiguous odd-N pairs patch
# applied, the dense picks' bench rows (B pairs from 16 rounds) and 128 x 192 at 3 stages, and the
# contiguous 128 x 192 sweeps over K 2048-4096 at N 2880 / 5120 (pairs' K window, 3 vs 4 stages).
# Binaries: scratch/gpubin-110p. Carry .deps scratch/gpubin-110p scratch/p110 scratch/s21.sh.
for f in scratch/p110/*.cubin; do cuobjdump -sass $f > $OUT/$(basename $f .cubin).sass; done
B=scratch/gpubin-110p
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
start=$SECONDS
JITFP8_CACHE_DIR=/tmp/ctest GROUP_TIMEOUT_S=280 tools/gpu_test_groups.sh $B/jitfp8_gpu_tests
echo "tests rc $? after $((SECONDS - start)) s"
export JITFP8_CACHE_DIR=/tmp/cbench
timeout 80 $B/jitfp8-bench gemm --forward-only --iters 10 --flush-mb 2048 --configs "128x192:1:1:4;128x192:1:2b:4;128x192:1:1:3" \
  --shapes "16384,5120,2880;16384,10944,4096;8192,8192,7168" > $OUT/dense.txt 2>&1
echo "dense rc $? after $((SECONDS - start)) s"
timeout 230 $B/jitfp8-bench moe --only contiguous --sweep \
  --shapes "16x2048,2880,2944;32x2048,2880,2560;32x2048,2880,3072;8x1024,2880,2880;16x768,2880,2880;16x1536,2880,2880;8x1024,5120,2880;16x2048,2880,2048;16x2048,2880,4096" > $OUT/contig.txt 2>&1
echo "contiguous rc $? after $((SECONDS - start)) s"
grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \|" $OUT/dense.txt | cut -c1-170
grep -E "sweep" $OUT/dense.txt | cut -c1-110
grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \|" $OUT/contig.txt | cut -c1-170
grep -E "sweep .*128x192 st[34] +mc" $OUT/contig.txt | cut -c1-100

# ---- scratch/s22.sh
# Session 110, call 2: is the contiguous 128 x 192 alone slowness a K tail (K % 128 != 0) or K 2880's
# own? Tails at 19.5, 23.5 and 45.5 K blocks beside K 2880, pairs (pick) against alone, in turns.
# Binaries: scratch/gpubin-110p (HEAD + the contiguous odd-N pairs patch). Carry .deps scratch/gpubin-110p scratch/s22.sh.
B=scratch/gpubin-110p
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
timeout 150 $B/jitfp8-bench moe --only contiguous --sweep \
  --shapes "16x2048,2880,2496;16x2048,2880,3008;16x2048,2880,2880;16x2048,2880,5824;16x2048,2880,3136" > $OUT/contig2.txt 2>&1
echo "contiguous rc $?"
grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \|" $OUT/contig2.txt | cut -c1-170
grep -E "sweep .*128x192 st[34] +mc" $OUT/contig2.txt | cut -c1-100

# ---- scratch/s23.sh
# Session 110, call 3: K tails. (1) tools/bench/probes/row_stride.cpp: gemm_fp8_nt with rows K bytes
# apart (not 128-byte aligned where K % 128 != 0) against the same K with rows padded to 128 bytes;
# 16384 x 2880 x 4096 a control (K aligned: the same layout twice). (2) Dense K-2880 / 5824 shapes
# the chooser runs alone: alone, A pairs, B pairs, 3 stages, in turns. (3) The contiguous K-tail
# rule's picks (bench rows: accuracy beside cuBLASLt), K 5824 and K 2944 (not moved).
# Binaries: scratch/gpubin-110f (the contiguous K-tail rule as committed), scratch/p110/row_stride (built as its header says: the bench's timing, linked statically).
# Carry .deps scratch/gpubin-110f scratch/p110 scratch/s23.sh.
B=scratch/gpubin-110f
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
timeout 120 scratch/p110/row_stride 15 16384,2880,4096 16384,5120,2880 16384,2880,2880 4096,2880,2880 8192,2880,5824 \
  16384,4096,2880 4096,5120,2880 2048,5120,2880 16384,2880,4096 > $OUT/row_stride.txt 2>&1
echo "row_stride rc $?"
cat $OUT/row_stride.txt
timeout 120 $B/jitfp8-bench gemm --forward-only --iters 10 --flush-mb 2048 \
  --configs "128x192:1:1:4;128x192:1:2a:4;128x192:1:2b:4;128x192:1:1:3" \
  --shapes "16384,2880,2880;4096,2880,2880;8192,2880,5824;4096,5120,2880" > $OUT/dense.txt 2>&1
echo "dense rc $?"
grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \|" $OUT/dense.txt | cut -c1-170
grep -E "sweep" $OUT/dense.txt | cut -c1-110
timeout 60 $B/jitfp8-bench moe --only contiguous --shapes "16x2048,2880,5824;16x2048,2880,2944;16x4096,2880,2880" > $OUT/contig.txt 2>&1
echo "contiguous rc $?"
grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \|" $OUT/contig.txt | cut -c1-170
