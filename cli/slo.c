/*
 * slo.c - `slo`, the command line front end of libslo.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"train", slo_cmd_train, "plan a training cluster that meets a loss/time SLO at least cost"},
    {"infer", slo_cmd_infer, "place inference workloads on shared GPUs (iGniter: MPS shares, batches)"},
    {"fit", slo_cmd_fit, "fit model coefficients from profiling data (slo fit train LOGS...)"},
    {"comm", slo_cmd_comm, "compare gradient communication schedulers (Prophet, optimal blocks)"},
    {"catalog", slo_cmd_catalog, "build or refresh an instance catalog from the aws CLI's JSON; check one"},
    {"convert", slo_cmd_convert, "turn perf_analyzer/nvidia-smi/ncu CSVs into inference profile keys"},
    {"replay", slo_cmd_replay, "replay training plans on spot capacity traces, compare five policies"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: slo COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-7s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n`slo COMMAND --help` describes a command's options; `slo --version`.\n"
               "Exit status: 0 success, 2 bad input or an SLO no plan meets, 1 internal error.\n");
}

/* Output that could not be written is a failure, said once, here. */
static int finish(int status)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "slo: cannot write the output: %s\n", strerror(errno));
        return SLO_EXIT_INTERNAL;
    }
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "slo: expected a command (");
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            fprintf(stderr, "%s%s", i ? ", " : "", commands[i].name);
        fprintf(stderr, "), found none; see slo --help\n");
        return SLO_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return finish(SLO_EXIT_OK);
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("slo %s\n", SLO_VERSION);
        return finish(SLO_EXIT_OK);
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return finish(commands[i].run(argc - 1, argv + 1));
    fprintf(stderr, "slo: unknown command \"%s\"; expected one of:", argv[1]);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(stderr, " %s", commands[i].name);
    fprintf(stderr, " (slo --help)\n");
    return SLO_EXIT_USAGE;
}
