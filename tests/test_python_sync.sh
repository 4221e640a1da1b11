#!/bin/sh
# test_python_sync.sh - the sync-allreduce model (issue 17) against a small
# set of real DDP runs (bench/bench_sync.py --quick: gloo, CPU, instance types
# emulated by slo.ddp_emu's compute floor; skipped, exit 77, without torch /
# sklearn): emu.fast and emu.slow alone at global batches 48 and 192, 2
# emu.fast workers at 96 and 192, and 1 emu.fast + 1 emu.slow at equal shares
# (the fast rank waits for the slow one). No N = 4: its allreduce's time on 2
# loaded cores swings with the load (the bench shows it, doc/model.md). Checks,
# against references the fit is not given:
# - calibration: the per-sample compute `slo fit train` fits for each type is
#   within 5% of the emulated ms_per_sample (the floor's slope);
# - the fitted model's step time of every run within 25% of the measured
#   median step, and the mean |error| within 8%;
# - the predicted time to loss 0.4 (steps from the fitted loss law x step)
#   of every run within 25% of rank 0's measured wall time, mean within 12%.
# Step and time checks are in-sample: two batches per type determine each
# type's line exactly, so they bite on the three multi-worker runs (one
# fitted latency for all) and on the loss law (fitted over a window, four
# parameters for 7 runs' curves); the calibration check is against the
# emulation's own numbers, which the fit is not given.
# The tolerances are about 2x the bench's errors on the loaded 2-core
# machine (doc/model.md "Real runs"); leave-one-run-out needs more runs than
# this test can afford (the bench reports it). About 90 s on 2 loaded cores:
# the ranks mostly sleep.
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"
require_python "torch, sklearn.datasets" "python3-torch, python3-sklearn"
SLO_PYTHONPATH=$SLO_SRCDIR/python; export SLO_PYTHONPATH
OMP_NUM_THREADS=1; export OMP_NUM_THREADS
SLO=${SLO_BUILDDIR:-$PWD}/cli/slo; export SLO
unset SLURM_JOB_ID SLURM_JOB_NODELIST

"$PY" "$SLO_SRCDIR/bench/bench_sync.py" --quick --steps 300 --probes 60 --out "$tmp/runs" \
    --json "$tmp/res.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
if [ "$rc" != 0 ] || [ ! -s "$tmp/res.json" ]; then
    notok "bench_sync.py --quick ran and fitted (exit $rc)"
    finish
    exit 1
fi
ok "bench_sync.py --quick: 7 DDP runs, fitted"

check() { # $1 description, $2 python expression over r (the results JSON)
    if "$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$tmp/res.json" "$2"; then
        ok "$1"
    else
        notok "$1"
    fi
}
check "calibration: fitted us/sample within 5% of the emulated, both types" \
    'all(abs(c["fitted_ms_per_sample"] / c["emulated_ms_per_sample"] - 1) <= 0.05 for c in r["calibration"]) and len(r["calibration"]) == 2'
check "step time: every run within 25%" \
    'all(abs(x["step_err"]) <= 0.25 for x in r["runs"]) and len(r["runs"]) == 7'
check "step time: mean |error| within 8%" 'r["mean_abs"]["step"] <= 0.08'
check "time to loss 0.4: every run within 25%" \
    'all(x["ttl_err"] is not None and abs(x["ttl_err"]) <= 0.25 for x in r["runs"])'
check "time to loss 0.4: mean |error| within 12%" 'r["mean_abs"]["ttl"] <= 0.12'
check "the mixed run waits for its slow rank: its step above the fast type's alone at the same share" \
    'next(x for x in r["runs"] if "emu.slow1-B96" in x["run"])["step_meas"] > 1.2 * next(x for x in r["runs"] if x["run"] == "emu.fast1-B48-equal")["step_meas"]'
finish
