# Active messages, put/get carried by them, streams (src/am/). Each multi-rank test also runs
# with the progress thread on (MESHMEM_PROGRESS_THREAD=1): cases NAME.thread.nN.
set(AM_RANKS 1 2 3 4 5 8)

# add a case NAME.TAG.nN for every rank count, with the environment ENV
function(am_case name tag env)
  foreach(n ${AM_RANKS})
    add_test(NAME ${name}.${tag}.n${n}
             COMMAND ${MESHRUN} -n ${n} --heap ${MESHMEM_TEST_HEAP} --timeout 120
                     $<TARGET_FILE:${name}>)
    set_tests_properties(${name}.${tag}.n${n} PROPERTIES LABELS "sanitize;am" TIMEOUT 120
                         PROCESSORS 1 ENVIRONMENT "${env}")
  endforeach()
endfunction()

function(am_test name)
  mm_rank_test(${name} SOURCES ${name}.c RANKS ${AM_RANKS} LABELS am)
  am_case(${name} thread "MESHMEM_PROGRESS_THREAD=1")
endfunction()

am_test(am_kinds)
am_test(am_flood)
am_test(am_errors)
am_test(am_rma)
am_test(am_stream)
# rings of one and two slots: every sender finds them full (nested progress all the time)
am_case(am_flood slots1 "MESHMEM_AM_SLOTS=1")
am_case(am_flood slots2 "MESHMEM_AM_SLOTS=2;MESHMEM_PROGRESS_THREAD=1")
am_case(am_rma slots1 "MESHMEM_AM_SLOTS=1;MESHMEM_AM_MEDIUM_SIZE=1K")
# the progress thread alone serves a rank that computes without calling meshmem
mm_rank_test(am_thread SOURCES am_thread.c RANKS LABELS am)
am_case(am_thread thread "MESHMEM_PROGRESS_THREAD=1")

# the header decoder: deterministic random headers here; the libFuzzer target (am_fuzz) is
# tests/fuzz/fuzz.cmake's, with the other fuzz targets
mm_unit_test(am_decode SOURCES am_decode.c LABELS am)
