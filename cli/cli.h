/*
 * cli.h - shared pieces of the `slo` command line front end.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_CLI_H
#define SLO_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "slo.h"

/* Exit statuses of every subcommand. */
enum {
    SLO_EXIT_OK = 0,
    SLO_EXIT_INTERNAL = 1, /* out of memory, a bug */
    SLO_EXIT_USAGE = 2     /* bad input, bad option, infeasible or unreachable SLO */
};

/* Print "slo CMD: SOURCE: TEXT" (or "slo CMD: TEXT") on stderr and return the
 * exit status for err->code (SLO_EXIT_INTERNAL for SLO_ERR_NOMEM, else
 * SLO_EXIT_USAGE). */
int cli_report(const char *cmd, const slo_error_t *err);

/* Print "slo CMD: FORMAT..." on stderr; returns SLO_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Parse a finite number from an option value; on failure print
 * "slo CMD: --OPT: expected WHAT, found "TEXT"" and return -1. */
int cli_parse_double(const char *cmd, const char *opt, const char *text, double min,
                     double max, const char *what, double *out);

/* Options seen so far, for cli_repeated_option. */
#define CLI_MAX_OPTIONS 64
struct cli_seen {
    const char *value[CLI_MAX_OPTIONS]; /* by getopt_long code - first */
};

/* An option given twice must agree: Slurm-style wrappers may repeat an
 * option, but a different value is a mistake. Call with each code that
 * getopt_long returns (codes first..first+CLI_MAX_OPTIONS-1 are tracked;
 * value NULL for flags). Prints "slo CMD: --NAME: given twice with different
 * values" and returns -1 on a conflict, else 0. Also refuses a value that
 * is another option ("--model --json": "slo CMD: --model: expected a value,
 * found the option "--json""), returning -1. */
int cli_repeated_option(const char *cmd, const struct option *longopts, int first, int code,
                        const char *value, struct cli_seen *seen);

/* Load a catalog / training workload: NAME of an embedded one, or a FILE path
 * (anything containing '/' or ending in .json is a path). */
int cli_load_catalog(const char *arg, struct slo_catalog *cat, slo_error_t *err);
int cli_load_workload(const char *arg, struct slo_workload *wl, slo_error_t *err);

/* Subcommands: argv[0] is the subcommand name. */
int slo_cmd_train(int argc, char **argv);
int slo_cmd_fit(int argc, char **argv);

/* `slo infer` and `slo fit infer PROFILE` (cli/cmd_infer.c, issue 3). */
int slo_cmd_infer(int argc, char **argv);
int slo_cmd_fit_infer(int argc, char **argv);
/* `slo comm` (cli/cmd_comm.c, issue 4). */
int slo_cmd_comm(int argc, char **argv);
/* `slo catalog import|check` (cli/cmd_catalog.c, issue 20). */
int slo_cmd_catalog(int argc, char **argv);
/* `slo convert perf-analyzer|nvidia-smi|ncu` (cli/cmd_convert.c, issue 19). */
int slo_cmd_convert(int argc, char **argv);
/* `slo replay` (cli/cmd_replay.c, issue 13). */
int slo_cmd_replay(int argc, char **argv);
/* The command-line word getopt_long (optstring ":", opterr 0) just refused
 * with '?': argv[optind - 1], except inside a cluster of short options such
 * as "-workload" (a long option typed with one dash) or "-1:10:x.csv", where
 * getopt leaves optind on the cluster itself (argv[optind - 1] is then the
 * word before it, e.g. the previous option's value). */
const char *cli_refused_option(int argc, char **argv);

#endif
