/*
 * comm_private.h - internals shared by the comm_*.c modules of libslo (the
 * communication simulator and its policies); not installed.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_COMM_PRIVATE_H
#define SLO_COMM_PRIVATE_H

#include <stddef.h>

#include "comm_oracle.h"
#include "slo_comm.h"

/*
 * The transport of slo_comm.h's header comment: a FIFO queue in front of
 * one link. A message posted at post_s starts at
 *   S = max(post_s, end of the previous message, done of the message
 *           max_in_flight places earlier)       (window; 0 = unlimited)
 * leaves the link at E = S + beta bytes and completes at
 *   ring: D = E + A;   PS: D = max(E, previous pull end) + beta bytes + A.
 */
struct comm_transport {
    double beta_s_per_byte; /* w / B */
    double latency_s;       /* A */
    int window;             /* max_in_flight, 0 = unlimited */
    int ps;
    double link_free_s;
    double pull_free_s;
    double *done_s; /* done times of posted messages, in post order */
    size_t n, cap;
};

void comm_transport_init(struct comm_transport *t, const struct slo_comm_link *link);
void comm_transport_free(struct comm_transport *t);
/* Room for one more done time in t->done_s. SLO_ERR_NOMEM only. */
int comm_transport_grow(struct comm_transport *t, slo_error_t *err);

/* Earliest start of a message posted now or later (queue and window).
 * Inline (with comm_transport_post): the optimal planner posts thousands
 * of trial messages per plan. */
static inline double comm_transport_avail(const struct comm_transport *t)
{
    double a = t->link_free_s;
    if (t->window > 0 && t->n >= (size_t)t->window) {
        double d = t->done_s[t->n - (size_t)t->window];
        if (d > a)
            a = d;
    }
    return a;
}

/* Post one message; fills start/end/done. SLO_ERR_NOMEM only. */
static inline int comm_transport_post(struct comm_transport *t, double post_s, double bytes,
                                      double *start_s, double *end_s, double *done_s,
                                      slo_error_t *err)
{
    double s = comm_transport_avail(t), e, d;
    int rc;

    if (t->n == t->cap && (rc = comm_transport_grow(t, err)))
        return rc;
    if (post_s > s)
        s = post_s;
    e = s + t->beta_s_per_byte * bytes;
    if (t->ps) {
        /* pull on the other direction, FIFO behind earlier pulls */
        double p = e > t->pull_free_s ? e : t->pull_free_s;
        t->pull_free_s = p + t->beta_s_per_byte * bytes;
        d = t->pull_free_s + t->latency_s;
    } else {
        d = e + t->latency_s;
    }
    t->link_free_s = e;
    t->done_s[t->n++] = d;
    *start_s = s;
    *end_s = e;
    *done_s = d;
    return SLO_OK;
}

/* Simulation state, visible to policies. */
struct comm_sim {
    const struct slo_comm_model *model;
    const struct slo_comm_link *link;
    const struct slo_comm_params *params;
    int full_scan;     /* comm_oracle.h: the optimal planner's shortcuts off */
    size_t n;          /* layers */
    double *offset;    /* [n+1] o_j: first byte of layer j; offset[n] = total bytes */
    double *ready_s;   /* [n] r_j, non-increasing in j */
    double *tail_s;    /* [n] Fs_j = sum_{m>=j} f_m */
    double backward_s; /* Bw */
    double forward_s;  /* F */
    struct comm_transport tr;
    size_t n_msg, cap_msg, n_blocks;
    struct slo_comm_message *msg;
    double *remaining; /* [n] bytes of layer j not yet complete */
    double *done_s;    /* [n] */
    size_t n_open;     /* layers with remaining bytes */
    double now;
    double wake_s;     /* set by a policy's step: call me again then (INFINITY: no) */
    size_t layer_hint; /* layer of the last posted range (comm_post_block) */
};

/* Post bytes [offset, offset+bytes) now as one collective. */
int comm_post(struct comm_sim *s, double offset, double bytes, slo_error_t *err);
/* Post n ranges now as one collective (latency paid once). */
int comm_post_block(struct comm_sim *s, size_t n, const double *offset, const double *bytes,
                    slo_error_t *err);
/* 1 when a message posted now would start now (queue empty, window open). */
int comm_link_idle(const struct comm_sim *s);
/* Ask to be stepped again at time t (keeps the earliest request). */
void comm_wake_at(struct comm_sim *s, double t);
/* Bytes of layer j. */
double comm_bytes(const struct comm_sim *s, size_t j);

/* A policy: init may allocate *state; step is called at time 0 and at every
 * event (a gradient ready, a message done, a requested wake-up) after
 * completions were processed; done is called once per completed message. */
struct comm_policy_ops {
    const char *name;
    const char *summary;
    int barrier;
    int (*init)(struct comm_sim *s, void **state, slo_error_t *err);
    int (*step)(struct comm_sim *s, void *state, slo_error_t *err);
    void (*done)(struct comm_sim *s, void *state, const struct slo_comm_message *m);
    void (*fini)(void *state);
};

const struct comm_policy_ops *comm_policy_ops(int policy);
const struct comm_policy_ops *comm_baseline_ops(int policy); /* comm_policies.c */
const struct comm_policy_ops *comm_prophet_ops(void);        /* comm_prophet.c */
const struct comm_policy_ops *comm_optimal_ops(void);        /* comm_optimal.c */


#endif
