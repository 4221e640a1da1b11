/*
 * mpiprof_transport.c - the transport Open MPI says it uses, read from its
 * MPI_T control variables (pml, btl, the shared-memory single-copy
 * mechanism): the document's mpi.{library_version, mpi_version, transport}.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiprof.h"

/* Read MPI_T control variable `name` as text into buf; 0 on success. */
static int cvar_text(const char *name, char *buf, size_t len)
{
    int n = 0, rc = -1;
    if (MPI_T_cvar_get_num(&n) != MPI_SUCCESS)
        return -1;
    for (int i = 0; i < n && rc; i++) {
        char cname[256], desc[16];
        int nl = sizeof cname, dl = sizeof desc, verb, bind, scope, count;
        MPI_Datatype dt;
        MPI_T_enum en;
        MPI_T_cvar_handle h;
        if (MPI_T_cvar_get_info(i, cname, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope) !=
                MPI_SUCCESS ||
            strcmp(cname, name) != 0)
            continue;
        if (bind != MPI_T_BIND_NO_OBJECT ||
            MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS)
            return -1;
        if (dt == MPI_CHAR && count > 0) {
            char *v = calloc((size_t)count + 1, 1);
            if (v && MPI_T_cvar_read(h, v) == MPI_SUCCESS) {
                snprintf(buf, len, "%s", v);
                rc = 0;
            }
            free(v);
        } else if (dt == MPI_INT && count == 1) {
            int iv;
            if (MPI_T_cvar_read(h, &iv) == MPI_SUCCESS) {
                snprintf(buf, len, "%d", iv);
                rc = 0;
                if (en != MPI_T_ENUM_NULL) {
                    int ne = 0;
                    char ename[64];
                    int el = sizeof ename;
                    MPI_T_enum_get_info(en, &ne, ename, &el);
                    for (int k = 0; k < ne; k++) {
                        int v;
                        char s[64];
                        int sl = sizeof s;
                        if (MPI_T_enum_get_item(en, k, &v, s, &sl) == MPI_SUCCESS && v == iv)
                            snprintf(buf, len, "%s", s);
                    }
                }
            }
        }
        MPI_T_cvar_handle_free(&h);
    }
    return rc;
}

/* One framework's selection: a single component named by the MCA
 * parameter is the one used (Open MPI errors out otherwise); a list or an
 * exclusion (^ucx) leaves the choice to Open MPI: "unknown". */
static json_t *selection(const char *param, int have, const char *value)
{
    const char *env_name = NULL;
    char envvar[64];
    snprintf(envvar, sizeof envvar, "OMPI_MCA_%s", param);
    env_name = getenv(envvar);
    if (!have)
        return json_pack("{s:s,s:n,s:s}", "selected", "unknown", "mca_value", "source",
                         "MPI_T has no control variable of this name");
    if (*value && !strchr(value, ',') && !strchr(value, '^'))
        return json_pack("{s:s,s:s,s:s}", "selected", value, "mca_value", value, "source",
                         env_name ? "MPI_T control variable (set by the environment "
                                    "OMPI_MCA_ variable: a single component is forced)"
                                  : "MPI_T control variable (a single component is forced)");
    return json_pack("{s:s,s:s,s:s}", "selected", "unknown", "mca_value", value, "source",
                     "MPI_T control variable: a list or exclusion, Open MPI chooses among "
                     "the components at run time and does not report its choice");
}

json_t *mpiprof_transport(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], v[512];
    int len = 0, major = 0, minor = 0, prov, t_ok;
    json_t *t;
    MPI_Get_library_version(lib, &len);
    while (len > 0 && (lib[len - 1] == '\n' || lib[len - 1] == ' '))
        lib[--len] = '\0';
    MPI_Get_version(&major, &minor);
    t_ok = MPI_T_init_thread(MPI_THREAD_SINGLE, &prov) == MPI_SUCCESS;
    t = json_object();
    json_object_set_new(t, "mpi_t_available", json_boolean(t_ok));
    {
        int h = t_ok && !cvar_text("pml", v, sizeof v);
        json_object_set_new(t, "pml", selection("pml", h, h ? v : ""));
        h = t_ok && !cvar_text("btl", v, sizeof v);
        /* the BTLs are a list by nature: report the allowed set */
        json_object_set_new(t, "btl",
                            h ? json_pack("{s:s,s:s}", "allowed", v, "source",
                                          "MPI_T control variable btl (the BTLs Open MPI may "
                                          "use; shared memory within a node, the others "
                                          "between nodes)")
                              : json_pack("{s:s,s:s}", "allowed", "unknown", "source",
                                          "no MPI_T control variable btl"));
        h = t_ok && !cvar_text("btl_vader_single_copy_mechanism", v, sizeof v);
        json_object_set_new(t, "shared_memory_single_copy", json_string(h ? v : "unknown"));
    }
    if (t_ok)
        MPI_T_finalize();
    return json_pack("{s:s,s:s,s:o}", "library_version", lib, "mpi_version",
                     major == 3 && minor == 1 ? "3.1" : major == 4 ? "4.x" : "other",
                     "transport", t);
}
