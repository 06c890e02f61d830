# rtl_prog twice on 3 simulated nodes: the simulated times it prints must agree
foreach(k 1 2)
  execute_process(COMMAND ${MESHRUN} --rtl optweb-fc8-45g -n 3 --heap 32M --timeout 200 ${PROG}
                  OUTPUT_VARIABLE out${k} RESULT_VARIABLE rc${k})
  if(NOT rc${k} EQUAL 0)
    message(FATAL_ERROR "run ${k} failed (${rc${k}}): ${out${k}}")
  endif()
endforeach()
message("${out1}")
if(NOT out1 STREQUAL out2)
  message(FATAL_ERROR "two runs differ:\n${out1}\n${out2}")
endif()
