#!/usr/bin/env bash
# The K loops of GEMM kernels in their SASS: for each cubin (or `jitfp8 dump` folder), every
# innermost loop whose body holds 8 or more QGMMA, with its instruction count and the
# instructions that mark ptxas' divergence handling (BSSY, WARPSYNC) or descriptors moved from
# vector registers (R2UR). A warpgroup's K loop issues about as many instructions as its tensor
# cores take clocks, so a few percent more instructions there cost speed: the K-grouped kernel's
# turn of the 256 x 128 ring had a BSSY, a WARPSYNC and two R2UR per stage, 1066 instructions
# against the dense kernel's 1030, and ran 1.6-3.5% slower for it (results 2026-11-28d).
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
# Innermost only: the K loops, not the tile loop around them.
for first, last in loops:
    if any(first <= f and l <= last and (f, l) != (first, last) for f, l in loops):
        continue
    body = [t for _, t in ins[first:last + 1]]
    n = {op: sum(op in t for t in body) for op in ("QGMMA", "BSSY", "WARPSYNC", "R2UR", "LDL", "STL")}
    print("  loop %#x..%#x: %d instructions, QGMMA %d, BSSY %d, WARPSYNC %d, R2UR %d, LDL/STL %d"
          % (ins[first][0], ins[last][0], len(body), n["QGMMA"], n["BSSY"], n["WARPSYNC"], n["R2UR"],
             n["LDL"] + n["STL"]))
'
  done
done
