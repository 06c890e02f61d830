# MPI-like collectives: each part at 1, 2, 3, 4, 5 and 8 ranks
foreach(part rooted gather v reduce teams mix errors)
  mm_rank_test(coll_mpi_${part} SOURCES coll_mpi.c RANKS 1 2 3 4 5 8 ARGS ${part} TIMEOUT 240)
endforeach()

# Staging smaller than the messages (128 KiB: 64 KiB per team): broadcast, scatter, gather,
# all-gather, all-to-all and the reductions go in rounds that every member cuts alike by
# itself, for private and symmetric buffers; on one host and across two (the network path,
# where the root once sent its chunk size ahead of each call). Across 3 hosts of 2 ranks with
# the default staging too: vectors whose slices differ in size, through the two-level
# all-to-all whose levels overlap.
foreach(n 2 3 5)
  add_test(NAME coll_mpi_rounds.stage128k.n${n}
           COMMAND ${MESHRUN} -n ${n} --heap ${MESHMEM_TEST_HEAP} --timeout 240
                   $<TARGET_FILE:coll_mpi_rooted> rounds)
  set_tests_properties(coll_mpi_rounds.stage128k.n${n} PROPERTIES LABELS "coll;sanitize"
                       TIMEOUT 240 PROCESSORS 1 ENVIRONMENT "MESHMEM_STAGE_SIZE=128K")
endforeach()
add_test(NAME coll_mpi_rounds.stage128k.hosts2x2
         COMMAND ${MESHRUN} -n 4 --heap ${MESHMEM_TEST_HEAP} --timeout 240
                 $<TARGET_FILE:coll_mpi_rooted> rounds)
set_tests_properties(coll_mpi_rounds.stage128k.hosts2x2 PROPERTIES LABELS "net" TIMEOUT 240
                     PROCESSORS 1
                     ENVIRONMENT "MESHMEM_STAGE_SIZE=128K;MESHMEM_HOST_RANKS=2;UCX_TLS=tcp,self")

add_test(NAME coll_mpi_rounds.hosts3x2
         COMMAND ${MESHRUN} -n 6 --heap ${MESHMEM_TEST_HEAP} --timeout 240
                 $<TARGET_FILE:coll_mpi_rooted> rounds)
set_tests_properties(coll_mpi_rounds.hosts3x2 PROPERTIES LABELS "net" TIMEOUT 240 PROCESSORS 1
                     ENVIRONMENT "MESHMEM_HOST_RANKS=2;UCX_TLS=tcp,self")

# A pair of ranks on two hosts: reduce's one-step form there (mm_reduce_direct: the other
# vector whole to the root), at every root, in place and not, every size of the part
add_test(NAME coll_mpi_reduce.hosts2x1
         COMMAND ${MESHRUN} -n 2 --heap ${MESHMEM_TEST_HEAP} --timeout 600
                 $<TARGET_FILE:coll_mpi_reduce> reduce)
set_tests_properties(coll_mpi_reduce.hosts2x1 PROPERTIES LABELS "net" TIMEOUT 600 PROCESSORS 1
                     ENVIRONMENT "MESHMEM_HOST_RANKS=1;UCX_TLS=tcp,self")
