#!/usr/bin/env bash
# SASS comparison of the dense GEMM kernel and the M-grouped body on the same tiles
# (grouped_body_probe.cu says which kernels and why). Needs nvcc and cuobjdump: run it on the GPU
# machine (no GPU is used). Writes one .sass file per kernel under OUT (default sass-probe/) and
# prints, per kernel, its instruction count and the opcodes whose counts differ between kernels.
# usage: tools/dev/sass_probe.sh [OUT]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-sass-probe}"
mkdir -p "$out"
nvcc -std=c++20 -arch=sm_90a -cubin -I"$root/templates" -Xptxas -v -o "$out/probe.cubin" \
  "$here/grouped_body_probe.cu" 2> "$out/ptxas.txt"
grep -E "Compiling entry|registers|spill" "$out/ptxas.txt" | sed 's/_ZN6jitfp8//' | cut -c1-140
cuobjdump -sass "$out/probe.cubin" > "$out/all.sass"
# Split per function; name each file after the kernel and its tile (from the mangled name).
awk -v out="$out" '
  /Function : / { name = $3; sub(/^_ZN6jitfp8[0-9]+/, "", name); gsub(/[^A-Za-z0-9_]/, "_", name);
                  file = out "/" substr(name, 1, 90) ".sass"; next }
  file != "" { print > file }' "$out/all.sass"
python3 - "$out" <<'PY'
import collections, pathlib, re, sys
out = pathlib.Path(sys.argv[1])
hist = {}
for f in sorted(out.glob("*.sass")):
    if f.name == "all.sass":
        continue
    ops = collections.Counter()
    for line in f.read_text().splitlines():
        m = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(\.[A-Z0-9_.]*)?", line)
        if m:
            ops[m.group(1)] += 1
    hist[f.stem] = ops
names = list(hist)
print("\ninstructions per kernel:")
for n in names:
    print(f"  {sum(hist[n].values()):6d}  {n}")
opcodes = sorted(set().union(*[set(h) for h in hist.values()]))
print("\nopcodes whose counts differ (columns in the order above):")
for op in opcodes:
    counts = [hist[n][op] for n in names]
    if len(set(counts)) > 1:
        print(f"  {op:10s} " + " ".join(f"{c:6d}" for c in counts))
PY
