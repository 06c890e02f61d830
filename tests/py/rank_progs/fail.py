"""A rank that fails while the others wait for it; how, from the command line:
   raise R       rank R raises (uncaught) while the others are in a barrier
   exit R S      rank R calls sys.exit(S) while the others are in a barrier
   handler R     a handler raises on rank R (the others wait in a barrier)
   clean         every rank returns from the program without finalize: status 0
   unused        the program never uses meshmem (the runtime never starts): status 0"""
import sys

mode = sys.argv[1]
if mode == "unused":
    import meshmem  # noqa: F401  the package alone starts nothing
    print("unused: done")
    sys.exit(0)

import meshmem

me = meshmem.rank()
print(f"fail.py: rank {me} started", flush=True)
if mode == "clean":
    x = meshmem.zeros(4)
    meshmem.allreduce(meshmem.IN_PLACE, x)
    sys.exit(0)
culprit = int(sys.argv[2])
if mode == "handler":
    def boom(token, payload):
        raise ValueError("a handler fails")
    meshmem.am.register(meshmem.am.Handler(5, boom, "short", "request", 0))
    if me != culprit:
        meshmem.am.request(culprit, 5)
    meshmem.barrier()
elif me == culprit:
    if mode == "raise":
        raise RuntimeError(f"rank {me} fails")
    sys.exit(int(sys.argv[3]))
meshmem.barrier()
print(f"fail.py: rank {me} passed the barrier (wrong)", flush=True)
