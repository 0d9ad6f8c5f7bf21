#!/usr/bin/env python3
"""Tables of 2026-12-01i-kgrouped-short-runs-h200.md from the raw outputs beside it.

Section 1: the overlapped loop's best config against the plain loop's best, per shape and mode
(call 1's sweep). Section 2: the <= 256-token rule, old build against new, per routing (call 2).
"of floor": the larger of FLOPs over 1979 TFLOPS and bytes (A and B once; D written, or read and
written) over 4.1 TB/s, over the new build's time.
"""
import math
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
STEM = "2026-12-01i-kgrouped-short-runs-h200"
SWEEP = re.compile(r"\s+sweep (\d+)x(\d+)\s+(\d+)\s+(\d+) (.*?) g\d+:\s+([\d.]+) us\s+\d+ TF \| acc\s+([\d.]+) us")
ROW = re.compile(r"\s+(\d+)x(\d+)\s+(\d+)\s+(\d+) \|\s+([\d.]+)\s+\d+\s+[\d.]+% \|\s+([\d.]+)\s+\d+ \|\s+([\d.]+).*\| (\S.*)$")


def sections(path):
    """{section name: text} split at lines starting with '== '."""
    out, name = {}, None
    for line in path.read_text().splitlines():
        if line.startswith("== "):
            name = line[3:].split(":")[0].split(" (")[0]
            out[name] = []
        elif name:
            out[name].append(line)
    return out


def floor_us(e, t, m, n, accumulate):
    flops = 2.0 * e * t * m * n
    data = e * t * (m + n) + e * m * n * 4 * (2 if accumulate else 1)
    return max(flops / 1979e12, data / 4.1e12) * 1e6


def overlap_table():
    lines = sections(HERE / f"{STEM}-call1-suite-sweep.txt")
    sweep = next(v for k, v in lines.items() if k.startswith("jitfp8-bench moe"))
    shapes = {}
    for line in sweep:
        m = SWEEP.match(line)
        if m:
            shapes.setdefault(m.groups()[:4], []).append((m[5], float(m[6]), float(m[7])))
    print("| E x tokens | M | N | plain best overwrite | overlap best | ratio | plain best accumulate | overlap best | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (e, t, m, n), rows in shapes.items():
        plain = [r for r in rows if not r[0].endswith(" ov")]
        ov = [r for r in rows if r[0].endswith(" ov")]
        cells = []
        for i in (1, 2):
            p, o = min(plain, key=lambda r: r[i]), min(ov, key=lambda r: r[i])
            cells.append(f"{p[0]} {p[i]:.1f} | {o[0]} {o[i]:.1f} | {o[i] / p[i]:.3f}")
        print(f"| {e}x{t} | {m} | {n} | " + " | ".join(cells) + " |")


def rule_table():
    lines = sections(HERE / f"{STEM}-call2-tests-bench-sweep128.txt")

    def rows(name):
        out = {}
        for line in lines[name]:
            m = ROW.match(line)
            if m:
                out[m.groups()[:4]] = (float(m[5]), float(m[6]), float(m[7]), m[8].strip())
        return out

    for title, pairs in (("uniform routings (capacity = tokens), two rounds", [("old-u", "new-u"), ("old-u2", "new-u2")]),
                         ("drawn routings (0.7-1.3x, padded to 128)", [("old-d", "new-d")])):
        print(f"\n{title}")
        print("| E x tokens | M | N | before | after | overwrite us | gain | of floor | accumulate us | gain | of floor | cuBLASLt us | ratio |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        runs = [(rows(a), rows(b)) for a, b in pairs]
        logs = [[], []]
        for key in runs[0][0]:
            e, t, m, n = map(int, key)
            olds = [r[0][key] for r in runs]
            news = [r[1][key] for r in runs]
            cells = []
            for i, acc in ((0, False), (1, True)):
                o = [x[i] for x in olds]
                w = [x[i] for x in news]
                gain = math.exp(sum(math.log(a / b) for a, b in zip(o, w)) / len(o))
                logs[i].append(math.log(gain))
                cells.append(f"{' / '.join(f'{x:.1f}' for x in o)} -> {' / '.join(f'{x:.1f}' for x in w)} | "
                             f"{100 * (gain - 1):+.1f}% | {100 * floor_us(e, t, m, n, acc) / min(w):.0f}%")
            cub = news[0][2]
            print(f"| {e}x{t} | {m} | {n} | {olds[0][3]} | {news[0][3]} | {cells[0]} | {cells[1]} | {cub:.1f} | "
                  f"{cub / news[0][0]:.2f}x |")
        print(f"geomean over {len(logs[0])}: overwrite {100 * (math.exp(sum(logs[0]) / len(logs[0])) - 1):+.1f}%, "
              f"accumulate {100 * (math.exp(sum(logs[1]) / len(logs[1])) - 1):+.1f}%")


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    if which in ("all", "overlap"):
        overlap_table()
    if which in ("all", "rule"):
        rule_table()
