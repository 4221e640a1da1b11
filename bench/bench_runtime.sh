#!/bin/sh
# bench_runtime.sh - the Prophet allreduce runtime measured against the
# simulator (issue 5, "What it must show"): slo-train-demo at 4 ranks on the
# ResNet-50 and VGG-16 profiles with communication made the bottleneck
# (bytes scale high relative to compute scale), every policy interleaved in
# one run. Per cell: iteration time ratio prophet / fifo and optimal / fifo
# as measured, beside the simulator's ratio for the measured link and
# compute (pred) and for the nominal profile the plans were made for
# (plan). Compute is emulated twice: busy (spinning on the CPU) and sleep
# (GPU-like, the CPU is left to MPI), over shared memory (btl vader) and
# loopback TCP (btl tcp). `make bench` runs it; it prints a
# skip line and exits 0 where Open MPI or the demo is absent.
# Environment (make bench sets them): SLO_BUILDDIR, SLO_SRCDIR, SLO_MPIRUN;
# BENCH_RUNTIME_ITERATIONS (default 20).
set -u
name=bench_runtime
builddir=${SLO_BUILDDIR:-.}
srcdir=${SLO_SRCDIR:-.}
demo="$builddir/mpi_runtime/slo-train-demo"
if [ "${SLO_MPIRUN:-no}" = no ] || [ ! -x "${SLO_MPIRUN:-}" ] || [ ! -x "$demo" ]; then
    echo "$name: SKIP: Open MPI or slo-train-demo not built (configure: pkg-config ompi-c)"
    exit 0
fi
. "$srcdir/tests/mpi_env.sh"
iters=${BENCH_RUNTIME_ITERATIONS:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "$name: slo-train-demo, 4 ranks (mpirun -np 4, $(nproc) cores), $iters iterations per policy after a warm-up, 1 collective in flight"
echo "$name: load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-9s %-6s %-6s %-6s %7s %8s | %7s %7s %7s | %7s %7s %7s | %s\n' \
    btl model cscale bscale mode comm/cp fifo_ms \
    pr/ff pred plan op/ff pred plan verified
status=0
# vader: shared memory (tests/mpi_env.sh); tcp: loopback TCP, as across
# Slurm's fake nodes (higher latency per collective, slower)
for cell in "vader resnet50 0.02 0.4" "vader vgg16 0.01 0.08" \
            "tcp resnet50 0.02 0.15" "tcp vgg16 0.01 0.03"; do
    set -- $cell
    btl=$1; shift
    for mode in busy sleep; do
        if ! OMPI_MCA_btl=self,$btl timeout 600 "$SLO_MPIRUN" -np 4 "$demo" --model "$1" --compute-scale "$2" \
                --bytes-scale "$3" --iterations "$iters" --compute "$mode" \
                >"$tmp/out" 2>"$tmp/err"; then
            echo "$name: $btl $1 $mode: slo-train-demo failed:"; cat "$tmp/err"; status=1; continue
        fi
        awk -v btl="$btl" -v model="$1" -v cs="$2" -v bs="$3" -v mode="$mode" '
            /^nominal:/ { for (i = 1; i <= NF; i++) {
                              if ($i == "F+Bw") cp = $(i + 1)
                              if ($i == "communication") cm = $(i + 1) } }
            $1 == "fifo" || $1 == "prophet" || $1 == "optimal" {
                iter[$1] = $6; ratio[$1] = $7; pred[$1] = $9; plan[$1] = $4; ver[$1] = $NF }
            END { printf "%-5s %-9s %-6s %-6s %-6s %7.2f %8.2f | %7.3f %7.3f %7.3f | %7.3f %7.3f %7.3f | %s\n",
                         btl, model, cs, bs, mode, cm / cp, iter["fifo"],
                         ratio["prophet"], pred["prophet"], plan["prophet"],
                         ratio["optimal"], pred["optimal"], plan["optimal"],
                         (ver["fifo"] ver["prophet"] ver["optimal"] == "yesyesyes") ? "yes" : "NO" }' \
            "$tmp/out"
        grep -q '^verified: every reduced value' "$tmp/out" || status=1
    done
done
echo "$name: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$name: comm/cp = nominal communication (sum w s / B, measured link) / nominal compute F+Bw;"
echo "$name: pr/ff, op/ff = measured iteration time of prophet, optimal over fifo (medians);"
echo "$name: pred = slo_comm_simulate ratio on the measured per-layer compute and link; plan = the same on the nominal profile"
exit $status
