# The fault-injection program of the launcher tests (tests/py/test_launcher.py runs it under
# meshrun in each of its modes); built here, no ctest case of its own.
add_executable(fault_prog ${CMAKE_CURRENT_LIST_DIR}/fault_prog.c)
target_link_libraries(fault_prog PRIVATE meshmem)
set_target_properties(fault_prog PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

# The symmetric heap reserved, committed block by block (tests/py/test_heap.py runs it).
add_executable(heap_prog ${CMAKE_CURRENT_LIST_DIR}/heap_prog.c)
target_link_libraries(heap_prog PRIVATE meshmem)
set_target_properties(heap_prog PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
