#!/bin/sh
# cli_replay.sh - `slo replay` end to end: a synthetic trace whose outcome is
# known (spot always there: every spot policy pays the spot price for the
# on-demand plan's run, so its cost is on-demand's x 1.25/3.06, the
# aws-table3 p3.2xlarge prices), a real AWS trace (shared/data/spot-traces,
# skypilot-org/spot-traces @221da1a, us-east-1a p3.2xlarge, NSDI'24 "Can't
# Be Late") where the on-demand and re-planning policies meet every
# deadline, and the bad inputs of issue 13 (a trace not of the documented
# shape, an interruption rate outside [0, 1], a confidence outside (0, 1)).
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"
PY=/usr/bin/python3

# 1. Synthetic: 30 ticks of 600 s, one p3.2xlarge always obtainable.
printf '{"metadata": {"gap_seconds": 600}, "data": [%s1]}\n' "$(yes '1, ' | head -n 29 | tr -d '\n')" >"$tmp/always.json"
"$SLO" replay --trace p3.2xlarge="$tmp/always.json" --workload resnet110 --slo-loss 0.8 \
    --slo-time 3h --starts 3 --json >"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && $PY - "$tmp/out" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
names = [p["name"] for p in d["policies"]]
assert names == ["on-demand", "spotdnn", "spotdnn-replan", "risk-aware", "uniform-progress"], names
for p in d["policies"]:
    assert p["runs"] == 3 and p["deadlines_met"] == 3, p
od = d["policies"][0]["mean_cost_usd"]
for p in d["policies"][1:]:
    assert abs(p["mean_cost_usd"] - od * 1.25 / 3.06) < 1e-9, (p, od)
PYEOF
then ok "synthetic trace: every policy meets, spot policies pay od x 1.25/3.06"
else notok "synthetic trace"; fi

# 2. Capacity lost for good after 2 ticks: spotdnn (no re-planning) misses,
#    spotdnn-replan and risk-aware meet.
printf '{"metadata": {"gap_seconds": 600}, "data": [1, 1%s]}\n' "$(yes ', 0' | head -n 28 | tr -d '\n')" >"$tmp/lost.json"
"$SLO" replay --trace p3.2xlarge="$tmp/lost.json" --workload resnet110 --slo-loss 0.8 \
    --slo-time 3h --starts 1 --json >"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && $PY - "$tmp/out" <<'PYEOF'
import json, sys
p = {x["name"]: x for x in json.load(open(sys.argv[1]))["policies"]}
assert p["spotdnn"]["deadlines_met"] == 0, p
assert p["spotdnn-replan"]["deadlines_met"] == 1 and p["spotdnn-replan"]["replans"] == 1, p
assert p["risk-aware"]["deadlines_met"] == 1 and p["uniform-progress"]["deadlines_met"] == 1, p
PYEOF
then ok "capacity lost: spotdnn misses, re-planning meets"
else notok "capacity lost"; fi

# 3. The human table.
succeeds "human table" "^on-demand +1 +1/1" "^spotdnn +1 +0/1" "^uniform-progress" -- \
    replay --trace p3.2xlarge="$tmp/lost.json" --workload resnet110 --slo-loss 0.8 --slo-time 3h --starts 1
# The header in the singular for one (it said "1 start times", "up to 1
# instances"), the plural otherwise.
succeeds "human table: one start time, up to 1 instance" \
    "^replay: loss 0\.8 within 10800 s, restart overhead 30 s, 1 start time\$" \
    "^  trace p3\.2xlarge: .* \(30 ticks of 600 s, up to 1 instance, [0-9.]+ interruption rate per hour\)\$" -- \
    replay --trace p3.2xlarge="$tmp/lost.json" --workload resnet110 --slo-loss 0.8 --slo-time 3h --starts 1
printf '{"metadata": {"gap_seconds": 600}, "data": [2, 1%s]}\n' "$(yes ', 0' | head -n 28 | tr -d '\n')" >"$tmp/two.json"
succeeds "human table: start times, up to 2 instances" "^replay: .*, 2 start times\$" \
    "^  trace p3\.2xlarge: .* \(30 ticks of 600 s, up to 2 instances, " -- \
    replay --trace p3.2xlarge="$tmp/two.json" --workload resnet110 --slo-loss 0.8 --slo-time 3h --starts 2

# 4. A real trace.
traces=${SLO_REFERENCE_DATA:-}/spot-traces
real=$traces/availability/1-node/aws-02-15-2023/us-east-1a_v100_1.json
if [ -r "$real" ]; then
    "$SLO" replay --trace p3.2xlarge="$real" --workload resnet110 --slo-loss 0.8 --slo-time 3h \
        --starts 10 --json >"$tmp/out" 2>"$tmp/err"
    if [ $? = 0 ] && $PY - "$tmp/out" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = {x["name"]: x for x in d["policies"]}
assert all(x["runs"] == 10 for x in p.values())
for n in ("on-demand", "spotdnn-replan", "risk-aware"):
    assert p[n]["deadlines_met"] == 10, p[n]
assert d["traces"][0]["ticks"] == 20158 and d["traces"][0]["gap_s"] == 195
assert 0 < d["traces"][0]["interruption_rate"] < 1
PYEOF
    then ok "real trace us-east-1a: on-demand, spotdnn-replan, risk-aware meet 10/10"
    else notok "real trace"; fi
else
    echo "# no reference traces at $traces: real-trace case not run"
fi

# 5. Bad input: one message, exit 2.
printf '{"metadata": {"gap_seconds": 600}, "data": [1, 1, 1, -1]}\n' >"$tmp/neg.json"
expect "negative capacity" "neg.json: data\[3\]: expected an integer from 0 to 1000000, found -1" \
    replay --trace p3.2xlarge="$tmp/neg.json" --workload resnet110 --slo-loss 0.8 --slo-time 3h
printf '{"metadata": {}, "data": [1]}\n' >"$tmp/nogap.json"
expect "no gap_seconds" "nogap.json: metadata.gap_seconds: expected a tick length" \
    replay --trace p3.2xlarge="$tmp/nogap.json" --workload resnet110 --slo-loss 0.8 --slo-time 3h
printf '[1, 2]\n' >"$tmp/list.json"
expect "not an object" "list.json: expected a JSON object" \
    replay --trace p3.2xlarge="$tmp/list.json" --workload resnet110 --slo-loss 0.8 --slo-time 3h
printf '{"metadata": {"gap_seconds": 600}, "data": [1' >"$tmp/cut.json"
expect "malformed JSON" "cut.json: line 1" \
    replay --trace p3.2xlarge="$tmp/cut.json" --workload resnet110 --slo-loss 0.8 --slo-time 3h
expect "missing file" "nonexistent" \
    replay --trace p3.2xlarge=/nonexistent/t.json --workload resnet110 --slo-loss 0.8 --slo-time 3h
expect "no =" "--trace: expected TYPE=FILE, found" \
    replay --trace "$tmp/always.json" --workload resnet110 --slo-loss 0.8 --slo-time 3h
expect "no trace" "--trace: expected TYPE=FILE, found it missing" \
    replay --workload resnet110 --slo-loss 0.8 --slo-time 3h
for c in 0 1 1.5 -0.2; do
    expect "--slo-confidence $c" "--slo-confidence: expected a probability in \(0, 1\)" \
        replay --trace p3.2xlarge="$tmp/always.json" --workload resnet110 --slo-loss 0.8 \
        --slo-time 3h --slo-confidence "$c"
done
for r in 1.5 -0.1; do
    expect "--interruption-rate $r" "--interruption-rate: p3.2xlarge: expected .* in \[0, 1\]" \
        replay --trace p3.2xlarge="$tmp/always.json" --workload resnet110 --slo-loss 0.8 \
        --slo-time 3h --interruption-rate p3.2xlarge="$r"
done
expect "--interruption-rate for an untraced type" "expected a type given with --trace" \
    replay --trace p3.2xlarge="$tmp/always.json" --workload resnet110 --slo-loss 0.8 \
    --slo-time 3h --interruption-rate p2.8xlarge=0.1
expect "type not in the catalog" "--trace: expected a cloud instance type of catalog aws-table3, found \"v100_1\"" \
    replay --trace v100_1="$tmp/always.json" --workload resnet110 --slo-loss 0.8 --slo-time 3h
# A catalog with spot pools (slo catalog import of the aws CLI replicas in
# tests/catalog: p3.2xlarge in us-east-1a, -1b, -1c): a trace is one zone's
# capacity, so TYPE must be a pool, and the message names the pools.
C=$SLO_SRCDIR/tests/catalog
"$SLO" catalog import --spot-prices "$C/spot-price-history.json" --instance-types "$C/instance-types.json" \
    --pricing "$C/get-products.json" --quota 1 --output "$tmp/pools.json" 2>/dev/null
expect "a type listed as pools names its pools" \
    "--trace: expected a cloud instance type or spot pool of catalog aws-import, found \"p3.2xlarge\", which it lists as spot pools \(p3.2xlarge@us-east-1a, p3.2xlarge@us-east-1b, p3.2xlarge@us-east-1c\)" \
    replay --trace p3.2xlarge="$tmp/always.json" --catalog "$tmp/pools.json" --workload resnet110 \
    --slo-loss 0.8 --slo-time 3h
if "$SLO" replay --trace p3.2xlarge@us-east-1a="$tmp/always.json" --catalog "$tmp/pools.json" \
       --workload resnet110 --slo-loss 0.8 --slo-time 3h --starts 2 >"$tmp/out" 2>"$tmp/err" &&
   grep -q "^  trace p3.2xlarge@us-east-1a: " "$tmp/out"; then
    ok "a pool as --trace TYPE replays"
else notok "a pool as --trace TYPE: $(cat "$tmp/err")"; fi
expect "type the workload lacks" "expected instance types that workload resnet110 profiles, found \"g3.4xlarge\"" \
    replay --trace g3.4xlarge="$tmp/always.json" --workload resnet110 --slo-loss 0.8 --slo-time 3h
expect "trace shorter than the deadline" "expected traces covering the deadline" \
    replay --trace p3.2xlarge="$tmp/always.json" --workload resnet110 --slo-loss 0.8 --slo-time 6h
expect "on-demand cannot meet it" "no on-demand plan of the traced types meets loss 0.8" \
    replay --trace p3.2xlarge="$tmp/always.json" --workload resnet110 --slo-loss 0.8 --slo-time 60s
expect "--starts 0" "--starts: expected an integer from 1" \
    replay --trace p3.2xlarge="$tmp/always.json" --workload resnet110 --slo-loss 0.8 --slo-time 3h --starts 0
expect "same type twice" "expected each instance type once" \
    replay --trace p3.2xlarge="$tmp/always.json" --trace p3.2xlarge="$tmp/lost.json" \
    --workload resnet110 --slo-loss 0.8 --slo-time 3h

finish
