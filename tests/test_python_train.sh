#!/bin/sh
# test_python_train.sh - the training kit (doc/train-kit.md) with PyTorch and
# scikit-learn (python3-torch, python3-sklearn; skipped, exit 77, without
# them):
# - slo.trainlog.StepLogger writes the training log doc/formats.md specifies
#   and refuses bad values (tests/python/train_check.py logger);
# - slo-profile-train runs the real asynchronous PS job slo.ps (gloo, one
#   thread per rank) on sklearn's digits for 300 PS updates on each built-in
#   type alone and on a 2-worker cluster of both: the expected files, the
#   PS's accounting seen in the logs (every update one worker row, steps
#   1..300 once, global_samples the running sum of batches), training loss
#   falling to under half its start and held-out accuracy >= 0.8 on 300
#   never-trained images (chance 0.1) (train_check.py profile);
# - `slo fit train` (the C reader, kernel/train/trainlog.c) reads all those
#   logs: 900 loss samples (3 runs x 300 updates) from 3 clusters;
# - bad input: exit 2 and one message naming the option, file or variable;
#   a rank that dies fails its run at once, naming the rank (exit 1);
# - slo.ps --ps-mbps (the emulated PS NIC): `slo fit train` fits alpha1/beta1
#   (Eq. 9) from runs of 1-4 workers, and they predict the measured
#   multi-worker step times within 10% (train_check.py contention).
# About 85 s on 2 loaded cores; workers sleep for their emulated slowdown.
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"
require_python "torch, sklearn.datasets" "python3-torch, python3-sklearn"
PYTHONPATH=$SLO_SRCDIR/python; export PYTHONPATH
OMP_NUM_THREADS=1; export OMP_NUM_THREADS
check=$SLO_SRCDIR/tests/python/train_check.py
# a Slurm allocation around make check would send the runs through srun
unset SLURM_JOB_ID SLURM_JOB_NODELIST

# --- the logger ----------------------------------------------------------------
mkdir "$tmp/u"
"$PY" "$check" logger "$tmp/u" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
if [ "$rc" = 0 ] && ! grep -q '^not ok' "$tmp/out"; then
    passes=$((passes + $(grep -c '^ok' "$tmp/out")))
else
    notok "StepLogger checks (exit $rc)"
fi

# --- profile: each type alone, then 2 workers -------------------------------------
"$PY" -m slo.profile_train -o "$tmp/prof" --steps 300 --sizes 2 >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
if [ "$rc" = 0 ] && [ "$(grep -c ' ok  median step' "$tmp/out")" = 3 ] &&
   [ -f "$tmp/prof/runs.json" ] &&
   [ "$(cd "$tmp/prof" && LC_ALL=C ls -d */ | tr '\n' ' ')" = \
     "emu.fast-1/ emu.fast-1_emu.slow-1/ emu.slow-1/ " ] &&
   [ "$(cd "$tmp/prof" && ls */worker-*.csv */progress-*.json */ps.json | wc -l)" = 11 ]; then
    ok "slo-profile-train: 3 runs (emu.fast=1, emu.slow=1, emu.fast=1,emu.slow=1), 4 logs, 4 progress files, 3 ps.json"
else
    notok "slo-profile-train (exit $rc)"
fi
"$PY" "$check" profile "$tmp/prof" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
if [ "$rc" = 0 ] && ! grep -q '^not ok' "$tmp/out"; then
    passes=$((passes + $(grep -c '^ok' "$tmp/out")))
else
    notok "profile directory checks (exit $rc)"
fi
"$SLO" fit train "$tmp"/prof/*/worker-*.csv >"$tmp/out" 2>"$tmp/err"
rc=$?
# The PS applies updates as they arrive, so the logs differ run to run: 300
# updates of this small MLP may or may not show where the loss levels off.
# Either the fit succeeds, or it refuses the one coefficient the logs leave
# undetermined (issue 15: never an absurd number with exit 0). Both mean the
# reader took all four logs; a format error names a file and line instead.
if [ "$rc" = 0 ] && grep -q '^slo fit train: 900 loss samples from 3 clusters' "$tmp/err" &&
   grep -Eq '^\{"loss_model": \{"form": "spotdnn-2022", "gamma1": [0-9.e+-]+,' "$tmp/out"; then
    ok "slo fit train reads the 4 logs: $(sed "s/^slo fit train: //" "$tmp/err")"
elif [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
     grep -Eq '^slo fit train: .*the logs do not' "$tmp/err"; then
    ok "slo fit train reads the 4 logs and refuses what they leave undetermined: $(sed "s/^slo fit train: //" "$tmp/err")"
else
    notok "slo fit train on the profile logs (exit $rc)"
fi

# --- every coefficient from the real runs (issue 12, item 2) ----------------------
# S_parm from the PS's own count (ps.json parameter_bytes); B_req and B_ps
# are stated (loopback has no NIC to measure, doc/train-kit.md). With runs
# alone and of 2 workers only, alpha1/beta1 cannot be identified: the fit
# must say which runs are missing. With them stated, the loss fit either
# gives a complete profile - whose T(1) must be the median step_s of each
# type's run alone, computed here independently, and which must plan - or
# refuses what the noisy per-step losses leave undetermined.
bytes=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["parameter_bytes"])' \
    "$tmp/prof/emu.fast-1/ps.json")
MAX_ERR_LINES=1 expect "real runs: alpha1/beta1 need a second cluster size" \
    'too few runs to identify the contention coefficients alpha1, beta1 .*n >= 2, e.g. n = 2 and 4.*found multi-worker runs n = 2 ' \
    fit train --model-bytes "$bytes" --b-req-mbps 100 --b-ps-mbps 150 "$tmp"/prof/*/worker-*.csv
"$SLO" fit train --model-bytes "$bytes" --b-req-mbps 100 --b-ps-mbps 150 --contention 0.8,-1.92 \
    "$tmp"/prof/*/worker-*.csv >"$tmp/real.json" 2>"$tmp/err"
rc=$?
cp "$tmp/real.json" "$tmp/out"
if [ "$rc" = 0 ]; then
    t1=$("$PY" -c 'import csv, statistics, sys
for f in sys.argv[1:]:
    rows = list(csv.DictReader(l for l in open(f) if not l.startswith("#")))
    print("%.6g" % statistics.median(float(r["step_s"]) for r in rows[1:]))' \
        "$tmp/prof/emu.fast-1/worker-0.csv" "$tmp/prof/emu.slow-1/worker-0.csv" | tr '\n' ' ')
    got=$(sed -n 's/^slo fit train: emu\.[a-z]*: T(1) \([0-9.e-]*\) s.*/\1/p' "$tmp/err" | tr '\n' ' ')
    cat >"$tmp/emu.json" <<'EOF2'
{"name": "emulated", "types": [
  {"name": "emu.fast", "gpu_model": "cpu", "gpus": 1, "site": "onprem", "usd_per_h": 1, "quota": 4},
  {"name": "emu.slow", "gpu_model": "cpu", "gpus": 1, "site": "onprem", "usd_per_h": 0.4, "quota": 4}]}
EOF2
    if [ "$t1" = "$got" ] && grep -q '"speed_samples_per_s"' "$tmp/real.json" &&
       "$SLO" train --catalog "$tmp/emu.json" --workload "$tmp/real.json" --slo-loss 1.5 --slo-time 1h \
           --json >/dev/null 2>&1; then
        ok "real runs: a complete profile, T(1) $got s = the logs' medians, it plans; $(tr '\n' ' ' <"$tmp/err" | sed 's/slo fit train: //g')"
    else
        notok "real runs: complete profile (T(1) logs $t1, fit $got)"
    fi
elif [ "$rc" = 2 ] && [ ! -s "$tmp/real.json" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
     grep -Eq '^slo fit train: .*the logs do not' "$tmp/err"; then
    ok "real runs: the loss fit refuses what the noisy per-step losses leave undetermined (no profile, T(1) unchecked): $(sed 's/^slo fit train: //' "$tmp/err")"
else
    notok "real runs: slo fit train --model-bytes (exit $rc)"
fi

# --- alpha1/beta1 fitted from real runs on the emulated PS NIC (issue 12) ------------
# slo.ps --ps-mbps 200 --worker-mbps 200 --payload-bytes 1000000: each
# iteration moves 2 MB through the PS's shared 200 MB/s link (10 ms), so 2, 3
# and 4 workers queue behind each other (doc/train-kit.md, "An emulated PS
# network"). Batches 8 and 128 (both slowdown 1) so that the loss fit, which
# every complete profile needs, is determined too (spotdnn-2022: 400 steps
# leave gamma4 of spotdnn-2023 undetermined). slo fit train must FIT
# alpha1/beta1 (not refuse); train_check.py then predicts every multi-worker
# median step time from them (Eqs. 6-9, its own code) within 10%.
printf '{"types": {"net.small": {"slowdown": 1, "batch": 8}, "net.big": {"slowdown": 1, "batch": 128}}}\n' \
    >"$tmp/net.json"
"$PY" -m slo.profile_train -o "$tmp/net" --types "$tmp/net.json" --steps 400 --sizes 2 \
    --cluster net.small=2,net.big=1 --cluster net.small=2,net.big=2 -- \
    "$PY" -m slo.ps --ps-mbps 200 --worker-mbps 200 --payload-bytes 1000000 >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
[ "$rc" = 0 ] && [ "$(grep -c ' ok  median step' "$tmp/out")" = 5 ] &&
    ok "slo-profile-train with the emulated PS NIC: 5 runs (n = 1, 1, 2, 3, 4)" ||
    notok "slo-profile-train --ps-mbps runs (exit $rc)"
"$SLO" fit train --form spotdnn-2022 --model-bytes 1000000 --b-req-mbps 200 --b-ps-mbps 200 \
    "$tmp"/net/*/worker-*.csv >"$tmp/netfit.json" 2>"$tmp/err"
rc=$?
sed 's/^/# /' "$tmp/err"
if [ "$rc" = 0 ] && grep -Eq '^slo fit train: contention \(Eq. 9\) from 9 workers: alpha1 ' "$tmp/err" &&
   grep -q '^slo fit train: iteration times of 9 workers' "$tmp/err"; then
    ok "real runs with the emulated PS NIC: alpha1/beta1 fitted from 9 workers, residuals reported"
    "$PY" "$check" contention "$tmp/net" "$tmp/netfit.json" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    cat "$tmp/out"
    if [ "$rc" = 0 ] && ! grep -q '^not ok' "$tmp/out"; then
        passes=$((passes + $(grep -c '^ok' "$tmp/out")))
    else
        notok "fitted alpha1/beta1 predict the multi-worker step times (exit $rc)"
    fi
else
    notok "slo fit train on the emulated-NIC runs (exit $rc): $(head -c 400 "$tmp/err")"
fi

# --- bad input --------------------------------------------------------------------
bad() {
    name=$1; pattern=$2; shift 2
    "$PY" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -Eq -- "$pattern" "$tmp/err"; then
        ok "$name"
    else
        notok "$name (exit $rc)"
    fi
}
bad "a cluster naming an unknown type" \
    "^slo-profile-train: --cluster emu.fast=1,p4d=1: type p4d: expected one of emu.fast, emu.slow, found it missing from the types file$" \
    -m slo.profile_train -o "$tmp/x" --cluster emu.fast=1,p4d=1
printf '{"types": {"a": {"slowdown": 0.5, "batch": 8}}}\n' >"$tmp/t.json"
bad "a types file with a speed-up" \
    "^slo-profile-train: .*t.json: types.a.slowdown: expected a number in \[1, 1000\] .*found 0.5$" \
    -m slo.profile_train -o "$tmp/x" --types "$tmp/t.json"
printf '{"types": {"a": {"slowdown": 1, "batch": 8, "network_mbps": 0}}}\n' >"$tmp/t.json"
bad "a types file with a NIC of 0 MB/s" \
    "^slo-profile-train: .*t.json: types.a.network_mbps: expected MB/s in \[0.001, 1e7\] .*found 0$" \
    -m slo.profile_train -o "$tmp/x" --types "$tmp/t.json"
printf '{"types": {"a": {"slowdown": 1' >"$tmp/t.json"
bad "a types file that is not JSON" "^slo-profile-train: .*t.json: not a JSON document" \
    -m slo.profile_train -o "$tmp/x" --types "$tmp/t.json"
bad "--steps 0" "^slo-profile-train: --steps: expected an integer in \[1, 10000000\], found 0$" \
    -m slo.profile_train -o "$tmp/x" --steps 0
bad "--launcher srun outside an allocation" "^slo-profile-train: --launcher srun: expected a Slurm allocation" \
    -m slo.profile_train -o "$tmp/x" --launcher srun
bad "--timeout -1" "^slo-profile-train: --timeout: expected seconds in \(0, 86400\], found -1.0$" \
    -m slo.profile_train -o "$tmp/x" --timeout -1
[ ! -e "$tmp/x" ] && ok "nothing written on bad input" || notok "bad input left $tmp/x"
: >"$tmp/ro"
bad "-o under a file (cannot be created)" "^slo-profile-train: -o $tmp/ro/x: expected a directory that can be created, found: " \
    -m slo.profile_train -o "$tmp/ro/x"
bad "slo.ps with worker types not matching the cluster" \
    "^slo.ps: SLO_TRAIN_WORKER_TYPES: expected 2 types matching the cluster emu.fast=2, found 'emu.fast,emu.slow'$" \
    -c 'import os, sys, slo.ps; sys.exit(slo.ps.main([], dict(RANK="0", WORLD_SIZE="3",
        SLO_TRAIN_CLUSTER="emu.fast=2", SLO_TRAIN_WORKER_TYPES="emu.fast,emu.slow",
        SLO_TRAIN_STEPS="5", SLO_TRAIN_LOG_DIR=".", MASTER_ADDR="127.0.0.1", MASTER_PORT="1")))'

bad "slo.ps --worker-mbps without --ps-mbps" \
    "^slo.ps: --worker-mbps: expected it only with --ps-mbps \(the emulated PS network\), found --ps-mbps unset$" \
    -m slo.ps --worker-mbps 100
bad "slo.ps --ps-mbps 0" "^slo.ps: --ps-mbps: expected MB/s in \[0.001, 1e7\], found 0.0$" \
    -m slo.ps --ps-mbps 0
bad "slo.ps --lr -1" "^slo.ps: --lr: expected a step size in \(0, 1000\], found -1.0$" -m slo.ps --lr -1
bad "slo.ps --lr nan" "^slo.ps: --lr: expected a step size in \(0, 1000\], found nan$" -m slo.ps --lr nan
bad "slo.ps --floor-ms -1" "^slo.ps: --floor-ms: expected ms in \[0, 1e6\], found -1.0$" -m slo.ps --floor-ms -1

# a command whose ranks all exit 0 but never log (no StepLogger): nothing to
# fit, so the run failed (exit 1), each silent worker named with its log
"$PY" -m slo.profile_train -o "$tmp/z" --no-alone --sizes 2 --steps 5 -- true >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q '^emu.fast=1,emu.slow=1 .* FAILED' "$tmp/out" &&
   [ "$(grep -c "^slo-profile-train: run emu.fast=1,emu.slow=1: rank worker-[01] exited 0 but logged no rows to $tmp/z/.*/worker-[01].csv" "$tmp/err")" = 2 ]; then
    ok "ranks exiting 0 with no rows logged: run FAILED, exit 1, both workers named"
else
    notok "a run that logged nothing (exit $rc): $(head -c 300 "$tmp/err")"
fi

# a rank that dies: the run fails at once (not at --timeout), the other ranks
# (blocked in gloo waiting for it) are ended, the failure is named
"$PY" -m slo.profile_train -o "$tmp/f" --no-alone --sizes 2 --steps 50 --timeout 250 -- \
    sh -c 'if [ "$RANK" = 2 ]; then echo "worker 1 broke" >&2; exit 3; fi
           exec "$0" -m slo.ps --timeout 200' "$PY" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q '^emu.fast=1,emu.slow=1 .* FAILED' "$tmp/out" &&
   grep -q "^slo-profile-train: run emu.fast=1,emu.slow=1: rank worker-1 exited with status 3: worker 1 broke$" "$tmp/err" &&
   ! grep -q 'on timeout' "$tmp/err" &&
   "$PY" -c 'import json, sys; r = json.load(open(sys.argv[1]))["runs"][0]
sys.exit(not (r["exit"] == 1 and r["failed"][0]["rank"] == "worker-1"))' "$tmp/f/runs.json"; then
    ok "a rank exiting 3: run FAILED, exit 1, the rank and its stderr named, others ended"
else
    notok "a failing rank (exit $rc)"
fi

# --- the installed entry point's wrapper (built from python/slo-profile-train.in) --
if [ -x python/slo-profile-train ]; then
    if python/slo-profile-train --help >"$tmp/out" 2>"$tmp/err" && grep -q '^usage: slo-profile-train' "$tmp/out"; then
        ok "python/slo-profile-train --help"
    else
        notok "python/slo-profile-train --help"
    fi
fi
finish
