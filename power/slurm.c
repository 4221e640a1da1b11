/*
 * slurm.c - slo-power's calls into slurmctld through libslurm: the node table
 * (slurm_load_node) and node updates (slurm_update_node), the same requests
 * `scontrol show node` and `scontrol update nodename=...` send.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "power.h"

#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

static int update(update_node_msg_t *msg, const char *what, char *err, size_t errlen)
{
    if (slurm_update_node(msg) != SLURM_SUCCESS) {
        int e = slurm_get_errno();
        snprintf(err, errlen, "slurm_update_node %s %s: %s", msg->node_names, what,
                 slurm_strerror(e));
        return -1;
    }
    return 0;
}

static int real_set_addr(void *arg, const char *node, const char *addr, const char *hostname,
                         char *err, size_t errlen)
{
    (void)arg;
    update_node_msg_t msg;
    slurm_init_update_node_msg(&msg);
    msg.node_names = (char *)node;
    msg.node_addr = (char *)addr;
    msg.node_hostname = (char *)hostname;
    return update(&msg, "nodeaddr/nodehostname", err, errlen);
}

static int real_power_down(void *arg, const char *node, const char *reason, char *err,
                           size_t errlen)
{
    (void)arg;
    update_node_msg_t msg;
    slurm_init_update_node_msg(&msg);
    msg.node_names = (char *)node;
    /* scontrol's state=POWER_DOWN_FORCE (src/scontrol/update_node.c): the jobs
     * on the node are requeued and the node returns to idle~ after
     * SuspendTimeout, instead of staying DOWN. */
    msg.node_state = NODE_STATE_POWER_DOWN | NODE_STATE_POWERED_DOWN;
    msg.reason = (char *)reason;
    return update(&msg, "state=POWER_DOWN_FORCE", err, errlen);
}

const struct power_slurm_ops power_slurm_real = {
    .set_addr = real_set_addr,
    .power_down = real_power_down,
    .arg = NULL,
};

int power_slurm_load_nodes(struct power_node_info **out, size_t *n, char *err, size_t errlen)
{
    node_info_msg_t *msg = NULL;
    *out = NULL;
    *n = 0;
    /* SHOW_ALL: powered-down CLOUD nodes are hidden otherwise (unless
     * PrivateData=cloud), and those are the ones we are asked to resume. */
    if (slurm_load_node((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
        snprintf(err, errlen, "slurm_load_node: %s", slurm_strerror(slurm_get_errno()));
        return -1;
    }
    struct power_node_info *info = calloc(msg->record_count ? msg->record_count : 1,
                                          sizeof *info);
    if (!info) {
        slurm_free_node_info_msg(msg);
        snprintf(err, errlen, "slurm_load_node: out of memory");
        return -1;
    }
    size_t k = 0;
    for (uint32_t i = 0; i < msg->record_count; i++) {
        const node_info_t *nd = &msg->node_array[i];
        if (!nd->name)
            continue;
        snprintf(info[k].name, sizeof info[k].name, "%s", nd->name);
        snprintf(info[k].features, sizeof info[k].features, "%s",
                 nd->features ? nd->features : "");
        k++;
    }
    slurm_free_node_info_msg(msg);
    *out = info;
    *n = k;
    return 0;
}
