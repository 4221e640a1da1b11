/*
 * comm_solve.c - the comm planner's one call (slo_comm_solve): a policy's
 * schedule simulated, rounded to a plan at element granularity, with the
 * lower bound and the status (slo_comm.h, "Simulation and solve").
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_private.h"
#include "slo_private.h"

void slo_comm_options_init(struct slo_comm_options *o)
{
    memset(o, 0, sizeof *o);
    o->policy = SLO_COMM_OPTIMAL;
    o->policy_name = NULL;
    slo_comm_params_default(&o->params);
    o->elem_bytes = 4;
}

void slo_comm_plan_free(struct slo_comm_plan *plan)
{
    if (!plan)
        return;
    free(plan->blocks);
    free(plan->ranges);
    memset(plan, 0, sizeof *plan);
}

uint64_t slo_comm_round_to_elements(double bytes, size_t elem_bytes)
{
    double q, r;
    if (!elem_bytes || !(bytes > 0))
        return 0;
    /* quotient and remainder exactly (bytes < 2^53): floor(x / e + 0.5)
     * rounds x + 0.5 itself at 2^53 - 1 */
    q = floor(bytes / (double)elem_bytes);
    r = bytes - q * (double)elem_bytes;
    if (r < 0)
        q -= 1, r += (double)elem_bytes;
    else if (r >= (double)elem_bytes)
        q += 1, r -= (double)elem_bytes;
    if (2 * r >= (double)elem_bytes)
        q += 1;
    return (uint64_t)q * (uint64_t)elem_bytes;
}

struct by_offset {
    double offset;
    size_t index;
};

static int cmp_offset(const void *a, const void *b)
{
    const struct by_offset *x = a, *y = b;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The rounding rule of slo_comm.h ("Plans") applied to the simulator's
 * messages of result (which tile the buffer of model in doubles). */
static int plan_from_result(const struct slo_comm_model *model, const struct slo_comm_result *r,
                            const char *policy, size_t elem, struct slo_comm_plan *plan,
                            slo_error_t *err)
{
    size_t n = model->n_layers, nm = r->n_messages;
    struct by_offset *sorted = malloc((nm + 1) * sizeof *sorted);
    uint64_t *start = malloc((nm + 1) * sizeof *start), *end = malloc((nm + 1) * sizeof *end);
    uint64_t *L = malloc((n + 1) * sizeof *L);
    size_t *first = malloc((nm + 1) * sizeof *first), *last = malloc((nm + 1) * sizeof *last);
    double o = 0;
    int rc = SLO_OK;

    memset(plan, 0, sizeof *plan);
    plan->blocks = malloc((nm + 1) * sizeof *plan->blocks);
    plan->ranges = malloc((nm + 1) * sizeof *plan->ranges);
    if (!sorted || !start || !end || !L || !first || !last || !plan->blocks || !plan->ranges) {
        rc = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    snprintf(plan->policy, sizeof plan->policy, "%s", policy);
    snprintf(plan->model, sizeof plan->model, "%s", model->name);
    plan->elem_bytes = elem;
    plan->n_layers = n;
    plan->iteration_s = r->iteration_s;
    for (size_t j = 0; j < n; j++) {
        L[j] = slo_comm_round_to_elements(o, elem);
        o += model->layers[j].grad_bytes;
    }
    L[n] = plan->total_bytes = slo_comm_round_to_elements(o, elem);
    if (L[n] == 0) {
        rc = slo__fail(err, SLO_ERR_INVALID, "model",
                       "expected at least half an element (%zu bytes) of gradients for a plan "
                       "of %zu-byte elements, found %.17g bytes", (elem + 1) / 2, elem, o);
        goto out;
    }
    for (size_t k = 0; k < nm; k++)
        sorted[k] = (struct by_offset){r->messages[k].offset_bytes, k};
    qsort(sorted, nm, sizeof *sorted, cmp_offset);
    /* each range ends where the next one (by offset) begins; its layers
     * by one sweep in offset order (both ends only grow), as range_layers
     * would find them */
    for (size_t k = 0, a = 0, z = 0; k < nm; k++) {
        size_t i = sorted[k].index;
        uint64_t s = k == 0 ? 0 : end[sorted[k - 1].index];
        uint64_t e = k + 1 == nm ? L[n] : slo_comm_round_to_elements(sorted[k + 1].offset, elem);
        start[i] = s;
        end[i] = e > s ? e : s;
        if (end[i] == start[i])
            continue;
        while (a + 1 < n && L[a + 1] <= start[i])
            a++; /* first: the last j with L[j] <= lo */
        if (z < a)
            z = a;
        while (z + 1 < n && L[z + 1] < end[i])
            z++; /* last: the last j with L[j] < hi */
        first[i] = a;
        last[i] = z;
    }
    for (size_t k = 0; k < nm;) {
        size_t blk = r->messages[k].block, b = plan->n_blocks;
        struct slo_comm_plan_block *B = &plan->blocks[b];
        B->first_range = plan->n_ranges;
        B->n_ranges = 0;
        B->size_bytes = 0;
        B->first_layer = n;
        B->last_layer = 0;
        B->post_s = r->messages[k].post_s;
        B->start_s = r->messages[k].start_s;
        B->end_s = r->messages[k].end_s;
        B->done_s = r->messages[k].done_s;
        B->hold_layer = n; /* no hold (Prophet's: slo_comm_plan_hold_at_post) */
        for (; k < nm && r->messages[k].block == blk; k++) {
            struct slo_comm_plan_range *R = &plan->ranges[plan->n_ranges];
            if (r->messages[k].end_s > B->end_s)
                B->end_s = r->messages[k].end_s;
            if (end[k] == start[k])
                continue; /* rounds to no bytes: dropped */
            R->block = b;
            R->offset_bytes = start[k];
            R->size_bytes = end[k] - start[k];
            R->first_layer = first[k];
            R->last_layer = last[k];
            if (R->first_layer < B->first_layer)
                B->first_layer = R->first_layer;
            if (R->last_layer > B->last_layer)
                B->last_layer = R->last_layer;
            B->size_bytes += R->size_bytes;
            B->n_ranges++;
            plan->n_ranges++;
        }
        if (B->n_ranges > 0)
            plan->n_blocks++;
    }
    /* Valid by construction (each range ends where the next by offset
     * begins, boundaries are whole elements, the last ends at the rounded
     * total): no slo_comm_plan_check and its second sort here; the property
     * test test_plan_rounding_random checks every policy's plan with it. */
out:
    if (rc)
        slo_comm_plan_free(plan);
    free(sorted);
    free(start);
    free(end);
    free(L);
    free(first);
    free(last);
    return rc;
}

int slo_comm_solve(const struct slo_comm_problem *problem, const struct slo_comm_options *options,
                   struct slo_comm_result *result, slo_error_t *err)
{
    struct slo_comm_options defaults;
    int policy, rc;

    if (!result)
        return slo__fail(err, SLO_ERR_INVALID, "result", "expected a result to fill, found NULL");
    memset(result, 0, sizeof *result);
    if (!options) {
        slo_comm_options_init(&defaults);
        options = &defaults;
    }
    if (!problem || !problem->model || !problem->link)
        return slo__fail(err, SLO_ERR_INVALID, "problem",
                         "expected a model and a link, found %s missing",
                         !problem ? "the problem" : !problem->model ? "the model" : "the link");
    policy = options->policy;
    if (options->policy_name) {
        policy = slo_comm_policy_find(options->policy_name);
        if (policy < 0) {
            char names[256] = "";
            for (int p = 0; p < SLO_COMM_N_POLICIES; p++) {
                size_t used = strlen(names);
                snprintf(names + used, sizeof names - used, "%s%s", p ? ", " : "",
                         slo_comm_policy_name(p));
            }
            return slo__fail(err, SLO_ERR_INVALID, "policy", "expected one of %s, found \"%s\"",
                             names, options->policy_name);
        }
    }
    if (options->elem_bytes < 1)
        return slo__fail(err, SLO_ERR_INVALID, "elem_bytes",
                         "expected an element size >= 1 byte, found 0");
    if ((rc = slo_comm_simulate(problem->model, problem->link, &options->params, policy, result,
                                err)))
        return rc;
    if ((rc = plan_from_result(problem->model, result, slo_comm_policy_name(policy),
                               options->elem_bytes, &result->plan, err)) ||
        (policy == SLO_COMM_PROPHET &&
         (rc = slo_comm_plan_hold_at_post(&result->plan, problem->model, err)))) {
        slo_comm_result_free(result);
        return rc;
    }
    if (result->iteration_s <= result->lower_bound_s * (1 + 1e-12)) {
        result->status = SLO_STATUS_OPTIMAL;
        result->reason[0] = '\0';
    } else {
        result->status = SLO_STATUS_FEASIBLE_UNPROVEN;
        snprintf(result->reason, sizeof result->reason,
                 "period T = %.6g s is above the perfect-overlap lower bound T_LB = %.6g s "
                 "(rho = %.6g); no proof that a faster plan does not exist",
                 result->iteration_s, result->lower_bound_s, result->rho);
    }
    return SLO_OK;
}
