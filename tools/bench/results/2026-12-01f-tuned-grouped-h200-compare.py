#!/usr/bin/env python3
# The with/without comparisons of 2026-12-01f-tuned-grouped-h200.md from its -bench-rows.json:
# per call and pair of bench runs (the table, then JITFP8_TUNED=0), the geomean speed-up over all
# rows and over the rows that ran a tuned config, and those rows.
import json, math, os
rows = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                   '2026-12-01f-tuned-grouped-h200-bench-rows.json')))
for call, files in rows.items():
    names = list(files)
    for on_name, off_name in zip(names[0::2], names[1::2]):
        key = lambda x: (x['kind'], x['groups'], x['expected_m'], x['n'], x['k'])
        on = {key(x): x for x in files[on_name] if x['kind'] in ('contiguous', 'masked')}
        off = {key(x): x for x in files[off_name] if x['kind'] in ('contiguous', 'masked')}
        all_log, tuned_log, tuned = 0.0, 0.0, []
        for k, a in on.items():
            s = off[k]['ours_us'] / a['ours_us']
            all_log += math.log(s)
            if a['tuned']:
                tuned_log += math.log(s)
                tuned.append(f"    {k[0]} {k[1]}x{k[2]} {k[3]}x{k[4]}: {off[k]['ours_us']:.1f} -> {a['ours_us']:.1f} us ({100 * (s - 1):+.1f}%)")
        print(f"{call} {on_name} vs {off_name}: all {len(on)} rows {100 * (math.exp(all_log / len(on)) - 1):+.2f}%, "
              f"{len(tuned)} tuned rows {100 * (math.exp(tuned_log / max(len(tuned), 1)) - 1):+.2f}%")
        print("\n".join(tuned))
