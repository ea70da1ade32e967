/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vpmu_gate.h - counting gated by where the program is and by trigger
 * events (vpmu_gate.c; docs/vpmu.md, "Gating").
 */
#ifndef HPM_VPMU_GATE_H
#define HPM_VPMU_GATE_H

#include "pub_tool_basics.h"

enum { VPMU_GATE_START = 1, VPMU_GATE_STOP = 2, VPMU_GATE_ENTER = 4 };

extern Bool vpmu_gate_trigger_armed; /* superblocks check the trigger */

Bool vpmu_gate_option(const HChar *arg);
void vpmu_gate_usage(void);
/* After the node is set up; True when counting must start stopped. */
Bool vpmu_gate_init(void);

/* At translation: the gates at instruction a (VPMU_GATE_*). */
UInt vpmu_gate_at(Addr a);
/* At translation: returns must be followed (--hpm-only). */
Bool vpmu_gate_follows_returns(void);

/* Dirty helpers: gates reached with the stack pointer sp; a return that
 * left the stack pointer at sp; the trigger check (1 when it started
 * counting). */
void vpmu_gate_hit(UWord gates, Addr sp);
void vpmu_gate_ret(Addr sp);
UWord vpmu_gate_check(void);
/* HPM_VPMU_GATE (hpm_client.h): an HPM_VPMU_* code. */
Long vpmu_gate_request(UWord gate, UWord arg, ULong n);
void vpmu_gate_thread_end(ThreadId tid);

#endif
