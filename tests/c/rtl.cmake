# The rtl transport (src/transport/rtl, docs/rtl-transport.md): real programs on the simulated
# OPTWEB engine, every peer through it (meshrun --rtl CONFIG: MESHMEM_NET=rtl, MESHMEM_SHM=0),
# the collectives offloaded to it. Built where Verilator is (MESHMEM_RTL). Each case NAME.rtlN
# runs program NAME on N simulated nodes of optweb-fc8-45g; kept short: the simulation clocks
# every cycle that moves data.
if(MESHMEM_RTL)
  mm_rank_test(rtl_prog SOURCES rtl_prog.c RANKS LABELS rtl)
  set(MESHMEM_RTL_TESTS rtl_prog test_core shmem_amo shmem_rma_order)
  foreach(name ${MESHMEM_RTL_TESTS})
    get_property(args GLOBAL PROPERTY MM_TEST_ARGS_${name})
    foreach(n 2 3 4)
      add_test(NAME ${name}.rtl${n}
               COMMAND ${MESHRUN} --rtl optweb-fc8-45g -n ${n} --heap 32M --timeout 300
                       $<TARGET_FILE:${name}> ${args})
      set_tests_properties(${name}.rtl${n} PROPERTIES LABELS "rtl" TIMEOUT 300 PROCESSORS 1)
    endforeach()
  endforeach()
  # deterministic: two runs print the same simulated times
  add_test(NAME rtl_prog.deterministic
           COMMAND ${CMAKE_COMMAND} -DMESHRUN=$<TARGET_FILE:meshrun> -DPROG=$<TARGET_FILE:rtl_prog>
                   -P ${PROJECT_SOURCE_DIR}/tests/rtl_twice.cmake)
  set_tests_properties(rtl_prog.deterministic PROPERTIES LABELS "rtl" TIMEOUT 300 PROCESSORS 1)
  # bad input: one line
  add_test(NAME rtl.bad_config COMMAND ${MESHRUN} --rtl ${CMAKE_CURRENT_LIST_FILE} -n 2
                                       $<TARGET_FILE:rtl_prog>)
  set_tests_properties(rtl.bad_config PROPERTIES LABELS "rtl" TIMEOUT 60 WILL_FAIL FALSE
                       PASS_REGULAR_EXPRESSION "^meshmem-rtlsim: [^\n]*\n$")
  add_test(NAME rtl.no_config COMMAND ${MESHRUN} --rtl no-such-engine -n 2 $<TARGET_FILE:rtl_prog>)
  set_tests_properties(rtl.no_config PROPERTIES LABELS "rtl" TIMEOUT 60
                       PASS_REGULAR_EXPRESSION "^meshrun: --rtl argument \"no-such-engine\" is neither")
  add_test(NAME rtl.no_meshrun COMMAND ${CMAKE_COMMAND} -E env MESHMEM_NET=rtl MESHMEM_SHM=0
                                       ${MESHRUN} -n 2 $<TARGET_FILE:rtl_prog>)
  set_tests_properties(rtl.no_meshrun PROPERTIES LABELS "rtl" TIMEOUT 60
                       PASS_REGULAR_EXPRESSION "no simulator: start the job with meshrun --rtl")
  # a rank dies: the job ends within 2 s, naming it, and nothing is left (the simulator too)
  foreach(phase put coll)
    add_test(NAME fault.rtl.${phase}.kill.rank1
             COMMAND ${CMAKE_COMMAND} -E env "MESHRUN_EXTRA=--rtl optweb-fc8-45g"
                     ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/fault_case.py ${MESHRUN}
                     $<TARGET_FILE:fault_matrix> 3 ${phase} kill 1)
    set_tests_properties(fault.rtl.${phase}.kill.rank1 PROPERTIES LABELS "rtl;fault" TIMEOUT 120
                         PROCESSORS 1)
  endforeach()
endif()
