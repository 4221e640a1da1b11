# predict_lib.sh - the spotDNN predictability loop on the single-host Slurm
# test cluster, shared by tests/slurm_predict.sh and bench/bench_predict.sh
# (sourced after tests/testlib.sh and tests/slurm/cluster.sh; doc/train-kit.md,
# "Checking the prediction"):
#   predict_init              PY, PYTHONPATH, the types file, the workloads
#                             directory and the plugstack line (before cluster_start)
#   predict_profile DIR       slo-profile-train through srun inside
#                             `salloc -p onprem -N2 -n4`: each type alone, a
#                             100+t4 and all three types
#   predict_fit DIR           slo fit train --model-bytes: the complete
#                             profile $PW/digits.json from nothing but the logs
#   predict_run NAME LOSS T   sbatch --slo-workload=digits --slo-loss=LOSS
#                             --slo-time=T: the planned job runs slo.ps on the
#                             plan's nodes to the target loss; $PR/NAME/
#                             holds plan.json, ps.json, the logs, job.out
#   predict_compare NAME TOL  predicted vs measured time and iterations
# The job: slo.ps, lr 0.5 (staleness matters at this step size), label
# smoothing 0.1 (a training-loss floor near 0.5, Eq. 3's gamma5), a 15 ms
# reference compute floor per step (steps long against scheduling noise on
# a loaded 2-core host), one thread per rank.

PREDICT_PS_ARGS="--lr 0.5 --label-smoothing 0.1 --floor-ms 15"

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
    # cloud nodes are not planned for here (the SLOs are met on-prem); the
    # stand-in keeps them from booting if one were
    [ -n "$(cluster_slo_power)" ] || CLUSTER_POWER=standin
    return 0
}

# predict_profile DIR [STEPS]: exit status of slo-profile-train (0 = every run ok)
predict_profile() {
    timeout 600 salloc -p onprem -N2 -n4 -t 15 sh -c "
        '$PY' -m slo.profile_train -o '$1' --types '$PREDICT_TYPES' --steps ${2:-900} \
            --sizes 2 --cluster a100-node=1,g4dn.12xlarge=1,t4-node=1 --timeout 300 \
            -- '$PY' -m slo.ps $PREDICT_PS_ARGS
        echo \"exit: \$?\"" >"$tmp/prof.out" 2>"$tmp/prof.err"
    grep -q '^exit: 0$' "$tmp/prof.out"
}

# predict_fit DIR: writes $PW/digits.json; its stderr report in $tmp/fit.err.
# The contention coefficients are stated, not fitted: the 19 KB pushes of
# this job never slow a step down (slo fit train reports the model's
# iteration times against the multi-worker runs' steps), so Eq. 9 has no
# signal to fit; alpha1 0.01, beta1 -1 make P = 0 (no contention) for every
# n < 10^4, which is what the runs show.
predict_fit() {
    bytes=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["parameter_bytes"])' \
            "$1/a100-node-1/ps.json") || return 1
    "$SLO" fit train --model-bytes "$bytes" --catalog "$PREDICT_CATALOG" --ps-type a100-node \
        --form spotdnn-2022 --contention 0.01,-1 --name digits "$1"/*/worker-*.csv \
        >"$PW/digits.json.tmp" 2>"$tmp/fit.err" &&
        chmod a+r "$PW/digits.json.tmp" && mv "$PW/digits.json.tmp" "$PW/digits.json"
}

# predict_time LOSS: the predicted time (s) of the cheapest plan with no
# deadline to speak of (slo train on the fitted profile and the catalog).
predict_time() {
    "$SLO" train --catalog "$PREDICT_CATALOG" --workload "$PW/digits.json" --slo-loss "$1" \
        --slo-time 1h --json 2>/dev/null |
        "$PY" -c 'import json, sys; d = json.load(sys.stdin); print(d["time_s"])'
}

# predict_run NAME LOSS DEADLINE: 0 when the planned job completed
predict_run() {
    _o=$PR/$1
    mkdir -p "$_o"
    sbatch --parsable --slo-workload=digits --slo-loss="$2" --slo-time="$3" -o "$_o/job.out" \
        --wrap "exec '$PY' '$PREDICT_HELPER' run-plan '$_o' '$PREDICT_TYPES' $2 $PREDICT_PS_ARGS --eval-every 2" \
        >"$_o/sbatch.out" 2>"$_o/sbatch.err"
    _job=$(sed -n '1{s/;.*//;p;}' "$_o/sbatch.out")
    [ -n "$_job" ] || return 1
    _st=$(cluster_wait_job "$_job" 300 'COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY')
    echo "$_st" >"$_o/state"
    [ "$_st" = COMPLETED ]
}

# predict_compare NAME TOL: the TSV line on stdout, ok/not ok lines in $tmp/cmp.err
predict_compare() {
    "$PY" "$PREDICT_HELPER" compare "$PR/$1" "$2" 2>"$tmp/cmp.err"
}
