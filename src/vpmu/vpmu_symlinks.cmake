# SPDX-License-Identifier: GPL-2.0-or-later
# Build-time helper: link every file of the system Valgrind library directory
# (SRC) into the build's Valgrind library directory (DST), except hpm-* (ours),
# so that VALGRIND_LIB=DST finds vgpreload_core, default.supp, the gdbserver
# XML files and the other tools (--tool=none for comparisons).
file(GLOB _vg_files RELATIVE "${SRC}" "${SRC}/*")
foreach(f ${_vg_files})
  if(NOT f MATCHES "^hpm-" AND NOT IS_DIRECTORY "${SRC}/${f}")
    if(NOT EXISTS "${DST}/${f}" AND NOT IS_SYMLINK "${DST}/${f}")
      file(CREATE_LINK "${SRC}/${f}" "${DST}/${f}" SYMBOLIC)
    endif()
  endif()
endforeach()
