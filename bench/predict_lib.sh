# predict_lib.sh - the spotDNN predictability loop on the single-host Slurm
# test cluster, shared by tests/slurm_predict.sh and bench/bench_predict.sh
# (sourced after tests/testlib.sh and tests/slurm/cluster.sh; doc/train-kit.md,
# "Checking the prediction"):
#   predict_init              PY, PYTHONPATH, the types file, the workloads
#                             directory and the plugstack line (before cluster_start)
#   predict_profile DIR       slo-profile-train through srun inside
#                             `salloc -p onprem -N2 -n4 -O`: each type alone,
#                             2, 3 and 4 workers
#   predict_fit DIR           slo fit train --model-bytes: the complete
#                             profile $PW/digits.json from nothing but the
#                             logs and the catalog (contention fitted)
#   predict_catalog           the catalog as the plugin plans with it
#   predict_targets           the 3 target losses (rule: from the profile)
#   predict_deadlines LOSS    the SLO deadlines (rule: the frontier)
#   predict_run NAME LOSS T   sbatch --slo-workload=digits --slo-loss=LOSS
#                             --slo-time=T: the planned job runs slo.ps on the
#                             plan's nodes to the target loss; $PR/NAME/
#                             holds plan.json, ps.json, the logs, job.out
#   predict_compare NAME TOL  predicted vs measured time and iterations
# The job: slo.ps, lr 0.3 (staleness slows 3-4 workers visibly at this step
# size), label smoothing 0.1 (a training-loss floor near 0.5, Eq. 3's
# gamma5), a 15 ms reference compute floor per step (steps long against
# scheduling noise on a loaded 2-core host; the floor is slept, so 4 workers
# cost little CPU), one thread per rank, and the PS's network emulated
# (slo.ps --ps-mbps): the PS's NIC is the PS type's (a100-node) network_mbps
# in the test catalog, 3125 MB/s, each worker's NIC its type's network_mbps
# (the types file repeats the catalog's), and the payload 16 MB each way per
# iteration, so that one push holds the PS's link 10.24 ms: alone a step
# moves for 10-26 ms beside 15-23 ms of compute, and 3-4 workers queue at
# the PS (measured: a100-node 26 ms alone, 34 ms among 3, 41 ms among 4).
# The fit takes the payload as S_parm (--model-bytes).
PREDICT_PAYLOAD=16000000
PREDICT_PS_ARGS="--lr 0.3 --label-smoothing 0.1 --floor-ms 15 --ps-mbps 3125 --payload-bytes $PREDICT_PAYLOAD"

predict_init() {
    PY=${SLO_PYTHON:-/usr/bin/python3}
    if [ "$PY" = : ] || ! "$PY" -c 'import torch, sklearn.datasets' 2>/dev/null; then
        PREDICT_SKIP="$PY has no torch / sklearn (python3-torch, python3-sklearn)"
        return 1
    fi
    PREDICT_SPANK=${SLO_SPANK_SO:-$SLO_BUILDDIR/spank_plugin/.libs/spank_slo.so}
    if [ ! -e "$PREDICT_SPANK" ]; then
        PREDICT_SKIP="spank_slo.so not built ($PREDICT_SPANK)"
        return 1
    fi
    PYTHONPATH=$SLO_SRCDIR/python; export PYTHONPATH
    PREDICT_TYPES=$SLO_SRCDIR/tests/slurm/workloads/digits-types.json
    PREDICT_CATALOG=$SLO_SRCDIR/tests/slurm/catalog.json
    PREDICT_HELPER=$SLO_SRCDIR/bench/predict_loop.py
    PW=$tmp/workloads; PR=$tmp/runs
    mkdir -p "$PW" "$PR"
    PREDICT_SPANK=$(cluster_private_copy "$PREDICT_SPANK") || {
        PREDICT_SKIP="cannot copy spank_slo.so"; return 1; }
    CLUSTER_PLUGSTACK="required $PREDICT_SPANK catalog=$PREDICT_CATALOG workloads=$PW mode=enforce"
    # tight SLOs plan cloud nodes (g4dn.12xlarge, c1 and c2): slo-power's
    # local provider boots them, else the stand-in does
    [ -n "$(cluster_slo_power)" ] || CLUSTER_POWER=standin
    return 0
}

# predict_profile DIR [STEPS]: exit status of slo-profile-train (0 = every run
# ok). Runs: each type alone, 2 workers (a100+t4), 3 (one of each) and 4
# (a100, t4, 2 g4dn): slo fit train needs runs of 2 or more sizes in Eq. 8's
# contention branch (n B_req > B_ps) to fit alpha1/beta1. The emulated types
# need no node of their own (slowdown and NIC are the types file's), so all
# runs share the two on-prem nodes: up to 5 ranks on 4 CPUs (-O,
# SLURM_OVERCOMMIT: the ranks mostly sleep).
predict_profile() {
    timeout 900 salloc -p onprem -N2 -n4 -O -t 20 sh -c "
        SLURM_OVERCOMMIT=1; export SLURM_OVERCOMMIT
        '$PY' -m slo.profile_train -o '$1' --types '$PREDICT_TYPES' --steps ${2:-800} \
            --sizes 2,3 --cluster a100-node=1,g4dn.12xlarge=2,t4-node=1 --timeout 300 \
            -- '$PY' -m slo.ps $PREDICT_PS_ARGS
        echo \"exit: \$?\"" >"$tmp/prof.out" 2>"$tmp/prof.err"
    grep -q '^exit: 0$' "$tmp/prof.out"
}

# predict_fit DIR: writes $PW/digits.json; its stderr report in $tmp/fit.err.
# Every coefficient is fitted: speeds from the runs alone, S_parm the
# emulated payload, B_req per type and B_ps from the catalog's network_mbps
# (the emulation's NICs), alpha1/beta1 of Eq. 9 from the 2-, 3- and
# 4-worker runs, the loss model from all runs.
predict_fit() {
    "$SLO" fit train --model-bytes "$PREDICT_PAYLOAD" --catalog "$PREDICT_CATALOG" \
        --ps-type a100-node --form spotdnn-2022 --name digits "$1"/*/worker-*.csv \
        >"$PW/digits.json.tmp" 2>"$tmp/fit.err" &&
        chmod a+r "$PW/digits.json.tmp" && mv "$PW/digits.json.tmp" "$PW/digits.json"
}

# predict_catalog: $PREDICT_PCAT, the test catalog with each type's quota
# lowered to the nodes Slurm has of it (what spank_slo.so plans with), for
# slo train --frontier (after cluster_start)
predict_catalog() {
    PREDICT_PCAT=$tmp/catalog-inventory.json
    sinfo -h -N -o '%N %f' | sort -u >"$tmp/nodes.txt"
    "$PY" - "$PREDICT_CATALOG" "$tmp/nodes.txt" "$PREDICT_PCAT" <<'EOF'
import json, sys
cat = json.load(open(sys.argv[1]))
have = {}
for line in open(sys.argv[2]):
    name, feats = line.split()
    for f in feats.split(","):
        have[f] = have.get(f, 0) + 1
for t in cat["types"]:
    t["quota"] = min(t["quota"], have.get(t["name"], 0))
json.dump(cat, open(sys.argv[3], "w"), indent=1)
EOF
}

# predict_targets: the target losses, by a rule fixed before any planned run
# and read from the fitted profile alone: L_q = gamma5 + q (ln 10 - gamma5)
# for q = 1/4, 1/8, 1/16 (the target closes 3/4, 7/8, 15/16 of the gap
# between an untrained 10-class model's loss, ln 10, and the fitted floor
# gamma5), rounded to 0.01. One line "L1 L2 L3".
predict_targets() {
    "$PY" - "$PW/digits.json" <<'EOF'
import json, math, sys
g5 = json.load(open(sys.argv[1]))["loss_model"]["gamma5"]
print(" ".join("%.2f" % (g5 + q * (math.log(10) - g5)) for q in (0.25, 0.125, 0.0625)))
EOF
}

# predict_deadlines LOSS: the SLO deadlines for LOSS, also from the profile
# alone: slo train --frontier on $PREDICT_PCAT lists every deadline at which
# the cheapest plan changes (point k is the cheapest plan for deadlines from
# its time t_k up to the next point's t_k+1). The SLOs: 1h (the cheapest
# plan) and, for the fastest two points, the middle of the point's interval,
# (t_k + t_k+1) / 2 to 0.01 s (the cheapest plan within it is that point's
# cluster; the deadline only asks, sbatch plans). One line per SLO:
# "T<TAB>frontier plan".
predict_deadlines() {
    "$SLO" train --catalog "$PREDICT_PCAT" --workload "$PW/digits.json" --slo-loss "$1" \
        --frontier --json 2>/dev/null | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
print("1h\tcheapest")
pts = sorted(d.get("points", []), key=lambda p: p["time_s"])
for k, p in enumerate(pts[:2]):
    if k + 1 < len(pts):
        print("%.2fs\t%s" % ((p["time_s"] + pts[k + 1]["time_s"]) / 2,
                              ",".join("%s:%d" % kv for kv in sorted(p["plan"].items()))))
'
}

# predict_run NAME LOSS DEADLINE: 0 when the planned job completed
predict_run() {
    _o=$PR/$1
    mkdir -p "$_o"
    sbatch --parsable --slo-workload=digits --slo-loss="$2" --slo-time="$3" -o "$_o/job.out" \
        --chdir "$_o" \
        --wrap "exec '$PY' '$PREDICT_HELPER' run-plan '$_o' '$PREDICT_TYPES' $2 $PREDICT_PS_ARGS --eval-every 2" \
        >"$_o/sbatch.out" 2>"$_o/sbatch.err"
    _job=$(sed -n '1{s/;.*//;p;}' "$_o/sbatch.out")
    [ -n "$_job" ] || return 1
    _st=$(cluster_wait_job "$_job" 300 'COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY')
    echo "$_st" >"$_o/state"
    [ "$_st" = COMPLETED ]
}

# predict_compare NAME TOL [CHECKS]: the TSV line on stdout, ok/not ok lines
# in $tmp/cmp.err (CHECKS: predict_loop.py compare's)
predict_compare() {
    "$PY" "$PREDICT_HELPER" compare "$PR/$1" "$2" ${3:+"$3"} 2>"$tmp/cmp.err"
}
