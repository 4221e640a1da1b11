/* Fuzz the per-worker training log reader (slo_train_log_load, a path;
 * doc/formats.md "Training logs"). Properties (its documented contract):
 * every value read is finite, global_step never decreases, the cluster
 * spec it kept parses as a cluster list. */
#include <math.h>
#include "slo.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    const char *path = fuzz_file(data, size, ".csv");
    struct slo_train_log log = {0};
    slo_error_t err;
    if (slo_train_log_load(path, &log, &err) == SLO_OK) {
        for (size_t i = 0; i < log.n_rows; i++) {
            FUZZ_REQUIRE(isfinite(log.time_s[i]) && isfinite(log.global_step[i]) &&
                             isfinite(log.global_samples[i]) && isfinite(log.loss[i]),
                         "row %zu not finite", i);
            FUZZ_REQUIRE(i == 0 || log.global_step[i] >= log.global_step[i - 1],
                         "global_step decreases at row %zu", i);
        }
        struct slo_cluster c;
        FUZZ_REQUIRE(slo_cluster_parse(log.cluster, &c, &err) == SLO_OK,
                     "kept cluster \"%s\" does not parse: %s", log.cluster, err.text);
    }
    slo_train_log_free(&log);
    return 0;
}
