#!/usr/bin/env bash
# The K loops of GEMM kernels in their SASS: for each cubin (or `jitfp8 dump` folder), the
# innermost loops with 8 or more QGMMA at the kernel's K-loop density, with their instruction
# counts and the instructions that mark ptxas' divergence handling (BSSY, WARPSYNC) or
# descriptors moved from vector registers (R2UR). A warpgroup's K loop issues about as many
# instructions as its tensor cores take clocks, so a few percent more instructions there cost
# speed: the K-grouped kernel's turn of the 256 x 128 ring had a BSSY, a WARPSYNC and two R2UR
# per stage, 1066 instructions against the dense kernel's 1030, and ran 1.6-3.5% slower for it
# (results 2026-11-28d). It also prints the tile loop around them: its instructions besides the K
# loops went 390 -> 292 -> 222 in the contiguous kernel's epilogue work (results 2026-11-29b/c).
# Needs cuobjdump (the toolkit's, or the one of PyPI's nvidia-cuda-cuobjdump: CUOBJDUMP=path).
# usage: tools/dev/qgmma_loops.sh CUBIN_OR_DUMP_DIR...
set -euo pipefail
cuobjdump="${CUOBJDUMP:-cuobjdump}"
for arg in "$@"; do
  if [ -d "$arg" ]; then cubins=$(find "$arg" -name kernel.cubin | sort); else cubins="$arg"; fi
  for cubin in $cubins; do
    name="$cubin"
    config="$(dirname "$cubin")/config.json"
    [ -f "$config" ] && name=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['kernel'])" "$config")
    echo "$name"
    "$cuobjdump" -sass "$cubin" | python3 -c '
import re, sys
ins = []
for line in sys.stdin:
    m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s*(.*?);", line)
    if m:
        ins.append((int(m.group(1), 16), m.group(2).strip()))
index = {a: i for i, (a, _) in enumerate(ins)}
loops = []  # (first, last) instruction indices of each backward branch with 8+ QGMMA in its body
for i, (a, text) in enumerate(ins):
    m = re.search(r"BRA (0x[0-9a-f]+)", text)
    if m and int(m.group(1), 16) < a and int(m.group(1), 16) in index:
        first = index[int(m.group(1), 16)]
        if sum("QGMMA" in t for _, t in ins[first:i + 1]) >= 8:
            loops.append((first, i))
# The K loops, not the tile loops around them: the innermost loops densest in QGMMA (a tile loop
# holds the epilogue and the scheduler besides: under three quarters of the density).
def density(loop):
    return sum("QGMMA" in t for _, t in ins[loop[0]:loop[1] + 1]) / (loop[1] - loop[0] + 1)
inner = [lp for lp in loops if not any(lp[0] <= f and l <= lp[1] and (f, l) != lp for f, l in loops)]
top = max(map(density, inner), default=0)
k_loops = [lp for lp in inner if density(lp) >= 0.75 * top]
for first, last in k_loops:
    body = [t for _, t in ins[first:last + 1]]
    n = {op: sum(op in t for t in body) for op in ("QGMMA", "BSSY", "WARPSYNC", "R2UR", "LDL", "STL")}
    print("  loop %#x..%#x: %d instructions, QGMMA %d, BSSY %d, WARPSYNC %d, R2UR %d, LDL/STL %d"
          % (ins[first][0], ins[last][0], len(body), n["QGMMA"], n["BSSY"], n["WARPSYNC"], n["R2UR"],
             n["LDL"] + n["STL"]))
# The tile loop of the math warps: the shortest loop around all those K loops (longer ones close
# through the barrier-retry code that ptxas places after the end of the kernel). Its instructions
# besides the K loops are the per-tile work (scheduler, epilogue), rarely taken paths included.
around = [lp for lp in loops if k_loops and all(lp[0] <= f and l <= lp[1] and lp not in k_loops for f, l in k_loops)]
if around:
    first, last = min(around, key=lambda lp: lp[1] - lp[0])
    size = last - first + 1
    print("  tile loop %#x..%#x: %d instructions, %d besides the K loops"
          % (ins[first][0], ins[last][0], size, size - sum(l - f + 1 for f, l in k_loops)))
'
  done
done
