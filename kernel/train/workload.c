/*
 * workload.c - training workload profiles (spotDNN's workload-specific
 * parameters, paper Sec. III "Obtaining Model Parameters").
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_private.h"
#include "sync_private.h"

static const char *const wl_keys[] = {"name", "description", "source", "s_parm_mb",
                                      "b_req_mbps", "b_ps_mbps", "b_pcie_mbps", "contention",
                                      "compat", "loss_model", "instances",
                                      "worker_network", "mode", NULL};
static const char *const contention_keys[] = {"alpha1", "beta1", "margin", NULL};
static const char *const loss_keys[] = {"form", "gamma1", "gamma2", "gamma3", "gamma4",
                                        "gamma5", NULL};
static const char *const inst_keys[] = {"type", "batch_per_gpu", "speed_samples_per_s", NULL};

static int parse_loss(const json_t *o, const char *src, struct slo_loss_model *m,
                      slo_error_t *err)
{
    char form[32], found[96];
    int rv;

    if (!json_is_object(o))
        return slo__fail(err, SLO_ERR_INVALID, src, "loss_model: expected an object, found %s",
                        slo__json_describe(o, found, sizeof found));
    if ((rv = slo__json_known_keys(o, loss_keys, src, "loss_model", err)) ||
        (rv = slo__json_string(o, "form", 1, src, "loss_model", form, sizeof form, err)))
        return rv;
    if (strcmp(form, "spotdnn-2023") == 0)
        m->form = SLO_LOSS_SPOTDNN_2023;
    else if (strcmp(form, "spotdnn-2022") == 0)
        m->form = SLO_LOSS_SPOTDNN_2022;
    else
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "loss_model.form: expected \"spotdnn-2023\" or \"spotdnn-2022\", found "
                        "\"%s\"",
                        form);
    m->gamma4 = 0;
    /* Ranges (issue 15): gamma1 > 0 keeps j + gamma1 > 0 from j = 0 on
     * (slo fit train searches [1e-3, 1e6]); gamma2, gamma3 within 1e12 and the
     * loss floor gamma5 within the training logs' loss range 1e6, so no
     * product of Eq. 3 overflows; gamma5 >= 0: a loss is never negative, and
     * a negative floor would let a negative --slo-loss plan. */
    if ((rv = slo__json_number(o, "gamma1", 1, 1e-9, 1e9, src, "loss_model", &m->gamma1,
                              err)) ||
        (rv = slo__json_number(o, "gamma2", 1, -1e12, 1e12, src, "loss_model", &m->gamma2,
                              err)) ||
        (rv = slo__json_number(o, "gamma3", 1, -1e12, 1e12, src, "loss_model", &m->gamma3,
                              err)) ||
        (rv = slo__json_number(o, "gamma5", 1, 0, 1e6, src, "loss_model", &m->gamma5,
                              err)))
        return rv;
    if (m->form == SLO_LOSS_SPOTDNN_2023) {
        if ((rv = slo__json_number(o, "gamma4", 1, 0, 1e6, src, "loss_model", &m->gamma4,
                                  err)))
            return rv;
    } else if (json_object_get(o, "gamma4")) {
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "loss_model.gamma4: form spotdnn-2022 has no gamma4 (no convergence "
                        "coefficient); remove it or use form spotdnn-2023");
    }
    /* gamma2 b_w + gamma3 must be positive for some batch b_w > 0. */
    if (m->gamma3 <= 0 && m->gamma2 <= 0)
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "loss_model: expected gamma3 > 0 or gamma2 > 0 so that gamma2 b_w + "
                        "gamma3 > 0 for some batch and the loss decays, found gamma2 = %g, "
                        "gamma3 = %g",
                        m->gamma2, m->gamma3);
    return SLO_OK;
}

/* slo_workload_parse; with loss_optional a profile without "loss_model" is
 * read too (*has_loss = 0, wl->loss zero, form spotdnn-2022). */
static int workload_parse(const char *text, const char *source, struct slo_workload *wl,
                          int loss_optional, int *has_loss, slo_error_t *err);

int slo_workload_parse(const char *text, const char *source, struct slo_workload *wl,
                       slo_error_t *err)
{
    int has_loss;
    return workload_parse(text, source, wl, 0, &has_loss, err);
}

/* Both slo_workload_open forms: name_or_path an embedded workload's name or
 * a file (slo__open_named, opt naming the argument), parsed by
 * workload_parse with loss_optional and has_loss. */
static int workload_open(const char *name_or_path, const char *opt, struct slo_workload *wl,
                         int loss_optional, int *has_loss, slo_error_t *err)
{
    char src[SLO_ERROR_SOURCE_LENGTH];
    const char *text;
    char *owned = NULL;
    int rc;

    memset(wl, 0, sizeof *wl);
    *has_loss = 0;
    if ((rc = slo__open_named(name_or_path, opt ? opt : "workload", "workload", NULL,
                              slo_embedded_workload, slo_embedded_workload_names(), "JSON",
                              &text, src, sizeof src, err)))
        return rc;
    if (!text) {
        if ((rc = slo__read_file(src[0] ? src : name_or_path, &owned, err)))
            return rc;
        text = owned;
        if (!src[0])
            snprintf(src, sizeof src, "%s", name_or_path);
    }
    rc = workload_parse(text, src, wl, loss_optional, has_loss, err);
    free(owned);
    return rc;
}

int slo_workload_open_for_fit(const char *name_or_path, const char *opt,
                              struct slo_workload *wl, int *has_loss, slo_error_t *err)
{
    return workload_open(name_or_path, opt, wl, 1, has_loss, err);
}

static int workload_parse(const char *text, const char *source, struct slo_workload *wl,
                          int loss_optional, int *has_loss, slo_error_t *err)
{
    json_t *root = NULL, *cont, *insts;
    char compat[32] = "paper", found[96];
    int rv;

    memset(wl, 0, sizeof *wl);
    if ((rv = slo__json_parse_text(text, source, &root, err)))
        return rv;
    {
        /* issue 17: "mode" chooses the model family (default async-ps) */
        const json_t *mode = json_object_get(root, "mode");
        if (mode && !(json_is_string(mode) &&
                      (strcmp(json_string_value(mode), "async-ps") == 0 ||
                       strcmp(json_string_value(mode), "sync-allreduce") == 0))) {
            rv = slo__fail(err, SLO_ERR_INVALID, source,
                           "mode: expected \"async-ps\" (spotDNN's parameter server) or "
                           "\"sync-allreduce\" (synchronous data parallel), found %s",
                           slo__json_describe(mode, found, sizeof found));
            goto fail;
        }
        if (mode && strcmp(json_string_value(mode), "sync-allreduce") == 0) {
            if ((rv = slo__sync_parse(root, source, wl, loss_optional, has_loss, err)))
                goto fail;
            json_decref(root);
            return SLO_OK;
        }
    }
    wl->b_pcie_mbps = 10000; /* paper Sec. V-A: 10 GB/s */
    if ((rv = slo__json_known_keys(root, wl_keys, source, "", err)) ||
        (rv = slo__json_string(root, "name", 1, source, "", wl->name, sizeof wl->name, err)) ||
        /* Measured values in physical ranges (issue 15): a model of at most
         * 10 TB, bandwidths up to 1 PB/s, speeds up to 1e9 samples/s. */
        (rv = slo__json_number(root, "s_parm_mb", 1, 1e-9, 1e7, source, "", &wl->s_parm_mb,
                              err)) ||
        (rv = slo__json_number(root, "b_req_mbps", 1, 1e-9, DBL_MAX, source, "",
                              &wl->b_req_mbps, err)) ||
        (rv = slo__json_number(root, "b_ps_mbps", 1, 1e-9, 1e9, source, "", &wl->b_ps_mbps,
                              err)) ||
        (rv = slo__json_number(root, "b_pcie_mbps", 0, 1e-9, 1e9, source, "",
                              &wl->b_pcie_mbps, err)) ||
        (rv = slo__json_string(root, "compat", 0, source, "", compat, sizeof compat, err)))
        goto fail;
    if (wl->b_req_mbps > 1e9) {
        rv = slo__fail(err, SLO_ERR_INVALID, source,
                      "b_req_mbps: expected a number in [1e-09, 1e+09], found %g", wl->b_req_mbps);
        goto fail;
    }
    {
        char net[32] = "profile";
        if ((rv = slo__json_string(root, "worker_network", 0, source, "", net, sizeof net,
                                   err)))
            goto fail;
        if (strcmp(net, "catalog") == 0)
            wl->worker_network_catalog = 1;
        else if (strcmp(net, "profile") != 0) {
            rv = slo__fail(err, SLO_ERR_INVALID, source,
                           "worker_network: expected \"profile\" (every type draws b_req_mbps) "
                           "or \"catalog\" (min of the catalog's network_mbps and b_req_mbps), "
                           "found \"%s\"",
                           net);
            goto fail;
        }
    }
    if (strcmp(compat, "paper") == 0)
        wl->compat = SLO_COMPAT_PAPER;
    else if (strcmp(compat, "spotdnn-2022-code") == 0)
        wl->compat = SLO_COMPAT_SPOTDNN_CODE;
    else {
        rv = slo__fail(err, SLO_ERR_INVALID, source,
                      "compat: expected \"paper\" or \"spotdnn-2022-code\", found \"%s\"", compat);
        goto fail;
    }
    cont = json_object_get(root, "contention");
    if (!json_is_object(cont)) {
        rv = slo__fail(err, SLO_ERR_INVALID, source,
                      "contention: expected an object with alpha1 and beta1 (Eq. 9), found %s",
                      slo__json_describe(cont, found, sizeof found));
        goto fail;
    }
    if ((rv = slo__json_known_keys(cont, contention_keys, source, "contention", err)) ||
        (rv = slo__json_number(cont, "alpha1", 1, 1e-12, 1e3, source, "contention",
                              &wl->alpha1, err)) ||
        (rv = slo__json_number(cont, "beta1", 1, -1e3, 1e3, source, "contention",
                              &wl->beta1, err)) ||
        (rv = slo__json_number(cont, "margin", 0, 0, 1, source, "contention",
                              &wl->contention_margin, err)))
        goto fail;
    *has_loss = json_object_get(root, "loss_model") != NULL;
    if (!*has_loss && loss_optional)
        wl->loss.form = SLO_LOSS_SPOTDNN_2022;
    else if ((rv = parse_loss(json_object_get(root, "loss_model"), source, &wl->loss, err)))
        goto fail;
    insts = json_object_get(root, "instances");
    if (!json_is_array(insts) || json_array_size(insts) == 0) {
        rv = slo__fail(err, SLO_ERR_INVALID, source,
                      "instances: expected a non-empty array of profiled instance types, "
                      "found %s",
                      slo__json_describe(insts, found, sizeof found));
        goto fail;
    }
    wl->n_instances = json_array_size(insts);
    wl->instances = calloc(wl->n_instances, sizeof *wl->instances);
    if (!wl->instances) {
        rv = slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < wl->n_instances; i++) {
        json_t *o = json_array_get(insts, i);
        struct slo_workload_instance *in = &wl->instances[i];
        char path[48];
        snprintf(path, sizeof path, "instances[%zu]", i);
        if (!json_is_object(o)) {
            rv = slo__fail(err, SLO_ERR_INVALID, source, "%s: expected an object, found %s",
                          path, slo__json_describe(o, found, sizeof found));
            goto fail;
        }
        if ((rv = slo__json_known_keys(o, inst_keys, source, path, err)) ||
            (rv = slo__json_string(o, "type", 1, source, path, in->type, sizeof in->type,
                                  err)) ||
            (rv = slo__json_int(o, "batch_per_gpu", 1, 1, 1 << 24, source, path,
                               &in->batch_per_gpu, err)) ||
            (rv = slo__json_number(o, "speed_samples_per_s", 1, 1e-9, 1e9, source, path,
                                  &in->speed, err)))
            goto fail;
        for (size_t k = 0; k < i; k++)
            if (strcmp(wl->instances[k].type, in->type) == 0) {
                rv = slo__fail(err, SLO_ERR_INVALID, source,
                              "%s.type: expected each instance type once, found \"%s\" again",
                              path, in->type);
                goto fail;
            }
    }
    json_decref(root);
    return SLO_OK;
fail:
    json_decref(root);
    slo_workload_free(wl);
    return rv;
}

int slo_workload_load(const char *path, struct slo_workload *wl, slo_error_t *err)
{
    char *text;
    int rv;

    memset(wl, 0, sizeof *wl);
    if ((rv = slo__read_file(path, &text, err)))
        return rv;
    rv = slo_workload_parse(text, path, wl, err);
    free(text);
    return rv;
}

void slo_workload_free(struct slo_workload *wl)
{
    if (!wl)
        return;
    free(wl->instances);
    if (wl->sync)
        free(wl->sync->instances);
    free(wl->sync);
    memset(wl, 0, sizeof *wl);
}

/* The async-ps (spotDNN) profile's fields into root, all but "instances",
 * and its instance objects appended to insts: 0, or nonzero on no memory. */
static int async_to_json(const struct slo_workload *wl, json_t *root, json_t *insts)
{
    json_t *loss = json_object(), *cont = json_object();
    int bad = 0; /* a failed set or append: memory */

    if (!loss || !cont) {
        bad = 1;
        goto out;
    }
    bad |= json_object_set_new(root, "name", json_string(wl->name));
    bad |= json_object_set_new(root, "s_parm_mb", json_real(wl->s_parm_mb));
    bad |= json_object_set_new(root, "b_req_mbps", json_real(wl->b_req_mbps));
    bad |= json_object_set_new(root, "b_ps_mbps", json_real(wl->b_ps_mbps));
    bad |= json_object_set_new(root, "b_pcie_mbps", json_real(wl->b_pcie_mbps));
    if (wl->worker_network_catalog)
        bad |= json_object_set_new(root, "worker_network", json_string("catalog"));
    bad |= json_object_set_new(cont, "alpha1", json_real(wl->alpha1));
    bad |= json_object_set_new(cont, "beta1", json_real(wl->beta1));
    bad |= json_object_set_new(cont, "margin", json_real(wl->contention_margin));
    bad |= json_object_set(root, "contention", cont);
    bad |= json_object_set_new(root, "compat", json_string(wl->compat == SLO_COMPAT_SPOTDNN_CODE
                                                        ? "spotdnn-2022-code"
                                                        : "paper"));
    bad |= json_object_set_new(loss, "form", json_string(wl->loss.form == SLO_LOSS_SPOTDNN_2022
                                                      ? "spotdnn-2022"
                                                      : "spotdnn-2023"));
    bad |= json_object_set_new(loss, "gamma1", json_real(wl->loss.gamma1));
    bad |= json_object_set_new(loss, "gamma2", json_real(wl->loss.gamma2));
    bad |= json_object_set_new(loss, "gamma3", json_real(wl->loss.gamma3));
    if (wl->loss.form == SLO_LOSS_SPOTDNN_2023)
        bad |= json_object_set_new(loss, "gamma4", json_real(wl->loss.gamma4));
    bad |= json_object_set_new(loss, "gamma5", json_real(wl->loss.gamma5));
    bad |= json_object_set(root, "loss_model", loss);
    for (size_t i = 0; i < wl->n_instances; i++) {
        json_t *o = json_object();
        if (!o) {
            bad = 1;
            goto out;
        }
        bad |= json_object_set_new(o, "type", json_string(wl->instances[i].type));
        bad |= json_object_set_new(o, "batch_per_gpu", json_integer(wl->instances[i].batch_per_gpu));
        bad |= json_object_set_new(o, "speed_samples_per_s", json_real(wl->instances[i].speed));
        bad |= json_array_append_new(insts, o);
    }
out:
    json_decref(loss);
    json_decref(cont);
    return bad;
}

char *slo_workload_to_json(const struct slo_workload *wl)
{
    json_t *root = json_object(), *insts = json_array();
    char *text = NULL;
    int bad;

    if (!root || !insts)
        goto out;
    /* each mode's fields, then the instance table last (key order kept) */
    if (wl->mode == SLO_TRAIN_SYNC_ALLREDUCE && wl->sync)
        bad = slo__sync_to_json(wl, root, insts);
    else
        bad = async_to_json(wl, root, insts);
    bad |= json_object_set(root, "instances", insts);
    if (!bad)
        text = slo__json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                         JSON_REAL_PRECISION(10));
out:
    json_decref(root);
    json_decref(insts);
    return text;
}

int slo_workload_open(const char *name_or_path, const char *opt, struct slo_workload *wl,
                      slo_error_t *err)
{
    int has_loss;
    return workload_open(name_or_path, opt, wl, 0, &has_loss, err);
}
