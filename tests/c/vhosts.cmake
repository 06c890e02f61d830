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

# meshrun --tag-output across hosts rewrites mpirun's marks (tools/meshrun_retag.c): a unit test
add_executable(meshrun_retag_test ${CMAKE_CURRENT_LIST_DIR}/meshrun_retag_test.c
               ${PROJECT_SOURCE_DIR}/tools/meshrun_retag.c)
target_include_directories(meshrun_retag_test PRIVATE ${PROJECT_SOURCE_DIR}/tools)
set_target_properties(meshrun_retag_test PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_test(NAME meshrun_retag_test COMMAND $<TARGET_FILE:meshrun_retag_test>)
set_tests_properties(meshrun_retag_test PROPERTIES LABELS "sanitize;unit;launcher" TIMEOUT 60)
