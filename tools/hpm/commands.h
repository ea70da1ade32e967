/* SPDX-License-Identifier: BSD-3-Clause */
/* The hpm command's subcommands, one function each. */
#ifndef HPM_TOOL_COMMANDS_H
#define HPM_TOOL_COMMANDS_H

int cmd_annotate(int argc, char **argv);
int cmd_roofline(int argc, char **argv);
int cmd_count(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_upc_demo(int argc, char **argv);
int cmd_upc_explore(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_merge(int argc, char **argv);

#endif
