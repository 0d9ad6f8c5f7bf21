#!/bin/bash
# Session 76 call 1: clusters of workspace splits (split_cluster 2/4): GPU [workspace] tests, then
# the same tile and splits with and without clusters, two rounds.
B=scratch/gpubin-h76a
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o1; trap 'tar -C /tmp -czf $OUT/o1.tgz o1' EXIT
export JITFP8_CACHE_DIR=/tmp/c76-a
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 240 $B/jitfp8_gpu_tests "[workspace]" > /tmp/o1/ws.txt 2>&1; echo "ws rc=$? $(tail -2 /tmp/o1/ws.txt | tr '\n' ' ')"
grep -B3 -A12 FAILED /tmp/o1/ws.txt | head -60
S="256,1024,24576;448,512,32768;256,1024,2048;256,1024,8192;384,1024,32768;512,1024,16384;200,2048,16384;128,4096,24576"
C="128x128:8w:1;128x128:8w2:1;128x128:8w4:1;128x128:8w:1:5;128x128:4w:1;128x128:4w2:1;128x128:6w:1;128x128:6w2:1;128x64:8w:1;128x64:8w2:1;128x64:8w4:1;128x128:12w4:1"
for r in 1 2; do
  timeout 150 $B/jitfp8-bench gemm --forward-only --shapes "$S" --configs "$C" --flush-mb 2048 --iters 20 > /tmp/o1/cl-r$r.txt 2>&1; echo "cl r$r rc=$?"
done
grep -hE "sweep|^ +[0-9]+ +[0-9]+ +[0-9]+ \|" /tmp/o1/cl-r*.txt | cut -c1-100
#!/bin/bash
# Session 76 call 2: clusters of workspace splits with the producer unrolled by 4; [workspace] GPU
# tests (C=4 within the device's clusters of 4); same tile and splits with and without clusters.
B=scratch/gpubin-h76b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o2; trap 'tar -C /tmp -czf $OUT/o2.tgz o2' EXIT
export JITFP8_CACHE_DIR=/tmp/c76-b
timeout 200 $B/jitfp8_gpu_tests "[workspace]" > /tmp/o2/ws.txt 2>&1; echo "ws rc=$? $(tail -2 /tmp/o2/ws.txt | tr '\n' ' ')"
grep -B3 -A12 FAILED /tmp/o2/ws.txt | head -40
S="256,1024,24576;448,512,32768;256,1024,2048;256,1024,8192;128,1024,24576;512,1024,16384"
C="128x128:8w:1:5;128x128:8w2:1:5;128x128:4w:1:5;128x128:4w2:1:5;128x128:6w:1:5;128x128:6w2:1:5;128x128:8w4:1:5;128x128:12w4:1:5"
for r in 1 2; do
  timeout 120 $B/jitfp8-bench gemm --forward-only --shapes "$S" --configs "$C" --flush-mb 2048 --iters 20 > /tmp/o2/cl-r$r.txt 2>&1; echo "cl r$r rc=$?"
done
grep -hE "sweep|^ +[0-9]+ +[0-9]+ +[0-9]+ \|" /tmp/o2/cl-r*.txt | grep -v "sweep config" | cut -c1-90
grep -h "sweep config" /tmp/o2/cl-r1.txt | cut -c1-60,260-400 | head -4
#!/bin/bash
# Session 76 call 3: is it the cluster launch? 8w2 with a probe template that launches the
# clusters (1, 2, 1) but exchanges as 8w (no DSMEM level), beside 8w and the real 8w2.
B=scratch/gpubin-h76b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o3; trap 'tar -C /tmp -czf $OUT/o3.tgz o3' EXIT
S="256,1024,24576;448,512,32768;256,1024,2048"
C="128x128:8w:1:5;128x128:8w2:1:5;128x128:4w:1:5;128x128:4w2:1:5"
for r in 1 2; do
  JITFP8_CACHE_DIR=/tmp/c76-probe JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-cl timeout 100 $B/jitfp8-bench gemm --forward-only --shapes "$S" --configs "$C" --flush-mb 2048 --iters 20 > /tmp/o3/probe-r$r.txt 2>&1; echo "probe r$r rc=$?"
  JITFP8_CACHE_DIR=/tmp/c76-real timeout 100 $B/jitfp8-bench gemm --forward-only --shapes "$S" --configs "$C" --flush-mb 2048 --iters 20 > /tmp/o3/real-r$r.txt 2>&1; echo "real r$r rc=$?"
done
for f in /tmp/o3/*.txt; do echo "## $f"; grep -hE "sweep" $f | grep -v "sweep config" | cut -c1-90; done
#!/bin/bash
# Session 76 call 4: ncu on 448 x 512 x 32768, 128 x 128 in 8 through the workspace: the pick
# (no cluster) against clusters (1, 2, 1) with the probe template (same exchange as without).
B=scratch/gpubin-h76b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o4; trap 'tar -C /tmp -czf $OUT/o4.tgz o4' EXIT
export JITFP8_CACHE_DIR=/tmp/c76-ncu JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-cl
M="gpu__time_duration.sum,launch__cluster_dim_y,launch__shared_mem_per_block_dynamic,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,lts__t_bytes.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.avg,lts__t_sectors_srcunit_tex_lookup_miss.sum"
timeout 200 /usr/local/cuda/bin/ncu --clock-control none -k regex:sm90_fp8_gemm_1d2d --launch-count 12 --metrics $M \
  $B/jitfp8-bench gemm --forward-only --timer graph --shapes "448,512,32768" --configs "128x128:8w:1:5;128x128:8w2:1:5" --flush-mb 2048 --iters 2 > /tmp/o4/ncu.txt 2>&1
echo "ncu rc=$?"
grep -E "sm90_fp8|gpu__time|cluster_dim_y|dynamic|hit_rate|dram__bytes|lts__t_bytes|throughput|cycles_active|miss" /tmp/o4/ncu.txt | sed 's/  */ /g' | cut -c1-110 | head -130
