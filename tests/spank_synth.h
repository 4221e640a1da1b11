/*
 * spank_synth.h - a synthetic catalog and workload for the plugin's tests
 * (tests/test_spank_plan.c, tests/spank_records.c): n identical types, each
 * 2 GPUs at 256 samples per GPU and 1200 samples/s (0.426667 s an
 * iteration alone), quota 1, spot 1.25 USD/h, on-demand 3.912 USD/h (1.25
 * on-prem), no PS contention (B_ps far above n B_req), loss
 * j = g3 sqrt(n) / (L - g5) (gamma1 = gamma2 = 0, spotDNN 2022 form).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SPANK_SYNTH_H
#define SPANK_SYNTH_H

#include <stddef.h>

#include "slo.h"

struct synth {
    struct slo_instance_type types[8];
    struct slo_workload_instance inst[8];
    struct slo_catalog cat;
    struct slo_workload wl;
};

/* n <= 8 types named names[n] at sites[n] (NULL: all cloud); the workload is
 * named wl_name. */
void synth_init(struct synth *s, size_t n, const char *const *names,
                const enum slo_site *sites, const char *wl_name, double g3, double g5);

#endif
