/*
 * mpiprof_topo.c - the hwloc view of one node for slo-mpiprof: cores, NUMA
 * nodes, GPUs and NICs (hwloc OS devices) with their PCI bus ids and the
 * PCIe bridge they hang under (doc/mpiprof.md, "nodes[].topology").
 * hwloc 2.x API (hwloc.h: hwloc_topology_set_io_types_filter,
 * HWLOC_OBJ_OSDEV_*, obj->attr->pcidev / ->bridge).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>

#include "mpiprof.h"

#ifdef SLO_HAVE_HWLOC
#include <hwloc.h>

static void busid(hwloc_obj_t pci, char *buf, size_t len)
{
    snprintf(buf, len, "%04x:%02x:%02x.%01x", pci->attr->pcidev.domain, pci->attr->pcidev.bus,
             pci->attr->pcidev.dev, pci->attr->pcidev.func);
}

/* The topmost PCI-to-PCI bridge above obj (a root port or the upstream port
 * of a switch): devices that share it share the PCIe path to the host. */
static hwloc_obj_t top_pci_bridge(hwloc_obj_t obj)
{
    hwloc_obj_t top = NULL;
    for (hwloc_obj_t p = obj->parent; p; p = p->parent)
        if (p->type == HWLOC_OBJ_BRIDGE && p->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI)
            top = p;
    return top;
}

static hwloc_obj_t pci_parent(hwloc_obj_t obj)
{
    for (hwloc_obj_t p = obj->parent; p; p = p->parent)
        if (p->type == HWLOC_OBJ_PCI_DEVICE)
            return p;
    return NULL;
}

/* Link speed of a network interface from sysfs, bytes/s, or -1. */
static double nic_speed(const char *name)
{
    char path[256];
    long mbit = -1;
    FILE *f;
    snprintf(path, sizeof path, "/sys/class/net/%s/speed", name);
    if (!(f = fopen(path, "r")))
        return -1;
    if (fscanf(f, "%ld", &mbit) != 1)
        mbit = -1;
    fclose(f);
    return mbit > 0 ? mbit * 1e6 / 8 : -1;
}

static json_t *device(hwloc_obj_t os, int nic)
{
    hwloc_obj_t pci = pci_parent(os), br = top_pci_bridge(os);
    char id[32] = "", bid[32] = "";
    json_t *d;
    const char *sub = hwloc_obj_get_info_by_name(os, "Backend");
    if (pci)
        busid(pci, id, sizeof id);
    if (br && br->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI)
        snprintf(bid, sizeof bid, "%04x:%02x:%02x.%01x", br->attr->bridge.upstream.pci.domain,
                 br->attr->bridge.upstream.pci.bus, br->attr->bridge.upstream.pci.dev,
                 br->attr->bridge.upstream.pci.func);
    d = json_pack("{s:s,s:s,s:o,s:o}", "name", os->name ? os->name : "", "backend",
                  sub ? sub : "", "pci_busid", pci ? json_string(id) : json_null(),
                  "pcie_bridge", br ? json_string(bid) : json_null());
    if (d && nic) {
        double sp = nic_speed(os->name ? os->name : "");
        json_object_set_new(d, "speed_bytes_per_s", sp > 0 ? json_real(sp) : json_null());
    }
    return d;
}

json_t *mpiprof_topology(void)
{
    hwloc_topology_t topo;
    json_t *t, *gpus, *nics, *groups;
    hwloc_obj_t os = NULL;

    if (hwloc_topology_init(&topo))
        return json_pack("{s:b,s:s}", "available", 0, "reason", "hwloc_topology_init failed");
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(topo)) {
        hwloc_topology_destroy(topo);
        return json_pack("{s:b,s:s}", "available", 0, "reason", "hwloc_topology_load failed");
    }
    gpus = json_array();
    nics = json_array();
    groups = json_object();
    while ((os = hwloc_get_next_osdev(topo, os))) {
        int is_gpu = os->attr->osdev.type == HWLOC_OBJ_OSDEV_GPU ||
                     os->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC;
        int is_nic = os->attr->osdev.type == HWLOC_OBJ_OSDEV_NETWORK ||
                     os->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS;
        json_t *d, *br;
        if (!is_gpu && !is_nic)
            continue;
        d = device(os, is_nic);
        if (!d)
            continue;
        br = json_object_get(d, "pcie_bridge");
        if (json_is_string(br)) {
            json_t *g = json_object_get(groups, json_string_value(br));
            if (!g) {
                g = json_array();
                json_object_set_new(groups, json_string_value(br), g);
            }
            json_array_append_new(g, json_string(os->name ? os->name : ""));
        }
        json_array_append_new(is_gpu ? gpus : nics, d);
    }
    {
        /* bridges under which two or more GPUs / NICs sit */
        json_t *shared = json_array(), *v;
        const char *k;
        json_object_foreach(groups, k, v) {
            if (json_array_size(v) >= 2)
                json_array_append_new(shared, json_pack("{s:s,s:O}", "pcie_bridge", k,
                                                        "devices", v));
        }
        json_decref(groups);
        t = json_pack("{s:b,s:s,s:i,s:i,s:i,s:i,s:o,s:o,s:o}", "available", 1, "hwloc_version",
                      HWLOC_VERSION, "packages",
                      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), "cores",
                      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), "pus",
                      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU), "numa_nodes",
                      hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), "gpus", gpus, "nics",
                      nics, "shared_pcie_bridges", shared);
    }
    hwloc_topology_destroy(topo);
    return t;
}

void mpiprof_binding(char *buf, size_t len)
{
    hwloc_topology_t topo;
    hwloc_bitmap_t set;
    snprintf(buf, len, "unknown");
    if (hwloc_topology_init(&topo))
        return;
    if (!hwloc_topology_load(topo) && (set = hwloc_bitmap_alloc())) {
        if (!hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS))
            hwloc_bitmap_list_snprintf(buf, len, set);
        hwloc_bitmap_free(set);
    }
    hwloc_topology_destroy(topo);
}

#else /* no hwloc */

json_t *mpiprof_topology(void)
{
    return json_pack("{s:b,s:s}", "available", 0, "reason",
                     "built without hwloc (configure --with-hwloc; Debian: libhwloc-dev)");
}

void mpiprof_binding(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
}

#endif
