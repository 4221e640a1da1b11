#!/bin/sh
# test_python_predict.sh - the pieces of the predictability loop that run
# without Slurm (doc/train-kit.md, "Checking the prediction"):
# slo.ps --target-loss (local ranks via slo-profile-train): the run stops at
# the first evaluated copy whose training-set loss is <= the target, every
# earlier evaluation is above it, the crossing's counters are the PS's;
# slo.ps refuses bad --target-loss / --label-smoothing / --eval-every values
# (exit 2, one message naming the option); bench/predict_loop.py compare on
# hand-made plan.json/ps.json pairs (errors worked by hand, a run that never
# reached the target, a tolerance exceeded).
# Skipped (77) without torch/sklearn.
. "$SLO_SRCDIR/tests/testlib.sh"
require_python "torch, sklearn.datasets" "python3-torch, python3-sklearn"
PYTHONPATH=$SLO_SRCDIR/python; export PYTHONPATH
H=$SLO_SRCDIR/bench/predict_loop.py
T=$SLO_SRCDIR/tests/slurm/workloads/digits-types.json

# --- slo.ps --target-loss, 1 worker, a cap far above the crossing
"$PY" -m slo.profile_train -o "$tmp/p" --types "$T" --no-alone --sizes '' \
    --cluster a100-node=1 --steps 3000 --launcher local -- \
    "$PY" -m slo.ps --lr 0.5 --label-smoothing 0.1 --floor-ms 1 --target-loss 1.0 --eval-every 3 \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && "$PY" - "$tmp/p/a100-node-1/ps.json" >"$tmp/out" 2>"$tmp/err" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
t, ev = d["target"], d["train_loss_evals"]
assert t["reached"] and t["loss"] == 1.0 and t["eval_every"] == 3, t
assert t["train_loss"] <= 1.0 and all(e[3] > 1.0 for e in ev[:-1]), ev
assert ev[-1] == [t["global_step"], t["global_samples"], t["elapsed_s"], t["train_loss"]]
assert all(e[0] % 3 == 0 for e in ev) and [e[0] for e in ev] == list(range(3, ev[-1][0] + 1, 3))
assert t["global_samples"] == 32 * t["global_step"]          # one worker, batch 32
# the PS stopped soon after the crossing, long before the cap: the copies are
# evaluated by a thread beside the PS (slo/ps.py _TargetWatch), so how many
# updates the PS applies before that thread's answer depends on the load
# (1 and 2 seen); the crossing's own counters are what the loop measures
assert t["global_step"] <= d["global_step"] < min(3000, 2 * t["global_step"] + 30), (d["global_step"], t)
print("crossing at update %d (%.3f s), loss %.4f; PS stopped at %d"
      % (t["global_step"], t["elapsed_s"], t["train_loss"], d["global_step"]))
EOF
then
    ok "slo.ps --target-loss 1.0: $(cat "$tmp/out")"
else
    notok "slo.ps --target-loss (exit $rc)"
fi

# --- bad options: exit 2, one line naming the option
bad() {
    env RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=1 SLO_TRAIN_CLUSTER=a100-node=1 \
        SLO_TRAIN_WORKER_TYPES=a100-node SLO_TRAIN_LOG_DIR="$tmp" SLO_TRAIN_STEPS=5 \
        SLO_TRAIN_TYPES="$T" "$PY" -m slo.ps "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q -- "^slo.ps: $1: expected" "$tmp/err"; then
        ok "slo.ps $*: $(cat "$tmp/err")"
    else
        notok "slo.ps $* (exit $rc)"
    fi
}
bad --target-loss -1
bad --label-smoothing 0.7
bad --eval-every 0

# --- compare: hand-worked errors
mk() { # DIR SLO_TIME_S SLO_ITERATIONS REACHED ELAPSED STEP
    mkdir -p "$1"
    printf '{"SLO_PLAN": "a100-node:1", "SLO_TIME_S": "%s", "SLO_ITERATIONS": "%s", "target_loss": 0.75}\n' \
        "$2" "$3" >"$1/plan.json"
    printf '{"global_step": 900, "target": {"loss": 0.75, "reached": %s, "elapsed_s": %s, "global_step": %s}}\n' \
        "$4" "$5" "$6" >"$1/ps.json"
}
mk "$tmp/c1" 2.2 110 true 2.0 100
"$PY" "$H" compare "$tmp/c1" 25 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = "a100-node:1	2.20	2.00	+10.0	110	100	+10.0" ] &&
   [ "$(grep -c '^ok' "$tmp/err")" = 2 ]; then
    ok "compare: predicted 2.2 s / 110, measured 2.0 s / 100: +10.0 % each, within 25 %"
else
    notok "compare within tolerance (exit $rc)"
fi
"$PY" "$H" compare "$tmp/c1" 5 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && [ "$(grep -c '^not ok' "$tmp/err")" = 2 ]; then
    ok "compare: +10.0 % fails a 5 % tolerance"
else
    notok "compare beyond tolerance (exit $rc)"
fi
mk "$tmp/c2" 1.5 60 true 2.0 100
"$PY" "$H" compare "$tmp/c2" 25 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q '^ok - time .* error -25.0 %' "$tmp/err" &&
   grep -q '^not ok - iterations .* error -40.0 %' "$tmp/err"; then
    ok "compare: -25.0 % time passes 25 %, -40.0 % iterations fails"
else
    notok "compare mixed (exit $rc)"
fi
mk "$tmp/c3" 2.2 110 false null null
"$PY" "$H" compare "$tmp/c3" 25 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && grep -q 'without reaching loss 0.75' "$tmp/err"; then
    ok "compare: a run that never reached the target fails, saying so"
else
    notok "compare unreached (exit $rc)"
fi
# the multi-worker checks: time per update (pred 1.5 s / 60 = 25 ms, measured
# 2.0 s / 100 = 20 ms: +25.0 %) and the deadline (SLO_DEADLINE_S)
mk "$tmp/c4" 1.5 60 true 2.0 100
sed -i 's/^{/{"SLO_DEADLINE_S": "3", /' "$tmp/c4/plan.json"
"$PY" "$H" compare "$tmp/c4" 30 s_per_it,deadline >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && grep -q '^ok - time per update .* predicted 25.00 ms, measured 20.00 ms, error +25.0 %' "$tmp/err" &&
   grep -q '^ok - measured time to loss 0.75 2.00 s within the SLO.s deadline 3 s' "$tmp/err" &&
   [ "$(grep -c '^ok' "$tmp/err")" = 2 ]; then
    ok "compare s_per_it,deadline: +25.0 % per update within 30 %, 2.0 s within 3 s"
else
    notok "compare s_per_it,deadline (exit $rc)"
fi
sed -i 's/"SLO_DEADLINE_S": "3"/"SLO_DEADLINE_S": "1.9"/' "$tmp/c4/plan.json"
"$PY" "$H" compare "$tmp/c4" 20 s_per_it,deadline >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && [ "$(grep -c '^not ok' "$tmp/err")" = 2 ]; then
    ok "compare s_per_it,deadline: +25.0 % fails 20 %, 2.0 s misses a 1.9 s deadline"
else
    notok "compare s_per_it,deadline failing (exit $rc)"
fi
# a plan without SLO_DEADLINE_S, or planning no whole update: one not ok
# line naming what is missing, exit 1, no traceback
mk "$tmp/c5" 1.5 60 true 2.0 100
"$PY" "$H" compare "$tmp/c5" 30 s_per_it,deadline >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
   grep -q "^not ok - $tmp/c5: plan.json / ps.json without a usable 'SLO_DEADLINE_S'$" "$tmp/err"; then
    ok "compare deadline on a plan without SLO_DEADLINE_S: not ok, exit 1"
else
    notok "compare without SLO_DEADLINE_S (exit $rc)"
fi
mk "$tmp/c6" 1.5 0.5 true 2.0 100
"$PY" "$H" compare "$tmp/c6" 30 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
   grep -q "^not ok - $tmp/c6: expected >= 1 update planned and measured, found 0 and 100$" "$tmp/err"; then
    ok "compare a plan of 0.5 updates: not ok, exit 1"
else
    notok "compare SLO_ITERATIONS 0.5 (exit $rc)"
fi
"$PY" "$H" compare "$tmp/c4" 20 time,speed >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ] && grep -q "^predict_loop: compare CHECKS: expected .*, found 'time,speed'$" "$tmp/err"; then
    ok "compare: an unknown check is refused (exit 2)"
else
    notok "compare unknown check (exit $rc)"
fi
finish
