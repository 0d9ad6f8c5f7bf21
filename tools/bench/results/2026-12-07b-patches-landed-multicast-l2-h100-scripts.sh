# Session 106's device scripts (2026-12-07b), as run, in call order. Set-up from a checkout: as in
# 2026-12-07-no-device-patches-ci-cpu-scripts.sh (scratch/gpubin: HEAD 368b5ae with both patches,
# which is f044852's code; scratch/t-old: 368b5ae's templates).
#### scratch/s1.sh
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
for r in $(seq 1 ${ROUNDS:-2}); do
  if [ $((r % 2)) = 1 ]; then a=old; b=new; else a=new; b=old; fi
  for v in $a $b; do t=""; [ $v = old ] && t=scratch/t-old; run $v "$t" $F; done
  for v in $a $b; do t=""; [ $v = old ] && t=scratch/t-old; run $v "$t" moe --only contiguous --shapes "8x80,4096,7168;8x160,4096,7168;8x240,4096,7168"; done
done
echo "=== whole GPU suite ($((SECONDS - start)) s)"
GROUP_TIMEOUT_S=$((${LIMIT:-585} - 15 - (SECONDS - start))) JITFP8_CACHE_DIR=/tmp/c-suite timeout $((${LIMIT:-585} - (SECONDS - start))) tools/gpu_test_groups.sh $H/jitfp8_gpu_tests 2>&1 | tail -15
echo "done after $((SECONDS - start)) s"
#### scratch/s3.sh
#!/usr/bin/env bash
# Session 106, call 3: does the masked 32 x 192 kernel's A multicast save L2 reads? ncu on
# 6144 x 7168 under bench moe --sweep: the pick (256 x 128, 4 stages, pairs multicasting A) and
# the sweep's same tile without pairs (multicast 1), one launch each, same metrics.
# Carry: .deps scratch/gpubin scratch/s3.sh
B=scratch/gpubin
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_CACHE_DIR=/tmp/cncu
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
M=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_op_read_hit_rate.pct,l1tex__m_xbar2l1tex_read_bytes.sum
start=$SECONDS
for mc in 2 1; do
  timeout ${NCU_TIMEOUT:-150} $NCU --clock-control none --kernel-name-base demangled --kernel-name "regex:unsigned int.256, .unsigned int.128, .unsigned int.4, .unsigned int.$mc, .bool.1" \
    --launch-skip 2 --launch-count 1 --metrics $M \
    $B/jitfp8-bench moe --only masked --timer graph --sweep --iters 3 --flush-mb 2048 --shapes "32x192,6144,7168" > $OUT/ncu-mc$mc.txt 2>&1
  echo "multicast $mc: rc=$? after $((SECONDS - start)) s"
  grep -E "grouped_kernel|gpu__|dram__|lts__|l1tex__|==PROF==|ERR|rror" $OUT/ncu-mc$mc.txt | cut -c1-170 | head -16
done
#### scratch/s2.sh
#!/usr/bin/env bash
# Session 105, call 2 (same warm machine, after s1.sh): the anchors (bench gemm and bench moe,
# the anchors' protocol: 2 GB flush, 20 iterations) on this session's binaries (both patches
# applied), an empty kernel cache. Carry: .deps scratch/gpubin scratch/s2.sh
B=scratch/gpubin
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_CACHE_DIR=/tmp/cbench
{ nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,power.limit,driver_version --format=csv,noheader; } > $OUT/host.txt 2>&1; cat $OUT/host.txt
start=$SECONDS
timeout ${GEMM_TIMEOUT:-280} $B/jitfp8-bench gemm --flush-mb 2048 --iters 20 --json $OUT/gemm.json > $OUT/gemm.txt 2>&1; echo "bench gemm rc $? after $((SECONDS - start)) s"
cut -c1-220 $OUT/gemm.txt
timeout $((${TOTAL:-580} - (SECONDS - start))) $B/jitfp8-bench moe --flush-mb 2048 --json $OUT/moe.json > $OUT/moe.txt 2>&1; echo "bench moe rc $? after $((SECONDS - start)) s"
cut -c1-200 $OUT/moe.txt | tail -45
#### call 7 (and call 6, whose output was cut by a tail): inline
export LD_LIBRARY_PATH=$PWD/scratch/gpubin:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench; timeout 200 scratch/gpubin/jitfp8-bench gemm --wgrad-only --wgrad-sweep --iters 10 --flush-mb 2048 --wgrad-shapes "7168,4096,2048;6144,4096,2048;8192,4096,2048;24576,4096,1536" > $OUT/sweep.txt 2>&1
#### scratch/s4.sh (not run: no machine in five calls; its first and last parts added after them; next session,
# with scratch/gpubin built at c515bfe or later (jitfp8-bench, jitfp8_gpu_tests, libjitfp8.so*) and scratch/t-old
# from git archive 368b5ae templates: ROUNDS=2 bash scratch/s4.sh, an estimated 150-250 s)
#!/usr/bin/env bash
# Session 106, call: weight-gradient 192 x 128 picks at K 1792-3584 (14-28 K blocks), which do not
# pair (the pair rule takes K <= 1536), against the same tiles in pairs sharing A. The 70 shapes of
# M {6144..24576} x N {2048, 4096, 7168} x K {1792, 2048, 2560, 3072, 3584} whose pick is 192 x 128 alone
# with even N blocks and more than two rounds. Two runs.
# Carry: .deps scratch/gpubin scratch/t-old scratch/s4.sh
B=scratch/gpubin
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
# First the dump checks as mended after the session's last device call (c515bfe; binaries of c515bfe).
JITFP8_CACHE_DIR=/tmp/c-dump timeout 90 $B/jitfp8_gpu_tests "[dump]" 2>&1 | tail -2
for r in $(seq 1 ${ROUNDS:-2}); do
  timeout ${RUN_TIMEOUT:-200} $B/jitfp8-bench gemm --wgrad-only --iters 10 --flush-mb 2048 --wgrad-configs "192x128:4:2a:1:2:0" \
    --wgrad-shapes "6144,2048,1792;6144,4096,1792;6144,7168,1792;8192,4096,1792;8192,7168,1792;12288,2048,1792;12288,4096,1792;12288,7168,1792;16384,2048,1792;16384,4096,1792;16384,7168,1792;24576,2048,1792;24576,4096,1792;24576,7168,1792;6144,2048,2048;6144,4096,2048;6144,7168,2048;8192,4096,2048;8192,7168,2048;12288,2048,2048;12288,4096,2048;12288,7168,2048;16384,2048,2048;16384,4096,2048;16384,7168,2048;24576,2048,2048;24576,4096,2048;24576,7168,2048;6144,2048,2560;6144,4096,2560;6144,7168,2560;8192,4096,2560;8192,7168,2560;12288,2048,2560;12288,4096,2560;12288,7168,2560;16384,2048,2560;16384,4096,2560;16384,7168,2560;24576,2048,2560;24576,4096,2560;24576,7168,2560;6144,2048,3072;6144,4096,3072;6144,7168,3072;8192,4096,3072;8192,7168,3072;12288,2048,3072;12288,4096,3072;12288,7168,3072;16384,2048,3072;16384,4096,3072;16384,7168,3072;24576,2048,3072;24576,4096,3072;24576,7168,3072;6144,2048,3584;6144,4096,3584;6144,7168,3584;8192,4096,3584;8192,7168,3584;12288,2048,3584;12288,4096,3584;12288,7168,3584;16384,2048,3584;16384,4096,3584;16384,7168,3584;24576,2048,3584;24576,4096,3584;24576,7168,3584" > $OUT/pairs-$r.txt 2>&1
  echo "run $r rc $? after $((SECONDS - start)) s"
done
grep -E "^ *[0-9]+ +[0-9]+ +[0-9]+ \||sweep" $OUT/pairs-1.txt | cut -c1-150 | head -30
# Then the contiguous 128 x 160 kernel whose code 2026-12-06h's accumulator patch (f044852) changed
# (36 of 4296 instructions; <4096,7168,128,160,5,1,true,132,8,229808,2,8>: per-expert segment ends,
# so --group-ends), which call 1 of 2026-12-07b did not reach: bench moe --sweep times
# 128 x 160 tiles (5 stages, alone and in pairs) on the old templates (368b5ae's, scratch/t-old)
# and the new, in turns twice. Carry scratch/t-old as well.
for v in old new new old; do
  if [ $v = old ]; then export JITFP8_TEMPLATE_DIR=$PWD/scratch/t-old; else unset JITFP8_TEMPLATE_DIR; fi
  echo "=== $v ($((SECONDS - start)) s)"
  JITFP8_CACHE_DIR=/tmp/c-$v timeout 90 $B/jitfp8-bench moe --only contiguous --group-ends --sweep --iters 20 --shapes "8x160,4096,7168" 2>&1 | grep -E "128x160|rror"
done
unset JITFP8_TEMPLATE_DIR
