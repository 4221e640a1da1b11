/*
 * infer_private.h - helpers shared by the files of kernel/infer/; not
 * installed, not exported (slo__ prefix).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_INFER_PRIVATE_H
#define SLO_INFER_PRIVATE_H

#include <stddef.h>

#include "slo_infer.h"

/*
 * slo_ig_plan, also saying which workload an SLO_ERR_INFEASIBLE names:
 * *failed is the index of the workload that no GPU type can serve (the one
 * err->text names), or SIZE_MAX when the call succeeded or failed for any
 * other reason (invalid input, memory, an igniter plan the model says
 * misses an SLO). Used by slo_infer_solve to tell a proven infeasibility
 * from an unproven one.
 */
int slo__ig_plan_detail(const struct slo_ig_profile *profiles, size_t n_types,
                        const struct slo_ig_workload *workloads, size_t n, int policy,
                        struct slo_ig_plan *plan, size_t *failed, slo_error_t *err);

#endif
