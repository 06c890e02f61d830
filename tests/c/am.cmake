# Active messages, put/get carried by them, streams (src/am/). Each multi-rank test also runs
# with the progress thread on (MESHMEM_PROGRESS_THREAD=1): cases NAME.thread.nN.
set(AM_RANKS 1 2 3 4 5 8)
function(am_test name)
  mm_rank_test(${name} SOURCES ${name}.c RANKS ${AM_RANKS} LABELS am ${ARGN})
  foreach(n ${AM_RANKS})
    add_test(NAME ${name}.thread.n${n}
             COMMAND ${MESHRUN} -n ${n} --heap ${MESHMEM_TEST_HEAP} --timeout 120
                     $<TARGET_FILE:${name}>)
    set_tests_properties(${name}.thread.n${n} PROPERTIES LABELS "sanitize;am" TIMEOUT 120
                         PROCESSORS 1 ENVIRONMENT "MESHMEM_PROGRESS_THREAD=1")
  endforeach()
endfunction()

am_test(am_kinds)
