/* Fuzz slo-power's fake node table (power/nodes.c: power_node_info_file,
 * lines "NAME FEATURES", NAME a Slurm hostlist) and the node mapping
 * (power_map_nodes, power_group_nodes) against the test cluster's catalog
 * shape. Properties: every entry read has a non-empty name; the groups
 * partition exactly the nodes mapped. */
#include "power.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    const char *path = fuzz_file(data, size, ".nodes");
    struct power_node_info *info = NULL;
    size_t n = 0;
    char err[1024] = "";
    if (power_node_info_file(path, &info, &n, err, sizeof err) == 0) {
        size_t m = n < 64 ? n : 64;
        struct power_node *nodes = calloc(m ? m : 1, sizeof *nodes);
        struct slo_catalog cat = {0};
        slo_error_t e;
        if (!nodes || slo_catalog_parse(slo_embedded_catalog("aws-table3"), "aws", &cat, &e))
            abort();
        for (size_t i = 0; i < n; i++)
            FUZZ_REQUIRE(info[i].name[0], "entry %zu has no name", i);
        for (size_t i = 0; i < m; i++)
            memcpy(nodes[i].name, info[i].name, sizeof nodes[i].name);
        size_t mapped = power_map_nodes(&cat, info, n, nodes, m, 0, "fuzz");
        struct power_groups g = {0};
        if (power_group_nodes(nodes, m, &g) == 0) {
            FUZZ_REQUIRE(g.start[g.n_groups] == mapped, "groups hold %zu nodes, %zu mapped",
                         g.start[g.n_groups], mapped);
            for (size_t k = 0; k < mapped; k++)
                FUZZ_REQUIRE(g.idx[k] < m && !nodes[g.idx[k]].failed, "group entry %zu", k);
        }
        power_groups_free(&g);
        slo_catalog_free(&cat);
        free(nodes);
    } else {
        FUZZ_REQUIRE(err[0], "node table refused without a message");
    }
    free(info);
    return 0;
}
