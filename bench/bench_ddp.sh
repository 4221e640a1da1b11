#!/bin/sh
# bench_ddp.sh - `make bench` entry of bench/bench_ddp.py (default DDP vs
# --recommend knobs vs the slo plan hook, measured beside predicted; 2 gloo
# ranks on this machine). Skips without torch / torchvision. Several minutes
# on 2 shared cores: run it with nothing else on the machine.
PY=${SLO_PYTHON:-/usr/bin/python3}
if [ "$PY" = : ] || ! "$PY" -c 'import torch, torchvision, numpy' 2>/dev/null; then
    echo "bench_ddp: skipped: $PY has no torch / torchvision / numpy"
    exit 0
fi
SLO_PYTHONPATH=${SLO_SRCDIR:?make bench sets SLO_SRCDIR}/python; export SLO_PYTHONPATH
OMP_NUM_THREADS=1; export OMP_NUM_THREADS
exec nice -n 10 "$PY" "$SLO_SRCDIR/bench/bench_ddp.py" "$@"
