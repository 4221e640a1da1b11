/* Fuzz the gradient communication model readers (slo_comm_model_parse:
 * per-layer CSV or gradient ready-time file; doc/comm.md) and plan every
 * model read (slo_comm_solve, the optimal planner and Prophet on a 10 Gbit/s
 * ring of 4 workers). Properties: the model passes slo_comm_model_check; each
 * plan passes slo_comm_plan_check, its period is >= the proven lower bound
 * (notes 5) and its JSON reads back (slo_comm_plan_parse) to the same JSON. */
#include <math.h>
#include "slo.h"
#include "fuzz.h"

static void plan_one(const struct slo_comm_model *m, int policy)
{
    struct slo_comm_link link = {1.25e9, 20e-6, 4, SLO_COMM_RING, 1};
    struct slo_comm_problem pb = {m, &link};
    struct slo_comm_options opt;
    struct slo_comm_result res = {0};
    struct slo_comm_plan back = {0};
    slo_error_t err;
    char *json = NULL, *json2 = NULL;
    slo_comm_options_init(&opt);
    opt.policy = policy;
    int rc = slo_comm_solve(&pb, &opt, &res, &err);
    if (rc != SLO_OK) {
        /* too many messages for a policy's chunking is documented */
        FUZZ_REQUIRE(rc == SLO_ERR_INVALID, "solve: %d %s: %s", rc, err.source, err.text);
        return;
    }
    FUZZ_REQUIRE(slo_comm_plan_check(&res.plan, &err) == SLO_OK, "plan: %s", err.text);
    FUZZ_REQUIRE(res.iteration_s >= res.lower_bound_s * (1 - 1e-9),
                 "period %.17g below the lower bound %.17g", res.iteration_s, res.lower_bound_s);
    FUZZ_REQUIRE(slo_comm_plan_to_json(&res.plan, &json, &err) == SLO_OK, "json: %s", err.text);
    FUZZ_REQUIRE(slo_comm_plan_parse(json, "fuzz:plan", NULL, res.plan.elem_bytes, &back, &err) ==
                     SLO_OK,
                 "written plan refused: %s\n%s", err.text, json);
    FUZZ_REQUIRE(slo_comm_plan_to_json(&back, &json2, &err) == SLO_OK, "json2: %s", err.text);
    FUZZ_REQUIRE(strcmp(json, json2) == 0, "plan round trip differs");
    free(json);
    free(json2);
    slo_comm_plan_free(&back);
    slo_comm_result_free(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    char *text = fuzz_text(data, size);
    struct slo_comm_model m = {0};
    slo_error_t err;
    if (slo_comm_model_parse(text, "fuzz", "fuzz", -1, &m, &err) == SLO_OK) {
        FUZZ_REQUIRE(slo_comm_model_check(&m, &err) == SLO_OK, "model: %s", err.text);
        if (m.n_layers <= 256) { /* planning cost grows with the layers */
            plan_one(&m, SLO_COMM_OPTIMAL);
            plan_one(&m, SLO_COMM_PROPHET);
        }
    }
    slo_comm_model_free(&m);
    free(text);
    return 0;
}
