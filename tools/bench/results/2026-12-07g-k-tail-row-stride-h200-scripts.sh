# ===== s24.sh (call 1, ran on an H200)
# Session 111, call 1: K tails. (1) tools/bench/probes/row_stride.cpp (three layouts, one config): gemm_fp8_nt with rows K bytes
# apart (not 128-byte aligned where K % 128 != 0) against the same K with rows padded to 128 bytes;
# and rows zero-padded with K rounded up to whole blocks (no TMA box past K); 16384 x 2880 x 4096 a control (K aligned: the same layout twice). (2) Dense K-2880 / 5824 shapes
# the chooser runs alone: alone, A pairs, B pairs, 3 stages, in turns. (3) The contiguous K-tail
# rule's picks (bench rows: accuracy beside cuBLASLt), K 5824 and K 2944 (not moved). (4) The
# M-grouped maps' L2 promotion (unlanded patch, results 2026-12-07f ...-grouped-promotion-unrun.patch):
# contiguous sweeps at K 2880 (tail) and 2944 (whole blocks) with JITFP8_EXP_PROMOTION unset (256 B),
# 128 and 0 (none).
# Binaries: scratch/gpubin-111 (HEAD b06819b), scratch/gpubin-111p (HEAD + the promotion patch),
# scratch/p111/row_stride (built as its header says).
# Carry .deps scratch/gpubin-111 scratch/gpubin-111p scratch/p111 scratch/s24.sh.
B=scratch/gpubin-111
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
timeout 120 scratch/p111/row_stride 15 16384,2880,4096 16384,5120,2880 16384,2880,2880 4096,2880,2880 8192,2880,5824 \
  16384,4096,2880 4096,5120,2880 2048,5120,2880 16384,2880,4096 > $OUT/row_stride.txt 2>&1
echo "row_stride rc $?"
cat $OUT/row_stride.txt
timeout 100 $B/jitfp8-bench gemm --forward-only --iters 10 \
  --configs "128x192:1:1:4;128x192:1:2a:4;128x192:1:2b:4;128x192:1:1:3" \
  --shapes "16384,2880,2880;4096,2880,2880;8192,2880,5824;4096,5120,2880" > $OUT/dense.txt 2>&1
echo "dense rc $?"
grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \|" $OUT/dense.txt | cut -c1-170
grep -E "sweep" $OUT/dense.txt | cut -c1-110
timeout 60 $B/jitfp8-bench moe --only contiguous --shapes "16x2048,2880,5824;16x2048,2880,2944;16x4096,2880,2880" > $OUT/contig.txt 2>&1
echo "contiguous rc $?"
grep -E "^ *[0-9x]+ +[0-9]+ +[0-9]+ \|" $OUT/contig.txt | cut -c1-170
P=scratch/gpubin-111p
for round in 1; do
  for prom in unset 128 0; do
    f=$OUT/prom-$prom-$round.txt
    if [ $prom = unset ]; then
      LD_LIBRARY_PATH=$PWD/$P:$LD_LIBRARY_PATH timeout 80 $P/jitfp8-bench moe --only contiguous --sweep --shapes "16x2048,2880,2880;16x2048,2880,2944" > $f 2>&1
    else
      JITFP8_EXP_PROMOTION=$prom LD_LIBRARY_PATH=$PWD/$P:$LD_LIBRARY_PATH timeout 80 $P/jitfp8-bench moe --only contiguous --sweep --shapes "16x2048,2880,2880;16x2048,2880,2944" > $f 2>&1
    fi
    echo "promotion $prom round $round rc $?"
    grep -E "sweep|^ *[0-9x]+ +[0-9]+ +[0-9]+ \|" $f | cut -c1-130
  done
done

# ===== s25.sh (not run: no start)
# Session 111, call 2 (H200): the contiguous K-tail rule's shapes (K % 128 == 64, odd N blocks, 128 x 192
# pairs on A) on an H200, where call 1 found the pairs 3.1% slower than the tile alone at
# 16 x 2048 x 2880 x 2880. Sweeps (every candidate in turns) at K 2496, 3008, 5824 and two more row counts.
# Binaries: scratch/gpubin-111 (HEAD b06819b). Carry .deps scratch/gpubin-111 scratch/s25.sh.
B=scratch/gpubin-111
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
timeout 300 $B/jitfp8-bench moe --only contiguous --sweep \
  --shapes "16x2048,2880,2496;16x2048,2880,3008;16x2048,2880,5824;16x4096,2880,2880;32x1024,2880,2880" > $OUT/sweeps.txt 2>&1
echo "sweeps rc $?"
grep -E "sweep .*(128x192 st4  mc|128x160 st5  mc2A)|^ *[0-9x]+ +[0-9]+ +[0-9]+ \|" $OUT/sweeps.txt | cut -c1-130

# ===== s26.sh (not run: no start; the next session's first call, on an H100)
# Session 111, call 2 (the grouped probe first, then the dense one): padded rows against the K tail, on an H100 if one is lent. (1) The dense
# row-stride probe (three layouts, one config: rows K bytes apart, rows padded to 128 bytes, rows
# zero-padded with K rounded up). (2) tools/bench/probes/grouped_row_stride.cpp: the contiguous GEMM
# on packed and padded rows (unlanded patch scratch/grouped-exp-ld.patch, linked into the probe),
# the pick, 128 x 192 alone and in A pairs, 128 x 160 pairs, in turns. (3) s24.sh's dense and
# contiguous bench rows and sweeps.
# Binaries: scratch/gpubin-111 (HEAD b06819b), scratch/p111 (the probes, static).
# Carry .deps scratch/gpubin-111 scratch/gpubin-111p scratch/p111 scratch/s24.sh scratch/s26.sh.
B=scratch/gpubin-111
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
timeout 150 scratch/p111/grouped_row_stride 10 16x2048,2880,2880 16x2048,2880,2944 16x2048,2880,3008 16x2048,2880,5824 \
  8x4096,5120,2880 > $OUT/grouped_row_stride.txt 2>&1
echo "grouped_row_stride rc $?"
cat $OUT/grouped_row_stride.txt
timeout 100 scratch/p111/row_stride 15 16384,2880,4096 16384,5120,2880 16384,2880,2880 4096,2880,2880 8192,2880,5824 \
  16384,4096,2880 4096,5120,2880 16384,2880,4096 > $OUT/row_stride.txt 2>&1
echo "row_stride rc $?"
cat $OUT/row_stride.txt
# s24.sh's sections 2-4 (dense sweeps, contiguous rows, promotion) where time is left
sed -n '/^timeout 100 \$B\/jitfp8-bench gemm/,$p' scratch/s24.sh > /tmp/rest.sh
timeout 120 bash -c "B=$B; P=scratch/gpubin-111p; OUT=$OUT; source /tmp/rest.sh"
