# PROG on NODES simulated nodes (3 unless given), RUNS times (2 unless given), with ARGS (one
# string, split at spaces): the simulated times it prints must agree on every run
if(NOT NODES)
  set(NODES 3)
endif()
if(NOT RUNS)
  set(RUNS 2)
endif()
separate_arguments(args UNIX_COMMAND "${ARGS}")
foreach(k RANGE 1 ${RUNS})
  execute_process(COMMAND ${MESHRUN} --rtl optweb-fc8-45g -n ${NODES} --heap 32M --timeout 200
                          ${PROG} ${args}
                  OUTPUT_VARIABLE out${k} RESULT_VARIABLE rc${k})
  if(NOT rc${k} EQUAL 0)
    message(FATAL_ERROR "run ${k} failed (${rc${k}}): ${out${k}}")
  endif()
  if(k GREATER 1 AND NOT out1 STREQUAL out${k})
    message(FATAL_ERROR "runs 1 and ${k} differ:\n${out1}\n${out${k}}")
  endif()
endforeach()
message("${out1}")
