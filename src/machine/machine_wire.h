/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * machine_wire.h - hand a parsed machine model to the Valgrind tool.
 *
 * hpm parses machine files (hosted code, machine.c); the tool cannot (no
 * libc). hpm therefore passes the parsed struct hpm_machine on the tool's
 * command line as --hpm-machine=WIRE, where WIRE is "hpmM<size>:" followed by
 * the struct's bytes in hex. hpm and its tool are built from the same tree
 * by the same compiler, so the layout agrees; the size prefix catches a
 * mismatched pair. The tool re-validates every model parameter.
 *
 * Freestanding: compiled into the tool as well.
 */
#ifndef HPM_MACHINE_WIRE_H
#define HPM_MACHINE_WIRE_H

#include <stddef.h>

#include "machine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes needed for the encoding, including the NUL. */
size_t hpm_machine_wire_size(void);
/* Returns the length written (without the NUL), or 0 when len is too small. */
size_t hpm_machine_wire_encode(const struct hpm_machine *m, char *buf, size_t len);
/* Returns 0, or -1 when s is not a wire encoding of this build's struct. The
 * model parameters are not checked here (use the models' *_params_check). */
int hpm_machine_wire_decode(struct hpm_machine *m, const char *s);

#ifdef __cplusplus
}
#endif
#endif
