# The fault-injection program of the launcher tests (tests/py/test_launcher.py runs it under
# meshrun in each of its modes); built here, no ctest case of its own.
add_executable(fault_prog ${CMAKE_CURRENT_LIST_DIR}/fault_prog.c)
target_link_libraries(fault_prog PRIVATE meshmem)
set_target_properties(fault_prog PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

# The symmetric heap reserved, committed block by block (tests/py/test_heap.py runs it).
add_executable(heap_prog ${CMAKE_CURRENT_LIST_DIR}/heap_prog.c)
target_link_libraries(heap_prog PRIVATE meshmem)
set_target_properties(heap_prog PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)

# The fault matrix: in a job of 3, rank 0, 1 or 2 fails (SIGKILL, SIGSEGV, abort, exit(3))
# inside init, a put, a collective, an active-message handler, a stream or finalize; the job
# must end within 2 s of the failure, every process gone, nothing left (tests/c/fault_case.py).
# Not under the sanitizers: a deliberate SIGSEGV or abort is what they report.
add_executable(fault_matrix ${CMAKE_CURRENT_LIST_DIR}/fault_matrix.c)
target_link_libraries(fault_matrix PRIVATE meshmem pthread)
set_target_properties(fault_matrix PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
foreach(phase init put coll am stream finalize)
  foreach(how kill segv abort exit3)
    foreach(victim 0 1 2)
      add_test(NAME fault.${phase}.${how}.rank${victim}
               COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/fault_case.py ${MESHRUN}
                       $<TARGET_FILE:fault_matrix> 3 ${phase} ${how} ${victim})
      set_tests_properties(fault.${phase}.${how}.rank${victim} PROPERTIES LABELS "fault"
                           TIMEOUT 120 PROCESSORS 1)
    endforeach()
  endforeach()
endforeach()
