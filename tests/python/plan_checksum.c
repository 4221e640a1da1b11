/*
 * plan_checksum.c - libsloprophet's own checksums of a plan on a gradient
 * list, for tests/test_python_plan.sh to compare with the Python package's
 * (python/slo/plan.py): the plan is read by the kernel (slo_comm_plan_load),
 * the gradient list is the model's layers (slo_comm_model_load), and the
 * runtime maps the plan as slo_prophet_set_plan does (slo__prophet_schedule_map,
 * plan space = the list itself) and checksums it
 * (slo__prophet_grads_checksum, slo__prophet_schedule_checksum).
 * usage: plan_checksum PLAN.json POLICY MODEL.csv
 * prints "grads HEX plan HEX blocks N", or the runtime's error and exit 2.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>

#include "prophet_private.h"
#include "slo_comm.h"

int main(int argc, char **argv)
{
    struct slo_comm_model m = {0};
    struct slo_comm_plan plan = {0};
    struct slo__prophet_schedule s = {0};
    slo_error_t err = {0};
    size_t *g;
    int rc = 2;

    if (argc != 4) {
        fprintf(stderr, "usage: plan_checksum PLAN.json POLICY MODEL.csv\n");
        return 2;
    }
    if (slo_comm_model_load(argv[3], -1, &m, &err) ||
        slo_comm_plan_load(argv[1], argv[2], 4, &plan, &err)) {
        fprintf(stderr, "%s: %s\n", err.source, err.text);
        slo_comm_model_free(&m);
        return 2;
    }
    if (!(g = malloc(m.n_layers * sizeof *g)))
        goto out;
    for (size_t j = 0; j < m.n_layers; j++)
        g[j] = (size_t)m.layers[j].grad_bytes;
    if (slo__prophet_schedule_map(&plan, NULL, g, m.n_layers, 4, &s, &err)) {
        fprintf(stderr, "%s: %s\n", err.source, err.text);
    } else {
        printf("grads %016llx plan %016llx blocks %zu\n",
               (unsigned long long)slo__prophet_grads_checksum(g, m.n_layers, 4),
               (unsigned long long)slo__prophet_schedule_checksum(&s), s.n_blocks);
        rc = 0;
    }
    slo__prophet_schedule_free(&s);
    free(g);
out:
    slo_comm_plan_free(&plan);
    slo_comm_model_free(&m);
    return rc;
}
