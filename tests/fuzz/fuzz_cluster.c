/* Fuzz the cluster list parser (slo_cluster_parse: "TYPE=N,...", training
 * logs' "# cluster:" and `slo train --existing`). Property: the entries with
 * a count > 0, formatted (slo_cluster_format), parse back to the same
 * entries. */
#include "slo.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *text = fuzz_text(data, size);
    struct slo_cluster c, back;
    slo_error_t err;
    if (slo_cluster_parse(text, &c, &err) == SLO_OK) {
        char buf[8192];
        if (slo_cluster_format(&c, '=', buf, sizeof buf) == 0 && buf[0]) {
            FUZZ_REQUIRE(slo_cluster_parse(buf, &back, &err) == SLO_OK, "\"%s\": %s", buf,
                         err.text);
            size_t k = 0;
            for (size_t i = 0; i < c.n; i++) {
                if (c.entry[i].count <= 0)
                    continue;
                FUZZ_REQUIRE(k < back.n, "entry %zu lost in \"%s\"", i, buf);
                FUZZ_REQUIRE(strcmp(c.entry[i].type, back.entry[k].type) == 0 &&
                                 c.entry[i].count == back.entry[k].count,
                             "entry %zu differs in \"%s\"", i, buf);
                k++;
            }
            FUZZ_REQUIRE(k == back.n, "\"%s\" has more entries", buf);
        }
    }
    free(text);
    return 0;
}
