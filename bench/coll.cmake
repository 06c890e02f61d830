# Collective benchmarks (barrier, bcast, scatter, gather, allgather(v), alltoall(v), reduce,
# allreduce, reduce_scatter) and their OpenMPI twin, into build/bench/ (python/meshmem/bench/osu.py):
#   osu_coll      bench/osu_coll.c on meshmem_coll.h
#   osu_coll_mpi  bench/osu_coll_mpi.c compiled by mpicc (when mpicc is found)
set(MESHMEM_BENCH_DIR ${CMAKE_BINARY_DIR}/bench)
file(MAKE_DIRECTORY ${MESHMEM_BENCH_DIR})

add_executable(osu_coll ${CMAKE_CURRENT_LIST_DIR}/osu_coll.c)
target_link_libraries(osu_coll PRIVATE meshmem)
target_compile_definitions(osu_coll PRIVATE OSU_CLOCK_MESHMEM) # meshmem_wtime: simulated time under --rtl
set_target_properties(osu_coll PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${MESHMEM_BENCH_DIR})

find_program(MESHMEM_MPICC mpicc)
if(MESHMEM_MPICC)
  add_custom_command(
    OUTPUT ${MESHMEM_BENCH_DIR}/osu_coll_mpi
    COMMAND ${MESHMEM_MPICC} -std=gnu11 -O2 -g -Wall -Wextra -Werror ${MESHMEM_BENCH_ALIGN}
            ${CMAKE_CURRENT_LIST_DIR}/osu_coll_mpi.c -o ${MESHMEM_BENCH_DIR}/osu_coll_mpi
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/osu_coll_mpi.c ${CMAKE_CURRENT_LIST_DIR}/osu_coll_common.h
            ${CMAKE_CURRENT_LIST_DIR}/osu_common.h
    COMMENT "mpicc osu_coll_mpi.c (OpenMPI MPI twin of the collectives)")
  add_custom_target(bench_coll_twin ALL DEPENDS ${MESHMEM_BENCH_DIR}/osu_coll_mpi)
else()
  message(STATUS "bench: mpicc not found, the MPI twin of the collectives is not built")
endif()
