#!/bin/sh
# bench_mpiprof.sh - slo-mpiprof against an independent OSU-style reference
# (bench/osu_bw_ref.c, written from the osu_bw description, no shared code):
# point-to-point bandwidth of ranks 0 -> 1 at 64 KiB, 1 MiB and 4 MiB, both
# programs run alternately three times in this one bench run (ref, profiler,
# ref, ...) with the same window (64) and iteration counts (OSU's), ratio =
# profiler / reference of the medians (the machine is shared: the load
# average is printed); then the profiler's wall time for the
# full matrix (--quick and default) at -np 2 and -np 4. `make bench` runs it;
# without MPI it prints a skip line and succeeds.
set -u
name=bench_mpiprof
B=${SLO_BUILDDIR:-.}
PROF=$B/mpi_profiler/slo-mpiprof
REF=$B/bench/osu_bw_ref
if [ "${SLO_MPIRUN:-no}" = no ] || [ ! -x "${SLO_MPIRUN:-}" ] || [ ! -x "$PROF" ] || [ ! -x "$REF" ]; then
    echo "$name: SKIP: Open MPI not found by configure (slo-mpiprof and osu_bw_ref not built)"
    exit 0
fi
if ! command -v jq >/dev/null 2>&1; then
    echo "$name: SKIP: jq not found (Debian: jq); it reads the profiler's JSON"
    exit 0
fi
. "${SLO_SRCDIR:?make bench sets SLO_SRCDIR}/tests/mpi_env.sh"
MPIRUN=$SLO_MPIRUN
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sizes="65536 1048576 4194304"

echo "$name: load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null) on $(nproc 2>/dev/null) cores"
echo "$name: point-to-point bandwidth, ranks 0 -> 1 of mpirun -np 2, MB/s (10^6 B/s), 3 alternating rounds"
for round in 1 2 3; do
    # shellcheck disable=SC2086
    "$MPIRUN" -np 2 "$REF" $sizes >"$tmp/ref$round" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
    "$MPIRUN" -np 2 "$PROF" --sizes 65536,1048576,4194304 --output "$tmp/prof$round.json" \
        2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
    jq -r '.point_to_point.pairs[0].bandwidth[] | "\(.size_bytes) \(.bandwidth_bytes_per_s / 1e6)"' \
        "$tmp/prof$round.json" >"$tmp/prof$round"
done
printf '%10s %24s %24s %8s\n' size_bytes "reference (3 rounds)" "slo-mpiprof (3 rounds)" ratio
for s in $sizes; do
    r=$(for k in 1 2 3; do awk -v s="$s" '$1 == s {print $2}' "$tmp/ref$k"; done | sort -g | tr '\n' ' ')
    p=$(for k in 1 2 3; do awk -v s="$s" '$1 == s {print $2}' "$tmp/prof$k"; done | sort -g | tr '\n' ' ')
    echo "$s $r $p" | awk '{
        printf "%10d %7.0f %7.0f %7.0f  %7.0f %7.0f %7.0f  %8.3f\n", $1, $2, $3, $4, $5, $6, $7, $6 / $3 }'
done
m=$(jq '.ceiling.memcpy_bytes_per_s / 1e6' "$tmp/prof1.json")
echo "memcpy ceiling (same run, profiler): $(printf '%.1f' "$m") MB/s"

echo "$name: profiler wall time for the full matrix (s)"
printf '%4s %10s %10s %8s %s\n' np mode wall_s pairs "ring link (alpha per step, B)"
for np in 2 4; do
    for mode in quick default; do
        opt=""; [ "$mode" = quick ] && opt=--quick
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086
        "$MPIRUN" -np "$np" "$PROF" $opt --output "$tmp/run.json" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
        t1=$(date +%s.%N)
        link=$(jq -r '.allreduce.ring_model | "\(.alpha_s * 1e6 * 1000 | round / 1000) us, \(.link_bandwidth_bytes_per_s / 1e9 * 100 | round / 100) GB/s\(if .suspect then " (suspect)" else "" end)"' "$tmp/run.json")
        pairs=$(jq '.point_to_point.pairs | length' "$tmp/run.json")
        awk -v np="$np" -v mode="$mode" -v a="$t0" -v b="$t1" -v p="$pairs" -v l="$link" \
            'BEGIN { printf "%4d %10s %10.2f %8d %s\n", np, mode, b - a, p, l }'
    done
done
