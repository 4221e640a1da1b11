#!/bin/sh
# bench_sbatch.sh - sbatch submission latency with and without spank_slo.so
# (issue 6: "median over repeated submissions in the same run, as a ratio;
# target under 5 ms added"). Run by `make bench` (as bench/bench_sbatch, a copy
# made by mk/slurm.am) on the single-host test cluster (tests/slurm/cluster.sh).
#
# Three kinds of submission, interleaved round by round so that drift of the
# machine hits all alike, each `sbatch --hold --wrap true` timed end to end
# (process start to exit, so it includes loading plugstack.conf, the RPC to
# slurmctld and job_submit.lua, which is active in all three):
#   base      plugstack.conf without spank_slo.so
#   loaded    spank_slo.so in plugstack.conf, no --slo-* option
#   planned   spank_slo.so with --slo-workload=testnet --slo-loss=0.8
#             --slo-time=23:00 (the burst plan: catalog + profile read,
#             slurm_load_node inventory, kernel plan, table printed)
# Prints the median and the added time against base, in ms, and the ratio.
# Where Slurm, root or the plugin is missing it prints one skip line and
# exits 0 (make bench must work everywhere).
# Environment: SLO_BENCH_ROUNDS (default 30), SLO_SPANK_SO, SLO_SLURM_FIXTURES.
set -u
skip() { echo "bench_sbatch: skipped: $*"; exit 0; }
: "${SLO_SRCDIR:?SLO_SRCDIR must name the source tree (make bench sets it)}"
: "${SLO_BUILDDIR:?SLO_BUILDDIR must name the build tree (make bench sets it)}"
: "${SLO:=$SLO_BUILDDIR/cli/slo}"; export SLO
rounds=${SLO_BENCH_ROUNDS:-30}
spank=${SLO_SPANK_SO:-$SLO_BUILDDIR/spank_plugin/.libs/spank_slo.so}
fix=${SLO_SLURM_FIXTURES:-$SLO_SRCDIR/tests/slurm}
[ -e "$spank" ] || skip "spank_slo.so not built ($spank)"
[ -e "$fix/catalog.json" ] || skip "test catalog $fix/catalog.json absent"
. "$SLO_SRCDIR/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
# cluster_require_slurm exits 77 with a SKIP line; make bench wants exit 0
( cluster_require_slurm ) >"$tmp/req" 2>&1 || skip "$(sed 's/^SKIP: //' "$tmp/req")"
spank=$(cluster_private_copy "$spank") || skip "cannot copy $spank"
CLUSTER_PLUGSTACK="required $spank catalog=$fix/catalog.json workloads=$fix/workloads mode=enforce"
[ -n "$(cluster_slo_power)" ] || CLUSTER_POWER=standin    # no cloud node is used
cluster_start
D=$CLUSTER_DIR
# a client configuration without the plugin: same slurm.conf, empty plugstack
mkdir -p "$D/etc-base"
: >"$D/etc-base/plugstack.conf"
sed "s|^PlugStackConfig=.*|PlugStackConfig=$D/etc-base/plugstack.conf|" "$D/etc/slurm.conf" >"$D/etc-base/slurm.conf"
with=$D/etc/slurm.conf
without=$D/etc-base/slurm.conf

now_us() { echo $(( $(date +%s%N) / 1000 )); }
# one timed submission: KIND CONF ARGS... -> appends microseconds to $tmp/KIND
one() {
    kind=$1; conf=$2; shift 2
    t0=$(now_us)
    SLURM_CONF=$conf sbatch --hold -o /dev/null "$@" --wrap true >/dev/null 2>"$tmp/err" ||
        { echo "bench_sbatch: sbatch ($kind) failed:"; cat "$tmp/err"; exit 1; }
    echo $(( $(now_us) - t0 )) >>"$tmp/$kind"
}
# warm-up (page cache, munge, slurmctld's first RPCs), not counted
one warm "$without"; one warm "$with"; one warm "$with" --slo-workload=testnet --slo-loss=0.8 --slo-time=23:00
i=0
while [ $i -lt "$rounds" ]; do
    one base "$without"
    one loaded "$with"
    one planned "$with" --slo-workload=testnet --slo-loss=0.8 --slo-time=23:00
    i=$((i + 1))
done
scancel -u "$(id -u)" 2>/dev/null
median() { sort -n "$tmp/$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
b=$(median base); l=$(median loaded); p=$(median planned)
echo "sbatch submission latency, median of $rounds interleaved rounds (--hold, job_submit.lua active in all):"
awk -v b="$b" -v l="$l" -v p="$p" 'BEGIN {
    printf "  %-44s %8.2f ms\n", "without spank_slo.so", b / 1000
    printf "  %-44s %8.2f ms  %+6.2f ms  x%.3f\n", "spank_slo.so loaded, no --slo-*", l / 1000, (l - b) / 1000, l / b
    printf "  %-44s %8.2f ms  %+6.2f ms  x%.3f\n", "spank_slo.so planning (--slo-* burst plan)", p / 1000, (p - b) / 1000, p / b
    printf "  target: under 5 ms added: %s\n", ((p - b) / 1000 < 5 ? "met" : "NOT met")
}'
cluster_stop >/dev/null || echo "bench_sbatch: warning: a daemon had to be killed at teardown"
exit 0
