# Summarize ncu text: per kernel config (template args), the median of each metric.
import re, sys, collections, statistics
cur = None
vals = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    m = re.search(r'sm90_fp8_gemm_1d2d_kernel<([^>]*)>', line)
    if m:
        cur = m.group(1).replace(' ', '')
        continue
    m = re.match(r'\s+(\S+)\s+(\S+)\s+([\d.,]+)\s*$', line)
    if cur and m:
        vals[cur][m.group(1) + ' ' + m.group(2)].append(float(m.group(3).replace(',', '')))
for k, d in vals.items():
    print(k)
    for name, v in d.items():
        print(f"   {name:50s} {statistics.median(v):14.1f}  (n={len(v)})")
