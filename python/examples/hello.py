"""Hello from every rank, and the sum of the ranks computed by an all-reduce.

    meshrun -n 4 python3 hello.py        (or: python3 -m meshmem.run -n 4 hello.py)
"""
import numpy as np

import meshmem

me, n = meshmem.rank(), meshmem.size()
total = np.array([me])
meshmem.allreduce(meshmem.IN_PLACE, total)
print(f"hello from rank {me} of {n}: the ranks add up to {total[0]}")
assert total[0] == n * (n - 1) // 2
