/* Fuzz slo-power's configuration reader (power/config.c: power_config_parse;
 * slo-power(8)). Property: a refused file leaves a message; an accepted one
 * has a known provider and an aws timeout in its documented range. */
#include "power.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    char *text = fuzz_text(data, size);
    static struct power_config cfg;
    char err[1024] = "";
    if (power_config_parse(text, "fuzz.conf", &cfg, err, sizeof err) != 0)
        FUZZ_REQUIRE(err[0], "config refused without a message");
    else
        FUZZ_REQUIRE(power_provider_name(cfg.provider) != NULL &&
                         cfg.aws_timeout_s >= 1 && cfg.aws_timeout_s <= 3600,
                     "provider %d, aws_timeout_s %g", (int)cfg.provider, cfg.aws_timeout_s);
    free(text);
    return 0;
}
