/*
 * bench_comm.c - rho = T / T_LB of every communication policy on the
 * built-in ResNet-50 and VGG-16 (PipeDream profiles, batch 128) at 1, 3,
 * 10, 25 and 100 Gbit/s, 8 workers, ring allreduce, 20 us per step,
 * serialized collectives; then planning time per iteration of Prophet and
 * the optimal planner on ResNet-50 and on a 1000-gradient model (ResNet-50's
 * layers stacked), at 3 Gbit/s where communication is the bottleneck.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Usage: bench_comm [--latency 20us] [--workers 8] [--collective ring|ps]
 *                   [--in-flight N]
 * Exit status 1 if the optimal planner is not the lowest rho of a cell
 * (ties within 1e-9 allowed) or above 1.03.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slo.h"
#include "slo_comm.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int die(const slo_error_t *err)
{
    fprintf(stderr, "bench_comm: %s: %s\n", err->source, err->text);
    return 1;
}

/* A 1000-gradient model: ResNet-50's layers stacked until 1000 of them
 * carry gradients (same time and size distribution, six times deeper). */
static int stacked(const struct slo_comm_model *base, size_t grads, struct slo_comm_model *m,
                   slo_error_t *err)
{
    size_t n = 0, g = 0, base_g = 0;
    int rc;
    for (size_t j = 0; j < base->n_layers; j++)
        base_g += base->layers[j].grad_bytes > 0;
    n = (grads / base_g + 1) * base->n_layers;
    if ((rc = slo_comm_model_alloc(m, n, err)))
        return rc;
    n = 0;
    while (g < grads)
        for (size_t j = 0; j < base->n_layers && g < grads; j++) {
            m->layers[n++] = base->layers[j];
            g += base->layers[j].grad_bytes > 0;
        }
    m->n_layers = n;
    snprintf(m->name, sizeof m->name, "resnet50-x%zu", (grads + base_g - 1) / base_g);
    return SLO_OK;
}

static int time_policy(const struct slo_comm_model *m, const struct slo_comm_link *link,
                       int policy, double *per_iter_s, slo_error_t *err)
{
    struct slo_comm_result r;
    int reps = 0, rc;
    double t0 = now_s(), t;
    do {
        if ((rc = slo_comm_simulate(m, link, NULL, policy, &r, err)))
            return rc;
        slo_comm_result_free(&r);
        reps++;
        t = now_s() - t0;
    } while (t < 0.2 || reps < 5);
    *per_iter_s = t / reps;
    return SLO_OK;
}

int main(int argc, char **argv)
{
    static const char *models[] = {"resnet50", "vgg16"};
    static const double gbit[] = {1, 3, 10, 25, 100};
    struct slo_comm_link link = {0, 20e-6, 8, SLO_COMM_RING, 1};
    slo_error_t err = {0};
    int bad = 0;

    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--latency")) {
            if (slo_comm_parse_latency(argv[i + 1], &link.latency_s, &err))
                return die(&err);
        } else if (!strcmp(argv[i], "--workers")) {
            link.workers = atoi(argv[i + 1]);
        } else if (!strcmp(argv[i], "--collective")) {
            link.collective = strcmp(argv[i + 1], "ps") == 0 ? SLO_COMM_PS : SLO_COMM_RING;
        } else if (!strcmp(argv[i], "--in-flight")) {
            link.max_in_flight = atoi(argv[i + 1]);
        } else {
            fprintf(stderr, "bench_comm: unknown option %s\n", argv[i]);
            return 2;
        }
    }

    printf("rho = T / T_LB, %d workers, %s, alpha %g us per step, max in flight %d%s\n\n",
           link.workers, slo_comm_collective_name(link.collective), link.latency_s * 1e6,
           link.max_in_flight, link.max_in_flight == 0 ? " (unlimited)" : "");
    printf("%-9s %6s %8s %8s", "model", "Gbit/s", "T_LB ms", "sum c ms");
    for (int p = 0; p < SLO_COMM_N_POLICIES; p++)
        printf(" %8.8s", slo_comm_policy_name(p));
    printf("\n");
    for (size_t mi = 0; mi < 2; mi++) {
        struct slo_comm_model m;
        if (slo_comm_model_builtin(models[mi], &m, &err))
            return die(&err);
        for (size_t b = 0; b < sizeof gbit / sizeof gbit[0]; b++) {
            double lb, seq, comp, rho[SLO_COMM_N_POLICIES], best = 1e300;
            link.bandwidth_bytes_per_s = gbit[b] * 1e9 / 8;
            if (slo_comm_lower_bound(&m, &link, &lb, &seq, &comp, &err))
                return die(&err);
            printf("%-9s %6g %8.1f %8.1f", models[mi], gbit[b], lb * 1e3, (seq - comp) * 1e3);
            for (int p = 0; p < SLO_COMM_N_POLICIES; p++) {
                struct slo_comm_result r;
                if (slo_comm_simulate(&m, &link, NULL, p, &r, &err))
                    return die(&err);
                rho[p] = r.rho;
                if (p != SLO_COMM_OPTIMAL && r.rho < best)
                    best = r.rho;
                printf(" %8.4f", r.rho);
                slo_comm_result_free(&r);
            }
            if (rho[SLO_COMM_OPTIMAL] > best + 1e-9 || rho[SLO_COMM_OPTIMAL] > 1.03) {
                printf("  <- optimal not lowest or above 1.03");
                bad = 1;
            }
            printf("\n");
        }
        slo_comm_model_free(&m);
    }

    printf("\nplanning + simulation time per iteration at 3 Gbit/s (CPU, this machine)\n");
    printf("%-16s %6s %12s %12s\n", "model", "grads", "prophet us", "optimal us");
    {
        struct slo_comm_model ms[2];
        if (slo_comm_model_builtin("resnet50", &ms[0], &err) ||
            stacked(&ms[0], 1000, &ms[1], &err))
            return die(&err);
        link.bandwidth_bytes_per_s = 3e9 / 8; /* communication-bound: the hard case */
        for (int k = 0; k < 2; k++) {
            double tp, to;
            size_t g = 0;
            for (size_t j = 0; j < ms[k].n_layers; j++)
                g += ms[k].layers[j].grad_bytes > 0;
            if (time_policy(&ms[k], &link, SLO_COMM_PROPHET, &tp, &err) ||
                time_policy(&ms[k], &link, SLO_COMM_OPTIMAL, &to, &err))
                return die(&err);
            printf("%-16s %6zu %12.1f %12.1f\n", ms[k].name, g, tp * 1e6, to * 1e6);
            slo_comm_model_free(&ms[k]);
        }
    }
    return bad;
}
