# Session 84's device scripts, run from the repository root with the carried paths named in each
# (binaries built on the CPU machine at babc9ef into scratch/gpubin-s84; scratch/testcache.tgz is call 2's kernel cache).

### scratch/s84a.sh
#!/bin/bash
# Session 84 call 1: the L2-merge probe's stride modes and the GPC of every block in launch order.
mkdir -p /tmp/o1; trap 'tar -C /tmp -czf $OUT/o1.tgz o1' EXIT
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for i in 1 2; do timeout 100 scratch/l2_merge > /tmp/o1/plain$i.txt 2>&1; echo "plain$i rc $?"; done
cat /tmp/o1/plain1.txt; diff /tmp/o1/plain1.txt /tmp/o1/plain2.txt | head -40
M=gpu__time_duration.sum,lts__t_sectors_srcunit_tex.sum,lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum,lts__t_sectors_srcunit_tex_lookup_miss.sum
timeout 300 /usr/local/cuda/bin/ncu --clock-control none -k read_panels --launch-skip 45 --launch-count 25 --metrics $M --csv scratch/l2_merge > /tmp/o1/ncu.csv 2> /tmp/o1/ncu.err
echo "ncu rc $?"; tail -3 /tmp/o1/ncu.err
python3 - <<'PY'
import csv, collections
rows = [r for r in csv.reader(open('/tmp/o1/ncu.csv')) if len(r) > 10]
hdr = rows[0]; rows = rows[1:]
ID, MN, MV = hdr.index('ID'), hdr.index('Metric Name'), hdr.index('Metric Value')
per = collections.OrderedDict()
for r in rows: per.setdefault(int(r[ID]), {})[r[MN]] = r[MV]
for i, m in per.items():
    print(i, ' '.join(f"{k.split('__')[1][:40]}={v}" for k, v in m.items()))
PY

### scratch/s84b.sh
#!/bin/bash
# Session 84 call 2: the whole GPU suite on HEAD (babc9ef), six groups in parallel, on an empty
# kernel cache; the cache it fills comes back (to carry into later calls: how much of the suite's
# time is compiling?).
B=scratch/gpubin-s84
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
export JITFP8_CACHE_DIR=/tmp/ctest
mkdir -p /tmp/o2
trap 'tar -C /tmp -czf $OUT/o2.tgz o2; tar -C /tmp -czf /tmp/testcache.tgz ctest; ls -la /tmp/testcache.tgz; (cd $OUT && split -b 15m /tmp/testcache.tgz testcache.tgz.)' EXIT
nproc; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
t0=$SECONDS
i=0
for g in "[gemm][splitk],[gemm][sm-limit]" "[gemm]~[splitk]~[sm-limit]" "[wgrad]" "[moe],[moe_wgrad]" "[quant]" "~[gemm]~[wgrad]~[moe]~[moe_wgrad]~[quant]"; do
  i=$((i+1)); (timeout 530 $B/jitfp8_gpu_tests "$g" -d yes > /tmp/o2/suite$i.txt 2>&1; echo "suite$i ($g) rc=$? at $((SECONDS - t0)) s" >> /tmp/o2/rc.txt) &
done
wait
cat /tmp/o2/rc.txt; for i in 1 2 3 4 5 6; do echo "suite$i: $(grep -E '^(All tests passed|test cases)' /tmp/o2/suite$i.txt)"; done
for i in 1 2 3 4 5 6; do grep -B3 -A12 FAILED /tmp/o2/suite$i.txt | head -40; done
echo "cache: $(find /tmp/ctest -name '*.kernel' | wc -l) entries, $(du -sh /tmp/ctest | cut -f1)"

### scratch/s84c.sh
#!/bin/bash
# Session 84 call 3: the whole GPU suite again, six groups in parallel, on the kernel cache that
# call 2 filled (carried): the suite's time without its compiles. Then bench gemm on the anchors
# (alone, its own empty cache): HEAD against the README's figures.
B=scratch/gpubin-s84
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o3; trap 'tar -C /tmp -czf $OUT/o3.tgz o3' EXIT
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest
nproc; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
t0=$SECONDS
i=0
for g in "[gemm][splitk],[gemm][sm-limit]" "[gemm]~[splitk]~[sm-limit]" "[wgrad]" "[moe],[moe_wgrad]" "[quant]" "~[gemm]~[wgrad]~[moe]~[moe_wgrad]~[quant]"; do
  i=$((i+1)); (timeout 250 $B/jitfp8_gpu_tests "$g" -d yes > /tmp/o3/suite$i.txt 2>&1; echo "suite$i ($g) rc=$? at $((SECONDS - t0)) s" >> /tmp/o3/rc.txt) &
done
wait
cat /tmp/o3/rc.txt; for i in 1 2 3 4 5 6; do echo "suite$i: $(grep -E '^(All tests passed|test cases)' /tmp/o3/suite$i.txt)"; done
for i in 1 2 3 4 5 6; do grep -B3 -A12 FAILED /tmp/o3/suite$i.txt | head -40; done
echo "cache after: $(find /tmp/ctest -name '*.kernel' | wc -l) entries"
export JITFP8_CACHE_DIR=/tmp/cbench
timeout 240 $B/jitfp8-bench gemm --flush-mb 2048 --iters 20 --json /tmp/o3/gemm.json > /tmp/o3/gemm.txt 2>&1; echo "bench gemm rc $?"
cut -c1-200 /tmp/o3/gemm.txt

### scratch/s84d.sh
#!/bin/bash
# Session 84 call 4: bench moe and bench quant on HEAD (babc9ef), alone; then first-use compile
# times on this host, one at a time (Qwen3-30B-A3B manifest, empty cache).
B=scratch/gpubin-s84
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o4; trap 'tar -C /tmp -czf $OUT/o4.tgz o4' EXIT
export JITFP8_CACHE_DIR=/tmp/cbench
nproc > /tmp/o4/host.txt; grep -m1 "model name" /proc/cpuinfo >> /tmp/o4/host.txt; cat /tmp/o4/host.txt
timeout 220 $B/jitfp8-bench moe --flush-mb 2048 --json /tmp/o4/moe.json > /tmp/o4/moe.txt 2>&1; echo "bench moe rc $?"
cut -c1-190 /tmp/o4/moe.txt
timeout 90 $B/jitfp8-bench quant --json /tmp/o4/quant.json > /tmp/o4/quant.txt 2>&1; echo "bench quant rc $?"
cut -c1-190 /tmp/o4/quant.txt
JITFP8_LOG=info timeout 200 $B/jitfp8 prewarm --jobs 1 --cache-dir /tmp/cpw kernels_cache/qwen3-30b-a3b.json > /tmp/o4/prewarm.txt 2>&1; echo "prewarm rc $?"
tail -3 /tmp/o4/prewarm.txt

### scratch/s84e.sh
#!/bin/bash
# Session 84 call 5: tools/gpu_check.sh tests-groups (new: tools/gpu_test_groups.sh), built from
# source on the device in a clean environment, on the kernel cache that call 2 filled (carried).
mkdir -p /tmp/o5; trap 'tar -C /tmp -czf $OUT/o5.tgz o5' EXIT
tar -C /tmp -xzf scratch/testcache.tgz
before=$(find /tmp/ctest -name '*.kernel' | wc -l)
t0=$SECONDS
env -u LD_LIBRARY_PATH OUT=/tmp/o5/gc BUILD_DIR=/tmp/build-gpu JITFP8_CACHE_DIR=/tmp/ctest timeout 570 tools/gpu_check.sh tests-groups
echo "gpu_check.sh tests-groups rc $? in $((SECONDS - t0)) s; build.log: $(stat -c %y /tmp/o5/gc/build.log) tests-groups.txt: $(stat -c %y /tmp/o5/gc/tests-groups.txt)"
echo "cache entries: $before before, $(find /tmp/ctest -name '*.kernel' | wc -l) after"

### scratch/s84f.sh
#!/bin/bash
# Session 84 call 6: tools/gpu_test_groups.sh in its seven groups (the tensors past 4 GiB now a
# group of their own), with call 2's binaries and the kernel cache that call 2 filled (carried).
B=scratch/gpubin-s84
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o6; trap 'tar -C /tmp -czf $OUT/o6.tgz o6' EXIT
tar -C /tmp -xzf scratch/testcache.tgz
t0=$SECONDS
OUT=/tmp/o6 JITFP8_CACHE_DIR=/tmp/ctest timeout 400 tools/gpu_test_groups.sh $B/jitfp8_gpu_tests
echo "gpu_test_groups.sh rc $? in $((SECONDS - t0)) s"
echo "cache entries after: $(find /tmp/ctest -name '*.kernel' | wc -l)"

### scratch/s84g.sh
#!/bin/bash
# Session 84 call 7: memcheck over every GPU test case (the exclusions of gpu_check.sh's
# sanitize-all: the micro-benchmark, the full-size anchor and yardstick shapes, the load probe, the
# tensors past 4 GiB), one process per case, 14 at once, on the kernel cache call 2 filled
# (carried); call 2's binaries. Last whole-suite run of the sanitizers: 2026-11-23 (H100).
B=scratch/gpubin-s84
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o7/mc; trap 'tar -C /tmp -czf $OUT/o7.tgz o7' EXIT
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest
tests=$PWD/$B/jitfp8_gpu_tests
$tests --list-test-names-only | grep -v -e '^$' -e 'micro-benchmark' -e 'anchor' -e 'yardstick' -e 'load probe' -e 'GiB' \
  | sed -e 's/[],[].*$//' -e 's/$/*/' | sort -u > /tmp/o7/cases.txt
wc -l < /tmp/o7/cases.txt
export tests
t0=$SECONDS
awk '{ print NR "\t" $0 }' /tmp/o7/cases.txt | timeout 520 xargs -d '\n' -P 14 -n 1 bash -c '
  IFS=$(printf "\t") read -r n spec <<< "$1"
  log=/tmp/o7/mc/$n.log; s=$SECONDS
  timeout 500 /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 3 "$tests" "$spec" > "$log" 2>&1
  rc=$?
  echo "memcheck rc=$rc $((SECONDS - s))s | $spec | $(grep -E "ERROR SUMMARY" "$log" | tail -1 | sed "s/^=* *//") | $(grep -E "^(All tests passed|test cases)" "$log" | tail -1)"' _ > /tmp/o7/memcheck.txt
echo "xargs rc $? in $((SECONDS - t0)) s"
echo "clean: $(grep -c '^memcheck rc=0 ' /tmp/o7/memcheck.txt) of $(grep -c '^memcheck rc=' /tmp/o7/memcheck.txt) finished, $(wc -l < /tmp/o7/cases.txt) listed"
grep -v '^memcheck rc=0 ' /tmp/o7/memcheck.txt | head -30
sort -t= -k2 /tmp/o7/memcheck.txt | awk '{print $3}' | sort -n | tail -3

### scratch/s84h.sh
#!/bin/bash
# Session 84 call 8: synccheck then racecheck over every GPU test case (the exclusions of gpu_check.sh's
# sanitize-all: the micro-benchmark, the full-size anchor and yardstick shapes, the load probe, the
# tensors past 4 GiB), one process per case, 14 at once, on the kernel cache call 2 filled
# (carried); call 2's binaries. Last whole-suite run of the sanitizers: 2026-11-23 (H100).
B=scratch/gpubin-s84
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o8/mc; trap 'tar -C /tmp -czf $OUT/o8.tgz o8' EXIT
tar -C /tmp -xzf scratch/testcache.tgz
export JITFP8_CACHE_DIR=/tmp/ctest
tests=$PWD/$B/jitfp8_gpu_tests
$tests --list-test-names-only | grep -v -e '^$' -e 'micro-benchmark' -e 'anchor' -e 'yardstick' -e 'load probe' -e 'GiB' \
  | sed -e 's/[],[].*$//' -e 's/$/*/' | sort -u > /tmp/o8/cases.txt
wc -l < /tmp/o8/cases.txt
export tests
for tool in synccheck racecheck; do
  [ $tool = synccheck ] && lim=150 || lim=$((530 - SECONDS))
  export tool; mkdir -p /tmp/o8/$tool; t0=$SECONDS
  awk '{ print NR "\t" $0 }' /tmp/o8/cases.txt | timeout $lim xargs -d '\n' -P 14 -n 1 bash -c '
    IFS=$(printf "\t") read -r n spec <<< "$1"
    log=/tmp/o8/$tool/$n.log; s=$SECONDS
    timeout 500 /usr/local/cuda/bin/compute-sanitizer --tool $tool --error-exitcode 3 "$tests" "$spec" > "$log" 2>&1
    rc=$?
    echo "$tool rc=$rc $((SECONDS - s))s | $spec | $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1 | sed "s/^=* *//") | $(grep -E "^(All tests passed|test cases)" "$log" | tail -1)"' _ > /tmp/o8/$tool.txt
  echo "$tool: xargs rc $? in $((SECONDS - t0)) s; clean: $(grep -c "^$tool rc=0 " /tmp/o8/$tool.txt) of $(grep -c "^$tool rc=" /tmp/o8/$tool.txt) finished, $(wc -l < /tmp/o8/cases.txt) listed"
  grep -v "^$tool rc=0 " /tmp/o8/$tool.txt | head -20
done
