/*
 * imds.c - a minimal HTTP/1.1 client for the EC2 instance metadata service
 * (IMDSv2) and the parsing of its spot items, for slo-spot-watch.
 *
 * Why not libcurl: the metadata service is plain HTTP on a link-local
 * address (169.254.169.254) with small bodies and Content-Length, no TLS, no
 * redirects, no proxies (a proxy must never see these requests: libcurl
 * honours http_proxy, the classic way a metadata token leaks), and the
 * watcher runs on every cloud node image, which then needs no new library.
 * Everything else is refused with a message (chunked bodies, bodies over
 * IMDS_MAX_BODY, a malformed status line).
 *
 * Sources: EC2 User Guide, "Use the Instance Metadata Service to access
 * instance metadata" (IMDSv2: PUT /latest/api/token with
 * X-aws-ec2-metadata-token-ttl-seconds 1..21600, then requests with
 * X-aws-ec2-metadata-token; 401 Unauthorized for a missing or expired
 * token), "Spot Instance interruption notices" (GET
 * /latest/meta-data/spot/instance-action: 404 until EC2 marks the instance,
 * then {"action": "terminate"|"stop"|"hibernate", "time":
 * "YYYY-MM-DDThh:mm:ssZ"}; poll every 5 s) and "EC2 instance rebalance
 * recommendations" (GET /latest/meta-data/events/recommendations/rebalance:
 * 404, then {"noticeTime": "YYYY-MM-DDThh:mm:ssZ"}).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE /* timegm, strcasestr */
#include "imds.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

static double now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

int imds_parse_endpoint(const char *url, struct imds *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (strncmp(url, "http://", 7) != 0)
        return fail(err, errlen, "expected http://HOST[:PORT], found '%s'", url);
    const char *h = url + 7;
    size_t n = strcspn(h, ":/");
    if (n == 0 || n >= sizeof m->host)
        return fail(err, errlen, "expected http://HOST[:PORT], found '%s'", url);
    memcpy(m->host, h, n);
    m->host[n] = '\0';
    snprintf(m->port, sizeof m->port, "80");
    const char *rest = h + n;
    if (*rest == ':') {
        char *end;
        long p = strtol(rest + 1, &end, 10);
        if (end == rest + 1 || p < 1 || p > 65535 || (*end && strcmp(end, "/") != 0))
            return fail(err, errlen, "expected http://HOST[:PORT] with PORT 1..65535, found '%s'",
                        url);
        snprintf(m->port, sizeof m->port, "%ld", p);
    } else if (*rest && strcmp(rest, "/") != 0) {
        return fail(err, errlen, "expected http://HOST[:PORT] without a path, found '%s'", url);
    }
    snprintf(m->url, sizeof m->url, "http://%s:%s", m->host, m->port);
    m->timeout_s = 2.0;
    return 0;
}

/* Wait for fd to be ready for events, until deadline (monotonic s). */
static int wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        double left = deadline - now_mono();
        if (left <= 0)
            return 0;
        struct pollfd p = {fd, events, 0};
        int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        return r;
    }
}

int imds_http(const struct imds *m, const char *method, const char *path, const char *header,
              struct imds_response *resp, char *err, size_t errlen)
{
    memset(resp, 0, sizeof *resp);
    double deadline = now_mono() + m->timeout_s;
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int g = getaddrinfo(m->host, m->port, &hints, &ai);
    if (g != 0)
        return fail(err, errlen, "%s: cannot resolve %s: %s", m->url, m->host, gai_strerror(g));
    int fd = -1, cerr = 0;
    for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) {
            cerr = errno;
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
            cerr = errno;
            close(fd);
            fd = -1;
            continue;
        }
        if (wait_fd(fd, POLLOUT, deadline) <= 0) {
            cerr = ETIMEDOUT;
            close(fd);
            fd = -1;
            continue;
        }
        int so = 0;
        socklen_t sl = sizeof so;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) != 0 || so != 0) {
            cerr = so ? so : errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(ai);
    if (fd < 0)
        return fail(err, errlen, "%s: cannot connect: %s", m->url, strerror(cerr));

    char req[1024];
    int rl = snprintf(req, sizeof req,
                      "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: slo-spot-watch\r\n"
                      "Accept: */*\r\n%s%sContent-Length: 0\r\nConnection: close\r\n\r\n",
                      method, path, m->host, header ? header : "", header ? "\r\n" : "");
    if (rl < 0 || (size_t)rl >= sizeof req) {
        close(fd);
        return fail(err, errlen, "%s%s: request too long", m->url, path);
    }
    for (size_t sent = 0; sent < (size_t)rl;) {
        ssize_t w = send(fd, req + sent, (size_t)rl - sent, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (wait_fd(fd, POLLOUT, deadline) <= 0) {
                close(fd);
                return fail(err, errlen, "%s%s: timed out sending after %g s", m->url, path,
                            m->timeout_s);
            }
            continue;
        }
        if (w < 0) {
            int e = errno;
            close(fd);
            return fail(err, errlen, "%s%s: send: %s", m->url, path, strerror(e));
        }
        sent += (size_t)w;
    }

    /* Read the whole response (Connection: close): headers + body. */
    char *buf = malloc(IMDS_MAX_BODY + 8192 + 1);
    if (!buf) {
        close(fd);
        return fail(err, errlen, "out of memory");
    }
    size_t got = 0, cap = IMDS_MAX_BODY + 8192;
    const char *hdr_end = NULL;
    long clen = -1;
    for (;;) {
        if (hdr_end && clen >= 0 && got >= (size_t)(hdr_end - buf) + 4 + (size_t)clen)
            break;
        if (got == cap) {
            free(buf);
            close(fd);
            return fail(err, errlen, "%s%s: response larger than %d bytes", m->url, path,
                        IMDS_MAX_BODY + 8192);
        }
        ssize_t r = recv(fd, buf + got, cap - got, 0);
        if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (wait_fd(fd, POLLIN, deadline) <= 0) {
                free(buf);
                close(fd);
                return fail(err, errlen, "%s%s: no complete response within %g s", m->url,
                            path, m->timeout_s);
            }
            continue;
        }
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return fail(err, errlen, "%s%s: recv: %s", m->url, path, strerror(e));
        }
        if (r == 0)
            break;
        got += (size_t)r;
        buf[got] = '\0';
        if (!hdr_end && (hdr_end = strstr(buf, "\r\n\r\n"))) {
            /* Header names are case-insensitive (RFC 9110 5.1). */
            for (const char *l = strstr(buf, "\r\n"); l && l < hdr_end; l = strstr(l + 2, "\r\n")) {
                if (strncasecmp(l + 2, "Content-Length:", 15) == 0)
                    clen = strtol(l + 17, NULL, 10);
                if (strncasecmp(l + 2, "Transfer-Encoding:", 18) == 0 &&
                    strstr(l + 2, "chunked") && strstr(l + 2, "chunked") < strstr(l + 2, "\r\n")) {
                    free(buf);
                    close(fd);
                    return fail(err, errlen, "%s%s: chunked response: expected a "
                                "Content-Length body as the metadata service sends", m->url,
                                path);
                }
            }
        }
    }
    close(fd);
    buf[got] = '\0';
    int major, minor, status;
    if (sscanf(buf, "HTTP/%d.%d %d", &major, &minor, &status) != 3 || status < 100 ||
        status > 599 || !hdr_end) {
        free(buf);
        return fail(err, errlen, "%s%s: expected an HTTP/1.x response, found %s", m->url,
                    path, got ? "no status line and headers" : "nothing (connection closed)");
    }
    const char *body = hdr_end + 4;
    size_t blen = got - (size_t)(body - buf);
    if (clen >= 0 && (size_t)clen < blen)
        blen = (size_t)clen;
    if (clen >= 0 && (size_t)clen > blen) {
        free(buf);
        return fail(err, errlen, "%s%s: response cut short (%zu of %ld body bytes)", m->url,
                    path, blen, clen);
    }
    if (blen > IMDS_MAX_BODY) {
        free(buf);
        return fail(err, errlen, "%s%s: body larger than %d bytes", m->url, path, IMDS_MAX_BODY);
    }
    resp->status = status;
    memcpy(resp->body, body, blen);
    resp->body[blen] = '\0';
    resp->len = blen;
    free(buf);
    return 0;
}

int imds_token(struct imds *m, char *err, size_t errlen)
{
    struct imds_response r;
    if (imds_http(m, "PUT", "/latest/api/token", "X-aws-ec2-metadata-token-ttl-seconds: "
                  IMDS_TOKEN_TTL_S, &r, err, errlen) != 0)
        return -1;
    if (r.status != 200)
        return fail(err, errlen, "%s/latest/api/token: PUT answered HTTP %d (expected 200 and "
                    "a token)", m->url, r.status);
    size_t n = strcspn(r.body, "\r\n");
    if (n == 0 || n >= sizeof m->token)
        return fail(err, errlen, "%s/latest/api/token: expected a token of 1..%zu characters, "
                    "found %zu", m->url, sizeof m->token - 1, n);
    memcpy(m->token, r.body, n);
    m->token[n] = '\0';
    return 0;
}

int imds_get(struct imds *m, const char *path, struct imds_response *resp, char *err,
             size_t errlen)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!m->token[0] && imds_token(m, err, errlen) != 0)
            return -1;
        char hdr[IMDS_TOKEN_MAX + 64];
        snprintf(hdr, sizeof hdr, "X-aws-ec2-metadata-token: %s", m->token);
        if (imds_http(m, "GET", path, hdr, resp, err, errlen) != 0)
            return -1;
        if (resp->status != 401)
            return 0;
        /* Expired or revoked token: get a new one and ask once more. */
        m->token[0] = '\0';
        m->token_refreshes++;
    }
    return fail(err, errlen, "%s%s: HTTP 401 Unauthorized with a fresh token", m->url, path);
}

int imds_parse_time(const char *s, time_t *out)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = s ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;
    if (!end)
        return -1;
    if (*end == '.') /* fractional seconds */
        end += 1 + strspn(end + 1, "0123456789");
    if (strcmp(end, "Z") != 0 && strcmp(end, "+00:00") != 0)
        return -1;
    time_t t = timegm(&tm);
    if (t == (time_t)-1)
        return -1;
    *out = t;
    return 0;
}

int imds_parse_notice(const char *body, const char *item, const char *time_key,
                      struct imds_notice *n, char *err, size_t errlen)
{
    memset(n, 0, sizeof *n);
    json_error_t je;
    json_t *j = json_loads(body, 0, &je);
    if (!json_is_object(j)) {
        json_decref(j);
        return fail(err, errlen, "%s: expected a JSON object, found %s", item,
                    j ? "another JSON value" : je.text);
    }
    if (!time_key[0]) {
        json_decref(j);
        return fail(err, errlen, "%s: no time key", item);
    }
    const char *t = json_string_value(json_object_get(j, time_key));
    if (!t || imds_parse_time(t, &n->time) != 0) {
        fail(err, errlen, "%s: %s: expected a UTC time YYYY-MM-DDThh:mm:ssZ, found %.60s",
             item, time_key, t ? t : "it missing or not a string");
        json_decref(j); /* after the message: it quotes t, which j owns */
        return -1;
    }
    snprintf(n->time_text, sizeof n->time_text, "%s", t);
    if (strcmp(time_key, "time") == 0) {
        const char *a = json_string_value(json_object_get(j, "action"));
        if (!a || (strcmp(a, "terminate") != 0 && strcmp(a, "stop") != 0 &&
                   strcmp(a, "hibernate") != 0)) {
            fail(err, errlen, "%s: action: expected terminate, stop or hibernate, found "
                 "%.40s", item, a ? a : "it missing or not a string");
            json_decref(j);
            return -1;
        }
        snprintf(n->action, sizeof n->action, "%s", a);
    }
    json_decref(j);
    return 0;
}
