/* Fuzz the SPANK plugin's plugstack.conf arguments and --slo-* option values
 * (spank_plugin/args.c: sslo_config_parse, sslo_option_parse; spank_slo(8)).
 * Input: one argument per line; a line "@N TEXT" is instead the value TEXT of
 * option id N (1..6). Properties: a parse that fails leaves a message; an
 * accepted max_nodes is 1..SSLO_MAX_NODES_LIMIT; an accepted loss and budget are
 * finite and > 0, a deadline > 0. The plugin must never crash sbatch. */
#include <math.h>
#include "slo.h"
#include "args.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    char *text = fuzz_text(data, size);
    char *av[64];
    int ac = 0;
    struct sslo_options o;
    memset(&o, 0, sizeof o);
    char msg[1024];
    for (char *line = text, *next; line && ac < 64; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (line[0] == '@' && line[1] >= '0' && line[1] <= '9' && line[2] == ' ') {
            msg[0] = '\0';
            if (sslo_option_parse(&o, line[1] - '0', line + 3, msg, sizeof msg) != 0)
                FUZZ_REQUIRE(msg[0], "option %c refused without a message", line[1]);
        } else {
            av[ac++] = line;
        }
    }
    struct sslo_config cfg;
    msg[0] = '\0';
    if (sslo_config_parse(&cfg, ac, av, msg, sizeof msg) != 0)
        FUZZ_REQUIRE(msg[0], "plugstack arguments refused without a message");
    else
        FUZZ_REQUIRE(cfg.max_nodes >= 1 && cfg.max_nodes <= SSLO_MAX_NODES_LIMIT, "max_nodes %d",
                     cfg.max_nodes);
    if (o.have_loss)
        FUZZ_REQUIRE(isfinite(o.loss) && o.loss > 0, "loss %g", o.loss);
    if (o.have_budget)
        FUZZ_REQUIRE(isfinite(o.budget_usd) && o.budget_usd > 0, "budget %g", o.budget_usd);
    if (o.have_time)
        FUZZ_REQUIRE(isfinite(o.time_s) && o.time_s > 0, "time %g", o.time_s);
    free(text);
    return 0;
}
