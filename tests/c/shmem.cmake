# OpenSHMEM C API tests (point-to-point layer): every routine group at 1..8 PEs.
foreach(t shmem_rma shmem_rma_order shmem_amo shmem_sync shmem_ctx shmem_generic shmem_setup
        shmem_threads shmem_spec15 shmem_c99)
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/${t}.c)
    set(labels shmem)
    if(t STREQUAL "shmem_threads")
      list(APPEND labels threads) # several threads per PE: TSan runs it (tests/CMakeLists.txt)
    endif()
    mm_rank_test(${t} SOURCES ${t}.c RANKS 1 2 3 4 5 8 LABELS ${labels})
  endif()
endforeach()

# many threads per PE mixing RMA, AMOs, signals and collectives on private teams (TSan runs it)
mm_rank_test(shmem_thread_stress SOURCES shmem_thread_stress.c RANKS 1 2 3 4 5 8
             LABELS shmem threads TIMEOUT 180)

# written for C99: the deprecated C forms of the routines that are generic in C11
set_target_properties(shmem_c99 PROPERTIES C_STANDARD 99 C_EXTENSIONS OFF)

# A program built as a user builds it, with the build's compiler wrapper (COMPILE: wrapper and
# flags), then run under meshrun at 1 and 4 PEs; it passes when its output says "PASS on N PEs".
function(mm_wrapper_test name source pass)
  cmake_parse_arguments(W "" "" "COMPILE" ${ARGN})
  set(exe ${CMAKE_BINARY_DIR}/tests/${name}_built)
  add_test(NAME ${name}.build COMMAND ${W_COMPILE} ${source} -o ${exe})
  set_tests_properties(${name}.build PROPERTIES FIXTURES_SETUP ${name} LABELS "sanitize;shmem"
                       TIMEOUT 120)
  foreach(n 1 4)
    add_test(NAME ${name}.meshrun.n${n}
             COMMAND ${MESHRUN} -n ${n} --heap ${MESHMEM_TEST_HEAP} --timeout 120 ${exe})
    set_tests_properties(${name}.meshrun.n${n} PROPERTIES FIXTURES_REQUIRED ${name}
                         LABELS "sanitize;shmem" TIMEOUT 120
                         PASS_REGULAR_EXPRESSION "${pass} on ${n} PEs")
  endforeach()
endfunction()

# An OpenSHMEM program written for oshcc/oshrun builds with meshcc and runs with meshrun
# unchanged.
mm_wrapper_test(shmem_classic ${CMAKE_CURRENT_LIST_DIR}/shmem_classic.c "classic: ok"
                COMPILE ${CMAKE_BINARY_DIR}/bin/meshcc)

# The same for C++ with meshc++ (shmem.h from C++, the generic routines as overloads); a call
# of the wrong type must not compile.
set(SHMEM_CXX_COMPILE ${CMAKE_BINARY_DIR}/bin/meshc++ -std=c++11 -Wall -Wextra -Werror -pedantic)
mm_wrapper_test(shmem_cxx ${CMAKE_CURRENT_LIST_DIR}/shmem_cxx.cpp "cxx: ok"
                COMPILE ${SHMEM_CXX_COMPILE})
add_test(NAME shmem_cxx.wrong_type
         COMMAND ${SHMEM_CXX_COMPILE} -DSHMEM_CXX_WRONG_TYPE -c
                 ${CMAKE_CURRENT_LIST_DIR}/shmem_cxx.cpp -o ${CMAKE_BINARY_DIR}/tests/shmem_cxx_wrong.o)
set_tests_properties(shmem_cxx.wrong_type PROPERTIES WILL_FAIL TRUE LABELS shmem TIMEOUT 120)
