#!/bin/sh
# slurm_train.sh - slo-profile-train through srun inside an allocation on the
# single-host Slurm test cluster (tests/slurm/cluster.sh; doc/train-kit.md):
# `salloc -p onprem -N2 -n3` (the fake nodes n1 and n2), in it
# `slo-profile-train --launcher auto --no-alone --sizes 2 --steps 200` picks
# srun, which starts the PS and both workers of the real asynchronous PS job
# (slo.ps) as the tasks of one step, spread over both nodes; the run's logs
# pass the PS accounting and learning checks of tests/python/train_check.py,
# and the ranks ran on both nodes (n1: PS + worker 0, n2: worker 1);
# afterwards the cluster is healthy (no drained node).
# Skipped (77) without Slurm, torch or sklearn.
. "$SLO_SRCDIR/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
cluster_require_slurm
PY=${SLO_PYTHON:-/usr/bin/python3}
if [ "$PY" = : ] || ! "$PY" -c 'import torch, sklearn.datasets' 2>/dev/null; then
    cluster_skip "$PY has no torch / sklearn (python3-torch, python3-sklearn)"
fi
PYTHONPATH=$SLO_SRCDIR/python; export PYTHONPATH
cluster_start
D=$CLUSTER_DIR/prof
timeout 300 salloc -p onprem -N2 -n3 -t 10 sh -c "
    echo \"alloc: \$SLURM_JOB_ID \$SLURM_JOB_NODELIST\"
    '$PY' -m slo.profile_train -o '$D' --no-alone --sizes 2 --steps 200
    echo \"exit: \$?\"" >"$tmp/out" 2>"$tmp/err"
rc=$?
sed 's/^/# salloc: /' "$tmp/out"
if [ "$rc" = 0 ] && grep -q '^exit: 0$' "$tmp/out" &&
   grep -q '^emu.fast=1,emu.slow=1 .* ok  median step' "$tmp/out" &&
   "$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(r["launcher"] != "srun")' \
       "$D/runs.json"; then
    ok "slo-profile-train inside salloc -N2 -n3: launcher srun, the 2-worker run succeeded"
else
    notok "slo-profile-train inside an allocation (exit $rc)"
fi
"$PY" "$SLO_SRCDIR/tests/python/train_check.py" profile "$D" >"$tmp/out" 2>"$tmp/err"
rc=$?
sed 's/^/# /' "$tmp/out"
if [ "$rc" = 0 ] && ! grep -q '^not ok' "$tmp/out" && [ "$(grep -c '^ok' "$tmp/out")" -ge 9 ]; then
    ok "srun run: every update one worker row, samples summed, loss fell, accuracy >= 0.8"
else
    notok "srun run's logs (exit $rc)"
fi
# srun spread the step's 3 tasks (PS + 2 workers) over both fake nodes: each
# rank records SLURMD_NODENAME (ps.json, progress-W.json)
nodes=$(cat "$D"/*/ps.json "$D"/*/progress-*.json 2>/dev/null | tr ',' '\n' |
        sed -n 's/.*"node": "\([^"]*\)".*/\1/p' | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')
if [ "$nodes" = "n1:2 n2:1 " ]; then
    ok "the 3 ranks ran on both nodes ($nodes)"
else
    echo "#   nodes: $nodes" >"$tmp/out"; notok "ranks on both nodes"
fi
if cluster_check_health >"$tmp/out"; then ok "cluster healthy afterwards"; else notok "cluster health"; fi
cluster_stop
finish
