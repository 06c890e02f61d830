mm_rank_test(test_core SOURCES test_core.c RANKS 1 2 3 4 5 8)
add_executable(print_config ${CMAKE_CURRENT_LIST_DIR}/print_config.c)
target_link_libraries(print_config PRIVATE meshmem)
set_target_properties(print_config PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
