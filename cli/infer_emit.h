/*
 * infer_emit.h - deployable output of `slo infer` (cli/infer_emit.c;
 * doc/infer.md "Deploying a plan").
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_CLI_INFER_EMIT_H
#define SLO_CLI_INFER_EMIT_H

#include <stddef.h>

#include "slo_infer.h"

/* Triton model directory name of workload k of w[n] (MODEL, or MODEL_wK when
 * several workloads serve MODEL). */
void infer_emit_model_dir(const struct slo_ig_workload *w, size_t n, size_t k, char *out,
                          size_t size);
/* DIR/<model dir>/config.pbtxt per workload of the plan res. Exit status. */
int infer_emit_triton(const char *dir, const struct slo_ig_workload *w, size_t n,
                      const struct slo_infer_result *res);
/* DIR/slo-serve-gpuJ.sbatch per GPU of res; refuses (exit 2) a plan whose
 * MPS shares slo_infer_mps_round could not round and verify. Exit status. */
int infer_emit_slurm(const char *dir, const struct slo_ig_workload *w, size_t n,
                     const struct slo_infer_result *res);

#endif
