/*
 * defaults.c - which embedded catalog goes with which embedded workload.
 * The embedded JSON itself is generated from etc/slo/ (kernel/embedded.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "slo.h"

const char *slo_embedded_default_catalog(const char *workload)
{
    /* The ResNet-110 profile covers exactly the authors' five instance types. */
    (void)workload;
    return "spotdnn-resnet110";
}
