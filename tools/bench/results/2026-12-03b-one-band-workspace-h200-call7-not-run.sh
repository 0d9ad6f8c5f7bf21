#!/bin/bash
# Session 74 call 7 (prepared, not run: the device time ran out): where the workspace split's fixed cost goes. The same config (128 x 128 in 8
# through the workspace, 5 stages) from three template trees: as is, without the counter
# rendezvous, without the exchange (the last two time only: their results are wrong).
B=scratch/gpubin-h74c
export LD_LIBRARY_PATH=$PWD/$B:$PWD/.deps/usr/lib/x86_64-linux-gnu:/usr/local/cuda/lib64
mkdir -p /tmp/o7; trap 'tar -C /tmp -czf $OUT/o7.tgz o7' EXIT
S="256,1024,24576;256,1024,8192;256,1024,2048"
for r in 1 2; do for v in base norv noex; do
  JITFP8_CACHE_DIR=/tmp/c74p-$v JITFP8_TEMPLATE_DIR=$PWD/scratch/tpl-$v timeout 60 $B/jitfp8-bench gemm --forward-only --shapes "$S" --configs "128x128:8w:1:5" --flush-mb 2048 --iters 20 > /tmp/o7/r$r-$v.txt 2>&1
  echo "round $r $v: $(grep sweep /tmp/o7/r$r-$v.txt | awk '{print $2"x"$3"x"$4, $(NF-3)}' | tr '\n' ' ')"
done; done

# The two probe template trees are copies of templates/ with one line changed each
# (both compile spill-free: jitfp8_unit_tests "every split count through the workspace and every
# workspace pick compile without spills" with JITFP8_TEMPLATE_DIR set to each):
# diff -r templates/sm90/splitk_workspace.cuh scratch/tpl-norv/sm90/splitk_workspace.cuh
# 84c84
# <   if (wg_thread == 0) splitk_ws_rendezvous(counter, kNumSplits);
# ---
# >   (void)counter;  // PROBE: no rendezvous (timing only; results wrong)
# diff -r templates/sm90/splitk_workspace.cuh scratch/tpl-noex/sm90/splitk_workspace.cuh
# 67a68
# >   if (split < 1000000u) return;  // PROBE: no exchange (timing only; results wrong)
