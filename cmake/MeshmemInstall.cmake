# `make install` (cmake --install): the libraries, their plugins, the headers, meshrun, meshcc and meshc++,
# with a pkg-config file and a CMake package so that other projects build against meshmem
# without meshcc. The tree is relocatable: every installed file finds the others relative to
# itself, so `cmake --install build --prefix P` (and DESTDIR staging) needs no reconfiguration.
#   prefix/bin/{meshrun,meshcc,meshc++,meshcxx}
#   prefix/include/meshmem/{shmem.h,pshmem.h,meshmem.h,...}   (a directory of its own: another
#                                                              OpenSHMEM's shmem.h may sit in include/)
#   prefix/lib/libmeshmem.so*, libmeshmem.a, libmeshmem_{ucx,pmix}.so (plugins)
#   prefix/lib/pkgconfig/meshmem.pc, prefix/lib/cmake/meshmem/
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(MESHMEM_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/meshmem)
set(MESHMEM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/meshmem)

foreach(t meshmem meshmem_static)
  target_include_directories(${t} INTERFACE $<INSTALL_INTERFACE:${MESHMEM_INSTALL_INCLUDEDIR}>)
endforeach()
install(TARGETS meshmem meshmem_static EXPORT meshmemTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
foreach(plugin meshmem_ucx meshmem_pmix)
  if(TARGET ${plugin})
    install(TARGETS ${plugin} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${MESHMEM_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")
install(FILES ${CMAKE_BINARY_DIR}/include/pshmem.h DESTINATION ${MESHMEM_INSTALL_INCLUDEDIR})
install(TARGETS meshrun RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# the installed wrappers: build/bin's, with paths relative to where they lie
meshmem_configure_wrappers(${CMAKE_BINARY_DIR}/install "$prefix/${MESHMEM_INSTALL_INCLUDEDIR}"
                           "$prefix/${CMAKE_INSTALL_LIBDIR}")
install(PROGRAMS ${CMAKE_BINARY_DIR}/install/meshcc ${CMAKE_BINARY_DIR}/install/meshc++
                 ${CMAKE_BINARY_DIR}/install/meshcxx DESTINATION ${CMAKE_INSTALL_BINDIR})

install(EXPORT meshmemTargets NAMESPACE meshmem:: DESTINATION ${MESHMEM_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/meshmemConfig.cmake.in
  ${CMAKE_BINARY_DIR}/install/meshmemConfig.cmake INSTALL_DESTINATION ${MESHMEM_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/meshmemConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install/meshmemConfig.cmake
              ${CMAKE_BINARY_DIR}/install/meshmemConfigVersion.cmake
        DESTINATION ${MESHMEM_INSTALL_CMAKEDIR})
configure_file(${CMAKE_CURRENT_LIST_DIR}/meshmem.pc.in ${CMAKE_BINARY_DIR}/install/meshmem.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/install/meshmem.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
