# MPI-like collectives: each part at every rank count the issue names
foreach(part rooted gather v reduce teams mix errors)
  mm_rank_test(coll_mpi_${part} SOURCES coll_mpi.c RANKS 1 2 3 4 5 8 ARGS ${part} TIMEOUT 240)
endforeach()
