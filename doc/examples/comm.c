/* comm.c - plan the gradient communication of one training iteration with
 * libslo's comm planner (doc/api/comm.md). Build:
 *   cc comm.c $(pkg-config --cflags --libs libslo) -o comm */
#include <slo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    /* three layers in forward order: forward and backward seconds, gradient bytes */
    static const double layer[3][3] = {{1e-3, 1e-3, 4000}, {1e-3, 1e-3, 4000}, {1e-3, 2e-3, 8000}};
    struct slo_comm_model model;
    struct slo_comm_link link = {4e6, 0.1e-3, 2, SLO_COMM_RING, 1}; /* 4 MB/s, alpha 0.1 ms */
    struct slo_comm_problem problem = {&model, &link};
    struct slo_comm_options options;
    struct slo_comm_result result;
    struct slo_comm_plan back;
    slo_error_t err = {0};
    char *json = NULL;

    if (slo_comm_model_alloc(&model, 3, &err))
        return 1;
    for (size_t j = 0; j < 3; j++) {
        model.layers[j].forward_s = layer[j][0];
        model.layers[j].backward_s = layer[j][1];
        model.layers[j].grad_bytes = layer[j][2];
    }
    slo_comm_options_init(&options); /* optimal planner, fp32 elements */
    for (int p = 0; p < 2; p++) {
        options.policy_name = p == 0 ? "fifo" : "optimal";
        if (slo_comm_solve(&problem, &options, &result, &err)) {
            fprintf(stderr, "%s: %s\n", err.source, err.text);
            return 1;
        }
        printf("%-7s T %.3f ms, T_LB %.3f ms, %s, %zu blocks\n", options.policy_name,
               result.iteration_s * 1e3, result.lower_bound_s * 1e3,
               slo_status_name(result.status), result.plan.n_blocks);
        for (size_t b = 0; b < result.plan.n_blocks; b++) {
            const struct slo_comm_plan_block *B = &result.plan.blocks[b];
            const struct slo_comm_plan_range *R = &result.plan.ranges[B->first_range];
            printf("  block %zu: layers %zu-%zu, %llu bytes in %zu range(s) from byte %llu, "
                   "done %.3f ms\n", b, B->first_layer, B->last_layer,
                   (unsigned long long)B->size_bytes, B->n_ranges,
                   (unsigned long long)R->offset_bytes, B->done_s * 1e3);
        }
        if (result.status != SLO_STATUS_OPTIMAL)
            printf("  reason: %s\n", result.reason);
        if (p == 1) { /* the plan as JSON, read back by the kernel's reader */
            if (slo_comm_plan_to_json(&result.plan, &json, &err) ||
                slo_comm_plan_parse(json, "plan", NULL, 4, &back, &err)) {
                fprintf(stderr, "%s: %s\n", err.source, err.text);
                return 1;
            }
            printf("plan JSON: %zu characters, read back: %zu blocks, %llu bytes\n", strlen(json),
                   back.n_blocks, (unsigned long long)back.total_bytes);
            slo_comm_plan_free(&back);
            free(json);
        }
        slo_comm_result_free(&result);
    }
    slo_comm_model_free(&model);
    return 0;
}
