/*
 * comm_oracle.h - test-only switches of the comm planner (not installed;
 * the unit tests link the convenience library and include this header).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_COMM_ORACLE_H
#define SLO_COMM_ORACLE_H

#include "slo_comm.h"

/*
 * slo_comm_simulate with the optimal planner's exact shortcuts for PS with
 * several collectives in flight switched by full_scan: 0 = on (what
 * slo_comm_simulate and slo_comm_solve do), 1 = off, every pending gradient
 * is checked (the same plans, slower: the oracle the shortcuts are tested
 * against, kernel/comm/comm_optimal.c pending_cap()). Errors: those of
 * slo_comm_simulate; full_scan other than 0 or 1 is SLO_ERR_INVALID with
 * source "optimal_full_scan".
 */
int slo__comm_simulate_scan(const struct slo_comm_model *model,
                            const struct slo_comm_link *link,
                            const struct slo_comm_params *params, int policy, int full_scan,
                            struct slo_comm_result *result, slo_error_t *err);

#endif
