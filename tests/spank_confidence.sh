#!/bin/sh
# spank_confidence.sh - spank_slo.so's --slo-confidence plan equals `slo train
# --slo-confidence P --exact --max-nodes N` on the same catalog and workload
# (issue 13 item 4). The plugin's side is its own planning code, sslo_plan()
# of spank_plugin/plan.c, run by tests/spank_risk_plan on the Slurm test
# cluster's catalog (tests/slurm/catalog.json, quotas as its usable nodes)
# with interruption rates and a restart overhead added, and workload testnet.
# Cases cover each outcome: a spot plan (its SLO_INSTANCES, SLO_TIME_S,
# SLO_COST_USD records against the CLI's plan, time_s and cost_usd), the pick
# of the on-demand plan, and the refusal (the same best probability named).
# Also the option's bad values, as the plugin parses them (sslo_option_parse
# is unit-tested in tests/test_spank_args.c).
# Exit 77 (SKIP) without Slurm's headers (no plugin, no tests/spank_risk_plan)
# or without jq.
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"

prog=${SLO_BUILDDIR:-.}/tests/spank_risk_plan
if [ ! -x "$prog" ]; then
    echo "SKIP: $prog not built (no slurm/spank.h: Debian libslurm-dev)"; exit 77
fi
if ! command -v jq >/dev/null 2>&1; then
    echo "SKIP: jq not found (Debian: jq)"; exit 77
fi
WL=$SLO_SRCDIR/tests/slurm/workloads/testnet.json

# catalog RATE RESTART -> $tmp/cat-RATE.json: the cloud type gets RATE
catalog() {
    jq --argjson r "$1" --argjson d "$2" \
        '.restart_overhead_s = $d | .types |= map(if .site == "cloud" then . + {interruption_rate: $r} else . end)' \
        "$SLO_SRCDIR/tests/slurm/catalog.json" >"$tmp/cat-$1.json"
}

# same RATE DEADLINE_S CONFIDENCE MAX_NODES [BUDGET]: both sides, compared
same() {
    rate=$1 d=$2 c=$3 n=$4 b=${5:-}
    name="rate $rate, ${d} s, P >= $c, max-nodes $n${b:+, budget $b}"
    plug=$("$prog" "$tmp/cat-$rate.json" "$WL" 0.8 "$d" "$c" "$n" $b)
    "$SLO" train --catalog "$tmp/cat-$rate.json" --workload "$WL" --slo-loss 0.8 \
        --slo-time "${d}s" --slo-confidence "$c" --exact --max-nodes "$n" \
        ${b:+--budget "$b"} --json >"$tmp/out" 2>"$tmp/err"
    rc=$?
    case $plug in
    "plan "*)
        # plan TYPE:N,... time T cost C p P
        set -- $plug
        want=$(jq -r '[.plan | to_entries[] | "\(.key):\(.value)"] | join(",")' "$tmp/out")
        if [ "$rc" = 0 ] && [ "$(jq -r .risk_model.chosen_pricing "$tmp/out")" = spot ] &&
           [ "$2" = "$want" ] &&
           awk -v t="$4" -v c="$6" -v p="$8" -v ct="$(jq .time_s "$tmp/out")" \
               -v cc="$(jq .cost_usd "$tmp/out")" -v cp="$(jq .risk.p_deadline_met "$tmp/out")" \
               'BEGIN { d = t - ct; e = c - cc; f = p - cp
                        exit !(d * d < 1e-4 && e * e < 1e-12 && f * f < 1e-16) }'; then
            ok "$name: plugin = slo train: $2"
        else
            echo "# plugin: $plug; slo train exit $rc, plan $want" >>"$tmp/err"
            notok "$name: plugin = slo train"
        fi
        echo "$2" >>"$tmp/kinds" ;;
    on-demand-pick)
        if [ "$rc" = 0 ] && [ "$(jq -r .risk_model.chosen_pricing "$tmp/out")" = on-demand ]; then
            ok "$name: both pick the on-demand plan"
        else
            echo "# plugin: $plug; slo train exit $rc" >>"$tmp/err"
            notok "$name: both pick the on-demand plan"
        fi
        echo on-demand >>"$tmp/kinds" ;;
    "refused "*)
        # the most likely plan's probability, or (a budget below every
        # confident plan's expected cost) the cheapest one's and its cost
        pp=$(echo "$plug" | sed -n 's/.*meets \(it\|the deadline\) with probability \([0-9.]*\)\( at an expected [0-9.]* USD\)\{0,1\}$/\2\3/p')
        cp=$(sed -n 's/.*meets \(it\|the deadline\) with probability \([0-9.]*\)\( at an expected [0-9.]* USD\)\{0,1\}$/\2\3/p' "$tmp/err")
        if [ "$rc" = 2 ] && [ "$(jq -r .status "$tmp/out")" = infeasible ] && [ -n "$pp" ] && [ "$pp" = "$cp" ] &&
           [ "$(wc -l <"$tmp/err")" = 1 ]; then
            ok "$name: both refuse, best probability $pp"
        else
            echo "# plugin: $plug; slo train exit $rc" >>"$tmp/err"
            notok "$name: both refuse with the same best probability"
        fi
        echo refused >>"$tmp/kinds" ;;
    *)
        echo "# plugin: $plug" >>"$tmp/err"
        notok "$name: the plugin's outcome" ;;
    esac
}

catalog 0.05 60
catalog 0.3 120
catalog 0.9 120
for d in 1250 1380 1500 2400; do
    for c in 0.5 0.9 0.99; do
        same 0.05 "$d" "$c" 64
        same 0.3 "$d" "$c" 64
        same 0.9 "$d" "$c" 64
    done
done
same 0.3 1380 0.9 3
same 0.9 1380 0.5 64 1.5
same 0.9 1380 0.9 64 1.5
same 0.9 1250 0.5 64 1.5
# The cases are not all one kind: spot plans of different sizes, the
# on-demand pick and a refusal each occur.
kinds=$(sort -u "$tmp/kinds" | wc -l)
if [ "$kinds" -ge 4 ] && grep -qx on-demand "$tmp/kinds" && grep -qx refused "$tmp/kinds"; then
    ok "$kinds kinds of outcome compared"
else
    sort -u "$tmp/kinds" >"$tmp/out"; notok "kinds of outcome"
fi

# Without a rate the plugin refuses --slo-confidence naming the field.
plug=$("$prog" "$SLO_SRCDIR/tests/slurm/catalog.json" "$WL" 0.8 1380 0.9 64)
case $plug in
"error --slo-confidence: "*"no interruption_rate for g4dn.12xlarge"*)
    ok "no interruption_rate: the plugin names the field and the type" ;;
*) echo "$plug" >"$tmp/out"; notok "no interruption_rate in the plugin" ;;
esac
finish
