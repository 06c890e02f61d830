# The example programs of the OpenSHMEM 1.5 specification (tests/spec/examples, copied as
# written), each run at 1 to 8 PEs: cases spec.NAME.nN. Every example must end with its exit
# status (0 but where the program means otherwise) and print what it computes; at a PE count too
# small for it (it names PE 1 or 2) the job must end with meshmem's one-line error instead.
set(SPEC_DIR ${PROJECT_SOURCE_DIR}/tests/spec)
set(SPEC_RUN ${SPEC_DIR}/run_example.sh)
set(SPEC_BAD_PE "PE argument \\([0-9]+\\) is invalid")
find_package(OpenMP COMPONENTS C)
find_program(MESHMEM_SPEC_MPICC mpicc)
find_program(MESHMEM_SPEC_MPIRUN mpirun)

# spec_example(NAME [MIN n] [SKIP_BELOW] [OPENMP] [MPI] [OWN_LEAKS] [STATUS s] [EXPECT re] [FORBID re]
#              [EXPECT_FROM k] [SOURCES files])
#   MIN: the fewest PEs the program is written for (it names PE MIN-1); below it the job must
#        end with the bad-PE error, or, with SKIP_BELOW (a program that would wait forever for a
#        PE that does not exist), the count is not run. EXPECT/FORBID: regular expressions on the
#        output at MIN PEs and more (at EXPECT_FROM and more: a program whose result is printed
#        by the PEs other than 0); @N@ stands for the PE count.
function(spec_example name)
  cmake_parse_arguments(E "SKIP_BELOW;OPENMP;MPI;OWN_LEAKS" "MIN;STATUS;EXPECT;FORBID;EXPECT_FROM"
                        "SOURCES" ${ARGN})
  # the sanitizers: not for the MPI hybrids (mpicc builds them without, mpirun starts them);
  # OWN_LEAKS: the example, as the spec prints it, never frees what it mallocs: LeakSanitizer
  # is off for it (its other checks stay, and the runtime's frees are checked by the rest)
  set(labels "sanitize;shmem;spec")
  if(E_MPI)
    set(labels "shmem;spec")
  elseif(E_OWN_LEAKS)
    set(labels "sanitize;shmem;spec;own_leaks")
  endif()
  if(NOT E_MIN)
    set(E_MIN 1)
  endif()
  if(NOT DEFINED E_STATUS)
    set(E_STATUS 0)
  endif()
  if(NOT E_SOURCES)
    set(E_SOURCES ${SPEC_DIR}/examples/${name}.c)
  endif()
  set(exe ${CMAKE_BINARY_DIR}/tests/spec/${name})
  if(E_MPI)
    if(NOT MESHMEM_SPEC_MPICC OR NOT MESHMEM_SPEC_MPIRUN)
      message(STATUS "tests: mpicc/mpirun not found, spec example ${name} is not built")
      return()
    endif()
    # an MPI program that also uses OpenSHMEM: mpicc, as its authors would build it
    add_custom_command(OUTPUT ${exe}
      COMMAND ${MESHMEM_SPEC_MPICC} -std=gnu11 -w -I${CMAKE_BINARY_DIR}/include ${E_SOURCES}
              -L${CMAKE_BINARY_DIR}/lib -Wl,-rpath,${CMAKE_BINARY_DIR}/lib -lmeshmem -o ${exe}
      DEPENDS ${E_SOURCES} meshmem COMMENT "mpicc ${name}.c (spec example)")
    add_custom_target(spec_${name} ALL DEPENDS ${exe})
  else()
    add_executable(spec_${name} ${E_SOURCES})
    target_link_libraries(spec_${name} PRIVATE meshmem m)
    # as written: the examples' own warnings (unused variables, int/size_t loops) are theirs
    target_compile_options(spec_${name} PRIVATE -Wno-error -w)
    set_target_properties(spec_${name} PROPERTIES OUTPUT_NAME ${name}
                          RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests/spec)
    if(E_OPENMP)
      if(NOT OpenMP_C_FOUND)
        message(STATUS "tests: OpenMP not found, spec example ${name} is not built")
        return()
      endif()
      target_link_libraries(spec_${name} PRIVATE OpenMP::OpenMP_C)
    endif()
  endif()
  foreach(n 1 2 3 4 5 6 7 8)
    set(status ${E_STATUS})
    string(REPLACE "@N@" ${n} expect "${E_EXPECT}")
    if(E_EXPECT_FROM AND n LESS E_EXPECT_FROM)
      set(expect "")
    endif()
    string(REPLACE "@N@" ${n} forbid "${E_FORBID}")
    if(n LESS E_MIN)
      if(E_SKIP_BELOW)
        continue()
      endif()
      set(status 1)
      set(expect "${SPEC_BAD_PE}")
      set(forbid "")
    endif()
    if(E_MPI)
      set(launch ${CMAKE_COMMAND} -E env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
                 OMPI_MCA_rmaps_base_oversubscribe=1 SHMEM_SYMMETRIC_SIZE=${MESHMEM_TEST_HEAP}
                 ${MESHMEM_SPEC_MPIRUN} -n ${n})
    else()
      set(launch ${MESHRUN} -n ${n} --heap ${MESHMEM_TEST_HEAP} --timeout 60)
    endif()
    add_test(NAME spec.${name}.n${n} COMMAND ${SPEC_RUN} ${status} "${expect}" "${forbid}"
             ${launch} ${exe}
             WORKING_DIRECTORY ${CMAKE_BINARY_DIR}/tests/spec)
    set_tests_properties(spec.${name}.n${n} PROPERTIES LABELS "${labels}" TIMEOUT 90
                         PROCESSORS 1)
  endforeach()
endfunction()
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/tests/spec)

spec_example(amo_scenario_1) # the four "undefined behavior" scenarios of 9.8: they run
spec_example(amo_scenario_2)
spec_example(amo_scenario_3)
spec_example(amo_scenario_4)
spec_example(hello-openshmem EXPECT "Hello from 0 of @N@")
spec_example(hybrid_mpi_mapping_id MPI EXPECT "PE 0's MPI rank is 0")
spec_example(hybrid_mpi_mapping_id_shmem_comm MPI EXPECT "PE 0's MPI rank is 0")
spec_example(pshmem_example SOURCES ${SPEC_DIR}/pshmem_main.c EXPECT "PE 0: 3 puts seen by the wrapper, ok")
spec_example(shmem_alltoall_example FORBID "ERROR")
spec_example(shmem_alltoalls_example FORBID "ERROR")
spec_example(shmem_atomic_add_example EXPECT "^0: dst = (22|66)$")
spec_example(shmem_atomic_compare_swap_example EXPECT "PE [0-9]+ was first")
spec_example(shmem_atomic_fetch_add_example EXPECT "^0: old = -1, dst = (22|66)$")
spec_example(shmem_atomic_fetch_inc_example MIN 2 EXPECT "^0: old = 22, dst = 22$")
spec_example(shmem_atomic_inc_example MIN 2 EXPECT "^1: dst = 75$")
spec_example(shmem_atomic_swap_example)
spec_example(shmem_barrier_example)
spec_example(shmem_barrierall_example EXPECT "^0: x = 4$")
spec_example(shmem_broadcast_example EXPECT "^[0-9]+: 0, 1, 2, 3$")
spec_example(shmem_collect_example EXPECT "^0: 0")
spec_example(shmem_ctx OPENMP)
spec_example(shmem_ctx_invalid OPENMP)
spec_example(shmem_ctx_pipelined_reduce)
spec_example(shmem_fence_example MIN 3 EXPECT "dest\\[0\\] on PE 2 is 1$")
spec_example(shmem_finalize_example EXPECT "^0: y = 10101$")
spec_example(shmem_g_example EXPECT "^0: y = 10101$")
# no input.txt here: PE 0 ends the job (meshrun names it when there are others to stop)
spec_example(shmem_global_exit_example STATUS 1 EXPECT "called shmem_global_exit\\(1\\)"
             EXPECT_FROM 2)
spec_example(shmem_init_example EXPECT "targ=33 \\(expect 33\\)")
spec_example(shmem_iput_example MIN 2 EXPECT "^dest on PE 1 is 1 3 5 7 9$")
spec_example(shmem_lock_example EXPECT "count is @N@|count is 0")
spec_example(shmem_npes_example EXPECT "I am #0 of @N@ PEs")
spec_example(shmem_p_example MIN 2 EXPECT "^OK$")
spec_example(shmem_ptr_example EXPECT "PE 1 dest: 1, 2, 3, 4|can't use pointer")
spec_example(shmem_put_example MIN 2 EXPECT "^dest\\[0\\] on PE 1 is 1$")
spec_example(shmem_put_signal_example)
spec_example(shmem_quiet_example MIN 3 EXPECT "^y: 90$")
spec_example(shmem_reduce_example EXPECT "^Found [0-9]+ maximal random numbers")
spec_example(shmem_sync_example)
spec_example(shmem_team_context)
spec_example(shmem_team_split_2D EXPECT "^xdim = ")
spec_example(shmem_team_split_strided)
spec_example(shmem_team_translate_pe)
spec_example(shmem_test_any_example)
# PE 0 waits for an update from another PE: alone, it would wait forever
spec_example(shmem_test_example1 MIN 2 SKIP_BELOW EXPECT "PE 0 observed first update from PE [1-9]")
spec_example(shmem_test_some_example OWN_LEAKS)
spec_example(shmem_wait_until_all)
spec_example(shmem_wait_until_any_all2all_sum OWN_LEAKS)
spec_example(shmem_wait_until_any_vector OWN_LEAKS)
spec_example(shmem_wait_until_some_all2all_sum OWN_LEAKS)
spec_example(writing_shmem_example EXPECT "dest on PE 1 is.*0.*15" EXPECT_FROM 2
             FORBID "dest on PE 0")

# the profiling wrapper against the static library: the library's weak shmem_long_put gives way
add_executable(spec_pshmem_static ${SPEC_DIR}/pshmem_main.c)
target_link_libraries(spec_pshmem_static PRIVATE meshmem_static)
target_compile_options(spec_pshmem_static PRIVATE -w)
set_target_properties(spec_pshmem_static PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                      ${CMAKE_BINARY_DIR}/tests/spec)
foreach(n 1 3)
  add_test(NAME spec.pshmem_static.n${n}
           COMMAND ${SPEC_RUN} 0 "PE 0: 3 puts seen by the wrapper, ok" "WRONG"
                   ${MESHRUN} -n ${n} --heap ${MESHMEM_TEST_HEAP} --timeout 60
                   $<TARGET_FILE:spec_pshmem_static>)
  set_tests_properties(spec.pshmem_static.n${n} PROPERTIES LABELS "sanitize;shmem;spec"
                       TIMEOUT 90 PROCESSORS 1)
endforeach()
