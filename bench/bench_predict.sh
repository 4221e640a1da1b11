#!/bin/sh
# bench_predict.sh - spotDNN's predictability on the single-host Slurm test
# cluster (issue 12: "predicted vs measured time-to-loss and
# iterations-to-loss for at least 3 SLOs and 2 cluster mixes, as a table with
# the paper's error ranges beside it"). Run by `make bench` (as
# bench/bench_predict, a copy made by python/train.am).
#
# The loop of tests/slurm_predict.sh (bench/predict_lib.sh): profile the
# emulated asynchronous PS job with slo-profile-train through srun inside an
# allocation, fit the complete profile with slo fit train, then for each SLO
# submit `sbatch --slo-workload=digits --slo-loss=L --slo-time=T`, run the
# planned job to loss L and compare the plan's SLO_TIME_S / SLO_ITERATIONS
# with the PS's measured time and updates to the crossing. The rules are
# fixed before any planned run and read from the fitted profile alone:
#   targets  L = gamma5 + q (ln 10 - gamma5), q = 1/4, 1/8, 1/16
#            (predict_targets: 3/4, 7/8, 15/16 of the way from an untrained
#            model's loss to the fitted floor)
#   SLOs     1 h (the cheapest plan: one t4-node) and, for the fastest two
#            points of `slo train --frontier` (the test catalog with the
#            quotas Slurm has), the middle of the deadline interval in
#            which the point is the cheapest plan (predict_deadlines):
#            tight deadlines, which only multi-worker clusters (a100-node
#            with g4dn.12xlarge cloud nodes) meet; sbatch plans them
#            itself, nothing is forced (the table flags a plan that is not
#            the frontier point's)
# Columns: time error = (predicted - measured) / measured of the time to the
# target; s/it error the same for the time per update (the performance model
# alone: speeds, Eqs. 2, 4, 6-8); it error for the updates to the target
# (the loss model, Eq. 3). Paper (shared/research/spotdnn.md, "Time
# prediction error"): time 1.8-6.9 % on heterogeneous clusters, loss model
# 3.1-7.1 % (ResNet-110), 4.8-11.7 % (EsperBERTo).
# Where Slurm, root, torch or the plugin is missing it prints one skip line
# and exits 0 (make bench must work everywhere). SLO_BENCH_PREDICT_KEEP=DIR
# keeps the logs, profile and runs.
set -u
skip() { echo "bench_predict: skipped: $*"; exit 0; }
: "${SLO_SRCDIR:?SLO_SRCDIR must name the source tree (make bench sets it)}"
: "${SLO_BUILDDIR:?SLO_BUILDDIR must name the build tree (make bench sets it)}"
: "${SLO:=$SLO_BUILDDIR/cli/slo}"; export SLO
. "$SLO_SRCDIR/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
. "$SLO_SRCDIR/bench/predict_lib.sh"
( cluster_require_slurm ) >"$tmp/req" 2>&1 || skip "$(sed 's/^SKIP: //' "$tmp/req")"
predict_init || skip "$PREDICT_SKIP"
cluster_start >"$tmp/start" 2>&1 || { cat "$tmp/start"; echo "bench_predict: cluster did not start"; exit 1; }
D=$tmp/prof
t0=$(date +%s)
predict_profile "$D" || { cat "$tmp/prof.out" "$tmp/prof.err"; cluster_stop; echo "bench_predict: profiling failed"; exit 1; }
t_prof=$(( $(date +%s) - t0 ))
predict_fit "$D" || { cat "$tmp/fit.err"; cluster_stop; echo "bench_predict: slo fit train failed"; exit 1; }
predict_catalog
echo "bench_predict: $(date -u '+%Y-%m-%d %H:%M') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench_predict: profiled 6 runs in $t_prof s (slo-profile-train, srun in salloc -N2 -n4 -O):"
sed 's/^/  /' "$tmp/prof.out"
echo "bench_predict: slo fit train (every coefficient fitted, contention too):"
sed 's/^slo fit train: /  /' "$tmp/fit.err"
targets=$(predict_targets)
echo "bench_predict: targets (gamma5 + q (ln 10 - gamma5), q = 1/4, 1/8, 1/16): $targets"
: >"$tmp/rows"
for L in $targets; do
    predict_deadlines "$L" >"$tmp/dl" || true
    [ -s "$tmp/dl" ] || { printf '%s\t-\t-\tno frontier for this loss\n' "$L" >>"$tmp/rows"; continue; }
    while IFS='	' read -r T fplan; do
        name=$L-$T
        if predict_run "$name" "$L" "$T"; then
            row=$(predict_compare "$name" 1000)
            printf '%s\t%s\t%s\t%s\n' "$L" "$T" "$fplan" "$row" >>"$tmp/rows"
        else
            why=$(sed -n 's/^sbatch: error: spank_slo: //p' "$PR/$name/sbatch.err" | head -n 1)
            printf '%s\t%s\t%s\t%s\n' "$L" "$T" "$fplan" "${why:-job $(cat "$PR/$name/state" 2>/dev/null)}" >>"$tmp/rows"
        fi
    done <"$tmp/dl"
done
if [ -n "${SLO_BENCH_PREDICT_KEEP:-}" ]; then
    mkdir -p "$SLO_BENCH_PREDICT_KEEP" && cp -R "$D" "$PW" "$PR" "$SLO_BENCH_PREDICT_KEEP/"
fi
cluster_stop >/dev/null || echo "bench_predict: warning: a daemon had to be killed at teardown"
echo
echo "predicted (plan: SLO_TIME_S, SLO_ITERATIONS) vs measured (PS: first update to the crossing), error = (pred - meas) / meas;"
echo "plan = sbatch's own plan (SLO_PLAN) for --slo-loss L --slo-time SLO, frontier = the cheapest plan slo train --frontier gave for it:"
printf '  %-5s %-6s %-34s %8s %8s %7s %7s %7s %7s %7s\n' loss SLO plan "pred s" "meas s" "time %" "s/it %" "pred it" "meas it" "it %"
"$PY" - "$tmp/rows" <<'EOF'
import sys
mixes = set()
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("\t")
    if len(f) < 10:
        print("  %-5s %-6s %s" % (f[0], f[1], " ".join(f[3:])))
        continue
    loss, slo, fplan, plan, pt, mt, et, pi, mi, ei = f[:10]
    pt, mt, pi, mi = float(pt), float(mt), int(pi), int(mi)
    spi = 100.0 * ((pt / pi) - (mt / mi)) / (mt / mi)
    if len([p for p in plan.split(",") if not p.endswith(":0")]) > 1 or \
            any(int(p.split(":")[1]) > 1 for p in plan.split(",")):
        mixes.add(plan)
    print("  %-5s %-6s %-34s %8.2f %8.2f %+7.1f %+7.1f %7d %7d %+7.1f%s"
          % (loss, slo, plan, pt, mt, float(et), spi, pi, mi, float(ei),
             "" if fplan == "cheapest" or fplan == plan else "  (frontier: %s)" % fplan))
print("  multi-worker mixes run: %d (%s)" % (len(mixes), "; ".join(sorted(mixes)) or "none"))
EOF
echo "  paper (spotDNN, IWQoS 2023): time 1.8-6.9 % (heterogeneous clusters); iterations to a"
echo "  target loss 3.1-7.1 % (ResNet-110), 4.8-11.7 % (EsperBERTo); on dedicated GPUs."
echo "  here: 2 shared cores, emulated types (doc/train-kit.md, \"Checking the prediction\")."
echo "  known limits of the model on this job, measured in every run so far: the time per update"
echo "  (performance model, fitted contention) holds within about 12 %; the loss law (Eq. 3) does"
echo "  not: its sqrt(n) factor over-predicts multi-worker iterations by 25-95 %, and its 1/j shape"
echo "  over-predicts the middle target's by 14-31 % even alone."
exit 0
