### scratch/s96a.sh
#!/usr/bin/env bash
# Session 96, call 1 (H100): the whole GPU suite on d9839de's binaries (session 95's and 96's changes never
# ran on a GPU), first-use compiles with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 or not, cache verify, the multi-process dispatch stress.
# Carry: .deps scratch/gpubin-d scratch/s96a.sh
B=${B:-scratch/gpubin-d}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv,noheader | head -1
grep -m1 "model name" /proc/cpuinfo; nproc; cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag 2>&1
start=$SECONDS
# First-use compiles with and without THP-backed malloc heaps (neutral on the CPU machine), alternated.
for i in 1 2; do for t in "" "glibc.malloc.hugetlb=1"; do
  GLIBC_TUNABLES=$t timeout 80 $B/jitfp8 compile-time --arch sm_90a --limit ${CT_LIMIT:-20} --json $OUT/ct-$i-${t:+huge}.json kernels_cache/qwen3-30b-a3b.json > $OUT/ct-$i-${t:+huge}.txt 2>&1
  echo "compile-time run $i tunables='$t' rc=$? after $((SECONDS - start)) s"; grep -E "^first compile|^[a-z_ ]+\| " $OUT/ct-$i-${t:+huge}.txt | head -8
done; done
export JITFP8_CACHE_DIR=/tmp/csuite
GROUP_TIMEOUT_S=${GROUP_TIMEOUT_S:-400} tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "suite rc=$? after $((SECONDS - start)) s"
for f in $OUT/tests-*.log; do grep -B3 -A20 "FAILED" $f | head -40; done
timeout 30 $B/jitfp8 cache verify --cache-dir /tmp/csuite 2>&1 | tail -2
timeout ${STRESS_TIMEOUT:-60} $B/jitfp8_gpu_dispatch_stress 16 8 > $OUT/stress.log 2>&1; echo "stress rc=$? after $((SECONDS - start)) s"; tail -2 $OUT/stress.log

### scratch/s96b.sh
#!/usr/bin/env bash
# Session 96, call 2 (H100): `jitfp8 compile-time` of the whole Qwen3-30B-A3B manifest (148 GEMM
# kernels, full and quick variants) on d9839de's binaries, host facts first.
# Carry: .deps scratch/gpubin-d scratch/s96b.sh
B=${B:-scratch/gpubin-d}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
grep -m1 "model name" /proc/cpuinfo; nproc; grep -m1 "cpu MHz" /proc/cpuinfo; uptime
timeout 560 $B/jitfp8 compile-time --arch sm_90a --json $OUT/ct-all.json kernels_cache/qwen3-30b-a3b.json > $OUT/ct-all.txt 2>&1; echo "rc $?"
grep -B2 -A8 "^seconds per kernel" $OUT/ct-all.txt

### scratch/s96c.sh
#!/usr/bin/env bash
# Session 96, call 3 (H100, call 2's machine): the masked and weight-gradient anchor rows once more
# on this card, then compile-time of the whole manifest a second time.
# Carry: .deps scratch/gpubin-d scratch/s96c.sh
B=${B:-scratch/gpubin-d}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cb
start=$SECONDS
timeout 150 $B/jitfp8-bench moe --only masked --flush-mb 2048 > $OUT/masked.txt 2>&1; echo "masked rc $? after $((SECONDS - start)) s"
grep -E "32x192|6x1024|copy" $OUT/masked.txt | cut -c1-200
timeout 150 $B/jitfp8-bench gemm --wgrad-only --flush-mb 2048 --iters 20 > $OUT/wgrad.txt 2>&1; echo "wgrad rc $? after $((SECONDS - start)) s"
grep -A12 "^Weight gradient" $OUT/wgrad.txt | cut -c1-200
timeout 240 $B/jitfp8 compile-time --arch sm_90a --json $OUT/ct-all-2.json kernels_cache/qwen3-30b-a3b.json > $OUT/ct-all-2.txt 2>&1; echo "compile-time rc $? after $((SECONDS - start)) s"
grep -A8 "^seconds per kernel" $OUT/ct-all-2.txt

### scratch/s96d.sh
#!/usr/bin/env bash
# Session 96, call 4 (H100): the bench after its review (2 GB flush by default, f32 gate 1e-7,
# anchors only on their machine kind, DeepGEMM's group-size draws, JSON facts): a short run of
# each table, their JSON's first record, exit statuses; then the PDL and green-context cases again.
# Carry: .deps scratch/gpubin-d scratch/s96d.sh
B=${B:-scratch/gpubin-d}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_CACHE_DIR=/tmp/cd
start=$SECONDS
timeout 120 $B/jitfp8-bench gemm --wgrad-only --iters 10 --json $OUT/wgrad.json > $OUT/wgrad.txt 2>&1; echo "wgrad rc $? after $((SECONDS - start)) s"
head -2 $OUT/wgrad.txt; grep -A9 "^Weight gradient" $OUT/wgrad.txt | cut -c1-180
timeout 150 $B/jitfp8-bench moe --iters 5 --json $OUT/moe.json > $OUT/moe.txt 2>&1; echo "moe rc $? after $((SECONDS - start)) s"
grep -E "x[0-9]+ +[0-9]+ +[0-9]+ \||ACCURACY" $OUT/moe.txt | cut -c1-150
timeout 60 $B/jitfp8-bench moe --only masked --uniform-tokens --iters 3 --shapes "32x192,6144,7168" > $OUT/moe-uniform.txt 2>&1; echo "uniform rc $?"; grep "32x192" $OUT/moe-uniform.txt | cut -c1-150
python3 -c "import json; print(json.load(open('$OUT/wgrad.json'))[0]); print(json.load(open('$OUT/moe.json'))[0])"
timeout 120 $B/jitfp8_gpu_tests "[pdl],[green-ctx]" --warn NoAssertions > $OUT/pdl-green.log 2>&1; echo "pdl/green rc $?"; tail -3 $OUT/pdl-green.log

