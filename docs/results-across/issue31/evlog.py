"""The event logs of evlog.patch: one binary file per rank and library, merged per rank."""
import collections
import glob
import os

import numpy as np

DT = np.dtype([('t', '<u8'), ('id', '<i4'), ('arg', '<i4')])
NAMES = {1: 'RANK', 2: 'IN', 3: 'OUT', 4: 'LSTEP', 5: 'WSLOW_IN', 6: 'WSLOW_OUT', 7: 'YIELD',
         8: 'SLEEP', 9: 'WOKE', 10: 'WAKE_SLOW', 11: 'AWAIT_IN', 12: 'AWAIT_OUT', 20: 'U_RANK',
         21: 'POST_IN', 22: 'POST_OUT', 23: 'ON_POST', 24: 'PROG_HIT', 25: 'TH_WAKE',
         26: 'TH_SERVE', 27: 'ON_MSG', 28: 'RMA_IN', 29: 'RMA_OUT', 30: 'TH_KICKED',
         33: 'ON_PUTSIG', 34: 'MSG_SEND', 35: 'ON_PUT'}


def load(d):
    """{rank: events sorted by time} from directory @p d."""
    ranks = collections.defaultdict(list)
    for f in glob.glob(os.path.join(d, '*-*')):
        a = np.fromfile(f, dtype=DT)
        rk = a[(a['id'] == 1) | (a['id'] == 20)]
        if len(rk):
            ranks[int(rk[0]['arg'])].append(a)
    return {r: np.sort(np.concatenate(v), order='t') for r, v in ranks.items()}


def calls(R, op):
    """(entries, exits) per rank of the calls marked @p op."""
    ins = {r: a[(a['id'] == 2) & (a['arg'] == op)]['t'] for r, a in R.items()}
    outs = {r: a[(a['id'] == 3) & (a['arg'] == op)]['t'] for r, a in R.items()}
    return ins, outs
