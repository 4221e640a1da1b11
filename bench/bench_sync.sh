#!/bin/sh
# bench_sync.sh - `make bench` entry of bench/bench_sync.py (issue 17): real
# DDP runs (gloo, CPU, 1/2/4 local processes, one thread each, an MLP on
# sklearn digits, two per-worker batches) against the sync-allreduce model
# fitted from their logs: predicted vs measured step time and time to loss,
# with the errors; worker counts above the host's CPUs are shown but not
# fitted (oversubscribed). Skips without torch / sklearn. About a minute on 2
# shared cores: run it with nothing else on the machine.
PY=${SLO_PYTHON:-/usr/bin/python3}
if [ "$PY" = : ] || ! "$PY" -c 'import torch, sklearn' 2>/dev/null; then
    echo "bench_sync: skipped: $PY has no torch / sklearn"
    exit 0
fi
SLO_PYTHONPATH=${SLO_SRCDIR:?make bench sets SLO_SRCDIR}/python; export SLO_PYTHONPATH
SLO=${SLO:-$PWD/cli/slo}; export SLO
OMP_NUM_THREADS=1; export OMP_NUM_THREADS
exec nice -n 10 "$PY" "$SLO_SRCDIR/bench/bench_sync.py" "$@"
