# The fault-injection program of the launcher tests (tests/py/test_launcher.py runs it under
# meshrun in each of its modes); built here, no ctest case of its own.
add_executable(fault_prog ${CMAKE_CURRENT_LIST_DIR}/fault_prog.c)
target_link_libraries(fault_prog PRIVATE meshmem)
set_target_properties(fault_prog PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
