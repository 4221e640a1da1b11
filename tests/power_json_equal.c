/*
 * power_json_equal.c - test helper: do two files hold the same sequence of
 * JSON documents (jansson json_equal: same values, object key order ignored)?
 * Usage: power_json_equal EXPECTED ACTUAL. Exit 0 equal, 1 different (the
 * first differing document is named on stderr), 2 unreadable or not JSON.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DOCS 64

/* Read every whitespace-separated JSON document of path into docs. */
static int load_all(const char *path, json_t **docs, size_t *n)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "power_json_equal: cannot read %s\n", path);
        return -1;
    }
    static char buf[1 << 20];
    size_t len = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[len] = '\0';
    size_t off = 0;
    *n = 0;
    for (;;) {
        off += strspn(buf + off, " \t\r\n");
        if (buf[off] == '\0')
            return 0;
        if (*n == MAX_DOCS) {
            fprintf(stderr, "power_json_equal: %s: more than %d documents\n", path, MAX_DOCS);
            return -1;
        }
        json_error_t je;
        json_t *v = json_loadb(buf + off, len - off, JSON_DISABLE_EOF_CHECK, &je);
        if (!v) {
            fprintf(stderr, "power_json_equal: %s: document %zu: %s (line %d)\n", path,
                    *n + 1, je.text, je.line);
            return -1;
        }
        docs[(*n)++] = v;
        off += je.position;
    }
}

int main(int argc, char **argv)
{
    json_t *a[MAX_DOCS], *b[MAX_DOCS];
    size_t na = 0, nb = 0;
    if (argc != 3) {
        fprintf(stderr, "usage: power_json_equal EXPECTED ACTUAL\n");
        return 2;
    }
    if (load_all(argv[1], a, &na) || load_all(argv[2], b, &nb))
        return 2;
    int rc = 0;
    if (na != nb) {
        fprintf(stderr, "power_json_equal: %s has %zu documents, %s has %zu\n", argv[1], na,
                argv[2], nb);
        rc = 1;
    }
    for (size_t i = 0; !rc && i < na; i++)
        if (!json_equal(a[i], b[i])) {
            char *x = json_dumps(a[i], JSON_SORT_KEYS), *y = json_dumps(b[i], JSON_SORT_KEYS);
            fprintf(stderr, "power_json_equal: document %zu differs\n expected %s\n actual   %s\n",
                    i + 1, x ? x : "?", y ? y : "?");
            free(x);
            free(y);
            rc = 1;
        }
    for (size_t i = 0; i < na; i++)
        json_decref(a[i]);
    for (size_t i = 0; i < nb; i++)
        json_decref(b[i]);
    return rc;
}
