#!/bin/sh
# bench_sync_slurm.sh - bench/bench_sync.py with its DDP runs under srun on
# the single-host Slurm test cluster (tests/slurm/cluster.sh; nodes n1, n2 of
# 2 CPUs, one 2-core host): N = 1 on n1, N = 2 one task per node, N = 4 two
# per node (the emulated types' ranks mostly sleep). Not in `make bench` (it takes
# the cluster's global lock); run from the build tree:
#   SLO_SRCDIR=.. SLO=$PWD/cli/slo SLO_BUILDDIR=$PWD sh ../bench/bench_sync_slurm.sh
# Exits 77 without Slurm, torch or sklearn.
. "${SLO_SRCDIR:?set SLO_SRCDIR to the source tree}/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
PY=${SLO_PYTHON:-/usr/bin/python3}
if ! "$PY" -c 'import torch, sklearn' 2>/dev/null; then
    echo "SKIP: $PY has no torch / sklearn"; exit 77
fi
cluster_require_slurm
SLO_PYTHONPATH=$SLO_SRCDIR/python; export SLO_PYTHONPATH
OMP_NUM_THREADS=1; export OMP_NUM_THREADS
chmod a+rx "$tmp"
cluster_start
"$PY" "$SLO_SRCDIR/bench/bench_sync.py" --launcher srun --out "$tmp/runs" "$@"
rc=$?
cluster_check_health
cluster_stop
exit $rc
