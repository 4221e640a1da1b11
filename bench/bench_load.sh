#!/bin/sh
# bench_load.sh - 500 planned submissions on the single-host test cluster
# (issue 14 "What it must show": load). Run by `make bench` (as
# bench/bench_load, a copy made by mk/slurm.am); SLO_LOAD_JOBS changes 500.
#   - SLO_LOAD_JOBS `sbatch --hold --wrap true` with --slo-* (every third in
#     advise mode, the others enforce; SLOs 0.8 in 40:00, 25:00, 23:00 in
#     turn: on-prem, mixed on-prem and burst plans) through spank_slo.so
#     `required` and job_submit.lua; every 10th round also one submission
#     without the plugin (the baseline), interleaved so drift hits both;
#   - failures: a submission that exits nonzero, and a job whose record does
#     not show what its mode promises (enforce: AdminComment slo-plan:...,
#     a time limit; advise: neither);
#   - the plugin's added latency: median planned minus median baseline, ms;
#   - slurmctld's resident memory (VmRSS) before the first and after the last
#     submission, with the jobs still pending, and after they are cancelled.
# Prints one skip line and exits 0 where Slurm, root or the plugin is absent.
set -u
skip() { echo "bench_load: skipped: $*"; exit 0; }
: "${SLO_SRCDIR:?SLO_SRCDIR must name the source tree (make bench sets it)}"
: "${SLO_BUILDDIR:?SLO_BUILDDIR must name the build tree (make bench sets it)}"
: "${SLO:=$SLO_BUILDDIR/cli/slo}"; export SLO
n=${SLO_LOAD_JOBS:-500}
spank=${SLO_SPANK_SO:-$SLO_BUILDDIR/spank_plugin/.libs/spank_slo.so}
fix=${SLO_SLURM_FIXTURES:-$SLO_SRCDIR/tests/slurm}
[ -e "$spank" ] || skip "spank_slo.so not built ($spank)"
. "$SLO_SRCDIR/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
( cluster_require_slurm ) >"$tmp/req" 2>&1 || skip "$(sed 's/^SKIP: //' "$tmp/req")"
CLUSTER_PLUGSTACK="required $spank catalog=$fix/catalog.json workloads=$fix/workloads mode=enforce"
CLUSTER_POWER=standin    # no cloud node is started: every job is held
cluster_start
D=$CLUSTER_DIR
mkdir -p "$D/etc-base"
: >"$D/etc-base/plugstack.conf"
sed "s|^PlugStackConfig=.*|PlugStackConfig=$D/etc-base/plugstack.conf|" "$D/etc/slurm.conf" >"$D/etc-base/slurm.conf"
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$(cat "$D/run/slurmctld.pid")/status"; }
now_us() { echo $(( $(date +%s%N) / 1000 )); }
fails=0
: >"$tmp/planned"; : >"$tmp/base"; : >"$tmp/jobs"
rss0=$(rss)
i=0
while [ "$i" -lt "$n" ]; do
    case $((i % 3)) in 0) t=40:00 ;; 1) t=25:00 ;; *) t=23:00 ;; esac
    mode=enforce; [ $((i % 3)) = 2 ] && mode=advise
    t0=$(now_us)
    if out=$(sbatch --parsable --hold -o /dev/null --slo-mode=$mode --slo-workload=testnet \
            --slo-loss=0.8 --slo-time=$t --wrap true 2>"$tmp/err"); then
        echo $(( $(now_us) - t0 )) >>"$tmp/planned"
        echo "${out%%;*} $mode" >>"$tmp/jobs"
    else
        fails=$((fails + 1)); echo "bench_load: submission $i ($mode, $t) failed:"; cat "$tmp/err"
    fi
    if [ $((i % 10)) = 0 ]; then
        t0=$(now_us)
        SLURM_CONF=$D/etc-base/slurm.conf sbatch --hold -o /dev/null --wrap true >/dev/null 2>&1 &&
            echo $(( $(now_us) - t0 )) >>"$tmp/base"
    fi
    i=$((i + 1))
done
rss1=$(rss)
# every job's record shows what its mode promises
scontrol -o show job 2>/dev/null | awk '{ id = ""; tl = ""; ac = ""
        for (k = 1; k <= NF; k++) {
            if ($k ~ /^JobId=/) id = substr($k, 7)
            else if ($k ~ /^TimeLimit=/) tl = substr($k, 11)
            else if ($k ~ /^AdminComment=/) ac = substr($k, 14)
        }
        print id, tl, (ac == "" ? "-" : ac) }' >"$tmp/queue"
bad=$(awk 'NR == FNR { mode[$1] = $2; next }
    ($1 in mode) { seen[$1] = 1
        planned = ($3 ~ /^slo-plan:/) && $2 != "UNLIMITED"
        if ((mode[$1] == "enforce") != planned) b++ }
    END { for (j in mode) if (!(j in seen)) b++; print b + 0 }' "$tmp/jobs" "$tmp/queue")
scancel -u "$(id -u)" 2>/dev/null
cluster_wait '[ "$(squeue -h -u "$(id -u)" | wc -l)" = 0 ]' 300
sleep 1
rss2=$(rss)
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
p=$(median "$tmp/planned"); b=$(median "$tmp/base")
health=ok; cluster_check_health >"$tmp/health" 2>&1 || health="FAILED: $(head -3 "$tmp/health" | tr '\n' ' ')"
echo "load: $n planned submissions (1/3 advise, 2/3 enforce; spank_slo.so required, job_submit.lua):"
echo "  failed submissions: $fails; jobs whose record disagrees with their mode: $bad"
awk -v p="$p" -v b="$b" -v nb="$(wc -l <"$tmp/base")" 'BEGIN {
    printf "  sbatch median: %.2f ms planned, %.2f ms without the plugin (%d interleaved), added %+.2f ms\n", p / 1000, b / 1000, nb, (p - b) / 1000 }'
echo "  slurmctld VmRSS: ${rss0} kB before, ${rss1} kB with $n jobs pending (+$((rss1 - rss0)) kB), ${rss2} kB after cancelling"
echo "  cluster health: $health"
cluster_stop >/dev/null || echo "bench_load: warning: a daemon had to be killed at teardown"
[ "$fails" = 0 ] && [ "$bad" = 0 ] && [ "$health" = ok ] || exit 1
exit 0
