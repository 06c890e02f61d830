#!/usr/bin/env python3
"""evsort.py DIR OP: per-run phase times and event totals per rank (large ops: aggregated)."""
import sys, collections
import numpy as np
import evlog
NAMES = evlog.NAMES
D, OP = sys.argv[1], int(sys.argv[2])
R = evlog.load(D)
ins, outs = evlog.calls(R, OP)
iters = min(len(v) for v in ins.values())
for i in range(iters):
    t0 = min(ins[r][i] for r in R)
    print(f"run {i}: span {(max(outs[r][i] for r in R)-t0)/1e3:.0f} us")
    for r in sorted(R):
        a = R[r]; seg = a[(a['t']>=ins[r][i])&(a['t']<=outs[r][i])]
        steps = [(int(e['arg']), (int(e['t'])-t0)/1e3) for e in seg if e['id']==4]
        # durations of blocking RMA: pair RMA_IN/RMA_OUT
        rin = seg[seg['id']==28]; rout = seg[seg['id']==29]
        m = min(len(rin), len(rout))
        rma_t = sum(int(rout[k]['t'])-int(rin[k]['t']) for k in range(m))/1e3
        c = collections.Counter(int(x) for x in seg['id'])
        print(f"  rank {r}: in {(ins[r][i]-t0)/1e3:.0f} out {(outs[r][i]-t0)/1e3:.0f}; steps " + " ".join(f"{s}:{t:.0f}" for s,t in steps) +
              f"; puts {len(rin)} in {rma_t:.0f} us; on_put {c[35]} th_serve {c[26]} th_wake {c[25]} kicked {c[30]} yield {c[7]} sleep {c[8]} prog_hit {c[24]} await {c[11]}")
