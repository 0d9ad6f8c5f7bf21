#### scratch/s94a.sh
#!/usr/bin/env bash
# Session 94, call 1 (H100): (1) session 93's GPU edits that never ran on a GPU (the green-id
# refinement, the full-SM green context, the blocking-stream first capture, test fixes);
# (2) a ring model: A and B in one ring (today) vs in rings of their own (A shallow, B deep), for
# masked 32 x 192; (3) the weight-gradient sweep of the three rows short of the anchors' cuBLASLt.
# Carry: .deps scratch/gpubin-a scratch/s94a.sh scratch/ring_model.cu
B=${B:-scratch/gpubin-a}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader | head -1
start=$SECONDS
export JITFP8_CACHE_DIR=/tmp/c1
( /usr/local/cuda/bin/nvcc -std=c++17 -O3 -arch=sm_90a -o /tmp/ring_model scratch/ring_model.cu -lcuda > $OUT/ring_build.txt 2>&1 ) &
timeout ${FOCUS_TIMEOUT:-170} $B/jitfp8_gpu_tests "[tiered],[green-ctx],[capture],[graph],[pdl],[dispatch]" --warn NoAssertions -d yes > $OUT/focused.log 2>&1; echo "focused rc=$? after $((SECONDS - start)) s"
grep -E "^All tests|^test cases|FAILED" $OUT/focused.log | tail -5
grep -B3 -A14 "FAILED" $OUT/focused.log | head -50
wait
timeout ${RING_TIMEOUT:-90} /tmp/ring_model > $OUT/ring.txt 2>&1; echo "ring rc=$? after $((SECONDS - start)) s"; cat $OUT/ring_build.txt | head -5; cat $OUT/ring.txt
[ "${SWEEP_TIMEOUT:-240}" -gt 0 ] && timeout ${SWEEP_TIMEOUT:-240} $B/jitfp8-bench gemm --wgrad-only --wgrad-sweep --flush-mb 2048 --iters 20 --wgrad-shapes "24576,4096,1536;4096,4096,7168;7168,4096,2048" --json $OUT/wsweep.json > $OUT/wsweep.txt 2>&1; echo "wgrad sweep rc $? after $((SECONDS - start)) s"
for s in "24576  4096  1536" "4096  4096  7168" "7168  4096  2048"; do
  grep "sweep *$s" $OUT/wsweep.txt | awk '{ match($0, /: +[0-9.]+ us/); print substr($0, RSTART + 1, RLENGTH - 4) + 0, $0 }' | sort -n | head -6 | cut -c1-160
  grep "sweep *$s \*" $OUT/wsweep.txt | cut -c1-150
done
grep -A12 "^Weight gradient" $OUT/wsweep.txt | cut -c1-230

#### scratch/s94b.sh
#!/usr/bin/env bash
# Session 94, call 2 (H100): the ring model with A multicast in pairs and A's loads trimmed to a
# tile's active waves; then the whole GPU suite (seven groups in parallel) on 282f0e6's binaries,
# cache verify, and the multi-process dispatch stress.
# Carry: .deps scratch/gpubin-a scratch/s94b.sh scratch/ring_model2.cu
B=${B:-scratch/gpubin-a}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
nvidia-smi --query-gpu=name --format=csv,noheader | head -1
start=$SECONDS
/usr/local/cuda/bin/nvcc -std=c++17 -O3 -arch=sm_90a -o /tmp/ring_model2 scratch/ring_model2.cu -lcuda > $OUT/ring2_build.txt 2>&1 || head -5 $OUT/ring2_build.txt
timeout ${RING_TIMEOUT:-90} /tmp/ring_model2 > $OUT/ring2.txt 2>&1; echo "ring2 rc=$? after $((SECONDS - start)) s"; cat $OUT/ring2.txt
export JITFP8_CACHE_DIR=/tmp/csuite
GROUP_TIMEOUT_S=${GROUP_TIMEOUT_S:-330} tools/gpu_test_groups.sh $PWD/$B/jitfp8_gpu_tests; echo "suite rc=$? after $((SECONDS - start)) s"
timeout 30 $B/jitfp8 cache verify --cache-dir /tmp/csuite 2>&1 | tail -2
timeout ${STRESS_TIMEOUT:-60} $B/jitfp8_gpu_dispatch_stress 16 8 > $OUT/stress.log 2>&1; echo "stress rc=$? after $((SECONDS - start)) s"; tail -2 $OUT/stress.log

#### scratch/s94c.sh
#!/usr/bin/env bash
# Session 94, call 3 (H100 host): `jitfp8 compile-time` (new) over the Qwen3-30B-A3B manifest:
# each GEMM kernel's first-use compile, full kernel and quick variant, one at a time, no cache.
# Carry: .deps scratch/gpubin-a scratch/s94c.sh
B=${B:-scratch/gpubin-a}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
{ nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi --query-gpu=name --format=csv,noheader; } 2>&1
start=$SECONDS
timeout ${CT_TIMEOUT:-420} $B/jitfp8 compile-time --arch sm_90a --json $OUT/ct.json kernels_cache/qwen3-30b-a3b.json > $OUT/ct.txt 2>&1; echo "compile-time rc $? after $((SECONDS - start)) s"
head -2 $OUT/ct.txt; tail -9 $OUT/ct.txt

#### scratch/s94d.sh
#!/usr/bin/env bash
# Session 94, call 4 (H100): the whole `bench gemm` (forward and weight gradient) in one run, the
# anchors' protocol (2 GB flush), on 282f0e6's binaries (no kernel change since 2026-12-04c).
# Carry: .deps scratch/gpubin-a scratch/s94d.sh
B=${B:-scratch/gpubin-a}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_CACHE_DIR=/tmp/cbench
{ nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,power.limit,driver_version --format=csv,noheader; } 2>&1
start=$SECONDS
timeout ${GEMM_TIMEOUT:-400} $B/jitfp8-bench gemm --flush-mb 2048 --iters 20 --json $OUT/gemm.json > $OUT/gemm.txt 2>&1; echo "bench gemm rc $? after $((SECONDS - start)) s"
cut -c1-230 $OUT/gemm.txt | grep -v "^ *$"

#### scratch/s94e.sh
#!/usr/bin/env bash
# Session 94, call 5 (H100): is the dense weight gradient's wave quantization (7.8, 13.6 and 31.0
# rounds on the three rows at the anchors' cuBLASLt figure) worth the K-grouped kernel's balanced
# tail? The same work as one expert of the K-grouped GEMM (tokens = K, uniform), with and without
# its split tail, plus its tile sweep, beside the dense kernel on the same machine.
# Carry: .deps scratch/gpubin-a scratch/s94e.sh
B=${B:-scratch/gpubin-a}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
S="1x7168,4096,4096;1x2048,7168,4096;1x1536,24576,4096"
timeout 150 $B/jitfp8-bench gemm --wgrad-only --flush-mb 2048 --iters 20 --wgrad-shapes "4096,4096,7168;7168,4096,2048;24576,4096,1536" > $OUT/dense.txt 2>&1; echo "dense rc $? after $((SECONDS - start)) s"
grep -A5 "^Weight" $OUT/dense.txt | cut -c1-200
timeout 200 $B/jitfp8-bench moe --only kgrouped --uniform-tokens --flush-mb 2048 --shapes "$S" --sweep > $OUT/kg.txt 2>&1; echo "kgrouped rc $? after $((SECONDS - start)) s"
grep -v "^ *$" $OUT/kg.txt | grep -v "^timing\|^%floor" | cut -c1-200 | tail -60
timeout 100 $B/jitfp8-bench moe --only kgrouped --uniform-tokens --flush-mb 2048 --shapes "$S" --no-split-tail > $OUT/kg_nosplit.txt 2>&1; echo "kgrouped no split rc $? after $((SECONDS - start)) s"
grep "^ *1x" $OUT/kg_nosplit.txt | cut -c1-200

#### /tmp/abl/run.py (CPU: compile-time ablations of a quick variant)
import subprocess, shutil, os, re, sys
SRC='/work/main/templates'
D=[d for d in os.listdir('/tmp/dumpc')][0]
D='/tmp/dumpc/'+[d for d in os.listdir('/tmp/dumpc') if d.endswith('f52f5f59') or True][0]
name=[l for l in open(D+'/options.txt') if 'name expression' in l][0].split(': ',1)[1].strip()
def measure(tpl, label, reps=2):
    best=None
    for r in range(reps):
        out=subprocess.run(['/work/main/scratch/probe/nvrtc_time', D+'/source.cu','1','--gpu-architecture=sm_90a','-std=c++17','-default-device','-DNDEBUG','--no-cache','-I'+tpl,'--name='+name,'-DJITFP8_QUICK_VARIANT','--time=/tmp/abl/t.csv'],capture_output=True,text=True).stdout
        rows=[l.split(', ') for l in open('/tmp/abl/t.csv').read().splitlines()[1:]]
        last=rows[-3:]
        fe,nv,px=[float(x[2]) for x in last]
        tot=float(re.findall(r'timed compile 1: ([0-9.]+)',out)[0])
        cub=re.findall(r'cubin (\d+)',out)[-1]
        t=(tot,fe,nv,px,cub,'FAILED' in out)
        if best is None or t[0]<best[0]: best=t
    print(f"{label:40s} total {best[0]*1000:6.0f} ms  front {best[1]:4.0f}  nvvm {best[2]:4.0f}  ptxas {best[3]:4.0f}  cubin {best[4]} {'FAILED' if best[5] else ''}", flush=True)
def variant(label, file, edits):
    tpl='/tmp/abl/tpl'; shutil.rmtree(tpl, ignore_errors=True); shutil.copytree(SRC, tpl)
    p=tpl+'/'+file; s=open(p).read()
    for old,new in edits:
        assert old in s, (label, old[:60]); s=s.replace(old,new,1)
    open(p,'w').write(s); measure(tpl,label)
print(name)
measure(SRC,'baseline')
exec(open('/tmp/abl/variants.py').read())
#### /tmp/abl/variants.py (second set; the first set's A1-A5 as in the .md)
G='moe/gemm_fp8_grouped.cuh'
s=open('/work/main/templates/'+G).read()
def between(a,b):
    i=s.index(a); j=s.index(b,i); return s[i:j]
# B1: store warps: no padding zeros
variant('B1 store: no zero_padding_rows',G,[('          zero_padding_rows<BLOCK_N, kWaves * 64>(d, M, N, t.row0 + wg * kWaves * 64, t.n_block * BLOCK_N, lane);\n','')])
# B2: no ForeignRows
variant('B2 store: no ForeignRows',G,[('            const ForeignRows<kGrouping, kDStageRows, kEpiN / kBoxN, kSwizzleD> foreign(t, m0, M, grouping, lane);\n',''),('            foreign.zero(pipe.buffer(), lane);\n','')])
# B3: store warps: only the scheduler walk
body=between('      while (sched.next(t)) {\n        if (!t.compute) {  // a padding tile','    }\n    warp_sync();')
variant('B3 store: scheduler walk only',G,[(body,'      while (sched.next(t)) { asm volatile("" :: "r"(t.row0)); }\n')])
# B4: no store_wave (TMA) call
variant('B4 store: no store_wave',G,[('              store_wave<BLOCK_N, kWaves, kParts, kNumSplits, kEpiN, kBoxN, kSwizzleD, kDStageRows>(\n                  tmap_d, pipe.buffer(), t.row0, t.n_block, wg, v, split, h);\n','')])
#### scratch/probe/nvrtc_time.cpp
// Compiles a source file with NVRTC (templates from -I dirs), N times; prints wall time per compile.
#include <nvrtc.h>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
int main(int argc, char** argv) {
  if (argc < 3) { std::fprintf(stderr, "usage: %s SOURCE REPEATS [options...]\n", argv[0]); return 2; }
  std::ifstream f(argv[1]); std::stringstream ss; ss << f.rdbuf(); std::string src = ss.str();
  int reps = std::atoi(argv[2]);
  std::vector<const char*> opts; std::string name;
  for (int i = 3; i < argc; ++i) { std::string a = argv[i]; if (a.rfind("--name=", 0) == 0) name = a.substr(7); else opts.push_back(argv[i]); }
  // warm-up (NVRTC start-up)
  for (int r = 0; r < reps + 1; ++r) {
    nvrtcProgram p; nvrtcCreateProgram(&p, src.c_str(), "k.cu", 0, nullptr, nullptr); if (!name.empty()) nvrtcAddNameExpression(p, name.c_str());
    auto t0 = std::chrono::steady_clock::now();
    nvrtcResult res = nvrtcCompileProgram(p, (int)opts.size(), opts.data());
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    size_t n = 0; nvrtcGetProgramLogSize(p, &n); std::string log(n, 0); nvrtcGetProgramLog(p, log.data());
    size_t cub = 0; nvrtcGetCUBINSize(p, &cub);
    std::printf("%s compile %d: %.3f s (cubin %zu B)%s\n", r == 0 ? "warmup" : "timed", r, s, cub, res == NVRTC_SUCCESS ? "" : " FAILED");
    if (res != NVRTC_SUCCESS) std::printf("%s\n", log.c_str());
    nvrtcDestroyProgram(&p);
  }
}
#### /tmp/abl/variants.py, first set (A1-A5), as run before the second
G='moe/gemm_fp8_grouped.cuh'
s=open('/work/main/templates/'+G).read()
def between(a,b):
    i=s.index(a); j=s.index(b,i); return s[i:j]
body=between('      DPipe pipe{smem_d, d_staged, d_stored, warp - kNumMathThreads / 32 - 2};','    }\n    warp_sync();')
variant('A1 no store warps',G,[(body,'')])
body=between('      Scheduler sched(M, grouping, group_smem);\n      GroupedTile t;\n      u32 count = 0;','    } else if (warp >= kNumMathThreads / 32 + 2')
variant('A2 no sfb loader',G,[(body,'')])
body=between('      Scheduler sched(M, grouping, group_smem);\n      GroupedTile t;\n      u32 stage = 0, phase = 0, tile_count = 0;','    } else if (warp == kNumMathThreads / 32 + 1) {')
variant('A3 no TMA producer',G,[(body,'')])
body=between('#pragma unroll\n      for (u32 v = 0; v < kWaves; ++v) {\n        if (v >= active_waves) break;','      if constexpr (kNumSplits > 1 && !kRecvOnRing) {')
variant('A4 no math epilogue',G,[(body,'for (u32 i = 0; i < kNumAccum; ++i) asm volatile("" :: "f"(final_accum[0][i]));\n')])
variant('A5 no main loop',G,[('      mainloop.run_tile((n_block * BLOCK_N) % 128);\n','')])
#### scratch/s94f.sh
#!/usr/bin/env bash
# Session 94, call 6 (H100): masked 32 x 192 bound by what? The same two (N, K) with every expert
# at exactly 128, 192 (3 whole 64-row waves: no rounding up) and 256 rows, beside the anchors'
# 0.7-1.3x spread. If 192 exact is not faster than the spread, the waves' rounding (the lever of
# a tokens-on-N kernel) is not what holds the 1.1x back.
# Carry: .deps scratch/gpubin-a scratch/s94f.sh
B=${B:-scratch/gpubin-a}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_CACHE_DIR=/tmp/cbench
start=$SECONDS
A="32x192,6144,7168;32x192,7168,3072"
timeout 120 $B/jitfp8-bench moe --only masked --flush-mb 2048 --shapes "$A" > $OUT/spread.txt 2>&1; echo "spread rc $? after $((SECONDS - start)) s"
grep "32x192" $OUT/spread.txt | cut -c1-200
timeout 150 $B/jitfp8-bench moe --only masked --flush-mb 2048 --uniform-tokens --shapes "$A;32x128,6144,7168;32x128,7168,3072;32x256,6144,7168;32x256,7168,3072" > $OUT/uniform.txt 2>&1; echo "uniform rc $? after $((SECONDS - start)) s"
grep "32x" $OUT/uniform.txt | cut -c1-200
#### scratch/s94g.sh
#!/usr/bin/env bash
# Session 94, call 7 (H100): compute-sanitizer memcheck on the standard sanitize subset and on
# the green-context and capture cases (their dispatch path changed in session 93), racecheck on
# the subset. Binaries of 282f0e6.
# Carry: .deps scratch/gpubin-a scratch/s94g.sh
B=${B:-scratch/gpubin-a}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
export JITFP8_CACHE_DIR=/tmp/csan
start=$SECONDS
subset='[zeros],gemm_fp8_nt leaves the padding of a strided D untouched,gemm_fp8_wgrad leaves the padding of a strided D untouched,gemm_fp8_wgrad accumulates into D in place'
run() {  # tool, timeout, subset, label
  timeout $2 compute-sanitizer --tool $1 $([ $1 = memcheck ] && echo --report-api-errors no) --error-exitcode 3 $B/jitfp8_gpu_tests "$3" --warn NoAssertions > $OUT/san-$4.log 2>&1
  echo "$4: rc=$? after $((SECONDS - start)) s: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $OUT/san-$4.log | tail -1) | $(grep -E '^All tests|^test cases' $OUT/san-$4.log | tail -1)"
}
run memcheck 150 "$subset" memcheck-subset
run memcheck 200 "[green-ctx],[capture]" memcheck-green-capture
run racecheck 150 "$subset" racecheck-subset
#### scratch/s94h.sh
#!/usr/bin/env bash
# Session 94, call 8 (H100): ncu of the masked 32 x 192 kernel at 7168 x 3072 and 6144 x 7168:
# DRAM bytes read and written against the bytes the problem needs (B once, A's 256-row blocks,
# D's valid rows), DRAM throughput, L2 hit rate. One launch each, after the bench's first runs.
# Carry: .deps scratch/gpubin-a scratch/s94h.sh
B=${B:-scratch/gpubin-a}
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_CACHE_DIR=/tmp/cbench
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_op_read_hit_rate.pct,lts__t_sectors_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpc__cycles_elapsed.avg.per_second
start=$SECONDS
for S in "32x192,7168,3072" "32x192,6144,7168"; do
  timeout 200 $NCU --clock-control none --kernel-name regex:grouped --launch-skip 3 --launch-count 1 --metrics $M \
    $B/jitfp8-bench moe --only masked --timer graph --iters 1 --flush-mb 2048 --shapes "$S" > $OUT/ncu-$S.txt 2>&1
  echo "$S: rc=$? after $((SECONDS - start)) s"
  grep -E "sm90_fp8|gpu__|dram__|lts__|sm__|gpc__|==PROF==|ERR" $OUT/ncu-$S.txt | cut -c1-160 | head -20
done
#### scratch/s94i.sh
#!/usr/bin/env bash
# Session 94, call 9 (H100): masked tiles load only the A waves they compute (64-row A boxes;
# working tree after 21b02d6). The masked GPU cases, the PDL MoE chain and the masked tensors past
# 4 GiB on the new binaries; then the masked anchors, old (282f0e6, scratch/gpubin-a) and new
# (scratch/gpubin-b) in turns, twice.
# Carry: .deps scratch/gpubin-a scratch/gpubin-b scratch/s94i.sh
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64 JITFP8_REQUIRE_GPU=1
start=$SECONDS
JITFP8_CACHE_DIR=/tmp/cb LD_LIBRARY_PATH=$PWD/scratch/gpubin-b:$LD_LIBRARY_PATH timeout 200 scratch/gpubin-b/jitfp8_gpu_tests "grouped masked GEMM computes only rows below masked_m,under PDL*,grouped masked GEMM with A and D past 4 GiB" --warn NoAssertions -d yes > $OUT/tests.log 2>&1
echo "tests rc=$? after $((SECONDS - start)) s: $(grep -E '^All tests|^test cases' $OUT/tests.log | tail -1)"
grep -B3 -A12 "FAILED" $OUT/tests.log | head -30
for round in 1 2; do
  for v in a b; do
    JITFP8_CACHE_DIR=/tmp/c$v LD_LIBRARY_PATH=$PWD/scratch/gpubin-$v:$LD_LIBRARY_PATH timeout 100 scratch/gpubin-$v/jitfp8-bench moe --only masked --flush-mb 2048 > $OUT/masked-$v-$round.txt 2>&1
    echo "round $round $v: rc=$? after $((SECONDS - start)) s"
    grep -E "^ +[0-9]+x[0-9]+ " $OUT/masked-$v-$round.txt | cut -c1-120
  done
done
