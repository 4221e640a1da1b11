#!/bin/sh
# slurm_predict.sh - the spotDNN predictability loop on the single-host Slurm
# test cluster (issue 12 item 4; doc/train-kit.md, "Checking the prediction";
# the pieces are bench/predict_lib.sh and bench/predict_loop.py):
#  1. profile: slo-profile-train through srun inside `salloc -p onprem -N2
#     -n4 -O` runs the real asynchronous PS job (slo.ps) with the test
#     catalog's instance types emulated (tests/slurm/workloads/digits-types.json:
#     compute slowdown and the catalog's per-type NIC) over an emulated PS
#     network (slo.ps --ps-mbps, 16 MB payload): each type alone and 2, 3, 4
#     workers;
#  2. fit: `slo fit train --model-bytes` writes the complete workload profile
#     from nothing but those logs and the catalog; alpha1/beta1 of Eq. 9 are
#     fitted (asserted: the fit reports them), nothing is stated;
#  3. target and SLOs by rules fixed before any planned run, read from the
#     fitted profile alone (predict_targets, predict_deadlines): the target
#     L = gamma5 + (ln 10 - gamma5) / 8; "loose" 1 h, and "tight" the middle
#     of the fastest point's interval of `slo train --frontier`, which is a
#     multi-worker cluster (asserted);
#  4. plan and run: `sbatch --slo-workload=digits --slo-loss=L --slo-time=T`
#     for both SLOs (the plugin plans; for "tight" its plan must be the
#     frontier's), the planned job runs slo.ps on the plan's nodes, one
#     worker per node of the node's type (a100-node and g4dn.12xlarge cloud
#     nodes, booted by slo-power), to the PS's training-set loss L;
#  5. compare the plan's SLO_TIME_S and SLO_ITERATIONS with the measured time
#     (PS clock, from its first update to the crossing) and updates.
# What is asserted, and why (doc/train-kit.md, "What is asserted"):
#   loose (one worker): time and iterations within TOL (40 %);
#   tight (multi-worker): the time per update (the performance model with
#     the fitted contention) within TOL_PERF (20 %), and the measured time
#     within the SLO's deadline. Its iterations are reported, not asserted:
#     Eq. 3's sqrt(n) over-predicts this job's multi-worker iterations by
#     25-95 % (measured in every run so far), a limit of the model that the
#     bench and the doc report rather than a tolerance could hide.
# Two runs (4 Dec 2026, 21:38 and 21:49 UTC, load average 1.2-4): loose
# t4-node:1 time +22.7 / +9.7 %, iterations +30.9 / +14.4 %; tight
# a100-node:1,g4dn.12xlarge:2 time per update -6.6 / -1.3 %, measured 2.14 /
# 1.91 s against deadlines of 4 / 3 s, iterations +94.4 / +81.0 %. About 6
# minutes (profile about 3). Nothing is retried. SLO_PREDICT_TOL /
# SLO_PREDICT_TOL_PERF override.
# Skipped (77) without Slurm, root, torch/sklearn or the plugin.
. "$SLO_SRCDIR/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
. "$SLO_SRCDIR/bench/predict_lib.sh"
cluster_require_slurm
predict_init || cluster_skip "$PREDICT_SKIP"
TOL=${SLO_PREDICT_TOL:-40}
TOL_PERF=${SLO_PREDICT_TOL_PERF:-20}
t_start=$(date +%s)
cluster_start
echo "# cluster up in $(( $(date +%s) - CLUSTER_T_LOCKED )) s after $(( CLUSTER_T_LOCKED - t_start )) s waiting for the lock"
echo "# $(date -u '+%Y-%m-%d %H:%M') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"

D=$tmp/prof
t0=$(date +%s)
if predict_profile "$D"; then
    ok "profile: slo-profile-train inside salloc -N2 -n4 -O, 6 runs ($(( $(date +%s) - t0 )) s)"
else
    cp "$tmp/prof.out" "$tmp/out"; cp "$tmp/prof.err" "$tmp/err"; notok "profile runs"
fi
sed 's/^/# profile: /' "$tmp/prof.out"

if predict_fit "$D" && [ -s "$PW/digits.json" ] &&
    grep -q '^slo fit train: contention (Eq. 9) from [0-9]* workers' "$tmp/fit.err"; then
    ok "fit: slo fit train wrote a complete profile from the logs, alpha1/beta1 fitted ($(
        "$PY" -c 'import json, sys; c = json.load(open(sys.argv[1]))["contention"]; print("alpha1 %.3f, beta1 %.3f" % (c["alpha1"], c["beta1"]))' "$PW/digits.json"))"
else
    : >"$tmp/out"; cp "$tmp/fit.err" "$tmp/err"; notok "slo fit train (contention fitted)"
fi
sed 's/^/# fit: /' "$tmp/fit.err"

# the middle target of the rule (predict_targets), and two SLOs of the
# rule (predict_deadlines): 1 h and the fastest frontier point's deadline
predict_catalog
LOSS=$(predict_targets | cut -d' ' -f2)
predict_deadlines "${LOSS:-0}" >"$tmp/dl"
LOOSE=$(sed -n 1p "$tmp/dl" | cut -f1)
TIGHT=$(sed -n 2p "$tmp/dl" | cut -f1)
FPLAN=$(sed -n 2p "$tmp/dl" | cut -f2)
echo "# target loss ${LOSS:-none} (gamma5 + (ln 10 - gamma5) / 8); SLOs $LOOSE and ${TIGHT:-none} (frontier plan ${FPLAN:-none})"
if [ -n "$TIGHT" ] && [ "$(echo "$FPLAN" | tr ',' '\n' | sed 's/.*://' | awk '{s += $1} END {print s}')" -ge 2 ]; then
    ok "the tight SLO's frontier plan is a multi-worker cluster ($FPLAN)"
else
    cp "$tmp/dl" "$tmp/out"; : >"$tmp/err"; notok "a multi-worker frontier plan for loss $LOSS"
fi

for slo in "loose $LOOSE" "tight $TIGHT"; do
    set -- $slo
    n=$1; T=${2:-none}
    if [ "$T" != none ] && predict_run "$n" "$LOSS" "$T"; then
        ok "$n: planned job (sbatch --slo-loss=$LOSS --slo-time=$T) ran to the target: $(cat "$PR/$n/state")"
    else
        cp "$PR/$n/sbatch.err" "$tmp/out" 2>/dev/null; cp "$PR/$n/job.out" "$tmp/err" 2>/dev/null
        notok "$n: planned job ($(cat "$PR/$n/state" 2>/dev/null))"
    fi
    sed -n 's/^sbatch: spank_slo: /# plan: /p' "$PR/$n/sbatch.err" 2>/dev/null
done
plan=$(sed -n 's/.*"SLO_PLAN": "\([^"]*\)".*/\1/p' "$PR/tight/plan.json" 2>/dev/null)
if [ -n "$plan" ] && [ "$plan" = "$FPLAN" ]; then
    ok "tight: sbatch planned the frontier's multi-worker cluster itself ($plan)"
else
    echo "$plan" >"$tmp/out"; : >"$tmp/err"; notok "tight: sbatch's plan ${plan:-none} is the frontier's $FPLAN"
fi

# every worker ran on a node of its emulated type (progress-W.json's node)
for n in loose tight; do
if "$PY" - "$PR/$n" <<'EOF' >"$tmp/out" 2>"$tmp/err"
import json, subprocess, sys
d = sys.argv[1]
plan = json.load(open(d + "/plan.json"))
for w, (t, n) in enumerate(zip(plan["worker_types"], plan["nodes"])):
    p = json.load(open("%s/progress-%d.json" % (d, w)))
    feats = subprocess.run(["scontrol", "-o", "show", "node", p["node"]], capture_output=True,
                           text=True).stdout
    assert p["type"] == t and p["node"] == n and ("AvailableFeatures=" + t) in feats, (w, t, n, p)
print("%d workers on %s" % (len(plan["nodes"]), ",".join(plan["nodes"])))
EOF
then
    ok "$n: each worker ran on a node of its type ($(cat "$tmp/out"))"
else
    notok "$n: workers on nodes of their types"
fi
done

echo "# plan	predicted_s	measured_s	time_err_pct	predicted_it	measured_it	it_err_pct"
for c in "loose $TOL time,iterations" "tight $TOL_PERF s_per_it,deadline"; do
    set -- $c
    predict_compare "$1" "$2" "$3" >"$tmp/row"
    rc=$?
    sed 's/^/# /' "$tmp/cmp.err"
    sed "s/^/# $1: /" "$tmp/row"
    if [ "$rc" = 0 ]; then
        ok "$1: $3 to loss $LOSS within $2 % of the measured"
    else
        cp "$tmp/cmp.err" "$tmp/out"; : >"$tmp/err"; notok "$1: $3 within $2 %"
    fi
done
# SLO_PREDICT_KEEP=DIR keeps the profile, the fitted profile and the runs
if [ -n "${SLO_PREDICT_KEEP:-}" ]; then
    mkdir -p "$SLO_PREDICT_KEEP" && cp -R "$D" "$PW" "$PR" "$SLO_PREDICT_KEEP/"
fi
if cluster_check_health >"$tmp/out"; then ok "cluster healthy afterwards"; else notok "cluster health"; fi
cluster_stop
finish
