# Fuzzing: every parser of what another process or the user hands meshmem, each run for a
# bounded time in `make test` (and so in CI's .ci/run), from the corpus in tests/fuzz/corpus/NAME.
# New inputs a run finds go to build/fuzz/NAME (never into the repository); a finding is saved
# as build/fuzz/NAME-crash-* and printed, a reproducer to add to the corpus once fixed:
#   build/fuzz/NAME_fuzz tests/fuzz/corpus/NAME/seedN
# Longer runs by hand, e.g. an hour: build/fuzz/coll_msg_fuzz -max_total_time=3600
#   build/fuzz/coll_msg tests/fuzz/corpus/coll_msg
#
#   C (libFuzzer, with ASan and UBSan: a read or write an accepted input makes outside its
#   buffers is a report), built with clang (scripts/install-deps.sh installs it):
#     am         the active-message header decoder (src/am/mm_am_wire.c)
#     coll_msg   the collective message header and rendezvous descriptor (src/coll/mm_msg.h)
#     tp_post    a post to a network peer, as its handler checks it (src/transport/mm_tp_wire.h)
#     tp_signal  a put with signal to a network peer, as its handler checks it (the same)
#     ucx_rma    a large put or get between hosts, as the UCX transport checks it (mm_ucx_post.h)
#     config     the environment: every MESHMEM_* variable, SHMEM_SYMMETRIC_SIZE, the size and
#                topology parsers (src/core/mm_config.c)
#   Python (mutation from the corpus, no coverage feedback):
#     meshrun_args   meshrun's arguments and sizes, on the real binary
#     fabric         fabric TOML files and --fabric-set overrides, through the model's loader
set(MESHMEM_FUZZ_SECONDS 5 CACHE STRING "seconds each fuzz target runs in make test")
set(MESHMEM_FUZZ_DIR ${CMAKE_BINARY_DIR}/fuzz)
set(MESHMEM_FUZZ_CORPUS ${CMAKE_CURRENT_LIST_DIR}/corpus)
file(MAKE_DIRECTORY ${MESHMEM_FUZZ_DIR})

# mm_fuzz_target(NAME SOURCES a.c [b.c] [INCLUDES dir...] [DICT file]): the libFuzzer binary
# build/fuzz/NAME_fuzz and the ctest case NAME_fuzz (sources relative to the repository)
function(mm_fuzz_target name)
  cmake_parse_arguments(F "" "DICT" "SOURCES;INCLUDES" ${ARGN})
  list(TRANSFORM F_SOURCES PREPEND ${PROJECT_SOURCE_DIR}/)
  list(TRANSFORM F_INCLUDES PREPEND -I${PROJECT_SOURCE_DIR}/)
  set(exe ${MESHMEM_FUZZ_DIR}/${name}_fuzz)
  file(GLOB deps ${PROJECT_SOURCE_DIR}/src/*/*.h ${PROJECT_SOURCE_DIR}/src/*/*/*.h
       ${PROJECT_SOURCE_DIR}/tests/c/*.h)
  add_custom_command(
    OUTPUT ${exe}
    COMMAND ${MESHMEM_CLANG} -std=gnu11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
            -I${PROJECT_SOURCE_DIR}/include ${F_INCLUDES} ${F_SOURCES} -o ${exe}
    DEPENDS ${F_SOURCES} ${deps}
    COMMENT "clang -fsanitize=fuzzer ${name}_fuzz (fuzz target)")
  add_custom_target(${name}_fuzz_target ALL DEPENDS ${exe})
  set(args -max_total_time=${MESHMEM_FUZZ_SECONDS} -timeout=10 -rss_limit_mb=1024
           -print_final_stats=1 -artifact_prefix=${MESHMEM_FUZZ_DIR}/${name}-)
  if(F_DICT)
    list(APPEND args -dict=${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${F_DICT})
  endif()
  add_test(NAME ${name}_fuzz
           COMMAND sh -c "mkdir -p \"$0\" && exec \"$@\"" ${MESHMEM_FUZZ_DIR}/${name}
                   ${exe} ${args} ${MESHMEM_FUZZ_DIR}/${name} ${MESHMEM_FUZZ_CORPUS}/${name})
  set_tests_properties(${name}_fuzz PROPERTIES LABELS fuzz TIMEOUT 120)
endfunction()

find_program(MESHMEM_CLANG clang)
if(MESHMEM_CLANG)
  mm_fuzz_target(am SOURCES tests/c/am_fuzz.c src/am/mm_am_wire.c INCLUDES src/am)
  mm_fuzz_target(coll_msg SOURCES tests/fuzz/coll_msg_fuzz.c
                 INCLUDES src/core src/heap src/transport src/transport/shm src/rma src/coll
                          src/shmem src/am src/util)
  mm_fuzz_target(tp_post SOURCES tests/fuzz/tp_post_fuzz.c INCLUDES src/transport)
  mm_fuzz_target(ucx_rma SOURCES tests/fuzz/ucx_rma_fuzz.c INCLUDES src/transport/ucx)
  mm_fuzz_target(tp_signal SOURCES tests/fuzz/tp_signal_fuzz.c INCLUDES src/transport)
  mm_fuzz_target(config SOURCES tests/fuzz/config_fuzz.c src/core/mm_config.c
                 INCLUDES src/core src/util DICT config.dict)
else()
  message(STATUS "tests: clang not found (scripts/install-deps.sh installs it): the C fuzz "
                 "targets are not built")
endif()

add_test(NAME meshrun_args_fuzz
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/meshrun_args_fuzz.py
                 ${CMAKE_BINARY_DIR} ${MESHMEM_FUZZ_SECONDS})
add_test(NAME fabric_fuzz
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/fabric_fuzz.py
                 ${MESHMEM_FUZZ_SECONDS})
set_tests_properties(meshrun_args_fuzz fabric_fuzz PROPERTIES LABELS fuzz TIMEOUT 120)
