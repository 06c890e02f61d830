# meshrun across hosts (--hosts, --vhosts): pmix_probe, a rank bootstrapped by PMIx alone,
# checks where each rank landed and what its host looks like (tests/c/pmix_probe.c); the fault
# tests across hosts are in tests/py/test_vhosts.py. Uneven shapes (2x3: 3 ranks per host, 3x1)
# besides the even one.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PMIX IMPORTED_TARGET pmix)
endif()
if(TARGET PkgConfig::PMIX)
  mm_rank_test(pmix_probe SOURCES pmix_probe.c RANKS VHOSTS 2x2 3x1 2x3 LABELS launcher
               LIBS PkgConfig::PMIX TIMEOUT 60)
else()
  message(STATUS "PMIx (libpmix-dev) not found: pmix_probe and its tests are not built "
                 "(scripts/install-deps.sh installs it)")
endif()

# unit tests of meshrun's parts across hosts (tools/NAME.c, tested by NAME_test.c), under the
# sanitizers too: it splits mpirun's tagged output by rank (meshrun_demux), and reads mpirun's
# and the ranks' reports, keeping back what its own line replaces (meshrun_reports)
function(mm_meshrun_unit_test name)
  add_executable(${name}_test ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${name}_test.c
                 ${PROJECT_SOURCE_DIR}/tools/${name}.c)
  target_include_directories(${name}_test PRIVATE ${PROJECT_SOURCE_DIR}/tools)
  set_target_properties(${name}_test PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME ${name}_test COMMAND $<TARGET_FILE:${name}_test>)
  set_tests_properties(${name}_test PROPERTIES LABELS "sanitize;unit;launcher" TIMEOUT 60)
endfunction()
mm_meshrun_unit_test(meshrun_demux)
mm_meshrun_unit_test(meshrun_reports)
