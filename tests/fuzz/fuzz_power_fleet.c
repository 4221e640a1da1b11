/* Fuzz slo-power's reading of an EC2 CreateFleet response (power/ec2.c:
 * power_ec2_assign, the aws CLI's JSON). Properties: it returns -1 (with a
 * message) or the number of nodes given an instance (0..3 of 3); those nodes
 * have an instance id, the others are marked failed with a reason; extra is
 * an array of the ids beyond the nodes. */
#include "power.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    json_error_t je;
    json_t *resp = json_loadb((const char *)data, size, 0, &je);
    if (!resp)
        return 0;
    struct power_node nodes[3];
    memset(nodes, 0, sizeof nodes);
    for (int i = 0; i < 3; i++) {
        snprintf(nodes[i].name, sizeof nodes[i].name, "c%d", i + 1);
        strcpy(nodes[i].type, "p3.2xlarge");
        nodes[i].capacity = POWER_SPOT;
    }
    const size_t idx[3] = {0, 1, 2};
    json_t *extra = NULL;
    char err[1024] = "";
    int k = power_ec2_assign(resp, nodes, idx, 3, &extra, err, sizeof err);
    if (k < 0) {
        FUZZ_REQUIRE(k == -1 && err[0], "refused (%d) without a message", k);
    } else {
        FUZZ_REQUIRE(k <= 3, "%d nodes assigned of 3", k);
        for (int i = 0; i < 3; i++)
            FUZZ_REQUIRE(i < k ? (nodes[i].instance_id[0] && !nodes[i].failed)
                               : (nodes[i].failed && nodes[i].reason[0]),
                         "node %d", i);
        FUZZ_REQUIRE(json_is_array(extra), "extra not an array");
    }
    json_decref(extra);
    json_decref(resp);
    return 0;
}
