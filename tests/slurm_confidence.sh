#!/bin/sh
# slurm_confidence.sh - sbatch --slo-confidence=P on the real single-host
# Slurm test cluster (issue 13 item 4; cluster: tests/slurm/cluster.sh),
# spank_slo.so loaded with the test cluster's catalog plus interruption rates
# (g4dn.12xlarge, the spot type: 0.3 per hour) and restart_overhead_s 120:
#   1. the allocation equals the plan of `slo train --slo-confidence P
#      --exact --max-nodes 64` on the same catalog with the live inventory
#      as quotas (scontrol show nodes read with the plugin's rule, as in
#      tests/slurm_submit.sh), for two confidences that give different plans,
#      and the user sees the plan's P(deadline met) line;
#   2. when only the plan at on-demand prices reaches P (rate 0.9) the plugin
#      plans it on the nodes usable on demand (none of the cloud nodes: they
#      are spot-only), and the SLO is refused in enforce mode, naming it;
#   3. bad values (0, 1, 1.5, abc, 90%) fail sbatch naming --slo-confidence,
#      no job; no crash, no drained node afterwards.
. "$SLO_SRCDIR/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
cluster_require_slurm
command -v jq >/dev/null 2>&1 || cluster_skip "jq not found (Debian: jq)"

spank=${SLO_SPANK_SO:-$SLO_BUILDDIR/spank_plugin/.libs/spank_slo.so}
[ -e "$spank" ] || cluster_skip "spank_slo.so not built (configure found no slurm/spank.h)"
spank=$(cluster_private_copy "$spank") || { echo "not ok - copy of spank_slo.so"; exit 1; }
fix=$(cluster_private_fixtures "$SLO_SRCDIR/tests/slurm") || { echo "not ok - fixtures"; exit 1; }
# rate RATE -> $fix/catalog-RATE.json
rate_catalog() {
    jq --argjson r "$1" '.restart_overhead_s = 120
        | .types |= map(if (.site // "cloud") == "cloud" then . + {interruption_rate: $r} else . end)' \
        "$fix/catalog.json" >"$fix/catalog-$1.json" && chmod a+r "$fix/catalog-$1.json"
}
rate_catalog 0.3
rate_catalog 0.9
CLUSTER_PLUGSTACK="required $spank catalog=$fix/catalog-0.3.json workloads=$fix/workloads mode=enforce"
CLUSTER_POWER=${CLUSTER_POWER:-slo-power}
[ -n "$(cluster_slo_power)" ] || CLUSTER_POWER=standin   # jobs are held: no cloud node starts
cluster_start
D=$CLUSTER_DIR

submit() { cluster_submit sbatch --parsable "$@"; }
njobs() { squeue -h -o %i 2>/dev/null | wc -l; }
field() { cluster_job_field "$job" "$1"; }

# The live inventory -> quotas (tests/slurm_submit.sh's reading of the
# plugin's rule, spot pricing).
scontrol -o show nodes >"$tmp/nodes"
jq -r '.types[] | "\(.name) \(.site // "cloud")"' "$fix/catalog.json" >"$tmp/types"
inv=$(cluster_usable_inventory "$tmp/types" "$tmp/nodes")
echo "# usable nodes by instance type: $inv"
jq --argjson inv "$inv" '.types |= map(.quota = ([.quota, ($inv[.name] // 0)] | min))' \
    "$fix/catalog-0.3.json" >"$D/catalog-live.json"

# 1. Two confidences, two plans: each allocation = slo train's.
plans=""
for c in 0.5 0.95; do
    "$SLO" train --catalog "$D/catalog-live.json" --workload "$fix/workloads/testnet.json" \
        --slo-loss 0.8 --slo-time 23:00 --slo-confidence "$c" --exact --max-nodes 64 --json \
        >"$tmp/cli.json" 2>"$tmp/cli.err"
    cli_plan=$(jq -c .plan "$tmp/cli.json" 2>/dev/null)
    cli_p=$(jq -r '.risk.p_deadline_met' "$tmp/cli.json" 2>/dev/null)
    want=$(cluster_expected_request "$D/catalog-live.json" "${cli_plan:-null}" 2>/dev/null)
    echo "# slo train --slo-confidence $c: $cli_plan, P $cli_p -> expect $want"
    submit --slo-workload=testnet --slo-loss=0.8 --slo-time=23:00 --slo-confidence="$c" --hold \
        -o /dev/null --wrap true
    got=$(cluster_job_request "$job")
    p_line=$(grep -o 'slo-confidence [0-9.]*: P(deadline met) [0-9.]*' "$tmp/err")
    if [ "$rc" = 0 ] && [ -n "$job" ] && [ -n "$want" ] && [ "$got" = "$want" ] &&
       awk -v a="${p_line##* }" -v b="$cli_p" 'BEGIN { d = a - b; exit !(d < 1e-4 && d > -1e-4) }'; then
        ok "--slo-confidence=$c: job $job = slo train's plan $got, $p_line"
    else
        echo "# scontrol: $got; slo train: $want; plugin line: $p_line" >>"$tmp/err"
        notok "--slo-confidence=$c allocation (exit $rc)"
    fi
    plans="$plans|$got"
    [ -n "$job" ] && scancel "$job"
done
if [ "$(echo "$plans" | tr '|' '\n' | sed '/^$/d' | sort -u | wc -l)" = 2 ]; then
    ok "the two confidences give two different allocations"
else notok "two confidences, two plans ($plans)"; fi

# 2. Rate 0.9: only the on-demand plan reaches 0.9; no cloud node is usable
# on demand, and the on-prem nodes alone miss 23:00: refused, said why.
sed -i "s|catalog=$fix/catalog-0.3.json|catalog=$fix/catalog-0.9.json|" "$D/etc/plugstack.conf"
n0=$(njobs)
submit --slo-workload=testnet --slo-loss=0.8 --slo-time=23:00 --slo-confidence=0.9 --hold -o /dev/null --wrap true
if [ "$rc" != 0 ] && [ -z "$job" ] && [ "$(njobs)" = "$n0" ] &&
   grep -q 'slo-confidence=0.9: only the plan at on-demand prices meets the deadline' "$tmp/err" &&
   grep -q 'no plan meets the SLO' "$tmp/err"; then
    ok "rate 0.9: the on-demand pick, planned on the on-demand nodes, is refused and said"
else
    notok "rate 0.9, on-demand pick (exit $rc, job ${job:-none})"
fi
sed -i "s|catalog=$fix/catalog-0.9.json|catalog=$fix/catalog-0.3.json|" "$D/etc/plugstack.conf"

# 3. Bad values: sbatch fails naming the option, no job.
for bad in 0 1 1.5 abc 90%; do
    n0=$(njobs)
    submit --slo-workload=testnet --slo-loss=0.8 --slo-time=40:00 --slo-confidence="$bad" --hold \
        -o /dev/null --wrap true
    if [ "$rc" != 0 ] && [ -z "$job" ] && [ "$(njobs)" = "$n0" ] &&
       grep -q -- "--slo-confidence: expected a probability of meeting the deadline in (0, 1), found \"$bad\"" "$tmp/err"; then
        ok "sbatch --slo-confidence=$bad rejected"
    else
        notok "sbatch --slo-confidence=$bad (exit $rc, job ${job:-none})"
    fi
done

if cluster_check_health; then ok "no crash, no drained node"; else notok "cluster health"; fi
cluster_stop
finish
