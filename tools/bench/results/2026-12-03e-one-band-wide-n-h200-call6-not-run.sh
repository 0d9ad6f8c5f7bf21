#!/bin/bash
# Prepared for the next session (not run: this session's device time was spent): why our 128 x 128
# tile's K loop runs 3.7% behind nvjet's (the same tile, 6-stage ring and 128 CTAs) at M 256-1024.
# ncu on both kernels at 512 x 4096 x 14336 (112 K blocks, one round): tensor-pipe activity, L2 and
# DRAM traffic, instructions, and the warps' stall reasons. Carry .deps and a build's binaries as B.
B=scratch/gpubin-h77c
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o6; trap 'tar -C /tmp -czf $OUT/o6.tgz o6' EXIT
export JITFP8_CACHE_DIR=/tmp/c-ncu
echo '{"model":"x","description":"x","ops":[{"op":"gemm_fp8_nt","m":512,"n":4096,"k":14336}]}' > /tmp/o6/m.json
$B/jitfp8 prewarm --jobs 16 --quiet /tmp/o6/m.json  # compiled before ncu runs the bench
M="gpu__time_duration.sum,sm__cycles_active.avg,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"
M="$M,smsp__inst_executed.sum,lts__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum"
M="$M,lts__t_sector_hit_rate.pct,l1tex__m_xbar2l1tex_read_bytes.sum"
timeout 250 /usr/local/cuda/bin/ncu --clock-control none -k regex:"sm90_fp8_gemm_1d2d|nvjet" --launch-count 6 --metrics $M \
  --section WarpStateStats --section SchedulerStats \
  $B/jitfp8-bench gemm --forward-only --timer graph --shapes "512,4096,14336" --flush-mb 2048 --iters 2 > /tmp/o6/ncu.txt 2>&1
echo "ncu rc=$?"
grep -E "sm90_fp8|nvjet|gpu__time|gmma|inst_executed|lts__|dram__|xbar|Stall|Issued|Eligible|Active Warps" /tmp/o6/ncu.txt | sed 's/  */ /g' | cut -c1-120 | head -120
