# Active-message benchmarks (FSHMEM Fig. 5 / Table III, AM round trip and rate, streams):
# bench/osu_am.c on meshmem's native API, into build/bench/ where `meshmem bench` finds it.
# Its baselines are direct put/get in the same program and osu_mpi's ping-pong (core.cmake).
add_executable(osu_am ${CMAKE_CURRENT_LIST_DIR}/osu_am.c)
target_link_libraries(osu_am PRIVATE meshmem)
target_compile_definitions(osu_am PRIVATE OSU_CLOCK_MESHMEM) # meshmem_wtime: simulated time under --rtl
set_target_properties(osu_am PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
