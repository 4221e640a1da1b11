#!/bin/sh
# slurm_python_ddp.sh - the DDP plan hook under srun on the test cluster
# (tests/slurm/cluster.sh): 2 tasks on node n1 (1 CPU each), gloo, env://
# rendezvous on the job's port; ResNet-18's gradients with the hook equal
# default DDP's bit for bit after 3 iterations and both ranks record the
# plan's blocks in order (tests/python/ddp_check.py srun-equal); a task
# given another plan is refused on both with one message and the step ends
# (no hang: srun -t 5 minutes). Skipped without Slurm or torch.
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
require_python "torch, torchvision" "python3-torch, python3-torchvision"
cluster_require_slurm
SLO_PYTHONPATH=$SLO_SRCDIR/python; export SLO_PYTHONPATH
PYTHONPATH=$SLO_PYTHONPATH; export PYTHONPATH
OMP_NUM_THREADS=1; export OMP_NUM_THREADS
check=$SLO_SRCDIR/tests/python/ddp_check.py
# the plans, before the cluster (its lock is held only while needed)
"$PY" -m slo.profiler --model resnet18 --batch 4 --iterations 2 -o "$tmp/r18.csv" 2>"$tmp/err" ||
    { notok "profiler"; finish; exit 1; }
for p in optimal prophet; do
    "$SLO" comm --model "$tmp/r18.csv" --bandwidth 1Gbit --workers 2 --policy $p --json >"$tmp/plan_$p.json"
done
chmod a+rx "$tmp"; chmod a+r "$tmp"/*
cluster_start
run() {  # srun the check: 2 tasks on n1
    srun -N1 -n2 -w n1 --cpus-per-task=1 -t 5 --export=ALL "$PY" "$check" "$@"
}
run srun-equal "$tmp/plan_optimal.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
nb=$("$PY" -c 'import sys, slo.plan; print(slo.plan.load_plan(sys.argv[1], "optimal").n_blocks)' "$tmp/plan_optimal.json")
if [ "$rc" = 0 ] && ! grep -q FAIL "$tmp/out" && [ "$(grep -c "^equal [0-2] 62 $nb " "$tmp/out")" = 6 ] &&
   [ "$(grep '^equal 2 ' "$tmp/out" | sort -u | wc -l)" = 1 ]; then
    ok "srun -n2: gradients bit-identical to DDP, both ranks issue the plan's $nb blocks in order"
else
    notok "srun -n2: gradients or collective order (exit $rc)"
fi
run srun-refuse "$tmp/plan_optimal.json" "$tmp/plan_prophet.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && [ "$(grep -Ec "^refused [01]: plans differ between ranks: rank 0's has" "$tmp/out")" = 2 ]; then
    ok "srun -n2: a task with another plan is refused on both ranks, the step ends"
else
    notok "srun -n2: another plan (exit $rc)"
fi
cluster_check_health
cluster_stop
finish
