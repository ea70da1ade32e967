/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * install_dirs.h - where hpm finds its own parts: the virtual PMU's tool
 * folder, the machine files, libhpm-mpi and the benchmark programs.
 *
 * Every part is found relative to the hpm binary (/proc/self/exe, links
 * resolved), first where an install puts it (the relative folders CMake's
 * GNUInstallDirs gives, compiled in), then where the build tree has it;
 * nothing absolute is compiled in, so an installed tree still works after
 * it is moved to another prefix, and a build tree works where it was built.
 * An environment variable names each part's folder outright.
 */
#ifndef HPM_TOOL_INSTALL_DIRS_H
#define HPM_TOOL_INSTALL_DIRS_H

#include <stddef.h>

enum hpm_part {
    HPM_PART_VPMU,     /* the Valgrind tool's folder (HPM_VALGRIND_LIB) */
    HPM_PART_MACHINES, /* the machine files (HPM_MACHINES_DIR) */
    HPM_PART_MPI,      /* libhpm-mpi's folder (HPM_MPI_LIB names the file itself) */
    HPM_PART_PROGRAMS, /* hpm validate's and hpm roofline's benchmark programs */
};

/* The folder of part that holds file (any readable folder for part when
 * file is NULL), in dir: its environment variable when set, else the first
 * candidate relative to the hpm binary that holds file. 0, or -1 when no
 * candidate does (dir then holds the installed candidate, for a message). */
int hpm_part_dir(enum hpm_part part, const char *file, char *dir, size_t len);

#endif
