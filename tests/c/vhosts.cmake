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

# meshrun across hosts splits mpirun's tagged output by rank (tools/meshrun_demux.c): a unit test
add_executable(meshrun_demux_test ${CMAKE_CURRENT_LIST_DIR}/meshrun_demux_test.c
               ${PROJECT_SOURCE_DIR}/tools/meshrun_demux.c)
target_include_directories(meshrun_demux_test PRIVATE ${PROJECT_SOURCE_DIR}/tools)
set_target_properties(meshrun_demux_test PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_test(NAME meshrun_demux_test COMMAND $<TARGET_FILE:meshrun_demux_test>)
set_tests_properties(meshrun_demux_test PROPERTIES LABELS "sanitize;unit;launcher" TIMEOUT 60)
