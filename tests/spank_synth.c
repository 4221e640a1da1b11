/*
 * spank_synth.c - the plugin tests' synthetic catalog and workload
 * (spank_synth.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "spank_synth.h"

void synth_init(struct synth *s, size_t n, const char *const *names,
                const enum slo_site *sites, const char *wl_name, double g3, double g5)
{
    memset(s, 0, sizeof *s);
    snprintf(s->wl.name, sizeof s->wl.name, "%s", wl_name);
    for (size_t k = 0; k < n; k++) {
        struct slo_instance_type *t = &s->types[k];
        snprintf(t->name, sizeof t->name, "%s", names[k]);
        snprintf(t->gpu_model, sizeof t->gpu_model, "T4");
        t->gpus = 2;
        t->site = sites ? sites[k] : SLO_SITE_CLOUD;
        t->spot_usd_per_h = 1.25;
        t->on_demand_usd_per_h = t->site == SLO_SITE_ONPREM ? 1.25 : 3.912;
        t->quota = 1;
        snprintf(s->inst[k].type, sizeof s->inst[k].type, "%s", names[k]);
        s->inst[k].batch_per_gpu = 256;
        s->inst[k].speed = 1200;
    }
    s->cat.n_types = n;
    s->cat.types = s->types;
    s->wl.s_parm_mb = 10;
    s->wl.b_req_mbps = 100;
    s->wl.b_ps_mbps = 1e6;
    s->wl.b_pcie_mbps = 10000;
    s->wl.alpha1 = 0.5;
    s->wl.beta1 = -1.2;
    s->wl.compat = SLO_COMPAT_PAPER;
    s->wl.loss.form = SLO_LOSS_SPOTDNN_2022;
    s->wl.loss.gamma3 = g3;
    s->wl.loss.gamma5 = g5;
    s->wl.n_instances = n;
    s->wl.instances = s->inst;
}
