# SPDX-License-Identifier: BSD-3-Clause
# The Debian package (make deb: CPack's DEB generator): the installed tree
# (cmake/HpmInstall.cmake) under /opt/hpm, a prefix of its own, because
# hpm's libpapi and PAPI headers share their names with Debian's libpapi-dev
# (/usr/include/papi.h, papi.pc). Its maintainer scripts (cmake/deb) make
# the command, the man pages and the completion visible in /usr through
# update-alternatives. Dependencies: the libraries' packages as
# dpkg-shlibdeps finds them, libmicrohttpd's, and the Valgrind whose
# coregrind the tool is linked against, of the same upstream version (its
# preload object must match the tool).
set(HPM_DEB_PREFIX /opt/hpm)

execute_process(COMMAND dpkg-query -W -f=\${Version} valgrind
                OUTPUT_VARIABLE _vg_version RESULT_VARIABLE _vg_rc ERROR_QUIET)
if(_vg_rc EQUAL 0 AND _vg_version)
  string(REGEX REPLACE "-[^-]*$" "" _vg_upstream "${_vg_version}")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "valgrind (>= ${_vg_upstream}), valgrind (<< ${_vg_upstream}.0~)")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "valgrind")
endif()

# hpm serve opens libmicrohttpd itself (dlopen: tools/hpm/serve/serve_mhd.h),
# where dpkg-shlibdeps does not see it: its package by its SONAME
if(HPM_MHD_SONAME MATCHES "^lib(.*)\\.so\\.([0-9]+)$")
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", lib${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
endif()

foreach(_script postinst prerm)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/${_script}.in ${CMAKE_BINARY_DIR}/deb/${_script}
                 @ONLY FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                 GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hpm)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "hpm developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "hardware performance monitoring, with or without a PMU")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Counts the events of unmodified x86-64 programs on a virtual PMU (a
Valgrind tool modeling the node and the Blue Gene/P UPC counter unit), or
through perf_event where the machine has a PMU. Includes libhpm, a PAPI 7
compatible libpapi, libhpm-mpi, machine models, man pages and bash
completion, installed in /opt/hpm.")
set(CPACK_PACKAGING_INSTALL_PREFIX ${HPM_DEB_PREFIX})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "bash-completion, pkg-config")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${CMAKE_BINARY_DIR}/deb/postinst;${CMAKE_BINARY_DIR}/deb/prerm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
