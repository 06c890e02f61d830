#!/usr/bin/env python3
"""evsteps.py DIR OP: per-call step durations (medians of per-call differences) of the leader forms."""
import sys, collections
import numpy as np
import evlog
NAMES = evlog.NAMES
D, OP = sys.argv[1], int(sys.argv[2])
R = evlog.load(D)
ins, outs = evlog.calls(R, OP)
ins = {r: v.astype(np.int64) for r, v in ins.items()}
outs = {r: v.astype(np.int64) for r, v in outs.items()}
n = min(len(v) for v in ins.values()); sk = n//10
st = collections.defaultdict(list)
def first(a, lo, hi, i, arg=None):
    s = a[(a['t']>=lo)&(a['t']<=hi)&(a['id']==i)]
    if arg is not None: s = s[s['arg']==arg]
    return int(s[0]['t']) if len(s) else None
for k in range(sk, n):
    t0 = min(ins[r][k] for r in R)
    postout = {}; onpost = {}
    for r,a in R.items():
        lo, hi = ins[r][k], outs[r][k]
        st[f'r{r} entry after first'].append(lo-t0); st[f'r{r} in call'].append(hi-lo)
        l1 = first(a, lo, hi, 4, 1); pi = first(a, lo, hi, 21); po = first(a, lo, hi, 22); op = first(a, lo, hi, 23); l2 = first(a, lo, hi, 4, 2)
        if l1: st[f'r{r} host step 1 (gather/arrive)'].append(l1-lo)
        if pi and po: st[f'r{r} send (ucp_am_send_nbx)'].append(po-pi); postout[r]=po
        if op: onpost[r]=op
        if l2 and po: st[f'r{r} sent -> net step done'].append(l2-po)
        if l2: st[f'r{r} net step done -> exit (fold, host release)'].append(hi-l2)
        ny = len(a[(a['t']>=lo)&(a['t']<=hi)&(a['id']==7)]); st[f'r{r} yields per call'].append(ny*1000)
    for r in onpost:
        for s in postout:
            if s != r and postout[s] < onpost[r]:
                st[f'one-way: r{s} sent -> r{r} handled'].append(onpost[r]-postout[s])
for key in sorted(st):
    v = np.array(st[key])/1e3
    print(f"{key:<48} median {np.median(v):7.2f} us  (p25 {np.percentile(v,25):6.2f}, p75 {np.percentile(v,75):6.2f})  n={len(v)}")
