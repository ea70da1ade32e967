/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * elf_facts.h - what hpm reads from a program's ELF file (elf_facts.c,
 * libelf): its GNU build-id and the libraries it needs (DT_NEEDED).
 */
#ifndef HPM_TOOL_ELF_FACTS_H
#define HPM_TOOL_ELF_FACTS_H

#include <stddef.h>

/* path's GNU build-id as hex into build_id ("" without one, or when path
 * is no ELF file that can be read) and, when needed is not NULL, the names
 * of its DT_NEEDED entries (at most max, malloc'd; *n_needed of them). */
void elf_facts(const char *path, char *build_id, size_t len, char **needed, unsigned *n_needed,
               unsigned max);

/* Whether the ELF file at path has a DT_NEEDED entry starting with one of
 * prefixes (NULL-terminated): 1 yes, 0 no, -1 unreadable (err says why). */
int program_needs_library(const char *path, const char *const *prefixes, char *err,
                          size_t errlen);

#endif
