/* Fuzz slo-power's hostlist handling (power/nodes.c: power_hostlist_expand
 * with libslurm's slurm_hostlist_*, power_hostlist_ranged). Property: the
 * ranged form of the names expands back to the same names in order. */
#include "power.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1024)
        return 0;
    char *text = fuzz_text(data, size);
    struct power_node *nodes = NULL, *back = NULL;
    size_t n = 0, nb = 0;
    char err[1024] = "";
    if (power_hostlist_expand(text, &nodes, &n, err, sizeof err) == 0 && n <= 4096) {
        size_t *idx = malloc(n * sizeof *idx);
        static char ranged[1 << 16];
        if (!idx)
            abort();
        for (size_t i = 0; i < n; i++)
            idx[i] = i;
        if (power_hostlist_ranged(nodes, idx, n, ranged, sizeof ranged) == 0) {
            FUZZ_REQUIRE(power_hostlist_expand(ranged, &back, &nb, err, sizeof err) == 0,
                         "ranged \"%s\" refused: %s", ranged, err);
            FUZZ_REQUIRE(nb == n, "\"%s\": %zu names, expected %zu", ranged, nb, n);
            for (size_t i = 0; i < n; i++)
                FUZZ_REQUIRE(strcmp(nodes[i].name, back[i].name) == 0, "name %zu: %s vs %s", i,
                             nodes[i].name, back[i].name);
        }
        free(idx);
    }
    free(back);
    free(nodes);
    free(text);
    return 0;
}
