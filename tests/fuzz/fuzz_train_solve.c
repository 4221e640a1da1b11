/* Fuzz the training planner's inputs: a first line "LOSS DEADLINE_S
 * BUDGET_USD" (the SLO) and a workload profile (slo_workload_parse), planned
 * on the built-in spotdnn-resnet110 catalog with spot prices
 * (slo_train_solve, exact search with a small node budget). Property: a
 * feasible plan is verified - re-evaluated independently of the search
 * (slo_train_evaluate of its counts) it meets the deadline and the budget and
 * gives the time and cost the plan reports (spotDNN Eqs. 1, 11). */
#include <math.h>
#include "slo.h"
#include "fuzz.h"

static struct slo_catalog cat;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    slo_error_t err;
    if (!cat.n_types && slo_catalog_parse(slo_embedded_catalog("spotdnn-resnet110"),
                                          "embedded:spotdnn-resnet110", &cat, &err))
        abort();
    if (size > FUZZ_MAX_INPUT)
        return 0;
    char *text = fuzz_text(data, size);
    char *body = strchr(text, '\n');
    double loss, deadline, budget;
    if (!body || sscanf(text, "%lf %lf %lf", &loss, &deadline, &budget) != 3) {
        free(text);
        return 0;
    }
    struct slo_workload wl = {0};
    if (slo_workload_parse(body + 1, "fuzz", &wl, &err) == SLO_OK) {
        struct slo_train_problem pb = {&cat, &wl, SLO_PRICING_SPOT, loss, deadline, budget,
                                       0, 0, 0, NULL};
        struct slo_train_options opt;
        struct slo_train_result res = {0};
        slo_train_options_init(&opt);
        opt.node_limit = 20000;
        opt.max_workers = 32;
        if (slo_train_solve(&pb, &opt, &res, &err) == SLO_OK && slo_status_feasible(res.status)) {
            struct slo_train_request req = {loss, res.remaining_s, budget, 0, res.overhead_s,
                                            res.existing, 0, opt.max_workers};
            struct slo_train_eval ev;
            int rc = slo_train_evaluate(&res.setup, res.plan.counts, &req, &ev, &err);
            FUZZ_REQUIRE(rc == SLO_OK, "plan does not evaluate: %s", err.text);
            FUZZ_REQUIRE(ev.time_s <= deadline * (1 + 1e-9), "plan takes %.17g s > %.17g s",
                         ev.time_s, deadline);
            FUZZ_REQUIRE(budget <= 0 || ev.cost_usd <= budget * (1 + 1e-9),
                         "plan costs %.17g > budget %.17g", ev.cost_usd, budget);
            FUZZ_REQUIRE(fabs(ev.time_s - res.plan.eval.time_s) <= 1e-9 * fmax(1, ev.time_s) &&
                             fabs(ev.cost_usd - res.plan.eval.cost_usd) <=
                                 1e-9 * fmax(1, ev.cost_usd),
                         "plan reports %.17g s %.17g USD, evaluates to %.17g s %.17g USD",
                         res.plan.eval.time_s, res.plan.eval.cost_usd, ev.time_s, ev.cost_usd);
            int workers = 0;
            for (size_t k = 0; k < res.setup.n_types; k++)
                workers += res.plan.counts[k];
            FUZZ_REQUIRE(workers >= 1 && workers <= opt.max_workers, "%d workers", workers);
        }
        slo_train_result_free(&res);
    }
    slo_workload_free(&wl);
    free(text);
    return 0;
}
