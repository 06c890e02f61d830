#!/usr/bin/env python3
"""evraw.py DIR OP ITER [N]: the raw merged events of iterations ITER..ITER+N-1."""
import sys, collections
import numpy as np
import evlog
NAMES = evlog.NAMES
D, OP, IT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]); N = int(sys.argv[4]) if len(sys.argv)>4 else 1
ev = []
R = evlog.load(D)
ins, outs = evlog.calls(R, OP)
t0 = min(ins[r][IT] for r in R); t1 = max(outs[r][IT+N-1] for r in R)
allev = []
for r,a in R.items():
    seg = a[(a['t']>=t0)&(a['t']<=t1)]
    for e in seg: allev.append((int(e['t']), r, NAMES.get(int(e['id']),str(e['id'])), int(e['arg'])))
allev.sort()
prev=None
for t,r,nm,arg in allev:
    if nm=='YIELD' and prev==(r,nm): continue
    prev=(r,nm)
    print(f"{(t-t0)/1e3:9.2f}  {'    '*r}r{r} {nm} {arg}")
