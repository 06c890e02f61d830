# The transport interface (src/transport/mm_tp.h): a transport's own collectives, asked first
# and declined or taken (tp_offload.c: a fake table on the node's shared memory, so one host)
mm_rank_test(tp_offload SOURCES tp_offload.c RANKS 1 2 3 4 LABELS coll INTERNAL)
