# Core-operation benchmarks (put, get, atomic, put_signal, pingpong, put_pingpong, put_bidir,
# barrier) and their OpenMPI twins, all into build/bench/ where `meshmem bench` looks for them
# (python/meshmem/bench/osu.py).
#   osu_shmem        bench/osu_shmem.c on meshmem (needs include/shmem.h)
#   osu_shmem_oshmem the same source compiled by OpenMPI's oshcc (when oshcc is found)
#   osu_mpi          bench/osu_mpi.c compiled by mpicc (when mpicc is found)
# The twins are built by the OpenMPI compiler wrappers, not by CMake's compiler, so that they
# link exactly as a user's oshcc/mpicc program would; with the same warning flags as ours.
set(MESHMEM_BENCH_DIR ${CMAKE_BINARY_DIR}/bench)
file(MAKE_DIRECTORY ${MESHMEM_BENCH_DIR})

if(EXISTS ${PROJECT_SOURCE_DIR}/include/shmem.h)
  add_executable(osu_shmem ${CMAKE_CURRENT_LIST_DIR}/osu_shmem.c)
  target_link_libraries(osu_shmem PRIVATE meshmem)
  target_compile_definitions(osu_shmem PRIVATE OSU_CLOCK_MESHMEM) # meshmem_wtime: simulated time under --rtl
  set_target_properties(osu_shmem PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${MESHMEM_BENCH_DIR})
else()
  message(STATUS "bench: include/shmem.h not present yet, osu_shmem (meshmem side) not built")
endif()

set(MESHMEM_TWIN_CFLAGS -std=gnu11 -O2 -g -Wall -Wextra -Werror ${MESHMEM_BENCH_ALIGN})
find_program(MESHMEM_OSHCC oshcc)
find_program(MESHMEM_MPICC mpicc)
set(MESHMEM_TWINS "")
if(MESHMEM_OSHCC)
  add_custom_command(
    OUTPUT ${MESHMEM_BENCH_DIR}/osu_shmem_oshmem
    COMMAND ${MESHMEM_OSHCC} ${MESHMEM_TWIN_CFLAGS} ${CMAKE_CURRENT_LIST_DIR}/osu_shmem.c
            -o ${MESHMEM_BENCH_DIR}/osu_shmem_oshmem
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/osu_shmem.c ${CMAKE_CURRENT_LIST_DIR}/osu_common.h
    COMMENT "oshcc osu_shmem.c (OpenMPI OSHMEM twin)")
  list(APPEND MESHMEM_TWINS ${MESHMEM_BENCH_DIR}/osu_shmem_oshmem)
else()
  message(STATUS "bench: oshcc not found, the OSHMEM twin is not built")
endif()
if(MESHMEM_MPICC)
  add_custom_command(
    OUTPUT ${MESHMEM_BENCH_DIR}/osu_mpi
    COMMAND ${MESHMEM_MPICC} ${MESHMEM_TWIN_CFLAGS} ${CMAKE_CURRENT_LIST_DIR}/osu_mpi.c
            -o ${MESHMEM_BENCH_DIR}/osu_mpi
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/osu_mpi.c ${CMAKE_CURRENT_LIST_DIR}/osu_common.h
    COMMENT "mpicc osu_mpi.c (OpenMPI MPI twin)")
  list(APPEND MESHMEM_TWINS ${MESHMEM_BENCH_DIR}/osu_mpi)
else()
  message(STATUS "bench: mpicc not found, the MPI twin is not built")
endif()
if(MESHMEM_TWINS)
  add_custom_target(bench_core_twins ALL DEPENDS ${MESHMEM_TWINS})
endif()
