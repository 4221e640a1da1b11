/* Fuzz the value parsers of options: durations (slo_parse_duration, sbatch
 * --time forms), bandwidths and latencies (slo_comm_parse_bandwidth,
 * slo_comm_parse_latency). Properties: each accepted value is finite and in
 * its documented range (duration in (0, 366 d]; bandwidth 1 .. 1e14 B/s;
 * latency 0 .. 1 s); a duration of 1 s or more formatted as [D-]HH:MM:SS
 * reads back as a whole second within 0.5 s of it. */
#include <math.h>
#include "slo.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 256)
        return 0;
    char *text = fuzz_text(data, size);
    slo_error_t err;
    double v;
    int bare;
    if (slo_parse_duration(text, &v, &bare, &err) == SLO_OK) {
        FUZZ_REQUIRE(isfinite(v) && v > 0 && v <= 366.0 * 86400, "duration %g", v);
        char buf[64];
        double back;
        slo_format_duration(v, buf, sizeof buf);
        if (v >= 1) {
            FUZZ_REQUIRE(slo_parse_duration(buf, &back, NULL, &err) == SLO_OK,
                         "formatted \"%s\" of %g refused: %s", buf, v, err.text);
            FUZZ_REQUIRE(fabs(back - v) <= 0.5 && back == floor(back),
                         "\"%s\" reads %.17g, expected %.17g rounded to a second", buf, back, v);
        }
    }
    if (slo_comm_parse_bandwidth(text, &v, &err) == SLO_OK)
        FUZZ_REQUIRE(v >= SLO_COMM_MIN_BANDWIDTH_BYTES_PER_S &&
                         v <= SLO_COMM_MAX_BANDWIDTH_BYTES_PER_S,
                     "bandwidth %g", v);
    if (slo_comm_parse_latency(text, &v, &err) == SLO_OK)
        FUZZ_REQUIRE(v >= 0 && v <= SLO_COMM_MAX_LATENCY_S, "latency %g", v);
    free(text);
    return 0;
}
