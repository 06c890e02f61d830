# OpenSHMEM C API tests (point-to-point layer): every routine group at 1..8 PEs.
foreach(t shmem_rma shmem_amo shmem_sync shmem_ctx shmem_generic shmem_setup shmem_threads)
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/${t}.c)
    mm_rank_test(${t} SOURCES ${t}.c RANKS 1 2 3 4 5 8 LABELS shmem)
  endif()
endforeach()
