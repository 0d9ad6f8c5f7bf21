######## scratch/s83a.sh
#!/bin/bash
# Session 83 call 1: the tensor-map memo's GPU test (never run yet), memcheck on it, and the
# [sm-limit] and [random] groups that session 82's review edits touched.
B=scratch/gpubin-s83
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o1; trap 'tar -C /tmp -czf $OUT/o1.tgz o1' EXIT
export JITFP8_CACHE_DIR=/tmp/c83a
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
run() { # tag, timeout, file, [prefix...]
  local tag=$1 to=$2 f=$3; shift 3; local t0=$SECONDS
  timeout $to "$@" $B/jitfp8_gpu_tests "$tag" -d yes > /tmp/o1/$f.txt 2>&1
  echo "$f rc $? in $((SECONDS - t0)) s: $(grep -E '^(All tests passed|test cases)' /tmp/o1/$f.txt)"
  grep -B3 -A12 FAILED /tmp/o1/$f.txt | head -30
}
run "[tensor_map]" 100 tensor_map
run "[tensor_map]" 200 tensor_map_memcheck /usr/local/cuda/bin/compute-sanitizer --tool memcheck --print-limit 5
grep -E "ERROR SUMMARY" /tmp/o1/tensor_map_memcheck.txt
run "[sm-limit]" 240 sm_limit
run "[random]" 240 random

######## scratch/s83b.sh
#!/bin/bash
# Session 83 call 2: the tensor-map memo's GPU test with the main thread's context made current.
B=scratch/gpubin-s83
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o2; trap 'tar -C /tmp -czf $OUT/o2.tgz o2' EXIT
export JITFP8_CACHE_DIR=/tmp/c83b
run() { # tag, timeout, file, [prefix...]
  local tag=$1 to=$2 f=$3; shift 3; local t0=$SECONDS
  timeout $to "$@" $B/jitfp8_gpu_tests "$tag" -d yes > /tmp/o2/$f.txt 2>&1
  echo "$f rc $? in $((SECONDS - t0)) s: $(grep -E '^(All tests passed|test cases)' /tmp/o2/$f.txt)"
  grep -B3 -A12 FAILED /tmp/o2/$f.txt | head -30
}
run "[tensor_map]" 100 tensor_map
run "[tensor_map]" 200 tensor_map_memcheck /usr/local/cuda/bin/compute-sanitizer --tool memcheck --print-limit 5
grep -E "ERROR SUMMARY" /tmp/o2/tensor_map_memcheck.txt
run "[tensor_map]" 200 tensor_map_racecheck /usr/local/cuda/bin/compute-sanitizer --tool racecheck --print-limit 5
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" /tmp/o2/tensor_map_racecheck.txt

######## scratch/s83c.sh
#!/bin/bash
# Session 83 call 3: the L2-merge probe (tools/bench/probes/l2_merge.cu), plain and under ncu.
mkdir -p /tmp/o3; trap 'tar -C /tmp -czf $OUT/o3.tgz o3' EXIT
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
timeout 100 scratch/l2_merge > /tmp/o3/plain.txt 2>&1; echo "plain rc $?"
cat /tmp/o3/plain.txt
M=gpu__time_duration.sum,lts__t_sectors_srcunit_tex.sum,lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum,lts__t_sectors_srcunit_tex_lookup_miss.sum,sm__cycles_elapsed.avg.per_second
timeout 400 /usr/local/cuda/bin/ncu --clock-control none -k read_panels --metrics $M --csv scratch/l2_merge > /tmp/o3/ncu.csv 2> /tmp/o3/ncu.err
echo "ncu rc $?"; tail -3 /tmp/o3/ncu.err
python3 - <<'PY'
import csv, collections
rows = [r for r in csv.reader(open('/tmp/o3/ncu.csv')) if len(r) > 10]
hdr = rows[0]; rows = rows[1:]
ID, MN, MV = hdr.index('ID'), hdr.index('Metric Name'), hdr.index('Metric Value')
per = collections.OrderedDict()
for r in rows: per.setdefault(int(r[ID]), {})[r[MN]] = r[MV]
for i, m in per.items():
    print(i, ' '.join(f"{k.split('__')[1][:40]}={v}" for k, v in m.items()))
PY

######## scratch/s83d.sh
#!/bin/bash
# Session 83 call 4: one round of 128 x 128 tiles with clusters only to place CTAs in one GPC
# (JITFP8_EXP_PLACE_CLUSTER, experiment build): no cluster / 4 / 8, groups of 1-8 N blocks, all under
# --sm-limit 128 (32 clusters of 4, 16 of 8 fit at once); then ncu's L2 sectors at 512 x 4096 x 28672.
B=scratch/gpubin-s83x
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o4; trap 'tar -C /tmp -czf $OUT/o4.tgz o4' EXIT
export JITFP8_CACHE_DIR=/tmp/c83d
S="256,8192,7168;384,4096,7168;512,4096,4096;512,4096,7168;512,4096,14336;512,4096,28672;1024,2048,7168;1024,2112,7168"
C="128x128:1:1:6p:g1;128x128:1:1:6p:g2;128x128:1:1:6p:g4;128x128:1:1:6p:g8"
for r in 1 2; do
  for p in 1 4 8; do
    [ $r = 2 ] && p=$((p == 1 ? 8 : p == 8 ? 1 : 4))
    t0=$SECONDS
    JITFP8_EXP_PLACE_CLUSTER=$p timeout 200 $B/jitfp8-bench gemm --forward-only --sm-limit 128 --shapes "$S" \
      --configs "$C" --flush-mb 2048 --iters 12 > /tmp/o4/bench-p$p-r$r.txt 2>&1
    echo "round $r place $p rc $? in $((SECONDS - t0)) s"
  done
done
grep -h "sweep" /tmp/o4/bench-p1-r1.txt | head -3
M=gpu__time_duration.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum,sm__cycles_elapsed.avg.per_second,launch__cluster_dim_x
for p in 1 4 8; do
  JITFP8_EXP_PLACE_CLUSTER=$p timeout 150 /usr/local/cuda/bin/ncu --clock-control none -k regex:sm90_fp8_gemm_1d2d --metrics $M --csv \
    $B/jitfp8-bench gemm --forward-only --sm-limit 128 --shapes "512,4096,28672" --configs "128x128:1:1:6p:g1;128x128:1:1:6p:g2" \
    --iters 1 > /tmp/o4/ncu-p$p.csv 2> /tmp/o4/ncu-p$p.err
  echo "ncu place $p rc $?"
done

######## scratch/s83e.sh
#!/bin/bash
# Session 83 call 5: placement clusters where they all fit (96 tiles: 24 clusters of 4, 12 of 8) over
# long K, and ncu's L2 sectors and clocks (bench --timer graph under ncu).
B=scratch/gpubin-s83x
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o5; trap 'tar -C /tmp -czf $OUT/o5.tgz o5' EXIT
export JITFP8_CACHE_DIR=/tmp/c83e
S="384,4096,14336;384,4096,28672;768,2048,14336;768,2048,28672;256,6144,28672"
C="128x128:1:1:6p:g1;128x128:1:1:6p:g2;128x128:1:1:6p:g4;128x128:1:2b:6p:g1;128x128:1:2a:6p:g2"
for r in 1 2; do
  for p in 1 4 8; do
    [ $r = 2 ] && p=$((p == 1 ? 8 : p == 8 ? 1 : 4))
    t0=$SECONDS
    JITFP8_EXP_PLACE_CLUSTER=$p timeout 200 $B/jitfp8-bench gemm --forward-only --sm-limit 128 --shapes "$S" \
      --configs "$C" --flush-mb 2048 --iters 12 > /tmp/o5/bench-p$p-r$r.txt 2>&1
    echo "round $r place $p rc $? in $((SECONDS - t0)) s"
  done
done
M=gpu__time_duration.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max
for p in 1 4; do
  JITFP8_EXP_PLACE_CLUSTER=$p timeout 150 /usr/local/cuda/bin/ncu --clock-control none -k regex:sm90_fp8_gemm_1d2d --metrics $M --csv \
    $B/jitfp8-bench gemm --forward-only --timer graph --sm-limit 128 --shapes "384,4096,28672" --configs "128x128:1:1:6p:g1;128x128:1:1:6p:g4" \
    --iters 1 > /tmp/o5/ncu-p$p.csv 2> /tmp/o5/ncu-p$p.err
  echo "ncu place $p rc $?"; tail -2 /tmp/o5/ncu-p$p.err
done

######## scratch/s83f.sh
#!/bin/bash
# Session 83 call 6: the whole GPU suite on HEAD (2aeca76 + the tensor-map test fix), 5 groups in
# parallel; memcheck on the tile-order cases landed since the last whole-suite run (2026-12-03b).
B=scratch/gpubin-s83h
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_CACHE_DIR=/tmp/c83f
mkdir -p /tmp/o6; trap 'tar -C /tmp -czf $OUT/o6.tgz o6' EXIT
t0=$SECONDS
i=0
for g in "[gemm]" "[wgrad]" "[moe],[moe_wgrad]" "[quant]" "~[gemm]~[wgrad]~[moe]~[moe_wgrad]~[quant]"; do
  i=$((i+1)); (timeout 440 $B/jitfp8_gpu_tests "$g" -d yes > /tmp/o6/suite$i.txt 2>&1; echo "suite$i ($g) rc=$? at $((SECONDS - t0)) s" >> /tmp/o6/rc.txt) &
done
wait
cat /tmp/o6/rc.txt; for i in 1 2 3 4 5; do echo "suite$i: $(grep -E '^(All tests passed|test cases)' /tmp/o6/suite$i.txt)"; done
for i in 1 2 3 4 5; do grep -B3 -A12 FAILED /tmp/o6/suite$i.txt | head -40; done
timeout 100 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 3 $B/jitfp8_gpu_tests \
  "gemm_fp8_nt's several-round 128 x 192 picks walked in groups of 2 N-units match the reference,gemm_fp8_nt's short-K picks over 128+ M blocks walked in groups of 16 N-units match the reference" \
  > /tmp/o6/memcheck.txt 2>&1; echo "memcheck rc=$?"; tail -n 4 /tmp/o6/memcheck.txt

######## scratch/s83g.sh
#!/bin/bash
# Session 83 call 7: the load probe's fix ([dispatch], and the hidden case alone in the parent), then
# the 8 [gemm] cases call 6 did not finish (it ran past 440 s beside four other groups and was
# stopped inside the f32 case, 22 cases passed): scratch/gemm_left2.txt.
B=scratch/gpubin-s83h
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_CACHE_DIR=/tmp/c83g
mkdir -p /tmp/o7; trap 'tar -C /tmp -czf $OUT/o7.tgz o7' EXIT
t0=$SECONDS
timeout 100 $B/jitfp8_gpu_tests "[dispatch],load probe" -d yes > /tmp/o7/dispatch.txt 2>&1
echo "dispatch rc $? in $((SECONDS - t0)) s: $(grep -E '^(All tests passed|test cases)' /tmp/o7/dispatch.txt)"
grep -E "load-probe|load probe: runs" /tmp/o7/dispatch.txt
grep -B3 -A12 FAILED /tmp/o7/dispatch.txt | head -30
t0=$SECONDS
spec=$(paste -sd, scratch/gemm_left2.txt)
timeout 300 $B/jitfp8_gpu_tests "$spec" -d yes > /tmp/o7/gemm.txt 2>&1
echo "gemm rc $? in $((SECONDS - t0)) s: $(grep -E '^(All tests passed|test cases)' /tmp/o7/gemm.txt)"
grep -B3 -A12 FAILED /tmp/o7/gemm.txt | head -40
grep -E "^[0-9.]+ s: gemm_fp8_nt" /tmp/o7/gemm.txt

######## scratch/s83h.sh
#!/bin/bash
# Session 83 call 8: placement pairs (clusters of 2 with no multicast: the TPC merges the pair's
# shared loads, call 3) on one round of 128 x 128 tiles: pairs sharing B (g1) or A (g8), 2 rounds.
B=scratch/gpubin-s83x
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o8; trap 'tar -C /tmp -czf $OUT/o8.tgz o8' EXIT
export JITFP8_CACHE_DIR=/tmp/c83h
S="256,8192,7168;512,4096,7168;512,4096,14336;512,4096,28672;1024,2048,7168"
C="128x128:1:1:6p:g1;128x128:1:1:6p:g8"
for p in 1 2 2 1; do
  JITFP8_EXP_PLACE_CLUSTER=$p timeout 60 $B/jitfp8-bench gemm --forward-only --shapes "$S" --configs "$C" \
    --flush-mb 2048 --iters 12 >> /tmp/o8/bench-p$p.txt 2>&1
  echo "place $p rc $?"
done
grep -h sweep /tmp/o8/bench-p1.txt /tmp/o8/bench-p2.txt | sort -k2,4 -s

