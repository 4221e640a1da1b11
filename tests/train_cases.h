/*
 * train_cases.h - the deadline of a randomized training-planner case
 * (test_planner.c, test_fit_network.c): a random cluster of the setup's
 * types and a deadline around its time, so that some cases are infeasible.
 * Include after xorshift.h (its urand/uni/irand and the file's rng).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_TESTS_TRAIN_CASES_H
#define SLO_TESTS_TRAIN_CASES_H

#include "slo.h"

/* probe[k] (array of s->n_types) uniform in lo[k]..quota of setup type k
 * (lo NULL: from 0), and probe[0] = 1 when every draw is 0: a random
 * non-empty cluster (instances per type). */
static inline void random_cluster(const struct slo_train_setup *s, const int *lo, int *probe)
{
    int n = 0;
    for (size_t k = 0; k < s->n_types; k++)
        n += probe[k] = irand(lo ? lo[k] : 0, s->types[k].quota);
    if (!n)
        probe[0] = 1;
}

/* req->deadline_s (s) = the time of cluster probe under req without a
 * deadline (slo_train_evaluate, its evaluation into *pe) x uni(a, b): 0,
 * or -1 when the cluster cannot be evaluated (req->deadline_s left 1e12,
 * no draw made). */
static inline int deadline_around(const struct slo_train_setup *s, const int *probe,
                                  struct slo_train_request *req, double a, double b,
                                  struct slo_train_eval *pe)
{
    req->deadline_s = 1e12;
    if (slo_train_evaluate(s, probe, req, pe, NULL) != SLO_OK)
        return -1;
    req->deadline_s = pe->time_s * uni(a, b);
    return 0;
}

#endif
