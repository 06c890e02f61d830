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
