# Scripts of 2026-12-07e (session 109). Each ran as: bash scratch/sN.sh on the device, carrying .deps, the binaries' folder and the script.

# ===== scratch/s16.sh
# Next session: forward 128 x 192 picks alone over odd N blocks, large M, K 18-64 blocks
# (large_m_pair_b takes B pairs only up to 16), the shipped manifests' plans among them
# (gpt-oss's qkv 16384 x 5120 x 2880 ran 0.97x cuBLASLt, its sweep's 128 x 160 pairs on A 7.9%
# faster, 2026-12-07d call 9): each kernel's sweep in turns. A design half is printed; the
# held-out half goes to its file only, to be read after the rule is written.
# Binaries: scratch/gpubin-109 (HEAD bf92ea8). Carry .deps scratch/gpubin-109 scratch/s16.sh.
B=scratch/gpubin-109
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
# First the GPU case 2015c74 extended and could not run (3072 x 2880 x 4096: 256 x 96 pairs).
JITFP8_CACHE_DIR=/tmp/ctest timeout 120 $B/jitfp8_gpu_tests "gemm_fp8_wgrad on gpt-oss-120b*" 2>&1 | tail -2
timeout 150 $B/jitfp8-bench gemm --forward-only --sweep --iters 10 --flush-mb 2048 \
  --shapes "16384,5120,2880;8192,2880,4096;8192,2816,4096;8192,8192,4096;8192,8192,5120;16384,5120,2304;16384,2112,5760;32768,2880,4096" > $OUT/design.txt 2>&1
echo "design rc $? after $((SECONDS - start)) s"
timeout 150 $B/jitfp8-bench gemm --forward-only --sweep --iters 10 --flush-mb 2048 \
  --shapes "8192,5120,2880;16384,2880,5120;16384,10944,4096;16384,2048,4096;4096,51200,5120;16384,2880,2880;8192,2112,4096;32768,5120,2880" > $OUT/heldout.txt 2>&1
echo "held-out rc $? after $((SECONDS - start)) s"
grep -E "sweep .*(\*|128x192 st4 mc)" $OUT/design.txt | cut -c1-110
echo "fastest three of each design sweep:"
for s in $(grep -oE "^ +sweep +[0-9]+ +[0-9]+ +[0-9]+" $OUT/design.txt | awk '{print $2"_"$3"_"$4}' | sort -u); do
  IFS=_ read -r m n k <<< "$s"
  grep -E "sweep +$m +$n +$k " $OUT/design.txt | sort -t: -k2 -n | head -3 | cut -c1-110
done

# ===== scratch/s17.sh
# Next session: M-grouped contiguous picks alone over odd N blocks (gpt-oss's down projection
# 16 x 2048 x 2880 x 2880 ran 6.8% faster in pairs sharing A, half-empty last pair and all,
# 2026-12-07d call 9): each kernel's sweep in turns over expert sizes and odd-N-block shapes; a
# design half printed, a held-out half to its file only (read after the rule is written).
# Binaries: scratch/gpubin-109 (HEAD bf92ea8). Carry .deps scratch/gpubin-109 scratch/s17.sh.
B=scratch/gpubin-109
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
timeout 200 $B/jitfp8-bench moe --only contiguous --sweep \
  --shapes "16x1024,2880,2880;16x4096,2880,2880;16x2048,2112,7168;8x4096,2880,4096;32x1024,5120,2880;16x2048,2880,5760" > $OUT/contig-design.txt 2>&1
echo "design rc $? after $((SECONDS - start)) s"
timeout 200 $B/jitfp8-bench moe --only contiguous --sweep \
  --shapes "16x512,2880,2880;8x2048,2880,2880;16x4096,2112,7168;16x2048,5120,2880;32x2048,2880,2880;16x1024,2880,5760" > $OUT/contig-heldout.txt 2>&1
echo "held-out rc $? after $((SECONDS - start)) s"
grep -E "sweep .*(\*|128x192 st4 +mc)" $OUT/contig-design.txt | cut -c1-110
echo "fastest three of each design sweep:"
for s in $(grep -oE "^ +sweep +[0-9x]+ +[0-9]+ +[0-9]+ +[0-9]+" $OUT/contig-design.txt | awk '{print $2"_"$3"_"$4"_"$5}' | sort -u); do
  IFS=_ read -r g m n k <<< "$s"
  grep -E "sweep +$g +$m +$n +$k " $OUT/contig-design.txt | sort -t: -k2 -n | head -3 | cut -c1-110
done

# ===== scratch/s18.sh (not run: no machine could be had; s19.sh and s20.sh are its trimmed forms, not run either)
# Session 109, call 3: the GPU suite on the new choosers (dense B pairs from 16 rounds; contiguous
# 128 x 192 A pairs over odd N blocks at 17-24 K blocks), dense B pairs over a long K, and the
# contiguous pairs' K window and rounds, each sweep in turns.
# Binaries: scratch/gpubin-109n (this session's code). Carry .deps scratch/gpubin-109n scratch/s18.sh.
B=scratch/gpubin-109n
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
# The two groups the choosers' changes reach (dense [gemm] without split-K, and [moe]), side by side.
for g in "[gemm]~[splitk]~[sm-limit]" "[moe],[moe_wgrad]"; do
  (JITFP8_CACHE_DIR=/tmp/ctest timeout 200 $B/jitfp8_gpu_tests "$g" --order rand --warn NoAssertions > "$OUT/tests-$(echo $g | tr -cd a-z).txt" 2>&1; echo "group $g rc $?") &
done
wait
echo "tests done after $((SECONDS - start)) s"
tail -3 $OUT/tests-*.txt
timeout 60 $B/jitfp8-bench gemm --forward-only --iters 10 --flush-mb 2048 --configs "128x192:1:1:4;128x192:1:2b:4" \
  --shapes "8192,8192,7168;16384,5120,8192;8192,8192,28672;16384,5120,2880;32768,2880,4096" > $OUT/dense.txt 2>&1
echo "dense rc $? after $((SECONDS - start)) s"
timeout 100 $B/jitfp8-bench moe --only contiguous --sweep \
  --shapes "32x2048,2880,2560;32x2048,2880,2944;32x2048,2880,3072;8x1024,2880,2880;16x768,2880,2880;16x1536,2880,2880;8x1024,5120,2880" > $OUT/contig.txt 2>&1
echo "contiguous rc $? after $((SECONDS - start)) s"
grep -E "^ +[0-9x]+ +[0-9]+ +[0-9]+ \|" $OUT/dense.txt | cut -c1-170
grep -E "sweep .*128x192 st4 mc(1|2b) " $OUT/dense.txt | cut -c1-110
grep -E "^ +[0-9x]+ +[0-9]+ +[0-9]+ \|" $OUT/contig.txt | cut -c1-170
grep -E "sweep .*128x192 st[34] +mc" $OUT/contig.txt | cut -c1-100

# ===== scratch/s19.sh (not run)
# Session 109, call 3 (s18.sh trimmed to the device time left): the new dense picks' bench rows
# (accuracy against the host reference, beside cuBLASLt), B pairs at 56 K blocks, and the
# contiguous 128 x 192 pairs over odd N blocks on fresh shapes (K window, rounds), in turns.
# Binaries: scratch/gpubin-109n (this session's code with scratch/contig-odd-pairs.patch).
# Carry .deps scratch/gpubin-109n scratch/s19.sh.
B=scratch/gpubin-109n
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
timeout 70 $B/jitfp8-bench gemm --forward-only --iters 10 --flush-mb 2048 --configs "128x192:1:1:4;128x192:1:2b:4" \
  --shapes "16384,5120,2880;16384,10944,4096;8192,8192,7168" > $OUT/dense.txt 2>&1
echo "dense rc $? after $((SECONDS - start)) s"
timeout 110 $B/jitfp8-bench moe --only contiguous --sweep \
  --shapes "32x2048,2880,2560;32x2048,2880,3072;8x1024,2880,2880;16x768,2880,2880;16x1536,2880,2880;8x1024,5120,2880" > $OUT/contig.txt 2>&1
echo "contiguous rc $? after $((SECONDS - start)) s"
grep -E "^ +[0-9x]+ +[0-9]+ +[0-9]+ \|" $OUT/dense.txt | cut -c1-170
grep -E "sweep .*128x192 st4 mc(1|2b) " $OUT/dense.txt | cut -c1-110
grep -E "sweep .*128x192 st[34] +mc" $OUT/contig.txt | cut -c1-100

# ===== scratch/s20.sh (not run: too little device time left to start a machine)
# Session 109, call 3 (s19.sh cut to the device time left): the new dense picks' bench rows
# (accuracy against the host reference, beside cuBLASLt) and B pairs at 56 K blocks, in turns.
# Binaries: scratch/gpubin-109n. Carry .deps scratch/gpubin-109n scratch/s20.sh.
B=scratch/gpubin-109n
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
timeout 70 $B/jitfp8-bench gemm --forward-only --iters 10 --flush-mb 2048 --configs "128x192:1:1:4;128x192:1:2b:4" \
  --shapes "16384,5120,2880;16384,10944,4096;8192,8192,7168" > $OUT/dense.txt 2>&1
echo "dense rc $?"
grep -E "^ +[0-9x]+ +[0-9]+ +[0-9]+ \|" $OUT/dense.txt | cut -c1-170
grep -E "sweep" $OUT/dense.txt | cut -c1-110
