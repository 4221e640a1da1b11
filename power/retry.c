/*
 * retry.c - which aws CLI failures are throttling (retried) and how long to
 * wait before the next try: bounded exponential back-off with jitter.
 *
 * Sources: the EC2 API reference, "Request throttling for the Amazon EC2
 * API" (RequestLimitExceeded: the account's request rate for an action is
 * exceeded; retry with exponential back-off) and "Error codes for the Amazon
 * EC2 API"; botocore's retry handler (the throttling codes the aws CLI
 * itself retries before it gives up with "An error occurred (CODE) when
 * calling the OPERATION operation (reached max retries: N): ..."); the
 * "equal jitter" variant of M. Brooker, "Exponential Backoff And Jitter"
 * (AWS Architecture Blog, 2015): wait d/2 + U(0, d/2) with
 * d = min(cap, base * 2^attempt), so concurrent resume programs spread out
 * and each still waits at least half the step.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int power_aws_error_code(const char *line, char *code, size_t len)
{
    static const char mark[] = "An error occurred (";
    const char *p = line ? strstr(line, mark) : NULL;
    if (!p || !len)
        return -1;
    p += sizeof mark - 1;
    const char *e = strchr(p, ')');
    if (!e || e == p || (size_t)(e - p) >= len)
        return -1;
    memcpy(code, p, (size_t)(e - p));
    code[e - p] = '\0';
    return 0;
}

int power_aws_throttled(const char *line)
{
    char code[128];
    return power_aws_error_code(line, code, sizeof code) == 0 && power_aws_code_throttled(code);
}

int power_aws_code_throttled(const char *code)
{
    static const char *const codes[] = {
        "RequestLimitExceeded", "Throttling", "ThrottlingException", "ThrottledException",
        "RequestThrottled", "RequestThrottledException", "EC2ThrottledException",
        "TooManyRequestsException", "SlowDown", "PriorRequestNotComplete",
        "BandwidthLimitExceeded",
    };
    return power_code_in(code, codes, sizeof codes / sizeof codes[0]);
}

double power_retry_delay_s(const struct power_config *cfg, int attempt, unsigned *seed)
{
    double base = cfg->aws_retry_base_s > 0 ? cfg->aws_retry_base_s : 1.0;
    double cap = cfg->aws_retry_max_s > 0 ? cfg->aws_retry_max_s : 16.0;
    double d = base * ldexp(1.0, attempt < 0 ? 0 : (attempt > 30 ? 30 : attempt));
    if (d > cap)
        d = cap;
    double u = (double)rand_r(seed) / ((double)RAND_MAX + 1.0); /* [0, 1) */
    return d / 2 + u * d / 2;
}
