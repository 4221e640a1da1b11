/* Fuzz the slo-mpiprof document readers (doc/mpiprof.md): the link reader
 * slo_comm_profile_parse, the validator slo_comm_profile_check and spotDNN's
 * B_ps reader slo_profile_ps_bandwidth. Properties: a link read passes
 * slo_comm_link_check; a B_ps read is finite and > 0. */
#include <math.h>
#include "slo.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    char *text = fuzz_text(data, size);
    struct slo_comm_link link;
    struct slo_comm_profile_info info;
    slo_error_t err;
    int world = 0;
    double bps;
    if (slo_comm_profile_parse(text, "fuzz", &link, &info, &err) == SLO_OK)
        FUZZ_REQUIRE(slo_comm_link_check(&link, &err) == SLO_OK, "link read: %s: %s",
                     err.source, err.text);
    if (slo_comm_profile_check(text, "fuzz", &world, &err) == SLO_OK)
        FUZZ_REQUIRE(world >= 1, "world size %d", world);
    if (slo_profile_ps_bandwidth(text, "fuzz", &bps, &err) == SLO_OK)
        FUZZ_REQUIRE(isfinite(bps) && bps > 0, "B_ps %g", bps);
    free(text);
    return 0;
}
