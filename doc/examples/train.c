/* train.c - plan the cheapest training cluster for an SLO with libslo's one
 * solve call (doc/api/train.md). Build: cc train.c $(pkg-config --cflags
 * --libs libslo) */
#include <stdio.h>

#include <slo.h>

static void show(const char *what, const struct slo_train_result *r)
{
    char plan[256];

    printf("%s: %s", what, slo_status_name(r->status));
    if (slo_status_feasible(r->status)) {
        slo_train_counts_format(&r->setup, r->plan.counts, '=', plan, sizeof plan);
        printf(", %s, %.2f s, %.6f USD\n", plan, r->plan.eval.time_s, r->plan.eval.cost_usd);
    } else {
        printf("\n  %s\n", r->reason);
    }
}

int main(void)
{
    struct slo_catalog cat;
    struct slo_workload wl;
    struct slo_train_options opt;
    struct slo_train_result res;
    slo_error_t err = {0};

    /* The embedded spotDNN catalog and ResNet-110 profile: no files needed. */
    if (slo_catalog_parse(slo_embedded_catalog("spotdnn-resnet110"), "spotdnn-resnet110", &cat,
                          &err) ||
        slo_workload_parse(slo_embedded_workload("resnet110"), "resnet110", &wl, &err)) {
        fprintf(stderr, "%s: %s\n", err.source, err.text);
        return 1;
    }
    struct slo_train_problem pb = {
        .catalog = &cat,
        .workload = &wl,
        .pricing = SLO_PRICING_SPOT,
        .target_loss = 0.8, /* reach loss 0.8 ... */
        .deadline_s = 2400, /* ... within 40 minutes */
    };
    slo_train_options_init(&opt);

    /* 1. The proven cheapest plan. */
    if (slo_train_solve(&pb, &opt, &res, &err))
        goto fail;
    show("loss 0.8 in 2400 s", &res);
    slo_train_result_free(&res);

    /* 2. At most 5 instances in total (a site's node limit). */
    opt.max_workers = 5;
    if (slo_train_solve(&pb, &opt, &res, &err))
        goto fail;
    show("at most 5 instances", &res);
    slo_train_result_free(&res);

    /* 3. A budget that no plan meets: the closest point is the cheapest plan
     *    without it. */
    opt.max_workers = 0;
    pb.budget_usd = 1.0;
    if (slo_train_solve(&pb, &opt, &res, &err))
        goto fail;
    show("at most 1 USD", &res);
    slo_train_result_free(&res);

    slo_catalog_free(&cat);
    slo_workload_free(&wl);
    return 0;
fail:
    fprintf(stderr, "%s: %s\n", err.source, err.text);
    slo_train_result_free(&res);
    slo_catalog_free(&cat);
    slo_workload_free(&wl);
    return 1;
}
