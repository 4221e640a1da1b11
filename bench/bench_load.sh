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
#   - the plugin's added latency: the median, over the rounds with a
#     baseline, of planned minus the baseline submitted just before it, ms;
#   - slurmctld's resident memory (VmRSS) before the first and after the last
#     submission, with the jobs still pending, and after they are cancelled.
# Prints one skip line and exits 0 where Slurm, root or the plugin is absent.
set -u
skip() { echo "bench_load: skipped: $*"; exit 0; }
: "${SLO_SRCDIR:?SLO_SRCDIR must name the source tree (make bench sets it)}"
: "${SLO_BUILDDIR:?SLO_BUILDDIR must name the build tree (make bench sets it)}"
: "${SLO:=$SLO_BUILDDIR/cli/slo}"; export SLO
load_n=${SLO_LOAD_JOBS:-500}
spank=${SLO_SPANK_SO:-$SLO_BUILDDIR/spank_plugin/.libs/spank_slo.so}
fix=${SLO_SLURM_FIXTURES:-$SLO_SRCDIR/tests/slurm}
[ -e "$spank" ] || skip "spank_slo.so not built ($spank)"
. "$SLO_SRCDIR/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
( cluster_require_slurm ) >"$tmp/req" 2>&1 || skip "$(sed 's/^SKIP: //' "$tmp/req")"
spank=$(cluster_private_copy "$spank") || skip "cannot copy $spank"
CLUSTER_PLUGSTACK="required $spank catalog=$fix/catalog.json workloads=$fix/workloads mode=enforce"
CLUSTER_POWER=standin    # no cloud node is started: every job is held
cluster_start
D=$CLUSTER_DIR
mkdir -p "$D/etc-base"
: >"$D/etc-base/plugstack.conf"
sed "s|^PlugStackConfig=.*|PlugStackConfig=$D/etc-base/plugstack.conf|" "$D/etc/slurm.conf" >"$D/etc-base/slurm.conf"
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$(cat "$D/run/slurmctld.pid")/status"; }
now_us() { echo $(( $(date +%s%N) / 1000 )); }
sub_fails=0
: >"$tmp/planned"; : >"$tmp/base"; : >"$tmp/jobs"; : >"$tmp/pairs"
rss0=$(rss)
i=0
while [ "$i" -lt "$load_n" ]; do
    case $((i % 3)) in 0) t=40:00 ;; 1) t=25:00 ;; *) t=23:00 ;; esac
    mode=enforce; [ $((i % 3)) = 2 ] && mode=advise
    # every 10th round a pair: the baseline right before the planned one
    if [ $((i % 10)) = 0 ]; then
        t0=$(now_us)
        SLURM_CONF=$D/etc-base/slurm.conf sbatch --hold -o /dev/null --wrap true >/dev/null 2>&1 &&
            tb=$(( $(now_us) - t0 )) && echo "$tb" >>"$tmp/base"
    fi
    t0=$(now_us)
    if out=$(sbatch --parsable --hold -o /dev/null --slo-mode=$mode --slo-workload=testnet \
            --slo-loss=0.8 --slo-time=$t --wrap true 2>"$tmp/err"); then
        tp=$(( $(now_us) - t0 ))
        echo "$tp" >>"$tmp/planned"
        [ $((i % 10)) = 0 ] && echo $((tp - tb)) >>"$tmp/pairs"
        echo "${out%%;*} $mode" >>"$tmp/jobs"
    else
        sub_fails=$((sub_fails + 1)); echo "bench_load: submission $i ($mode, $t) failed:"; cat "$tmp/err"
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
# (not p, b, d: cluster.sh's functions use short names)
lat_p=$(median "$tmp/planned"); lat_b=$(median "$tmp/base"); lat_d=$(median "$tmp/pairs")
health=ok; cluster_check_health >"$tmp/health" 2>&1 || health="FAILED: $(head -3 "$tmp/health" | tr '\n' ' ')"
echo "load: $load_n planned submissions (1/3 advise, 2/3 enforce; spank_slo.so required, job_submit.lua):"
echo "  failed submissions: $sub_fails; jobs whose record disagrees with their mode: $bad"
awk -v p="$lat_p" -v b="$lat_b" -v d="$lat_d" -v nb="$(wc -l <"$tmp/pairs")" 'BEGIN {
    printf "  sbatch median: %.2f ms planned (all), %.2f ms without the plugin; added by the plugin: median of %d back-to-back pairs %+.2f ms\n", p / 1000, b / 1000, nb, d / 1000 }'
q() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "min %.2f / median %.2f / max %.2f ms", v[1] / 1000, v[int((NR + 1) / 2)] / 1000, v[NR] / 1000 }'; }
echo "  planned: $(q "$tmp/planned"); baseline: $(q "$tmp/base"); pairs: $(q "$tmp/pairs")"
echo "  slurmctld VmRSS: ${rss0} kB before, ${rss1} kB with $load_n jobs pending (+$((rss1 - rss0)) kB), ${rss2} kB after cancelling"
echo "  cluster health: $health"
cluster_stop >/dev/null || echo "bench_load: warning: a daemon had to be killed at teardown"
[ "$sub_fails" = 0 ] && [ "$bad" = 0 ] && [ "$health" = ok ] || exit 1
exit 0
