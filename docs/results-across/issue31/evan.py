#!/usr/bin/env python3
"""evan.py DIR OP: per-iteration timeline of a collective from the event logs."""
import sys, statistics as st, collections
import numpy as np
import evlog
NAMES = evlog.NAMES
D, OP = sys.argv[1], int(sys.argv[2])
R = evlog.load(D)
n = len(R)
ins, outs = evlog.calls(R, OP)
iters = min(len(v) for v in ins.values())
skip = iters//10
rows = collections.defaultdict(list)
for i in range(skip, iters):
    t0 = min(ins[r][i] for r in R)
    for r,a in R.items():
        lo, hi = ins[r][i], outs[r][i]
        seg = a[(a['t']>=lo)&(a['t']<=hi)]
        rows[(r,'in')].append((lo-t0)/1e3)
        rows[(r,'out')].append((hi-t0)/1e3)
        cnt = collections.Counter()
        for e in seg:
            nm = NAMES.get(int(e['id']), str(e['id']))
            cnt[nm]+=1
            key = (r, nm + ('' if nm in ('YIELD','PROG_HIT','TH_WAKE','TH_SERVE','WSLOW_IN','WSLOW_OUT','SLEEP','WOKE','WAKE_SLOW') else f"#{cnt[nm]}" + (f"({e['arg']})" if nm=='LSTEP' else '')))
            if nm in ('YIELD','PROG_HIT','TH_WAKE','TH_SERVE','SLEEP','WOKE','WAKE_SLOW','WSLOW_IN'):
                continue
            rows[key].append((int(e['t'])-t0)/1e3)
        for nm in ('YIELD','PROG_HIT','TH_WAKE','TH_SERVE','SLEEP','WSLOW_IN','WAKE_SLOW'):
            rows[(r,'n_'+nm)].append(cnt[nm])
print(f"{iters-skip} iterations; median (p25-p75) in us from the first rank's entry; n_ = count per call")
for key in sorted(rows, key=lambda k:(k[0], st.median(rows[k]) if not k[1].startswith('n_') else 1e9)):
    v = rows[key]
    if len(v) < (iters-skip)//2: continue
    q = np.percentile(v,[25,50,75])
    print(f"rank {key[0]} {key[1]:<18} {q[1]:9.2f}  ({q[0]:.2f}-{q[2]:.2f})  n={len(v)}")
