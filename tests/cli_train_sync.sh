#!/bin/sh
# cli_train_sync.sh - `slo train` on a sync-allreduce workload (issue 17):
# the worked skypilot#4714 comparison in doc/model.md equals slo's output
# row for row, the planner's answers the doc states, and bad sync profiles
# (no gradient bytes, no link data, both batch forms, a bad mode) are one
# message naming the field, exit 2, nothing on stdout; `slo fit train` on
# synthetic DDP logs recovers the coefficients they were drawn from.
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
ex="$SLO_SRCDIR/doc/examples"
W="$ex/sync-workload.json"
C="$ex/sync-catalog.json"
common="--workload $W --catalog $C --slo-loss 0.8 --pricing on-demand"

# 1. The doc's table = slo --compare --json, formatted as the doc prints it.
"$SLO" train $common --slo-time 86400s --compare "h200x8=1;h100x8=2;a100x8=4;l4x8=8" --json \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
"$PY" - "$tmp/out" >"$tmp/rows" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["candidates"]:
    print("| %s | %d | %.0f | %.6f | %.6f | %.4f | %d | %.2f | %.2f | %.2f |" % (
        ",".join("%s=%d" % kv for kv in c["cluster"].items()), c["gpus"], c["global_batch"],
        c["step_s"], c["t_allreduce_s"], c["efficiency"], c["iterations"], c["time_s"],
        c["usd_per_h"], c["cost_usd"]))
print("winner", d["winner"])
PYEOF
sed -n '/<!-- sync-compare begin/,/<!-- sync-compare end/p' "$SLO_SRCDIR/doc/model.md" |
    grep '^| [a-z0-9]*x8=' >"$tmp/doc"
if [ "$rc" = 0 ] && [ "$(wc -l <"$tmp/doc")" = 4 ] && grep -v winner "$tmp/rows" | cmp -s - "$tmp/doc" &&
   grep -qx 'winner 1' "$tmp/rows" && [ ! -s "$tmp/err" ]; then
    ok "doc/model.md's skypilot#4714 table equals slo --compare (winner 2x H100:8)"
else notok "doc/model.md's comparison table"; diff "$tmp/rows" "$tmp/doc" | sed 's/^/#   /'; fi

# 2. The text names the same winner and its reason.
"$SLO" train $common --slo-time 86400s --compare "h200x8=1;h100x8=2;a100x8=4;l4x8=8" \
    >"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && grep -q '^candidate 2 (winner): h100x8=2' "$tmp/out" &&
   grep -q '^winner: candidate 2, the cheapest that meets the SLO (82.193067 USD); it is also the fastest' "$tmp/out"; then
    ok "--compare text: winner and reason"
else notok "--compare text"; fi

# 3. The planner's answers the doc states: 1x H100:8 within a day, 2x H100:8 within 50 min.
"$SLO" train $common --slo-time 86400s --json >"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["plan"]
assert d["status"] == "optimal" and d["proven"], d
assert p["cluster"] == {"h100x8": 1}, p
assert "%.2f %.2f" % (p["cost_usd"], p["time_s"]) == "68.49 4480.00", p
' "$tmp/out" && grep -q '(68.49 USD in 4480 s)' "$SLO_SRCDIR/doc/model.md"; then
    ok "plan within a day: h100x8=1, 68.49 USD in 4480 s, as the doc says"
else notok "plan within a day"; fi
"$SLO" train $common --slo-time 3000s --json >"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && "$PY" -c '
import json, sys
p = json.load(open(sys.argv[1]))["plan"]
assert p["cluster"] == {"h100x8": 2}, p
assert "%.2f %.2f" % (p["cost_usd"], p["time_s"]) == "82.19 2688.00", p
' "$tmp/out" && grep -q '(82.19 USD in' "$SLO_SRCDIR/doc/model.md"; then
    ok "plan within 50 min: h100x8=2, 82.19 USD in 2688 s"
else notok "plan within 50 min"; fi

# 4. An SLO no candidate meets: exit 2 with the reason; a deadline no plan meets.
"$SLO" train $common --slo-time 600s --compare "h200x8=1;l4x8=8" >"$tmp/out" 2>"$tmp/err"
if [ $? = 2 ] && grep -q 'no candidate meets the SLO' "$tmp/err"; then ok "--compare: none meets"
else notok "--compare: none meets"; fi
expect "planner: no plan meets 600 s, the fastest is said" 'no plan meets the SLO.*the fastest plan' \
    train $common --slo-time 600s

# 5. Bad input: one message naming the field.
"$PY" - "$W" "$tmp" <<'PYEOF'
import json, sys
w = json.load(open(sys.argv[1])); d = sys.argv[2]
def put(name, o): json.dump(o, open("%s/%s.json" % (d, name), "w"))
a = dict(w); del a["gradient_bytes"]; put("nobytes", a)
b = json.loads(json.dumps(w)); del b["instances"][0]["gpu_link_mbps"]; put("nolink", b)
c = dict(w); c["global_batch"] = 1024; put("twobatch", c)
e = dict(w); e["mode"] = "ddp"; put("badmode", e)
f = json.loads(json.dumps(w)); f["loss_model"]["form"] = "spotdnn-2022"; put("badform", f)
PYEOF
# a catalog without the H200's PCIe figure, so the missing gpu_link_mbps has no replacement
sed 's/"network_mbps": 400000, "pcie_mbps": 64000},/"network_mbps": 400000},/' "$C" >"$tmp/cat.json"
expect "no gradient_bytes" '^slo train: .*gradient_bytes: a sync-allreduce profile needs' \
    train --workload "$tmp/nobytes.json" --catalog "$C" --slo-loss 0.8 --slo-time 1h
expect "no intra-node link" 'instances \(h200x8\).*expected gpu_link_mbps' \
    train --workload "$tmp/nolink.json" --catalog "$tmp/cat.json" --slo-loss 0.8 --slo-time 1h
expect "both batch forms" 'global_batch, batch_per_gpu: expected exactly one' \
    train --workload "$tmp/twobatch.json" --catalog "$C" --slo-loss 0.8 --slo-time 1h
expect "unknown mode" 'mode: expected "async-ps".*found the string "ddp"' \
    train --workload "$tmp/badmode.json" --catalog "$C" --slo-loss 0.8 --slo-time 1h
expect "async loss form in a sync profile" 'loss_model.form: expected "sync-b0"' \
    train --workload "$tmp/badform.json" --catalog "$C" --slo-loss 0.8 --slo-time 1h
expect "--frontier is spotDNN's" '--frontier: expected an async-ps workload' \
    train $common --frontier --to 1h
expect "--compare on an async workload" '--compare: expected a sync-allreduce workload' \
    train --workload resnet110 --slo-loss 0.8 --slo-time 1h --compare "p3.2xlarge=1"
expect "--compare: a type the catalog lacks" '--compare: expected an instance type.*"p3.2xlarge"' \
    train $common --slo-time 1h --compare "p3.2xlarge=1"
expect "--compare: above the quota" '--compare: h200x8: expected a count from 0 to the catalog.s quota 1, found "2"' \
    train $common --slo-time 1h --compare "h200x8=2"
# two 1-GPU types of quota 1 each and no NIC figure anywhere: a 2-instance
# cluster's allreduce has no bandwidth (it was printed as an inf step, exit 0)
cat >"$tmp/cat1.json" <<'EOF'
{"name": "two-singles", "types": [
 {"name": "a1", "gpu_model": "T4", "gpus": 1, "gpu_memory_gb": 16, "site": "cloud",
  "on_demand_usd_per_h": 1, "spot_usd_per_h": 0.4, "quota": 1},
 {"name": "b1", "gpu_model": "T4", "gpus": 1, "gpu_memory_gb": 16, "site": "cloud",
  "on_demand_usd_per_h": 1.2, "spot_usd_per_h": 0.5, "quota": 1}]}
EOF
cat >"$tmp/wl1.json" <<'EOF'
{"name": "w1", "mode": "sync-allreduce", "gradient_bytes": 1000000, "batch_per_gpu": 32,
 "allreduce": {"latency_s": 0.0001, "overlap": 0}, "efficiency": {"b0": 32, "phi": 1000},
 "loss_model": {"form": "sync-b0", "gamma1": 100, "gamma3": 100, "gamma5": 0.1},
 "instances": [{"type": "a1", "speed_samples_per_s": 100},
               {"type": "b1", "speed_samples_per_s": 90}]}
EOF
expect "no NIC for two quota-1 types" \
    'instances \(a1\): .*needs the NIC between instances \(the catalog allows 2 instances.*expected network_mbps' \
    train --workload "$tmp/wl1.json" --catalog "$tmp/cat1.json" --slo-loss 0.5 --slo-time 1h \
    --compare "a1=1,b1=1"
# the same with the NIC in the catalog: a one-GPU candidate has no link to print
sed 's/"quota": 1}/"quota": 1, "network_mbps": 1000}/' "$tmp/cat1.json" >"$tmp/cat1n.json"
"$SLO" train --workload "$tmp/wl1.json" --catalog "$tmp/cat1n.json" --slo-loss 0.5 \
    --slo-time 1h --compare "a1=1;a1=1,b1=1" --json >"$tmp/out" 2>"$tmp/err"
rc=$?
"$SLO" train --workload "$tmp/wl1.json" --catalog "$tmp/cat1n.json" --slo-loss 0.5 \
    --slo-time 1h --compare "a1=1;a1=1,b1=1" >"$tmp/txt" 2>>"$tmp/err"
if [ "$rc" = 0 ] && "$PY" -c '
import json, sys
c = json.load(open(sys.argv[1]))["candidates"]
assert c[0]["gpus"] == 1 and c[0]["link_mbps"] is None and c[0]["t_allreduce_s"] == 0, c[0]
assert c[1]["gpus"] == 2 and c[1]["link_mbps"] == 1000, c[1]
' "$tmp/out" && grep -q 'compute (one GPU: no allreduce)$' "$tmp/txt" && ! grep -q ' on 0 MB/s' "$tmp/txt"; then
    ok "a one-GPU candidate: link_mbps null, no '0 MB/s' link printed"
else notok "one-GPU candidate's link"; fi
expect "target below the loss floor" 'loss floor' train --workload "$W" --catalog "$C" --slo-loss 0.5 --slo-time 1h

# 6. slo fit train on synthetic DDP logs (tests/sync_synth.py, known
#    coefficients, seeded noise): the mode is detected from "# mode:", and
#    the fit recovers speed, link, latency, phi and the loss curve.
synth="$SLO_SRCDIR/tests/sync_synth.py"
"$PY" "$synth" "$tmp/ddp" >"$tmp/true.json"
"$SLO" fit train "$tmp"/ddp/*.csv >"$tmp/fit.json" 2>"$tmp/err"
if [ $? = 0 ] && "$PY" -c '
import json, sys
t = json.load(open(sys.argv[1])); f = json.load(open(sys.argv[2]))
assert f["mode"] == "sync-allreduce"
def near(a, b, rel): assert abs(a - b) <= rel * abs(b), (a, b, rel)
near(f["instances"][0]["speed_samples_per_s"], t["speed"], 0.03)
near(f["instances"][0]["step_overhead_s"], t["step_overhead_s"], 0.1)
near(f["allreduce"]["link_mbps"], t["link_mbps"], 0.05)
near(f["allreduce"]["latency_s"], t["latency_s"], 0.2)
near(f["efficiency"]["phi"], t["phi"], 0.2)
near(f["loss_model"]["gamma3"], t["gamma3"], 0.1)
near(f["loss_model"]["gamma5"], t["gamma5"], 0.05)
assert f["gradient_bytes"] == t["bytes"]
' "$tmp/true.json" "$tmp/fit.json" && grep -q 'step time vs every run' "$tmp/err"; then
    ok "fit train (mode detected): speed, link, latency, phi, loss within tolerance of the truth"
else notok "fit train on synthetic DDP logs"; cat "$tmp/fit.json" | sed 's/^/#   /'; fi
# the fitted profile plans: a catalog of the one type
cat >"$tmp/cpu.json" <<'CATEOF'
{"name": "cpu-site", "types": [{"name": "cpu", "gpu_model": "none", "gpus": 1, "site": "onprem",
  "usd_per_h": 0.1,
  "quota": 4, "network_mbps": 50}]}
CATEOF
"$SLO" train --workload "$tmp/fit.json" --catalog "$tmp/cpu.json" --slo-loss 0.5 --slo-time 1h --json \
    >"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && grep -q '"status": "optimal"' "$tmp/out" && grep -q '"cpu": ' "$tmp/out"; then
    ok "the fitted profile plans (slo train --workload FITTED)"
else notok "plan from the fitted profile"; fi
"$PY" "$synth" "$tmp/drop" --drop-worker >/dev/null
expect "fit: a run missing a worker's log" 'expected a log from each of its 4 workers, found 3' \
    fit train "$tmp"/drop/*.csv
"$PY" "$synth" "$tmp/shares" --bad-shares >/dev/null
expect "fit: batch shares not summing to the global batch" \
    "expected the workers' batch shares to sum to the global batch" fit train "$tmp"/shares/*.csv
"$PY" "$synth" "$tmp/one" --one-batch >/dev/null
expect "fit: one global batch cannot give phi" 'phi needs runs at two or more global batch sizes' \
    fit train "$tmp"/one/*.csv
# runs at N = 1 and 2 only: the allreduce at N = 2 (S / link + 2 alpha =
# 0.084 s) is kept as a latency 0.042 s, no link_mbps, with a note
"$PY" "$synth" "$tmp/max2" --max2 >/dev/null
"$SLO" fit train "$tmp"/max2/*.csv >"$tmp/fit2.json" 2>"$tmp/err"
if [ $? = 0 ] && "$PY" -c '
import json, sys
f = json.load(open(sys.argv[1]))
assert "link_mbps" not in f["allreduce"], f["allreduce"]
assert abs(f["allreduce"]["latency_s"] - (4e6 / 50e6 + 2 * 0.002) / 2) <= 0.05 * 0.042, f["allreduce"]
' "$tmp/fit2.json" && grep -q 'runs at one worker count N >= 2 only' "$tmp/err"; then
    ok "fit train, N = 1 and 2 only: t_ar(2) kept as a latency, no bandwidth, a note says so"
else notok "fit train at one worker count"; cat "$tmp/err" "$tmp/fit2.json" | sed 's/^/#   /'; fi
expect "fit: --form is the async model's" '--form: expected with async-ps logs only' \
    fit train --form spotdnn-2022 "$tmp"/ddp/*.csv

# 7. New-user trial (fix S): the sync fit refuses mixed models, an async log
#    among DDP logs, a --model-bytes the logs contradict, a repeated --mode
#    with another value; messages carry one prefix and the option's dashes.
mkdir -p "$tmp/mix"
cp "$tmp"/ddp/*.csv "$tmp/mix/"
sed -i 's/^# model: .*/# model: bert-large/' "$tmp/mix/b64-n2-w1.csv"
expect "fit sync: a log of another model" \
    'b64-n2-w1.csv: line 2, model: expected the model of the other logs \("synth-ddp"' \
    fit train "$tmp"/mix/*.csv
cp "$tmp/ddp/b64-n2-w1.csv" "$tmp/mix/b64-n2-w1.csv"
sed -i 's/^# parameter_bytes: .*/# parameter_bytes: 1340000000/' "$tmp/mix/b64-n2-w1.csv"
expect "fit sync: parameter_bytes of another model" \
    'b64-n2-w1.csv: line 3, parameter_bytes: expected 4000000 as in .*found 1340000000' \
    fit train "$tmp"/mix/*.csv
expect "fit sync: --model-bytes the logs contradict" \
    '^slo fit train: [^ ]*b16-n1-w0.csv: line 3, parameter_bytes: expected 999 as --model-bytes says, found 4000000' \
    fit train --model-bytes 999 "$tmp"/ddp/*.csv
cp "$tmp/ddp/b64-n2-w1.csv" "$tmp/mix/b64-n2-w1.csv"
grep -v '^# mode:' "$tmp/ddp/b64-n4-w3.csv" >"$tmp/mix/b64-n4-w3.csv"
expect "fit sync: an async-ps log among DDP logs" \
    'b64-n4-w3.csv: expected the mode of .*"# mode: sync-allreduce".*found no "# mode: sync-allreduce" comment' \
    fit train "$tmp"/mix/*.csv
expect "fit: --mode given twice with different values" \
    '^slo fit train: --mode: given twice with different values' \
    fit train --mode sync-allreduce --mode async-ps "$tmp"/ddp/*.csv
expect "fit: --mode async-ps on DDP logs" '^slo fit train: --mode async-ps: expected async-ps logs' \
    fit train --mode async-ps "$tmp"/ddp/*.csv
expect "fit: --model-bytes is a whole number" \
    '^slo fit train: --model-bytes: expected a whole number of parameter bytes.*"102400000.5"' \
    fit train --model-bytes 102400000.5 "$tmp"/ddp/*.csv
ERR_PREFIX='slo fit train: [^s]' expect "fit sync: one prefix (no \"slo fit train: slo fit train:\")" \
    'phi needs runs at two or more global batch sizes' fit train "$tmp"/one/*.csv
expect "fit: --b-req-mbps names the option with its dashes" '^slo fit train: --b-req-mbps: expected' \
    fit train --b-req-mbps -1 "$tmp"/ddp/*.csv

# 8. The fitted batch: the runs used per-worker batches 16 and 64, so the
#    profile keeps batch_per_gpu 16 (B0's), not global_batch 16 split over
#    every worker count; a 4-worker plan's step then matches the b16 4-worker
#    run's measured median step (an independent reference: the logs).
if grep -q '"batch_per_gpu": 16' "$tmp/fit.json" && ! grep -q '"global_batch"' "$tmp/fit.json" &&
   "$SLO" fit train "$tmp"/ddp/*.csv 2>&1 >/dev/null | grep -q 'plans assume batch_per_gpu 16'; then
    ok "fit sync: batch_per_gpu 16 from runs with a fixed per-worker batch, said on stderr"
else notok "fit sync: the fitted batch"; grep batch "$tmp/fit.json" | sed 's/^/#   /'; fi
"$SLO" train --workload "$tmp/fit.json" --catalog "$tmp/cpu.json" --slo-loss 0.5 --slo-time 1h \
    --compare "cpu=4" --json >"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && "$PY" - "$tmp/out" "$tmp"/ddp/b16-n4-w*.csv <<'PYEOF'
import json, sys, statistics
c = json.load(open(sys.argv[1]))["candidates"][0]
meas = 0
for f in sys.argv[2:]:
    rows = [l.split(",") for l in open(f) if l[0].isdigit()]
    meas = max(meas, statistics.median(float(r[7]) for r in rows[1:]))
assert c["global_batch"] == 64, c
assert abs(c["step_s"] - meas) <= 0.03 * meas, (c["step_s"], meas)
PYEOF
then ok "the fitted profile's 4-worker step (global batch 64) matches the logged run"
else notok "4-worker step from the fitted profile"; fi

# 9. --compare honours or refuses each option; nothing on stdout on failure.
cmp2="h200x8=1;h100x8=2"
expect "--compare: a candidate above --max-nodes" '--compare h100x8=2: expected at most --max-nodes 1 instances, found 2' \
    train $common --slo-time 86400s --compare "$cmp2" --max-nodes 1
expect "--compare: a candidate without the --existing survivors" \
    "--compare h200x8=1: expected a cluster that keeps --existing's 1 h100x8" \
    train $common --slo-time 86400s --compare "$cmp2" --existing h100x8=1
"$SLO" train $common --slo-time 86400s --compare "h100x8=1;h100x8=2" --existing h100x8=1 --json \
    >"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [c["cluster"] for c in d["candidates"]] == [{"h100x8": 1}, {"h100x8": 2}], d
' "$tmp/out"; then ok "--compare with --existing: candidates that keep the survivors"
else notok "--compare with --existing"; fi
expect "--compare: --node-limit is refused" '--node-limit: expected the exact search, found --compare' \
    train $common --slo-time 86400s --compare "$cmp2" --node-limit 5
expect "--compare: none within the budget, nothing on stdout" \
    'no candidate meets the SLO: loss 0.8 within 86400 s and the budget; the fastest, candidate 2 \(h100x8=2\)' \
    train $common --slo-time 86400s --compare "$cmp2" --budget 1
expect "--compare: an empty cluster after ;" '--compare: expected CLUSTER;CLUSTER.*found an empty cluster in "h200x8=1;"' \
    train $common --slo-time 1h --compare "h200x8=1;"
expect "--compare: only separators" '--compare: expected CLUSTER;CLUSTER.*found an empty cluster in ";;"' \
    train $common --slo-time 1h --compare ";;"
expect "--compare: a duplicate candidate" '--compare: expected each cluster once, found "h100x8=2" again \(as candidate 1' \
    train $common --slo-time 1h --compare "h100x8=2;h200x8=1;h100x8=2"

# 10. Loss floors: a profile with gamma5 < 0 is refused (sync and async), so
#     a negative --slo-loss cannot plan; a one-worker plan says it has no
#     allreduce.
"$PY" - "$W" "$tmp" <<'PYEOF'
import json, sys
w = json.load(open(sys.argv[1])); d = sys.argv[2]
w["loss_model"]["gamma5"] = -0.2
json.dump(w, open(d + "/negfloor.json", "w"))
PYEOF
expect "sync profile: a negative loss floor" 'loss_model.gamma5: expected .*0' \
    train --workload "$tmp/negfloor.json" --catalog "$C" --slo-loss -0.1 --slo-time 86400s
sed 's/"gamma5": *[0-9.e+-]*/"gamma5": -0.2/' "$SLO_SRCDIR/etc/slo/workloads/resnet110.json" \
    >"$tmp/rnneg.json"
expect "async profile: a negative loss floor" 'loss_model.gamma5: expected .*0' \
    train --workload "$tmp/rnneg.json" --slo-loss -0.1 --slo-time 1d
expect "sync: --slo-loss at or below the floor names --slo-loss" \
    '^slo train: --slo-loss: target loss -0.5 is at or below the workload.s loss floor' \
    train --workload "$W" --catalog "$C" --slo-loss -0.5 --slo-time 1h
"$SLO" train --workload "$tmp/fit.json" --catalog "$tmp/cpu.json" --slo-loss 0.5 --slo-time 1h \
    --compare "cpu=1" >"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && grep -q 'one GPU: no allreduce' "$tmp/out" && ! grep -q 'on 0 MB/s' "$tmp/out"; then
    ok "one worker: \"no allreduce\", not a ring on 0 MB/s"
else notok "one-worker step text"; fi

finish
