# OpenSHMEM C API tests (point-to-point layer): every routine group at 1..8 PEs.
foreach(t shmem_rma shmem_amo shmem_sync shmem_ctx shmem_generic shmem_setup shmem_threads)
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/${t}.c)
    set(labels shmem)
    if(t STREQUAL "shmem_threads")
      list(APPEND labels threads) # several threads per PE: TSan runs it (tests/CMakeLists.txt)
    endif()
    mm_rank_test(${t} SOURCES ${t}.c RANKS 1 2 3 4 5 8 LABELS ${labels})
  endif()
endforeach()

# An OpenSHMEM program written for oshcc/oshrun builds with meshcc and runs with meshrun
# unchanged: compile shmem_classic.c with the build's meshcc (as a user would), then run it.
set(SHMEM_CLASSIC_EXE ${CMAKE_BINARY_DIR}/tests/shmem_classic_meshcc)
add_test(NAME shmem_classic.meshcc
         COMMAND ${CMAKE_BINARY_DIR}/bin/meshcc ${CMAKE_CURRENT_LIST_DIR}/shmem_classic.c
                 -o ${SHMEM_CLASSIC_EXE})
set_tests_properties(shmem_classic.meshcc PROPERTIES FIXTURES_SETUP shmem_classic
                     LABELS "sanitize;shmem" TIMEOUT 120)
foreach(n 1 4)
  add_test(NAME shmem_classic.meshrun.n${n}
           COMMAND ${MESHRUN} -n ${n} --heap ${MESHMEM_TEST_HEAP} --timeout 120 ${SHMEM_CLASSIC_EXE})
  set_tests_properties(shmem_classic.meshrun.n${n} PROPERTIES FIXTURES_REQUIRED shmem_classic
                       LABELS "sanitize;shmem" TIMEOUT 120 PASS_REGULAR_EXPRESSION "classic: ok on ${n} PEs")
endforeach()
