# SPDX-License-Identifier: BSD-3-Clause
# hpm's install rules: the GNUInstallDirs layout, for `cmake --install`,
# DESTDIR staging, the Debian package (cmake/HpmPackage.cmake) and Spack.
# Nothing installed names the prefix: hpm finds its parts relative to its
# binary (tools/hpm/install_dirs.c), the pkg-config files relative to
# themselves (${pcfiledir}), the CMake package relative to itself; no
# installed binary links another of hpm's shared libraries (libhpm is
# linked into hpm and libpapi as a PIC archive), so none needs an RPATH,
# and CMake strips the build tree's. The tree can be moved to another prefix.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The tool's folder, which valgrind is pointed at (VALGRIND_LIB), also
# holds the benchmark programs hpm validate and hpm roofline run.
set(HPM_INSTALL_PKGLIBEXECDIR ${CMAKE_INSTALL_LIBEXECDIR}/hpm)
set(HPM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/hpm)

install(TARGETS hpm RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(_prog hpm-validate-kernels hpm-roofline-kernels)
  if(TARGET ${_prog}) # (not in sanitizer builds: workloads/CMakeLists.txt)
    install(TARGETS ${_prog} RUNTIME DESTINATION ${HPM_INSTALL_PKGLIBEXECDIR})
  endif()
endforeach()

# The virtual PMU: the tool, with links to the two files of the system's
# Valgrind that a run reads from the tool's folder: the preload object every
# program gets and the default suppressions. (The build tree links them
# all, for the benchmarks' other tools.) The tool is linked against this
# Valgrind's coregrind: the two must stay of one version (the package says so).
if(TARGET hpm_vpmu_tool)
  install(TARGETS hpm_vpmu_tool RUNTIME DESTINATION ${HPM_INSTALL_PKGLIBEXECDIR})
  install(CODE "
    foreach(_f vgpreload_core-amd64-linux.so default.supp)
      set(_link \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${HPM_INSTALL_PKGLIBEXECDIR}/\${_f}\")
      message(STATUS \"Installing: \${_link} -> ${HPM_VALGRIND_LIBEXEC}/\${_f}\")
      file(CREATE_LINK \"${HPM_VALGRIND_LIBEXEC}/\${_f}\" \"\${_link}\" SYMBOLIC)
      list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${_link}\")
    endforeach()")
endif()

# Libraries, exported for find_package(hpm): hpm::hpm (libhpm), hpm::papi
# (libpapi.so.7, with Debian's soname libpapi.so.7.0 beside it for PAPI
# binaries linked against the system's), hpm::mpi (libhpm-mpi).
set_target_properties(hpm_api PROPERTIES EXPORT_NAME hpm)
install(TARGETS hpm_api papi EXPORT hpmTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES $<TARGET_FILE_DIR:papi>/libpapi.so.7.0 DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET hpm_mpi)
  set_target_properties(hpm_mpi PROPERTIES EXPORT_NAME mpi)
  install(TARGETS hpm_mpi EXPORT hpmTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()

# Headers: hpm's (hpm/hpm.h, the client requests hpm/hpm_client.h with the
# tool's counter list it includes) and PAPI's where PAPI installs them.
file(GLOB _hpm_headers ${CMAKE_SOURCE_DIR}/include/hpm/*.h)
install(FILES ${_hpm_headers} ${CMAKE_SOURCE_DIR}/src/vpmu_iface/hpm_client.h
              ${CMAKE_SOURCE_DIR}/src/vpmu_iface/vpmu_events.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hpm)
file(GLOB _papi_headers ${CMAKE_SOURCE_DIR}/include/papi/*.h)
install(FILES ${_papi_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# bash completion, where bash-completion loads it from on first use
install(FILES ${CMAKE_SOURCE_DIR}/tools/hpm/completion.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME hpm)

install(DIRECTORY ${CMAKE_SOURCE_DIR}/machines/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hpm/machines
        FILES_MATCHING PATTERN "*.machine" PATTERN "README.md")
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/ARCHITECTURE.md
              ${CMAKE_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${CMAKE_SOURCE_DIR}/src/vpmu/COPYING DESTINATION ${CMAKE_INSTALL_DOCDIR}
        RENAME COPYING.vpmu)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md")

# pkg-config: papi.pc (as Debian's libpapi-dev has it) and hpm.pc, their
# prefix relative to their own folder.
file(RELATIVE_PATH HPM_PC_TO_PREFIX ${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" HPM_PC_TO_PREFIX "${HPM_PC_TO_PREFIX}")
foreach(_pc papi hpm)
  configure_file(${CMAKE_SOURCE_DIR}/cmake/${_pc}.pc.in ${CMAKE_BINARY_DIR}/pkgconfig/${_pc}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/pkgconfig/${_pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# The CMake package: find_package(hpm [VERSION]) gives the targets above.
install(EXPORT hpmTargets NAMESPACE hpm:: DESTINATION ${HPM_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/hpmConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/cmake/hpmConfig.cmake
                              INSTALL_DESTINATION ${HPM_INSTALL_CMAKEDIR})
# a 0.x version: another minor version may change the API
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/hpmConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/hpmConfig.cmake
              ${CMAKE_BINARY_DIR}/cmake/hpmConfigVersion.cmake
        DESTINATION ${HPM_INSTALL_CMAKEDIR})

# Man pages: hpm(1) and hpm-COMMAND(1) written by help2man from the
# commands' own --help, libhpm(3) by scdoc (docs/man/hpm_man.sh), again
# whenever hpm is relinked. (Not in sanitizer builds, whose hpm is for tests.)
find_program(HPM_HELP2MAN help2man)
find_program(HPM_SCDOC scdoc)
if(HPM_HELP2MAN AND HPM_SCDOC AND NOT HPM_SANITIZE)
  set(_man_src ${CMAKE_SOURCE_DIR}/docs/man)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/man/stamp
    COMMAND sh ${_man_src}/hpm_man.sh $<TARGET_FILE:hpm> ${PROJECT_VERSION} ${_man_src}
            ${CMAKE_BINARY_DIR}/man
    COMMAND ${CMAKE_COMMAND} -E touch ${CMAKE_BINARY_DIR}/man/stamp
    DEPENDS hpm ${_man_src}/hpm_man.sh ${_man_src}/hpm.h2m ${_man_src}/libhpm.3.scd
    COMMENT "Writing the man pages (help2man from hpm --help, scdoc)"
    VERBATIM)
  add_custom_target(hpm_man ALL DEPENDS ${CMAKE_BINARY_DIR}/man/stamp)
  install(DIRECTORY ${CMAKE_BINARY_DIR}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR}
          PATTERN stamp EXCLUDE)
else()
  message(STATUS "man pages not written: no help2man or scdoc (scripts/install-deps.sh)")
endif()

include(${CMAKE_CURRENT_LIST_DIR}/HpmPackage.cmake)
