/*
 * imds.h - the EC2 instance metadata service (IMDSv2) as slo-spot-watch uses
 * it: a token, then the spot interruption notice and the rebalance
 * recommendation (power/imds.c gives the sources). Not installed.
 * Functions return 0 or -1 with one line in err[errlen] naming the URL and
 * what was expected and found.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_IMDS_H
#define SLO_IMDS_H

#include <stddef.h>
#include <time.h>

#define IMDS_MAX_BODY 65536
#define IMDS_TOKEN_MAX 512
#define IMDS_TOKEN_TTL_S "21600"  /* 6 h, the longest IMDSv2 allows */
#define IMDS_INSTANCE_ACTION "/latest/meta-data/spot/instance-action"
#define IMDS_REBALANCE "/latest/meta-data/events/recommendations/rebalance"

struct imds {
    char host[256];
    char port[8];
    char url[300];                /* http://HOST:PORT, for messages */
    double timeout_s;             /* per request, connect to last byte (default 2 s) */
    char token[IMDS_TOKEN_MAX];   /* "" until fetched */
    int token_refreshes;          /* times a 401 made us fetch a new token */
};

struct imds_response {
    int status;                   /* HTTP status */
    char body[IMDS_MAX_BODY + 1]; /* NUL-terminated */
    size_t len;
};

/* An instance-action ({"action","time"}) or rebalance ({"noticeTime"}). */
struct imds_notice {
    char action[16];              /* terminate|stop|hibernate; "" for rebalance */
    char time_text[40];           /* as the service wrote it */
    time_t time;                  /* the same, s since the epoch (UTC) */
};

/* http://HOST[:PORT][/] into m (port 80 by default). */
int imds_parse_endpoint(const char *url, struct imds *m, char *err, size_t errlen);
/* One HTTP/1.1 request (Connection: close, Content-Length: 0, an optional
 * extra header line without CRLF); resp gets the status and body. Fails on
 * connect/IO errors, a timeout, a chunked or over-long body. */
int imds_http(const struct imds *m, const char *method, const char *path, const char *header,
              struct imds_response *resp, char *err, size_t errlen);
/* PUT /latest/api/token (TTL IMDS_TOKEN_TTL_S) into m->token. */
int imds_token(struct imds *m, char *err, size_t errlen);
/* GET path with the token (fetched when absent; on 401 fetched again and the
 * request repeated once). resp->status is 200 (notice) or 404 (none) for
 * the spot items. */
int imds_get(struct imds *m, const char *path, struct imds_response *resp, char *err,
             size_t errlen);
/* "2026-12-04T19:02:00Z" (optional fractional seconds, Z or +00:00). */
int imds_parse_time(const char *s, time_t *out);
/* Parse a 200 body of item (a path, for messages): time_key "time" (with
 * "action" required) or "noticeTime". */
int imds_parse_notice(const char *body, const char *item, const char *time_key,
                      struct imds_notice *n, char *err, size_t errlen);

#endif
