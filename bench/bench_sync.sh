#!/bin/sh
# bench_sync.sh - `make bench` entry of bench/bench_sync.py (issue 17): real
# DDP runs (gloo, CPU, 1/2/4 local processes, one thread each, an MLP on
# sklearn digits, global batches 48/96/192, instance types emulated by
# slo.ddp_emu's calibrated compute floor, two mixed-type runs) against the
# sync-allreduce model fitted from their logs: predicted vs measured step
# time and time to loss, in-sample and leave-one-run-out, with the errors.
# Skips without torch / sklearn. About 6 minutes on 2 shared cores (the
# ranks mostly sleep).
PY=${SLO_PYTHON:-/usr/bin/python3}
if [ "$PY" = : ] || ! "$PY" -c 'import torch, sklearn' 2>/dev/null; then
    echo "bench_sync: skipped: $PY has no torch / sklearn"
    exit 0
fi
SLO_PYTHONPATH=${SLO_SRCDIR:?make bench sets SLO_SRCDIR}/python; export SLO_PYTHONPATH
SLO=${SLO:-$PWD/cli/slo}; export SLO
OMP_NUM_THREADS=1; export OMP_NUM_THREADS
exec nice -n 10 "$PY" "$SLO_SRCDIR/bench/bench_sync.py" "$@"
