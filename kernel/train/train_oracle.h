/*
 * train_oracle.h - test oracles of the training planner; not installed,
 * not exported (the unit tests link the internal library).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_TRAIN_ORACLE_H
#define SLO_TRAIN_ORACLE_H

#include "slo_train.h"

/* Exhaustive enumeration, the test oracle: same contract as slo_plan_exact
 * (every count vector existing <= n_k <= quota_k with sum n_k <=
 * req->max_workers when > 0; the first of equally cheap plans),
 * O(prod (quota_k + 1)) evaluations, plan->proven = 1. Refuses
 * (SLO_ERR_INVALID) above 5e7 evaluations. */
int slo__plan_brute_force(const struct slo_train_setup *s,
                          const struct slo_train_request *req,
                          struct slo_train_plan *plan, slo_error_t *err);

#endif
