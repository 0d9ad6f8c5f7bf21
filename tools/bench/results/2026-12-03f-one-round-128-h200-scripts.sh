# Session 78's device scripts (2026-12-03f), in call order: s78a (call 1) ... s78m (call 13).
# Shapes of call 2: scratch/shapes78.txt:
#   512,4096,7168;512,4096,8192;512,4096,14336;512,4096,21888;256,7168,2112;256,7168,36864;256,8192,4096;256,8192,28672;1024,2048,7168;512,512,32768;256,57344,8192;4096,512,16384;4096,576,7168;1024,1408,4096;128,28672,8192;512,1536,12288;1024,512,16384;4096,2112,7168;4096,7168,16384;4096,4096,7168;4096,24576,1536;512,7168,2112

# ===== scratch/s78a.sh
#!/bin/bash
# Session 78 call 1: (1) ncu of our 128 x 128 pick beside nvjet at 512 x 4096 x 14336 (one round),
# with per-instruction SASS counters; (2) the [gemm] GPU cases not run in session 77.
B=scratch/gpubin-h78a
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o1; trap 'tar -C /tmp -czf $OUT/o1.tgz o1' EXIT
export JITFP8_CACHE_DIR=/tmp/c-ncu
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,power.limit --format=csv > /tmp/o1/smi.txt
echo '{"model":"x","description":"x","ops":[{"op":"gemm_fp8_nt","m":512,"n":4096,"k":14336}]}' > /tmp/o1/m.json
$B/jitfp8 prewarm --jobs 16 --quiet /tmp/o1/m.json
M="gpu__time_duration.sum,sm__cycles_active.avg,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active"
M="$M,smsp__inst_executed.sum,lts__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum"
M="$M,lts__t_sector_hit_rate.pct,l1tex__m_xbar2l1tex_read_bytes.sum,l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed"
M="$M,l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__cycles_active.avg"
M="$M,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpc__cycles_elapsed.max,sm__inst_executed_pipe_uniform.sum"
timeout 280 /usr/local/cuda/bin/ncu --clock-control none -k regex:"sm90_fp8_gemm_1d2d|nvjet" --launch-count 4 --metrics $M \
  --section WarpStateStats --section SchedulerStats --section LaunchStats --section SourceCounters \
  -o /tmp/o1/rep \
  $B/jitfp8-bench gemm --forward-only --timer graph --shapes "512,4096,14336" --flush-mb 2048 --iters 1 > /tmp/o1/ncu-run.txt 2>&1
echo "ncu rc=$?"
/usr/local/cuda/bin/ncu -i /tmp/o1/rep.ncu-rep --page details > /tmp/o1/details.txt 2>&1
/usr/local/cuda/bin/ncu -i /tmp/o1/rep.ncu-rep --page source --print-source sass --csv > /tmp/o1/sass.csv 2>/tmp/o1/sass.err
ls -la /tmp/o1
grep -E "sm90_fp8|nvjet|Duration|gmma|inst_executed|lts__|dram__|xbar|data_bank|wavefronts|Stall|Issued|Eligible|Active Warps|Cluster|Registers|Grid|Block Size|Shared Memory" /tmp/o1/details.txt | sed 's/  */ /g' | cut -c1-120 | head -120
# (2) the [gemm] cases session 77's timeout cut off
timeout 300 $B/jitfp8_gpu_tests "gemm_fp8_nt with an f32 D on every epilogue path*","gemm_fp8_nt leaves the padding*","gemm_fp8_nt on the anchor shapes*","gemm_fp8_nt reproduces the unquantized*","gemm_fp8_nt from several host threads*","gemm_fp8_nt rejects bad arguments*","gemm_fp8_nt plans with a tuned config*" --durations yes > /tmp/o1/gemm-tests.txt 2>&1
echo "tests rc=$?"; tail -20 /tmp/o1/gemm-tests.txt

# ===== scratch/s78b.sh
#!/bin/bash
# Session 78 call 2: warpgroup turns on the wgmma issue (t1: one-wave tiles, t2: also two-wave)
# against the committed templates, same binaries, templates from JITFP8_TEMPLATE_DIR; 2 rounds in turns.
B=scratch/gpubin-h78a
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o2; trap 'tar -C /tmp -czf $OUT/o2.tgz o2' EXIT
S=$(cat scratch/shapes78.txt)
for t in base t1 t2; do
  JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-$t JITFP8_CACHE_DIR=/tmp/c-$t $B/jitfp8 prewarm --jobs 16 --quiet scratch/m78.json 2>&1 | head -1
done
for r in 1 2; do
  order="base t1 t2"; [ $r = 2 ] && order="t2 t1 base"
  for t in $order; do
    JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-$t JITFP8_CACHE_DIR=/tmp/c-$t timeout 200 $B/jitfp8-bench gemm --forward-only \
      --shapes "$S" --flush-mb 2048 --iters 20 --json /tmp/o2/$t-r$r.json > /tmp/o2/$t-r$r.txt 2>&1
    echo "$t r$r rc=$?"
  done
done
for f in /tmp/o2/*-r*.txt; do echo "== $f"; grep -E "^ +[0-9]+ " $f | awk '{print $1"x"$2"x"$3, $5, $9, $12}' | tr '\n' ';'; echo; done

# ===== scratch/s78c.sh
#!/bin/bash
# Session 78 call 3: is the 128 x 128 one-round gap to nvjet a slope that grows with K? 512 x 4096 x K
# for K 7168-28672, flush 2048 MB and 64 MB, and the pick beside the B-multicast pair (--configs).
B=scratch/gpubin-h78a
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o3; trap 'tar -C /tmp -czf $OUT/o3.tgz o3' EXIT
export JITFP8_CACHE_DIR=/tmp/c-base JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-base
S="512,4096,7168;512,4096,10240;512,4096,14336;512,4096,18432;512,4096,21888;512,4096,24576;512,4096,28672;256,8192,28672;256,8192,14336"
for f in 2048 64; do
  timeout 250 $B/jitfp8-bench gemm --forward-only --shapes "$S" --flush-mb $f --iters 20 --configs "128x128:1:mc1:6;128x128:1:mc2b:6;128x128:1:mc1:5" > /tmp/o3/f$f.txt 2>&1
  echo "flush $f rc=$?"
done
for f in /tmp/o3/f*.txt; do echo "== $f"; grep -E "^ +[0-9]+ |sweep|config" $f | sed 's/  */ /g' | cut -c1-110; done

# ===== scratch/s78d.sh
#!/bin/bash
# Session 78 call 4: ours and nvjet at 512 x 4096 x 28672 under ncu (each launch isolated): time,
# clock, DRAM and L2 traffic; is the bench's 6% gap there when the kernels run alone?
B=scratch/gpubin-h78a
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o4; trap 'tar -C /tmp -czf $OUT/o4.tgz o4' EXIT
export JITFP8_CACHE_DIR=/tmp/c-base JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-base
M="gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,lts__t_sector_hit_rate.pct"
for K in 14336 28672; do
timeout 200 /usr/local/cuda/bin/ncu --clock-control none -k regex:"sm90_fp8_gemm_1d2d|nvjet" --launch-count 6 --metrics $M \
  $B/jitfp8-bench gemm --forward-only --timer graph --shapes "512,4096,$K" --flush-mb 2048 --iters 1 > /tmp/o4/ncu-$K.txt 2>&1
echo "ncu $K rc=$?"
grep -E "sm90_fp8|nvjet|gpu__time|gpc__cycles|per_second|dram__|lts__" /tmp/o4/ncu-$K.txt | sed 's/  */ /g' | cut -c1-90
done
# clocks and power while the bench alternates ours and cuBLASLt at K 28672
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 50 > /tmp/o4/smi.csv &
P=$!
timeout 120 $B/jitfp8-bench gemm --forward-only --shapes "512,4096,28672" --flush-mb 2048 --iters 100 > /tmp/o4/bench.txt 2>&1
kill $P; grep -E "^ +[0-9]+ " /tmp/o4/bench.txt; sort -t, -k2 /tmp/o4/smi.csv | awk -F, '{print $2,$3}' | sort | uniq -c | sort -rn | head -8

# ===== scratch/s78e.sh
#!/bin/bash
# Session 78 call 5: the multicast pairs (2a, 2b) of our 128 x 128 at 512 x 4096 x 28672 under ncu:
# cycles, clock and L2 bytes beside the pick and nvjet.
B=scratch/gpubin-h78a
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o5; trap 'tar -C /tmp -czf $OUT/o5.tgz o5' EXIT
export JITFP8_CACHE_DIR=/tmp/c-base JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-base
M="gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,lts__t_bytes.sum"
timeout 300 /usr/local/cuda/bin/ncu --clock-control none -k regex:"sm90_fp8_gemm_1d2d|nvjet" --launch-count 60 --metrics $M --csv \
  $B/jitfp8-bench gemm --forward-only --timer graph --shapes "512,4096,28672" --flush-mb 2048 --iters 1 \
  --configs "128x128:1:2b:6;128x128:1:2a:6;128x128:1:1:6" > /tmp/o5/ncu.csv 2>/tmp/o5/ncu.err
echo "ncu rc=$?"
python3 - <<'PY'
import csv,collections,re
rows=[r for r in csv.reader(open('/tmp/o5/ncu.csv')) if len(r)>10]
hdr=rows[0]; idx={h:i for i,h in enumerate(hdr)}
data=collections.defaultdict(lambda: collections.defaultdict(list))
for r in rows[1:]:
    name=r[idx['Kernel Name']]
    m=re.search(r'<([^>]*)>',name); key=(m.group(1)[:60] if m else name[:40])
    try: data[key][r[idx['Metric Name']]].append(float(r[idx['Metric Value']].replace(',','')))
    except: pass
for k,v in data.items():
    print(k, ' | '.join(f"{n.split('.')[0].split('__')[1]}={sum(x)/len(x):.4g}(n{len(x)})" for n,x in v.items()))
PY

# ===== scratch/s78f.sh
#!/bin/bash
# Session 78 call 6: one round of 128 x 128 tiles: padded ring turns with multicast pairs (A or B),
# and on K blocks the ring divides, against the pick and cuBLASLt.
B=scratch/gpubin-h78a
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o6; trap 'tar -C /tmp -czf $OUT/o6.tgz o6' EXIT
export JITFP8_CACHE_DIR=/tmp/c-base JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-base
S="512,4096,2880;512,4096,7168;512,4096,8192;512,4096,9216;512,4096,12288;512,4096,14336;512,4096,18432;512,4096,21888;512,4096,28672"
S="$S;256,7168,2112;256,7168,4096;256,7168,16384;256,7168,36864;256,8192,4096;256,8192,10240;256,8192,28672;1024,2048,5120;1024,2048,7168"
C="128x128:1:1:6p;128x128:1:2a:6p;128x128:1:2b:6p;128x128:1:1:6;128x128:1:2a:6;128x128:1:2b:6"
for r in 1 2; do
  timeout 280 $B/jitfp8-bench gemm --forward-only --shapes "$S" --flush-mb 2048 --iters 20 --configs "$C" > /tmp/o6/r$r.txt 2>&1
  echo "r$r rc=$?"
done
for f in /tmp/o6/r*.txt; do echo "== $f"; grep -E "^ +[0-9]+ |sweep" $f | sed 's/  */ /g;s/ sk1 sms132://;s/ sweep//' | cut -c1-60 | tr '\n' ';'; echo; done

# ===== scratch/s78g.sh
#!/bin/bash
# Session 78 call 7: the tile order's group (group_n 1-32) for one round of 128 x 128 tiles.
B=scratch/gpubin-h78b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o7; trap 'tar -C /tmp -czf $OUT/o7.tgz o7' EXIT
export JITFP8_CACHE_DIR=/tmp/c-base JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-base
S="512,4096,7168;512,4096,14336;512,4096,28672;1024,2048,7168;256,8192,28672;256,7168,36864"
C="128x128:1:1:6p:g1;128x128:1:1:6p:g2;128x128:1:1:6p:g4;128x128:1:1:6p:g16;128x128:1:1:6p:g32"
C="$C;128x128:1:2b:6:g1;128x128:1:2b:6:g2;128x128:1:2b:6:g4;128x128:1:2b:6:g16;128x128:1:2b:6:g32"
for r in 1 2; do
  timeout 280 $B/jitfp8-bench gemm --forward-only --shapes "$S" --flush-mb 2048 --iters 20 --configs "$C" > /tmp/o7/r$r.txt 2>&1
  echo "r$r rc=$?"
done
for f in /tmp/o7/r*.txt; do echo "== $f"; grep -E "^ +[0-9]+ |sweep" $f | sed 's/  */ /g;s/ sms132://;s/ sweep//;s/128x128 //;s/ sk1//' | cut -c1-48 | tr '\n' ';'; echo; done

# ===== scratch/s78h.sh
#!/bin/bash
# Session 78 call 8: where the L2 bytes differ (SM requests vs the fabric between the L2 halves),
# ours (pick, g1, B pairs) and nvjet at 512 x 4096 x 28672, under ncu.
B=scratch/gpubin-h78b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o8; trap 'tar -C /tmp -czf $OUT/o8.tgz o8' EXIT
export JITFP8_CACHE_DIR=/tmp/c-base JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-base
M="gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,lts__t_bytes.sum"
M="$M,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_requests_srcunit_tex.sum"
M="$M,lts__t_sectors_srcunit_tex_lookup_hit.sum,lts__t_sectors_srcunit_tex_lookup_miss.sum,lts__t_sectors_srcunit_ltcfabric_lookup_miss.sum"
M="$M,lts__d_sectors_fill_sysmem.sum,lts__d_sectors_fill_device.sum"
timeout 300 /usr/local/cuda/bin/ncu --clock-control none -k regex:"sm90_fp8_gemm_1d2d|nvjet" --metrics $M --csv \
  $B/jitfp8-bench gemm --forward-only --timer graph --shapes "512,4096,28672" --flush-mb 2048 --iters 1 \
  --configs "128x128:1:1:6p:g1;128x128:1:2b:6" > /tmp/o8/ncu.csv 2>/tmp/o8/ncu.err
echo "ncu rc=$?"; tail -3 /tmp/o8/ncu.err
python3 - <<'PY'
import csv,collections,re
rows=[r for r in csv.reader(open('/tmp/o8/ncu.csv')) if len(r)>10]
hdr=rows[0]; idx={h:i for i,h in enumerate(hdr)}
data=collections.OrderedDict()
for r in rows[1:]:
    name=r[idx['Kernel Name']]
    m=re.search(r'<([^>]*)>',name); key=(m.group(1)[14:64] if m else name[:30])
    d=data.setdefault(key,collections.defaultdict(list))
    try: d[r[idx['Metric Name']]].append(float(r[idx['Metric Value']].replace(',','')))
    except: pass
for k,v in data.items():
    print(k)
    print('   '+' | '.join(f"{n.replace('lts__t_','').replace('.sum','')}={sum(x)/len(x):.4g}" for n,x in v.items()))
PY

# ===== scratch/s78i.sh
#!/bin/bash
# Session 78 call 9: A pairs (nvjet's cluster) walked M-fastest (group_n 1), padded or not, timed
# at 512 x 4096 x K and 256/1024-row shapes; then their L2 sectors under ncu at K 28672.
B=scratch/gpubin-h78b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o9; trap 'tar -C /tmp -czf $OUT/o9.tgz o9' EXIT
export JITFP8_CACHE_DIR=/tmp/c-base JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-base
S="512,4096,7168;512,4096,14336;512,4096,28672;1024,2048,7168;256,8192,28672;256,7168,36864;512,7168,7168"
C="128x128:1:2a:6p:g1;128x128:1:2a:6:g1;128x128:1:2a:6p:g2;128x128:1:2a:6p:g4;128x128:1:1:6p:g1;128x128:1:2b:6:g1"
for r in 1 2; do
  timeout 200 $B/jitfp8-bench gemm --forward-only --shapes "$S" --flush-mb 2048 --iters 20 --configs "$C" > /tmp/o9/r$r.txt 2>&1
  echo "r$r rc=$?"
done
for f in /tmp/o9/r*.txt; do echo "== $f"; grep -E "^ +[0-9]+ |sweep" $f | sed 's/  */ /g;s/ sms132://;s/ sweep//;s/128x128 //;s/ sk1//;s/ sms128://' | cut -c1-44 | tr '\n' ';'; echo; done
M="gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_elapsed.avg.per_second,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_ltcfabric.sum"
timeout 200 /usr/local/cuda/bin/ncu --clock-control none -k regex:"sm90_fp8_gemm_1d2d" --metrics $M --csv \
  $B/jitfp8-bench gemm --forward-only --timer graph --shapes "512,4096,28672" --flush-mb 2048 --iters 1 \
  --configs "128x128:1:2a:6p:g1;128x128:1:2a:6:g1" > /tmp/o9/ncu.csv 2>/tmp/o9/ncu.err
python3 - <<'PY'
import csv,collections,re
rows=[r for r in csv.reader(open('/tmp/o9/ncu.csv')) if len(r)>10]
hdr=rows[0]; idx={h:i for i,h in enumerate(hdr)}
data=collections.OrderedDict()
for r in rows[1:]:
    name=r[idx['Kernel Name']]
    m=re.search(r'<([^>]*)>',name); key=(m.group(1)[14:64] if m else name[:30])
    d=data.setdefault(key,collections.defaultdict(list))
    try: d[r[idx['Metric Name']]].append(float(r[idx['Metric Value']].replace(',','')))
    except: pass
for k,v in data.items():
    print(k, ' | '.join(f"{n.replace('lts__t_','').replace('.sum','')}={sum(x)/len(x):.4g}" for n,x in v.items()))
PY

# ===== scratch/s78j.sh
#!/bin/bash
# Session 78 call 10: the tile order's group for one round of 128 x 128 tiles alone at M 256-512:
# group_n 1 and 2 against the pick's 8 (padded or not as the pick), two rounds.
B=scratch/gpubin-h78b
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o10; trap 'tar -C /tmp -czf $OUT/o10.tgz o10' EXIT
export JITFP8_CACHE_DIR=/tmp/c-base JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-base
S="512,4096,2816;512,4096,2880;512,4096,8192;512,4096,9216;512,4096,10944;512,4096,12288;512,4096,21888;384,4096,7168;448,4096,14336"
S="$S;512,3584,7168;512,2048,7168;256,7168,2112;256,4096,7168;320,4096,4096;512,4096,5120;1024,2048,5120;768,2048,7168"
C="128x128:1:1:6p:g1;128x128:1:1:6p:g2;128x128:1:1:6:g1;128x128:1:1:6:g2;128x128:1:1:6p;128x128:1:1:6"
for r in 1 2; do
  timeout 250 $B/jitfp8-bench gemm --forward-only --shapes "$S" --flush-mb 2048 --iters 20 --configs "$C" > /tmp/o10/r$r.txt 2>&1
  echo "r$r rc=$?"
done
for f in /tmp/o10/r*.txt; do echo "== $f"; grep -E "sweep" $f | sed 's/  */ /g;s/ sms132://;s/ sweep//;s/128x128 //;s/ sk1//;s/ sms128://;s/ TF//' | awk '{printf "%s,%s,%s %s %s %s %s;", $1,$2,$3,$4,$5,$6,$7}'; echo; done

# ===== scratch/s78k.sh
#!/bin/bash
# Session 78 call 11: the rule (groups of 2 N blocks) through the dispatch: main's binaries (h78a)
# against the rule's (h78c) on fitted and held-out shapes, two rounds in turns; the new GPU case
# and neighbours; memcheck on the new case.
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o11; trap 'tar -C /tmp -czf $OUT/o11.tgz o11' EXIT
S="512,4096,8192;512,4096,10944;512,4096,21888;512,4096,28672;448,4096,14336;512,3584,7168"
S="$S;400,4096,8192;480,4096,16384;512,4224,7168;512,4096,32768;500,3840,10240;416,4096,6144;460,3584,24576;512,4096,9216;512,4096,6144;450,4096,12288;512,4096,14336;512,4096,7168"
for r in 1 2; do
  order="h78a h78c"; [ $r = 2 ] && order="h78c h78a"
  for b in $order; do
    LD_LIBRARY_PATH=$PWD/scratch/gpubin-$b:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-$b timeout 150 scratch/gpubin-$b/jitfp8-bench gemm --forward-only \
      --shapes "$S" --flush-mb 2048 --iters 20 > /tmp/o11/$b-r$r.txt 2>&1
    echo "$b r$r rc=$?"
  done
done
for f in /tmp/o11/h78*-r*.txt; do echo "== $f"; grep -E "^ +[0-9]+ " $f | awk '{printf "%sx%sx%s %s %s %s;", $1,$2,$3,$5,$9,$12}'; echo; done
B=scratch/gpubin-h78c
export LD_LIBRARY_PATH=$PWD/$B:$LD_LIBRARY_PATH JITFP8_CACHE_DIR=/tmp/c-h78c
timeout 200 $B/jitfp8_gpu_tests "gemm_fp8_nt's one-round 128 x 128 picks*","gemm_fp8_nt matches the reference on odd shapes and tails","gemm_fp8_nt on the anchor shapes*","gemm_fp8_nt's one-band picks over wide N*" --durations yes > /tmp/o11/tests.txt 2>&1
echo "tests rc=$?"; grep -E "^[0-9.]+ s:|passed|failed|FAILED" /tmp/o11/tests.txt | tail -8
timeout 150 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/jitfp8_gpu_tests "gemm_fp8_nt's one-round 128 x 128 picks*" > /tmp/o11/memcheck.txt 2>&1
echo "memcheck rc=$?"; tail -4 /tmp/o11/memcheck.txt

# ===== scratch/s78l.sh
#!/bin/bash
# Session 78 call 12: the tile order's group (group_n 2-32) at the M 4096 anchors, each shape with
# its pick's tile, cluster and ring; g8 as the control; two rounds.
B=scratch/gpubin-h78c
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o12; trap 'tar -C /tmp -czf $OUT/o12.tgz o12' EXIT
export JITFP8_CACHE_DIR=/tmp/c-h78c
run() {  # shapes, tile:splits:mc:stages
  local C=""; for g in 8 2 4 16 32; do C="$C;$2:g$g"; done
  timeout 120 $B/jitfp8-bench gemm --forward-only --shapes "$1" --flush-mb 2048 --iters 20 --configs "${C#;}" >> /tmp/o12/r$r.txt 2>&1
}
for r in 1 2; do
  run "4096,7168,16384;4096,4096,7168" 256x128:1:2a:4
  run "4096,24576,1536" 128x192:1:2a:4
  run "4096,32768,512" 128x192:1:2b:4
  run "4096,7168,2048" 128x160:1:2b:4
  run "4096,2112,7168" 128x192:1:1:4
  run "4096,576,7168" 128x160:1:1:4
  echo "r$r done"
done
for f in /tmp/o12/r*.txt; do echo "== $f"; grep -E "sweep" $f | sed 's/  */ /g;s/ sms132://;s/ sweep//;s/ sk1//;s/ TF//' | awk '{printf "%s,%s,%s %s %s %s %s %s;", $1,$2,$3,$4,$5,$6,$7,$8}'; echo; done

# ===== scratch/s78m.sh
#!/bin/bash
# Session 78 call 13: the tile order's group (8, 4, 2) for multi-round 128-row picks in clusters
# (M 2048 and 4096, the manifests' N, K), each shape with its pick's tile, cluster and ring; two rounds.
B=scratch/gpubin-h78c
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o13; trap 'tar -C /tmp -czf $OUT/o13.tgz o13' EXIT
export JITFP8_CACHE_DIR=/tmp/c-h78c
run() { timeout 100 $B/jitfp8-bench gemm --forward-only --shapes "$1" --flush-mb 2048 --iters 12 --configs "$2:g8;$2:g4;$2:g2" >> /tmp/o13/r$r.txt 2>&1; }
for r in 1 2; do
  run "4096,1408,4096;2048,7168,576;2048,7168,2048;2048,7168,4096;4096,12288,1536;2048,12288,1536;4096,16384,512;2048,24576,1536;2048,28672,8192" 128x192:1:2a:4
  run "2048,2112,7168;2048,5120,2048" 128x160:1:2a:4
  run "4096,5120,2048;2048,32768,512" 128x192:1:2b:4
  run "4096,7168,576" 128x160:1:2b:5
  echo "r$r done"
done
for f in /tmp/o13/r*.txt; do echo "== $f"; grep -E "sweep" $f | sed 's/  */ /g;s/ sms132://;s/ sweep//;s/ sk1//;s/ TF//' | awk '{printf "%s,%s,%s %s %s %s %s;", $1,$2,$3,$4,$5,$6,$7}'; echo; done
