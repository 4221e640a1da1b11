#!/bin/sh
# cli_train.sh - `slo train` end to end on the embedded defaults, checked
# against the authors' provisioner outputs
# (shared/data/spotdnn/repo_provisioner_reference_outputs.csv, rows
# (0.8, 2400 s) -> [2,0,4,0,0], 2351.08 s, 2.985872 USD and (0.6, 5000 s)
# -> infeasible) and against each other for equivalent options.
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"

run() { "$SLO" "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"; }
rc() { cat "$tmp/rc"; }

# 1. The quick-start command: the reference plan for (0.8, 2400 s).
run train --workload resnet110 --slo-loss 0.8 --slo-time 2400s --json
if [ "$(rc)" = 0 ] && grep -q '"p3.2xlarge": 2' "$tmp/out" && grep -q '"g3.8xlarge": 4' "$tmp/out" &&
   grep -q '"time_s": 2351.08,' "$tmp/out" && grep -q '"cost_usd": 2.985872,' "$tmp/out" &&
   grep -q '"iterations": 17926,' "$tmp/out" && grep -q '"method": "exact"' "$tmp/out" &&
   grep -q '"window": {' "$tmp/out" && grep -q '"exact": {' "$tmp/out" && [ ! -s "$tmp/err" ]; then
    ok "json plan for (0.8, 2400 s) is the reference [2,0,4,0,0]"
else notok "json plan for (0.8, 2400 s)"; fi
cp "$tmp/out" "$tmp/ref.json"

# 2. Equivalent deadline spellings give the same output.
for t in 40m 40:00 0:40:00 0-0:40:00 2400s; do
    run train --workload resnet110 --slo-loss 0.8 --slo-time "$t" --json
    if [ "$(rc)" = 0 ] && cmp -s "$tmp/out" "$tmp/ref.json"; then ok "--slo-time $t = 2400 s"
    else notok "--slo-time $t"; fi
done

# 3. A bare number is minutes, as in sbatch, and the note says so.
run train --workload resnet110 --slo-loss 0.8 --slo-time 40 --json
if [ "$(rc)" = 0 ] && cmp -s "$tmp/out" "$tmp/ref.json" && grep -q "read as 40 minutes" "$tmp/err"; then
    ok "--slo-time 40 is 40 minutes, with a note"
else notok "--slo-time 40"; fi

# 4. The human table names the plan, the time, the cost and the comparisons.
run train --workload resnet110 --slo-loss 0.8 --slo-time 40m
if [ "$(rc)" = 0 ] && grep -q "p3.2xlarge .* 2 " "$tmp/out" && grep -q "2351.08 s" "$tmp/out" &&
   grep -q "2.985872 USD" "$tmp/out" && grep -q "sliding window" "$tmp/out" &&
   grep -q "on-demand prices only" "$tmp/out" && grep -q "cheapest homogeneous" "$tmp/out"; then
    ok "human table"
else notok "human table"; fi

# 5. Infeasible SLO: nothing on stdout, the reason and the fastest plan, exit 2.
run train --workload resnet110 --slo-loss 0.6 --slo-time 5000s
if [ "$(rc)" = 2 ] && [ ! -s "$tmp/out" ] && grep -q "no plan meets the SLO" "$tmp/err" &&
   grep -q "the fastest plan" "$tmp/err"; then ok "infeasible (0.6, 5000 s)"
else notok "infeasible (0.6, 5000 s)"; fi

# 6. Window only / exact only.
run train --workload resnet110 --slo-loss 0.9 --slo-time 1900s --window --json
if [ "$(rc)" = 0 ] && grep -q '"method": "window"' "$tmp/out" && ! grep -q '"exact": {' "$tmp/out" &&
   grep -q '"cost_usd": 1.676947,' "$tmp/out"; then ok "--window (0.9, 1900 s)"
else notok "--window"; fi
run train --workload resnet110 --slo-loss 0.9 --slo-time 1900s --exact --json
if [ "$(rc)" = 0 ] && grep -q '"method": "exact"' "$tmp/out" && ! grep -q '"window": {' "$tmp/out"; then
    ok "--exact"
else notok "--exact"; fi

# 7. Re-planning after a revocation (paper Fig. 9): survivors are kept.
run train --workload resnet110 --slo-loss 0.8 --slo-time 2600s --elapsed 1790s --loss-now 0.9 \
    --existing g3.16xlarge=3 --json
if [ "$(rc)" = 0 ] && grep -q '"g3.16xlarge": [3-8]' "$tmp/out" && grep -q '"remaining_s": 810' "$tmp/out" &&
   grep -q '"restart_overhead_s": 30' "$tmp/out"; then ok "re-plan keeps the survivors"
else notok "re-plan"; fi

# 8. The paper's Table III catalog: types without a profile are named.
run train --workload resnet110 --catalog aws-table3 --slo-loss 0.8 --slo-time 40m
if [ "$(rc)" = 0 ] && grep -q "g4dn.12xlarge has no profile" "$tmp/out" &&
   ! grep -q "does not list" "$tmp/out"; then ok "aws-table3 catalog"
else notok "aws-table3 catalog"; fi

# 8b. A profiled type the catalog lacks is named too (a typo must show).
sed 's/"g3.8xlarge", "batch_per_gpu"/"g3.8xlarg", "batch_per_gpu"/' "$SLO_SRCDIR/etc/slo/workloads/resnet110.json" >"$tmp/typo.json"
run train --workload "$tmp/typo.json" --slo-loss 0.8 --slo-time 40m
if [ "$(rc)" = 0 ] && grep -q "profiles g3.8xlarg, which catalog spotdnn-resnet110 does not list" "$tmp/out" &&
   grep -q "g3.8xlarge has no profile" "$tmp/out"; then ok "unlisted profile named"
else notok "unlisted profile named"; fi

# 9. On-demand pricing costs more for the same SLO.
run train --workload resnet110 --slo-loss 0.8 --slo-time 40m --pricing on-demand --json
if [ "$(rc)" = 0 ] && grep -q '"pricing": "on-demand"' "$tmp/out" && grep -q '"cost_usd": 9.952905,' "$tmp/out"; then
    ok "on-demand pricing"   # 2351.08 s x (2 x 3.06 + 4 x 2.28) USD/h
else notok "on-demand pricing"; fi

# 10. A budget below the cheapest plan: exit 2 with the reason.
run train --workload resnet110 --slo-loss 0.8 --slo-time 40m --budget 2.5
if [ "$(rc)" = 2 ] && [ ! -s "$tmp/out" ] && grep -q "at most 2.5 USD" "$tmp/err" &&
   grep -q "the cheapest plan that meets the deadline, p3.2xlarge=2,g3.8xlarge=4, costs 2.985872 USD" "$tmp/err"; then
    ok "budget"
else notok "budget"; fi

# 11. Files work like the embedded names.
run train --workload "$SLO_SRCDIR/etc/slo/workloads/resnet110.json" \
    --catalog "$SLO_SRCDIR/etc/slo/catalogs/spotdnn-resnet110.json" --slo-loss 0.8 --slo-time 40m --json
if [ "$(rc)" = 0 ] && cmp -s "$tmp/out" "$tmp/ref.json"; then ok "etc/ files = embedded defaults"
else notok "etc/ files"; fi

# 12. Output that cannot be written is an error (exit 1), not silence.
if [ -w /dev/full ]; then
    "$SLO" train --workload resnet110 --slo-loss 0.8 --slo-time 40m >/dev/full 2>"$tmp/err"
    if [ $? = 1 ] && grep -q "cannot write the output" "$tmp/err"; then ok "write error reported"
    else : >"$tmp/out"; notok "write error reported"; fi
fi

# 13. --profile: B_ps from a slo-mpiprof profile of ranks on two nodes
# (tests/train/README.md). Reference: the same plan from a workload file
# whose b_ps_mbps is set, with jq, to rank 0's least cross-node
# large-message bandwidth read from the profile itself.
PROF="$SLO_SRCDIR/tests/train/two-node-profile.json"
if command -v jq >/dev/null; then
    bps=$(jq '[.point_to_point.pairs[] | select(.same_node == false and (.rank_a == 0 or .rank_b == 0))
               | .large_message_bandwidth_bytes_per_s] | min / 1e6' "$PROF")
    jq --argjson b "$bps" '.b_ps_mbps = $b' "$SLO_SRCDIR/etc/slo/workloads/resnet110.json" >"$tmp/wl.json"
    "$SLO" train --workload "$tmp/wl.json" --catalog spotdnn-resnet110 --slo-loss 0.8 --slo-time 40m \
        --json 2>/dev/null | jq 'del(.workload)' >"$tmp/want.json"
    run train --workload resnet110 --slo-loss 0.8 --slo-time 40m --profile "$PROF" --json
    if [ "$(rc)" = 0 ] && jq 'del(.workload)' "$tmp/out" | cmp -s - "$tmp/want.json" &&
       grep -q "B_ps $bps.0 MB/s from --profile" "$tmp/err"; then
        ok "--profile sets B_ps = $bps MB/s (same plan as a workload with that B_ps)"
    else
        notok "--profile B_ps (expected $bps MB/s)"
    fi
else
    echo "# skipped --profile check: jq not installed (Debian: jq)"
fi
run train --workload resnet110 --slo-loss 0.8 --slo-time 40m \
    --profile "$SLO_SRCDIR/tests/mpiprof/real-quick-np4.json"
if [ "$(rc)" = 2 ] && [ ! -s "$tmp/out" ] &&
   grep -q "every pair sharing a node: its bandwidth is a memory copy, not a NIC" "$tmp/err"; then
    ok "--profile of one node refused"
else
    notok "--profile of one node refused"
fi

# 14. --max-nodes bounds every plan; the limit that the reference plan
# (6 instances) meets changes nothing in the recommended plan.
if command -v jq >/dev/null; then
    run train --workload resnet110 --slo-loss 0.8 --slo-time 40m --max-nodes 6 --json
    if [ "$(rc)" = 0 ] && [ "$(jq -c '[.plan, .cost_usd]' "$tmp/out")" = "$(jq -c '[.plan, .cost_usd]' "$tmp/ref.json")" ]; then
        ok "--max-nodes 6 keeps the reference plan (6 instances)"
    else notok "--max-nodes 6"; fi
    run train --workload resnet110 --slo-loss 0.8 --slo-time 40m --max-nodes 5 --json
    ref_cost=$(jq '.cost_usd' "$tmp/ref.json")
    if [ "$(rc)" = 0 ] &&
       jq -e --argjson c "$ref_cost" '[.workers, .window.workers, .exact.workers, .on_demand.workers,
             .homogeneous.workers] | map(select(. != null)) | all(. <= 5)' "$tmp/out" >/dev/null &&
       jq -e --argjson c "$ref_cost" '.cost_usd > $c and .exact.proven_optimal' "$tmp/out" >/dev/null; then
        ok "--max-nodes 5: every plan within 5 instances, dearer than the 6-instance reference"
    else notok "--max-nodes 5"; fi

    # 15. --node-limit stops the exact search: its plan is said to be unproven.
    run train --workload resnet110 --slo-loss 0.8 --slo-time 40m --node-limit 1 --json
    if [ "$(rc)" = 0 ] && jq -e '.exact.proven_optimal == false and .cost_usd >= 2.985872' "$tmp/out" >/dev/null; then
        ok "--node-limit 1: unproven exact plan"
    else notok "--node-limit 1"; fi
    run train --workload resnet110 --slo-loss 0.8 --slo-time 40m --node-limit 1
    if [ "$(rc)" = 0 ] && grep -q "exact search stopped at its node limit" "$tmp/out"; then
        ok "--node-limit 1: the table says so"
    else notok "--node-limit 1 table"; fi

    # 16. Infeasible with --json: one object on stdout (status, reason, the
    # closest plan), the same message on stderr, exit 2.
    run train --workload resnet110 --slo-loss 0.6 --slo-time 5000s --json
    if [ "$(rc)" = 2 ] && [ "$(jq -s length "$tmp/out")" = 1 ] &&
       jq -e '.status == "infeasible" and .closest_kind == "fastest" and .closest.time_s > 5000
              and .closest.proven_optimal' "$tmp/out" >/dev/null &&
       [ "slo train: $(jq -r .reason "$tmp/out")" = "$(cat "$tmp/err")" ]; then
        ok "infeasible --json: status, reason = the stderr message, the fastest plan"
    else notok "infeasible --json"; fi
    # The budget binds: the closest point is the reference plan for (0.8, 2400 s).
    run train --workload resnet110 --slo-loss 0.8 --slo-time 40m --budget 2.5 --json
    if [ "$(rc)" = 2 ] &&
       jq -e '.status == "infeasible" and .closest_kind == "cheapest_without_budget"
              and .closest.plan == {"p3.2xlarge": 2, "g3.8xlarge": 4} and .closest.cost_usd == 2.985872
              and .slo.budget_usd == 2.5' "$tmp/out" >/dev/null &&
       grep -q "costs 2.985872 USD" "$tmp/err"; then
        ok "budget-bound infeasible --json: the cheapest plan without the budget"
    else notok "budget-bound infeasible --json"; fi
    # A node limit that proves nothing: infeasible_unproven.
    run train --workload resnet110 --slo-loss 0.6 --slo-time 5000s --node-limit 1 --json
    if [ "$(rc)" = 2 ] && jq -e '.status == "infeasible_unproven"' "$tmp/out" >/dev/null &&
       grep -q "without proving that none exists" "$tmp/err"; then
        ok "infeasible_unproven --json"
    else notok "infeasible_unproven --json"; fi
    # Unreachable loss: infeasible, no closest plan.
    run train --workload resnet110 --slo-loss 0.4 --slo-time 40m --json
    if [ "$(rc)" = 2 ] && jq -e '.status == "infeasible" and .closest == null and .closest_kind == null' "$tmp/out" >/dev/null &&
       grep -q "asymptotic loss" "$tmp/err"; then
        ok "unreachable loss --json"
    else notok "unreachable loss --json"; fi
else
    echo "# skipped --max-nodes, --node-limit and infeasible --json checks: jq not installed (Debian: jq)"
fi

# 17. The new counts refuse what is not a count >= 1.
for v in 0 -1 x 1.5; do
    run train --workload resnet110 --slo-loss 0.8 --slo-time 40m --max-nodes "$v"
    if [ "$(rc)" = 2 ] && grep -q "^slo train: --max-nodes: expected an integer from 1 to [0-9]*, found \"$v\"$" "$tmp/err"; then
        ok "--max-nodes $v refused"
    else notok "--max-nodes $v"; fi
done
run train --workload resnet110 --slo-loss 0.8 --slo-time 40m --node-limit 0
if [ "$(rc)" = 2 ] && grep -q "node-limit: expected an integer from 1" "$tmp/err"; then ok "--node-limit 0 refused"
else notok "--node-limit 0"; fi
# --node-limit bounds the exact search only.
run train --workload resnet110 --slo-loss 0.8 --slo-time 40m --window --node-limit 5
if [ "$(rc)" = 2 ] && grep -q "node-limit: expected the exact search, found --window alone" "$tmp/err"; then
    ok "--node-limit with --window alone refused"
else notok "--node-limit with --window alone"; fi
# A feasible --json object says its status too.
run train --workload resnet110 --slo-loss 0.8 --slo-time 40m --json
if [ "$(rc)" = 0 ] && [ "$(jq -r .status "$tmp/out")" = optimal ]; then ok "feasible --json: status optimal"
else notok "feasible --json status"; fi
run train --workload resnet110 --slo-loss 0.8 --slo-time 40m --json --node-limit 1
if [ "$(rc)" = 0 ] && [ "$(jq -r .status "$tmp/out")" = feasible_unproven ]; then
    ok "feasible --json with --node-limit 1: feasible_unproven"
else notok "feasible --json --node-limit 1 status"; fi
# More survivors than --max-nodes allows.
run train --workload resnet110 --slo-loss 0.8 --slo-time 2600s --elapsed 1790s --loss-now 0.9 \
    --existing g3.16xlarge=3 --max-nodes 2
if [ "$(rc)" = 2 ] && grep -q "existing: expected at most max_workers = 2 survivors" "$tmp/err"; then
    ok "survivors above --max-nodes refused"
else notok "survivors above --max-nodes"; fi

# Cost-deadline frontier (issue 20): the table holds the reference plan for
# (0.8, 2400 s) as the step in force at 2400 s, and at several deadlines the
# JSON frontier's step is what `slo train --slo-time T` plans, point by point.
run train --workload resnet110 --slo-loss 0.8 --frontier --from 600s --to 6000s
if [ "$(rc)" = 0 ] && grep -q "every point proven" "$tmp/out" &&
   grep -q " 2351.08 *2.985872 *6  p3.2xlarge=2,g3.8xlarge=4$" "$tmp/out" &&
   grep -q "no plan meets a deadline below 1932.35 s" "$tmp/out"; then
    ok "frontier table holds the reference plan (0.8, 2400 s)"
else notok "frontier table"; fi
run train --workload resnet110 --slo-loss 0.8 --frontier --from 600s --to 6000s --json
cp "$tmp/out" "$tmp/front.json"
if [ "$(rc)" = 0 ] && [ "$(jq -r .status "$tmp/front.json")" = optimal ] &&
   [ "$(jq '.points | length' "$tmp/front.json")" -ge 10 ] &&
   [ "$(jq '[.points[].time_s] == ([.points[].time_s] | sort)' "$tmp/front.json")" = true ]; then
    ok "frontier --json: proven, times ascending"
else notok "frontier --json"; fi
for T in 1932.35 2000 2351.08 2400 2700 3000 4000 6000; do
    want=$(jq -r --argjson T "$T" '[.points[] | select(.time_s <= $T)] | last | .cost_usd' "$tmp/front.json")
    run train --workload resnet110 --slo-loss 0.8 --slo-time "${T}s" --json
    got=$(jq -r .cost_usd "$tmp/out")
    if [ "$(rc)" = 0 ] && [ "$got" = "$want" ]; then ok "frontier step at $T s = slo train --slo-time ${T}s ($got USD)"
    else notok "frontier step at $T s: frontier $want, per point $got"; fi
done
run train --workload resnet110 --slo-loss 0.8 --slo-time 1932s
if [ "$(rc)" = 2 ]; then ok "below the frontier's first point (1932 s): no plan"
else notok "below the frontier's first point"; fi
# Bad input: T1 >= T2, a range without --frontier, --slo-time with it.
run train --workload resnet110 --slo-loss 0.8 --frontier --from 1h --to 10m
if [ "$(rc)" = 2 ] && grep -q "from: expected T1 < T2, found --from 3600 s >= --to 600 s" "$tmp/err" &&
   [ ! -s "$tmp/out" ]; then ok "frontier range T1 >= T2 refused"
else notok "frontier range T1 >= T2"; fi
run train --workload resnet110 --slo-loss 0.8 --slo-time 40m --to 1h
if [ "$(rc)" = 2 ] && grep -q "to: expected with --frontier" "$tmp/err"; then ok "--to without --frontier refused"
else notok "--to without --frontier"; fi
run train --workload resnet110 --slo-loss 0.8 --frontier --slo-time 40m
if [ "$(rc)" = 2 ] && grep -q "frontier: expected no --slo-time" "$tmp/err"; then ok "--frontier with --slo-time refused"
else notok "--frontier with --slo-time"; fi
run train --workload resnet110 --slo-loss 0.8 --frontier --plot "$tmp/f.pdf"
if [ "$(rc)" = 2 ] && grep -q "plot: expected FILE.svg or FILE.png" "$tmp/err"; then ok "--plot FILE.pdf refused"
else notok "--plot FILE.pdf"; fi
# A --plot target that cannot be written is bad input before any search, and
# an existing directory of that name is left alone (before this check, gnuplot
# failed on it, slo blamed a missing gnuplot and remove()d the empty directory).
mkdir "$tmp/dir.svg"
run train --workload resnet110 --slo-loss 0.8 --frontier --plot "$tmp/dir.svg"
if [ "$(rc)" = 2 ] && [ -d "$tmp/dir.svg" ] && [ ! -s "$tmp/out" ] &&
   grep -q "plot: expected a file to write, found a directory" "$tmp/err"; then
    ok "--plot DIR.svg refused, the directory kept"
else notok "--plot DIR.svg"; fi
run train --workload resnet110 --slo-loss 0.8 --frontier --plot "$tmp/missing/f.svg"
if [ "$(rc)" = 2 ] && [ ! -s "$tmp/out" ] &&
   grep -q "plot: expected a file that can be created, found \"$tmp/missing/f.svg\" cannot be (directory $tmp/missing: No such file" "$tmp/err"; then
    ok "--plot into a missing directory refused"
else notok "--plot into a missing directory"; fi
# /sys and /proc: access(2) says W_OK to root on /sys, so the check must
# create a file there; before, the 29 KB table (and gnuplot's SVG) went to
# stdout, then gnuplot's "cannot open file", exit 1.
for d in /sys /proc; do
    [ -d "$d" ] || { echo "ok - --plot into $d: no $d # SKIP"; continue; }
    run train --workload resnet110 --slo-loss 0.8 --frontier --plot "$d/slo-test-x.svg"
    if [ "$(rc)" = 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
       grep -q "plot: expected a file that can be created, found \"$d/slo-test-x.svg\" cannot be (directory $d: " "$tmp/err"; then
        ok "--plot into $d refused before the search"
    else notok "--plot into $d: rc $(rc), $(wc -c <"$tmp/out") bytes out, $(cat "$tmp/err")"; fi
done
# gnuplot failing (a stand-in on PATH) leaves the user's existing FILE as it
# was and no temporary file behind (before, slo remove()d FILE).
mkdir "$tmp/fakebin" "$tmp/pd"
printf '#!/bin/sh\ncat >/dev/null\nexit 1\n' >"$tmp/fakebin/gnuplot"
chmod +x "$tmp/fakebin/gnuplot"
echo keep >"$tmp/pd/old.svg"
PATH="$tmp/fakebin:$PATH" run train --workload resnet110 --slo-loss 0.8 --frontier --plot "$tmp/pd/old.svg"
if [ "$(rc)" = 1 ] && [ "$(cat "$tmp/pd/old.svg")" = keep ] && [ "$(ls -A "$tmp/pd")" = old.svg ] &&
   grep -q "gnuplot failed (exit status 1)" "$tmp/err"; then
    ok "--plot: gnuplot failing keeps the existing FILE, no temporary left"
else notok "--plot with gnuplot failing: rc $(rc), $(ls -A "$tmp/pd"), $(cat "$tmp/err")"; fi
rmdir "$tmp/dir.svg"
# --existing TYPE with a catalog of spot pools (imported from the aws CLI
# replicas in tests/catalog: p3.2xlarge in us-east-1a, -1b, -1c): the pools
# are named, and a pool as --existing is accepted.
C=$SLO_SRCDIR/tests/catalog
"$SLO" catalog import --spot-prices "$C/spot-price-history.json" --instance-types "$C/instance-types.json" \
    --pricing "$C/get-products.json" --quota 2 --output "$tmp/pools.json" 2>/dev/null
run train --workload resnet110 --catalog "$tmp/pools.json" --slo-loss 0.8 --slo-time 2600s \
    --existing p3.2xlarge=1 --elapsed 600s --loss-now 1.2
if [ "$(rc)" = 2 ] && grep -q 'found "p3.2xlarge", which the catalog lists as spot pools (p3.2xlarge@us-east-1a, p3.2xlarge@us-east-1b, p3.2xlarge@us-east-1c)' "$tmp/err"; then
    ok "--existing TYPE of a pooled catalog names its pools"
else notok "--existing TYPE of a pooled catalog: $(cat "$tmp/err")"; fi
run train --workload resnet110 --catalog "$tmp/pools.json" --slo-loss 0.8 --slo-time 2600s \
    --existing p3.2xlarge@us-east-1a=1 --elapsed 600s --loss-now 1.2
if [ "$(rc)" = 0 ] && grep -q "keeping p3.2xlarge@us-east-1a=1" "$tmp/out"; then ok "--existing POOL accepted"
else notok "--existing POOL: $(cat "$tmp/err")"; fi
# no_plan_below_s: with --from 2h a plan meets 7200 s (the 3709 s one), and
# plans faster than it exist (the frontier from 0 starts at 1932.35 s), so
# the JSON must not claim that no plan meets a deadline below 3709 s.
if command -v jq >/dev/null; then
    run train --workload resnet110 --slo-loss 0.8 --frontier --json
    fastest=$(jq '.points[0].time_s' "$tmp/out")
    below0=$(jq '.no_plan_below_s' "$tmp/out")
    run train --workload resnet110 --slo-loss 0.8 --frontier --from 2h --json
    below2h=$(jq '.no_plan_below_s' "$tmp/out")
    first2h=$(jq '.points[0].time_s' "$tmp/out")
    if [ "$below0" = "$fastest" ] && [ "$below2h" = null ] &&
       awk -v a="$fastest" -v b="$first2h" 'BEGIN { exit !(a < b && b <= 7200) }'; then
        ok "no_plan_below_s: the fastest plan from 0 ($fastest s), null when a plan meets --from 2h"
    else notok "no_plan_below_s: from 0 $below0 (fastest $fastest), from 2h $below2h (first $first2h)"; fi
else
    echo "ok - no_plan_below_s: jq not installed # SKIP"
fi
# A budget no plan meets and no --to: the deadline is unbounded, so the
# message names the budget, not the internal "within 1e+300 s".
run train --workload resnet110 --slo-loss 0.8 --frontier --budget 0.5
if [ "$(rc)" = 2 ] && grep -q "^slo train: no plan meets loss 0.8 at any deadline at a cost of at most 0.5 USD$" "$tmp/err"; then
    ok "frontier: unmeetable budget without --to named as such"
else notok "frontier: unmeetable budget: $(cat "$tmp/err")"; fi
# A long option typed with one dash is named as typed, not as the word before
# it (getopt leaves optind on a cluster of short options: "0.8" was blamed).
run train --slo-loss 0.8 -workload resnet110 --slo-time 40m
if [ "$(rc)" = 2 ] && grep -q 'unknown or ambiguous option "-workload"' "$tmp/err"; then
    ok "one-dash -workload named in the error"
else notok "one-dash -workload: $(cat "$tmp/err")"; fi
# The picture, drawn by gnuplot (skipped without it).
if command -v gnuplot >/dev/null 2>&1; then
    run train --workload resnet110 --slo-loss 0.8 --frontier --catalog aws-table3 --plot "$tmp/f.svg"
    if [ "$(rc)" = 0 ] && grep -q "<svg" "$tmp/f.svg" && grep -q "deadline (s)" "$tmp/f.svg" &&
       [ -z "$(ls -A "$tmp" | grep slo-plot)" ]; then
        ok "--plot FILE.svg drawn by gnuplot"
    else notok "--plot FILE.svg"; fi
else
    echo "ok - --plot: gnuplot not installed # SKIP"
fi

# The README's quick-start block is the command's real output (it lacked the
# revocation-risk table added later): the block after the line naming the
# command, up to its closing fence.
awk 'f == 2 && /^```$/ { exit } f == 2 { print } f == 1 && /^```$/ { f = 2 }
     /^`build\/cli\/slo train --workload resnet110 --slo-loss 0\.8 --slo-time 40m`:$/ { f = 1 }' \
    "$SLO_SRCDIR/README.md" >"$tmp/readme-block"
run train --workload resnet110 --slo-loss 0.8 --slo-time 40m
if [ "$(rc)" = 0 ] && [ -s "$tmp/readme-block" ] && cmp -s "$tmp/readme-block" "$tmp/out"; then
    ok "README quick-start block is the real output"
else diff "$tmp/readme-block" "$tmp/out" | sed 's/^/# /' | head -20; notok "README quick-start block"; fi

finish
