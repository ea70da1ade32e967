/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_internal.h - what run/'s files share and nothing outside run/ sees:
 * each part's entry points (count_plan.c builds the plan, count_execute.c
 * runs it; count_opts.c, count_events.c, progfind.c, count_pmu.c,
 * count_output.c, count_mpi.c, count_baseline.c, count_toolcmd.c,
 * count_notes.c and count_order.c do the rest). What run/ offers the
 * commands is run.h.
 */
#ifndef HPM_TOOL_RUN_INTERNAL_H
#define HPM_TOOL_RUN_INTERNAL_H

#include <stdio.h>
#include <sys/types.h>

#include "run/run.h"
#include "report/count_perf.h"
#include "report/count_report.h"
#include "report/interval.h"
#include "live.h"
#include "machine.h"
#include "report/mpi_job.h"
#include "util/options.h"
#include "report/vpmu_output.h"

#define cmd_name count_cmd_name

/* The simulator's thread slots (Valgrind's --max-threads) unless
 * --max-threads says: Valgrind clears every slot at its start, about 9 KB
 * each with the tool's, so 4,096 slots cost every process about 15 ms more
 * than 1,024 (20,052 page faults against 13,075: docs/robustness.md), and
 * 500, Valgrind's default, panics programs that run a thousand threads at
 * once. */
#define HPM_MAX_THREADS_DEFAULT 1024L

void count_table(struct count_opts *o, struct hpm_opt *t);
int count_usage_error(const char *fmt, const char *arg);
int count_parse_opts(int argc, char **argv, struct count_opts *o);
int count_add_row(struct count_row *rows, unsigned *n, const struct count_row *r);
/* An -e list's field at s, up to the next comma or the end, trimmed of
 * spaces: [*b, *e) (empty when *b == *e). Returns where it ends (at ',' or
 * the NUL). */
const char *count_event_field(const char *s, const char **b, const char **e);
int count_resolve_event(const char *name, const char *machine, unsigned cores,
                         unsigned features, struct count_row *row);
struct count_lat;
int count_build_rows(const struct count_opts *o, const char *machine, unsigned cores,
                      unsigned features, struct count_row *rows, unsigned *n,
                      struct count_lat *lat);
char *count_codes_arg(const struct count_opts *o, const struct count_row *rows, unsigned n);
int count_check_counts(const struct vpmu_output *out, struct count_row *rows, unsigned *n,
                       const char *what);
int count_check_interpreter(const char *script);
int count_search_program(const char *name, char *found, size_t flen);
int count_find_program(const char *name, int *said, char *found, size_t flen);
int count_probe_pmu(char *why, size_t len);
int count_event_names(const struct count_opts *o, char ***out, char **store);
const char *count_virtual_only_option(const struct count_opts *o);
int count_choose_source(const struct count_opts *o, struct count_perf_plan *plan);
int count_perf_before_exec(void *ctx, pid_t child);
int count_report_exit(struct count_report *r, int status, char *note, size_t len);
int count_on_perf(const struct count_opts *o, struct count_perf_plan *plan,
                         const char *path, const char *pmu, int hw);
int count_report_to(FILE *f, void *ctx);
int count_write_report(const struct count_opts *o, const struct count_report *r);
int count_keep_output_to(FILE *f, void *ctx);
int count_output_dir_ok(const char *path);
const char *count_upc_write_note(const struct vpmu_output *out, char *buf, size_t len);
/* The note of a program the tool stopped at a thread's creation, with
 * every thread slot taken (VPMU_EXIT_SLOTS): in buf, returned. */
const char *count_slots_note(const struct vpmu_output *out, char *buf, size_t len);
void count_add_user_notes(struct count_report *r, const struct count_opts *o);
int count_from_output(const struct count_opts *o);
/* The report of counts in memory (what names them in messages), as
 * --from-output reports a file's: 0, or the exit status. */
int count_report_output(const struct count_opts *o, const struct vpmu_output *out,
                        const char *what);
int count_mpi_rank_setup(const struct count_opts *o, struct mpi_rank_env *e, char *dir,
                          size_t len);
int count_mpi_node_setup(struct count_opts *o, struct hpm_machine *m);
int count_mpi_combine_setup(struct count_opts *o, const struct count_row *rows, unsigned n,
                            const char *dir, char *out, size_t outlen);
int count_mpi_combined(const struct count_opts *o, const struct count_report *r,
                       const char *dir);
int count_baseline_before(const struct count_opts *o, const struct hpm_machine *m,
                          unsigned features, const struct count_row *rows, unsigned n_rows,
                          int profile, const char *wire);
struct baseline_unstable;
int count_baseline_step(const struct count_opts *o, const struct count_report *r,
                        const char *dir, const char *profile_path, const char *machine,
                        const char *wire, const struct baseline_unstable *unstable, int rc,
                        int hpm_failed);

/* hpm count -I: the program's live view, read at every tick (the view
 * appears once the tool has started; after an exec the new image's view
 * starts a new series from zero). */
struct interval_watch {
    const struct count_opts *o;
    struct hpm_live_reader lr;
    struct hpm_interval iv;
    int ready, failed;
};
/* count_output.c: one tick of hpm count -I (runner_spec.on_interval) */
void count_interval_tick(void *ctx, pid_t child);


/* count_toolcmd.c: the tool's command line (valgrind --tool=hpm ..., then
 * PROGRAM). build: 0, or -1 when out of memory (free it either way). */
struct count_toolcmd {
    const char *vg;      /* valgrind, set by the caller */
    char **args;         /* NULL-terminated */
    char *wire;          /* the machine as the tool reads it (--hpm-machine) */
    char *codes;         /* the events (--hpm-events) */
    char *out_arg, *machine_arg, *events_arg, *skip_arg, *gate_args[5], *mpi_out_arg;
    char *debug_dir_arg, *debug_copies_arg; /* the decompressed debug files (src/debugcache) */
    char live_arg[48];
    char interleave_arg[48], interleave_from_arg[48];
    char max_threads_arg[48]; /* --max-threads=N */
    char cores_arg[2][48]; /* a rank's share of its node's cores */
};
int count_toolcmd_build(struct count_toolcmd *t, const struct count_opts *o,
                        const struct hpm_machine *m, const struct count_row *rows,
                        unsigned n_rows, const char *dir, enum count_mode mode, int lat_hist,
                        const char *const *hook_args);
void count_toolcmd_free(struct count_toolcmd *t);

/* --coherence=time: turns of up to COUNT_COHERENCE_TURN instructions (or
 * --interleave's N), each thread's first COUNT_COHERENCE_FIRST_TURN,
 * doubling (the tool's --hpm-interleave-from) */
#define COUNT_COHERENCE_TURN 1000000
#define COUNT_COHERENCE_FIRST_TURN 10000

/* count_notes.c: the report's notes on a virtual-PMU run, in the order
 * reports give them; nb holds their text (it must outlive the report). */
struct count_tree;
struct runner_result;
#define COUNT_SHARED_NOTES 3 /* shared cache lines named in the notes */
struct count_notes {
    char sig[160], exit[320], core[160], exec[600], lost[4200], fork[200], killed[400],
        view[1000], native[1200], upc[200], sat[200], left[160], turns[1200], mpx_idle[1024],
        shared[600], shared_line[COUNT_SHARED_NOTES][400];
};
/* count_order.c: the notes on how the threads' order was decided and on
 * the cache lines they shared (in count_add_notes' and --from-output's
 * reports). */
void count_order_notes(struct count_report *r, struct count_notes *nb,
                       const struct vpmu_output *out);
void count_add_notes(struct count_report *r, struct count_notes *nb, const struct count_opts *o,
                     unsigned cores, struct count_tree *tree, const struct vpmu_output *out,
                     const struct runner_result *res, const struct count_row *rows,
                     unsigned n_rows, const char *lat_note);


#endif
