#!/bin/sh
# power_spot_watch.sh - slo-spot-watch against the stand-in metadata service
# tests/power/imds-standin.py (IMDSv2 shapes: a token from PUT
# /latest/api/token, 401 without it, 404 until a notice is armed), in
# --dry-run (no Slurm): the notice is seen and turned into the configured
# signal and grace (bounded by the notice's time), an expired token is
# refreshed, a rebalance recommendation signals without requeue, malformed
# notices and a dead endpoint fail with one message, bad options exit 2.
# The real hand-over on a Slurm cluster is tests/slurm_imds.sh.
. "$SLO_SRCDIR/tests/testlib.sh"
W=$SLO_BUILDDIR/power/slo-spot-watch
[ -x "$W" ] || { echo "SKIP: $W not built (no libslurm)"; exit 77; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || { echo "SKIP: no python3 for the stand-in"; exit 77; }
unset SLO_POWER_CONF SLURM_CONF
S=$tmp/imds
mkdir -p "$S"
"$PY" "$SLO_SRCDIR/tests/power/imds-standin.py" "$S" 2>"$tmp/standin.err" &
spid=$!
trap 'kill $spid 2>/dev/null; rm -rf "$tmp"' EXIT
i=0
while [ ! -s "$S/port" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
[ -s "$S/port" ] || { echo "not ok - stand-in metadata service did not start"; cat "$tmp/standin.err"; exit 1; }
EP=http://127.0.0.1:$(cat "$S/port")
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
# watch NAME WANT_RC ARGS...: run slo-spot-watch --once --dry-run --node c1.
watch() {
    name=$1; want=$2; shift 2
    "$W" --once --dry-run --node c1 --endpoint "$EP" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ "$rc" = "$want" ] || { notok "$name (exit $rc, expected $want)"; return 1; }
}

# The stand-in itself: 401 without a token (IMDSv2 only), as EC2 answers.
code=$("$PY" -c 'import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1] + "/latest/meta-data/spot/instance-action", timeout=5)
    print(200)
except urllib.error.HTTPError as e:
    print(e.code)' "$EP")
[ "$code" = 401 ] && ok "stand-in: GET without a token is 401" || notok "stand-in without token: $code"

# ---- 1. no notice: 404, exit 0; a token was fetched and sent
: >"$S/requests.log"
if watch "no notice" 0; then
    if grep -q '^no interruption notice' "$tmp/out" &&
       [ "$(cat "$S/requests.log")" = "PUT /latest/api/token token=new 200
GET /latest/meta-data/spot/instance-action token=yes 404" ]; then
        ok "no notice: token PUT then GET with the token, 404, exit 0"
    else
        cat "$S/requests.log" >>"$tmp/err"; notok "no notice"
    fi
fi

# ---- 2. a terminate notice 120 s ahead: SIGUSR1 (default), grace 90 s
now=$(date +%s)
printf '{"action": "terminate", "time": "%s"}' "$(iso $((now + 120)))" >"$S/instance-action"
if watch "notice" 0; then
    if grep -q 'would send SIGUSR1 to every step of each job running on c1 (spot interruption notice (terminate at ' "$tmp/out" &&
       grep -q 'would wait 90 s (grace 90 s' "$tmp/out" && grep -q 'power c1 down (POWER_DOWN_FORCE)' "$tmp/out"; then
        ok "terminate notice: SIGUSR1 to the node's jobs, requeue after the 90 s grace"
    else
        notok "notice: output"
    fi
fi

# ---- 3. the site's config: spot_signal / spot_grace_s; the grace is cut to
# the notice's time minus 10 s
printf 'provider=local\nstate_dir=%s/st\nspot_signal=USR2\nspot_grace_s=60\n' "$tmp" >"$tmp/power.conf"
now=$(date +%s)
printf '{"action": "stop", "time": "%s"}' "$(iso $((now + 40)))" >"$S/instance-action"
if watch "config" 0 --config "$tmp/power.conf"; then
    if grep -q 'would send SIGUSR2 .*(stop at ' "$tmp/out" && grep -Eq 'would wait (29|30) s \(grace 60 s' "$tmp/out"; then
        ok "spot_signal=USR2, spot_grace_s=60 from the config; grace bounded by the notice (40 s - 10 s)"
    else
        notok "config signal/grace"
    fi
fi
# options override the config
if watch "options" 0 --config "$tmp/power.conf" --signal TERM --grace 5; then
    grep -q 'would send SIGTERM' "$tmp/out" && grep -q 'would wait 5 s' "$tmp/out" &&
        ok "--signal / --grace override the config" || notok "option override"
fi

# ---- 4. an expired token (401) is replaced and the request repeated
: >"$S/requests.log"; : >"$S/expire-tokens"
if watch "expired token" 0; then
    if grep -q 'token=bad 401' "$S/requests.log" && [ "$(grep -c '^PUT' "$S/requests.log")" = 2 ] &&
       tail -n 1 "$S/requests.log" | grep -q 'instance-action token=yes 200' &&
       grep -q 'refreshed 1 time' "$tmp/err"; then
        ok "401 for an expired token: a new token, the GET repeated (200)"
    else
        cat "$S/requests.log" >>"$tmp/err"; notok "expired token"
    fi
fi

# ---- 5. rebalance recommendation: signal only, with --rebalance yes
rm -f "$S/instance-action"
printf '{"noticeTime": "%s"}' "$(iso "$(date +%s)")" >"$S/rebalance"
if watch "rebalance" 0 --rebalance yes; then
    grep -q 'would send SIGUSR1 .*(rebalance recommendation (' "$tmp/out" && ! grep -q 'requeue' "$tmp/out" &&
        ok "rebalance recommendation: the checkpoint signal, no requeue" || notok "rebalance"
fi
if watch "rebalance ignored" 0; then
    grep -q '^no interruption notice' "$tmp/out" && ! grep -q 'would send' "$tmp/out" &&
        ok "rebalance recommendation ignored by default (spot_rebalance=no)" || notok "rebalance default"
fi
rm -f "$S/rebalance"

# ---- 6. malformed notices, a dead endpoint: one message, exit 1
printf '{"action": "explode", "time": "%s"}' "$(iso "$(date +%s)")" >"$S/instance-action"
watch "bad action" 1 && grep -q 'instance-action: action: expected terminate, stop or hibernate, found explode' "$tmp/err" &&
    ok "notice with an unknown action: named, exit 1" || notok "bad action message"
printf '{"action": "terminate", "time": "soon"}' >"$S/instance-action"
watch "bad time" 1 && grep -q 'time: expected a UTC time YYYY-MM-DDThh:mm:ssZ, found soon' "$tmp/err" &&
    ok "notice with a malformed time: named, exit 1" || notok "bad time message"
printf 'not json' >"$S/instance-action"
watch "not json" 1 && grep -q 'instance-action: expected a JSON object' "$tmp/err" &&
    ok "notice that is not JSON: named, exit 1" || notok "not json message"
rm -f "$S/instance-action"
"$W" --once --dry-run --node c1 --endpoint http://127.0.0.1:1 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" = 1 ] && grep -q 'http://127.0.0.1:1: cannot connect' "$tmp/err" &&
    ok "no metadata service: 'cannot connect', exit 1" || notok "dead endpoint (exit $rc)"

# ---- 7. daemon mode: polls with one token until the notice, then exits 0
: >"$S/requests.log"
"$W" --dry-run --node c1 --endpoint "$EP" --interval 0.2 >"$tmp/daemon.out" 2>"$tmp/daemon.err" &
wpid=$!
i=0
while [ "$(grep -c 'instance-action token=yes 404' "$S/requests.log")" -lt 3 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
printf '{"action": "terminate", "time": "%s"}' "$(iso $(( $(date +%s) + 120 )))" >"$S/instance-action"
i=0
while kill -0 $wpid 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 $wpid 2>/dev/null; then
    kill $wpid; notok "daemon mode: still running 30 s after the notice"
else
    wait $wpid; rc=$?
    if [ "$rc" = 0 ] && grep -q 'would send SIGUSR1' "$tmp/daemon.out" &&
       [ "$(grep -c '^PUT' "$S/requests.log")" = 1 ] && [ "$(grep -c '^GET' "$S/requests.log")" -ge 4 ]; then
        ok "daemon mode: $(grep -c '^GET' "$S/requests.log") polls with one token, the notice handled, exit 0"
    else
        cp "$tmp/daemon.err" "$tmp/err"; cat "$S/requests.log" >>"$tmp/err"; notok "daemon mode (exit $rc)"
    fi
fi
rm -f "$S/instance-action"

# ---- 8. bad options and config: exit 2, one line naming the option
bad() {
    name=$1; pat=$2; shift 2
    "$W" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -Eq -- "$pat" "$tmp/err"; then
        ok "$name"
    else
        notok "$name (exit $rc)"
    fi
}
bad "--interval 0" "--interval: expected seconds in \[0.1, 3600\], found '0'" --once --interval 0
bad "--signal KILL" "--signal: expected a signal a job can trap .* found 'KILL'" --once --signal KILL
bad "--grace -1" "--grace: expected seconds in \[0, 3600\], found '-1'" --once --grace -1
bad "--endpoint https" "--endpoint: expected http://HOST\[:PORT\] .* found 'https://169.254.169.254'" --once --endpoint https://169.254.169.254
bad "--rebalance maybe" "--rebalance: expected yes or no, found 'maybe'" --once --rebalance maybe
bad "--node list" "--node: expected one Slurm node name, found 'c\[1-2\]'" --once --node 'c[1-2]'
bad "unknown option" "unknown option or argument '--bogus'" --bogus
bad "--grace without value" "--grace: expected a value, found 'nothing'" --grace
printf 'provider=local\nstate_dir=/x\nspot_grace_s=soon\n' >"$tmp/bad.conf"
bad "config spot_grace_s" "bad.conf:3: spot_grace_s: expected a number in \[0, 3600\], found 'soon'" --once --dry-run --config "$tmp/bad.conf"
bad "missing config" "none.conf: cannot read the config file" --once --dry-run --config "$tmp/none.conf"
finish
