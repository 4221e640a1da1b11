/* core.c - the shared part of libslo: deadlines, the instance catalog,
 * errors and the planners' status names (doc/api/core.md).
 * Build: cc $(pkg-config --cflags libslo) core.c $(pkg-config --libs libslo) */
#include <slo.h>
#include <stdio.h>

int main(void)
{
    slo_error_t err;

    /* Deadlines as sbatch --time writes them, in seconds; a bare number is minutes. */
    const char *deadlines[] = {"40", "2400s", "1.5h", "1-02:00:00", "UNLIMITED"};
    for (size_t i = 0; i < sizeof deadlines / sizeof deadlines[0]; i++) {
        double s;
        int bare_minutes;
        if (slo_parse_duration(deadlines[i], &s, &bare_minutes, &err) != SLO_OK) {
            printf("%-10s -> %s error: %s\n", deadlines[i], slo_code_name(err.code), err.text);
            continue;
        }
        char hms[32];
        slo_format_duration(s, hms, sizeof hms);
        printf("%-10s -> %.0f s (%s)%s\n", deadlines[i], s, hms,
               bare_minutes ? ", read as minutes" : "");
    }

    /* An embedded catalog by name (a name with '/' or ending in .json is a file). */
    struct slo_catalog cat;
    if (slo_catalog_open("spotdnn-resnet110", "catalog", &cat, &err) != SLO_OK) {
        fprintf(stderr, "%s: %s\n", err.source, err.text);
        return 1;
    }
    printf("catalog %s: %zu instance types\n", cat.name, cat.n_types);
    for (size_t i = 0; i < cat.n_types; i++) {
        const struct slo_instance_type *t = &cat.types[i];
        printf("  %-12s %d x %-4s spot %.4f USD/h, on-demand %.2f USD/h, quota %d\n", t->name,
               t->gpus, t->gpu_model, slo_instance_price(t, SLO_PRICING_SPOT),
               slo_instance_price(t, SLO_PRICING_ON_DEMAND), t->quota);
    }
    int k = slo_catalog_find(&cat, "g3.8xlarge");
    printf("g3.8xlarge is type %d\n", k);
    slo_catalog_free(&cat);

    /* An unknown name: the return code says what went wrong, err says why. */
    int rc = slo_catalog_open("no-such-catalog", "--catalog", &cat, &err);
    printf("open no-such-catalog: %s (%d): %s\n", slo_code_name(rc), rc, err.text);

    /* What a solve call's result.status can be. */
    for (int st = SLO_STATUS_OPTIMAL; st <= SLO_STATUS_INFEASIBLE_UNPROVEN; st++)
        printf("status %d = %s, feasible: %d\n", st, slo_status_name(st), slo_status_feasible(st));
    return 0;
}
