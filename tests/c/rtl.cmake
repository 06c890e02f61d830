# The rtl transport (src/transport/rtl, docs/rtl-transport.md): real programs on the simulated
# OPTWEB engine, every peer through it (meshrun --rtl CONFIG: MESHMEM_NET=rtl, MESHMEM_SHM=0),
# the collectives offloaded to it. Built where Verilator is (MESHMEM_RTL). Each case NAME.rtlN
# runs program NAME on N simulated nodes of optweb-fc8-45g; kept short: the simulation clocks
# every cycle that moves data.
if(MESHMEM_RTL)
  mm_rank_test(rtl_prog SOURCES rtl_prog.c RANKS LABELS rtl)
  # mm_rtl_case(NAME RANKS r... [ARGS a...]): program NAME (a test target) on r nodes each
  function(mm_rtl_case name)
    cmake_parse_arguments(C "" "" "RANKS;ARGS" ${ARGN})
    foreach(n ${C_RANKS})
      add_test(NAME ${name}.rtl${n}
               COMMAND ${MESHRUN} --rtl optweb-fc8-45g -n ${n} --heap 32M --timeout 300
                       $<TARGET_FILE:${name}> ${C_ARGS})
      set_tests_properties(${name}.rtl${n} PROPERTIES LABELS "rtl" TIMEOUT 300 PROCESSORS 1)
    endforeach()
  endfunction()
  foreach(name rtl_prog test_core shmem_amo shmem_rma_order)
    get_property(args GLOBAL PROPERTY MM_TEST_ARGS_${name})
    mm_rtl_case(${name} RANKS 2 3 4 ARGS ${args})
  endforeach()
  # all-to-all-v and all-reduce offloaded in two commands each, checked against the values and
  # the runtime's algorithm; which path ran read from the rank's descriptor queue
  mm_rank_test(rtl_coll SOURCES rtl_coll.c RANKS LABELS rtl)
  target_include_directories(rtl_coll PRIVATE ${PROJECT_SOURCE_DIR}/src/transport/rtl
                                              ${PROJECT_SOURCE_DIR}/rtl/include)
  mm_rtl_case(rtl_coll RANKS 2 3 4 8)
  # active messages: a request answered while its target waits in an offloaded collective
  # (the plugin host lends the runtime's progress hook); am_rma without its long runs
  mm_rtl_case(am_kinds RANKS 2 3)
  mm_rtl_case(am_rma RANKS 2 3 ARGS short)
  # collectives: the world team's rooted ones offloaded, the vector and team ones by the
  # runtime's algorithms over the engine's RMA and messages; coll_mpi_gather takes 6 s or more:
  # not here
  mm_rtl_case(coll_mpi_rooted RANKS 2 3 4 ARGS rooted)
  mm_rtl_case(coll_mpi_v RANKS 2 3 4 ARGS v)
  # the reductions, short (the whole programs take 10 s to minutes each: every cycle that
  # moves data is clocked): coll_mpi's all-reduce (every algorithm; int64 sum and max, float64
  # sum), rooted reduce at every root and reduce-scatter up to 1025 elements (inline, eager and
  # rendezvous messages), and every type x operator of OpenSHMEM on every team without the
  # ~100 KB count
  mm_rtl_case(coll_mpi_reduce RANKS 2 3 4 ARGS reduce short)
  mm_rtl_case(shmem_coll_types RANKS 2 3 4 ARGS short)
  mm_rtl_case(shmem_coll_teams RANKS 2 3 4)
  mm_rtl_case(shmem_coll_aset RANKS 2 3)
  # examples of the OpenSHMEM specification, unchanged (tests/c/spec.cmake builds them)
  foreach(ex "shmem_alltoall_example|4||ERROR" "shmem_broadcast_example|4|^[0-9]+: 0, 1, 2, 3$|"
             "shmem_reduce_example|3|^Found [0-9]+ maximal random numbers|")
    string(REPLACE "|" ";" ex "${ex}")
    list(GET ex 0 name)
    list(GET ex 1 n)
    list(GET ex 2 expect)
    list(GET ex 3 forbid)
    add_test(NAME spec.${name}.rtl${n}
             COMMAND ${PROJECT_SOURCE_DIR}/tests/spec/run_example.sh 0 "${expect}" "${forbid}"
                     ${MESHRUN} --rtl optweb-fc8-45g -n ${n} --heap 32M --timeout 120
                     ${CMAKE_BINARY_DIR}/tests/spec/${name}
             WORKING_DIRECTORY ${CMAKE_BINARY_DIR}/tests/spec)
    set_tests_properties(spec.${name}.rtl${n} PROPERTIES LABELS "rtl;spec" TIMEOUT 120
                         PROCESSORS 1)
  endforeach()
  # deterministic: two runs print the same simulated times
  add_test(NAME rtl_prog.deterministic
           COMMAND ${CMAKE_COMMAND} -DMESHRUN=$<TARGET_FILE:meshrun> -DPROG=$<TARGET_FILE:rtl_prog>
                   -P ${PROJECT_SOURCE_DIR}/tests/rtl_twice.cmake)
  set_tests_properties(rtl_prog.deterministic PROPERTIES LABELS "rtl" TIMEOUT 300 PROCESSORS 1)
  # a float all-reduce (the runtime's algorithm over the engine's messages) after another size:
  # the ranks left meshmem_init's last barrier one simulator epoch apart, whichever arrived
  # first by wall time, and 1 KiB took 2.1800 or 2.1806 us from run to run
  add_test(NAME rtl_osu.deterministic
           COMMAND ${CMAKE_COMMAND} -DMESHRUN=$<TARGET_FILE:meshrun> -DPROG=$<TARGET_FILE:osu_coll>
                   -DNODES=2 -DRUNS=8 "-DARGS=-o allreduce -s 8,1024 -i 20 -w 2"
                   -P ${PROJECT_SOURCE_DIR}/tests/rtl_twice.cmake)
  set_tests_properties(rtl_osu.deterministic PROPERTIES LABELS "rtl" TIMEOUT 300 PROCESSORS 1)
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
