#!/bin/sh
# cli_train_risk.sh - `slo train`'s revocation risk and --slo-confidence
# (issue 13 item 4), on the embedded spotdnn-resnet110 catalog with
# interruption rates and a restart overhead added by jq:
#  - every plan of the JSON answer carries its risk, and the recommended
#    plan's P(deadline met) equals a hand-worked binomial: n spot instances,
#    each revoked before the plan's time D with q = 1 - (1 - p)^(D / 3600),
#    the deadline met when at most m = floor((T - D) / d) are
#    (P = sum_{i<=m} C(n, i) q^i (1 - q)^(n - i)), computed here with awk;
#  - the text answer has the risk table; rates unknown say so;
#  - --slo-confidence picks a plan whose P reaches it, at least as cheap in
#    expected cost as spotDNN's plan when that plan reaches it too, and
#    refuses (exit 2, one line naming the best probability) when none does;
#  - bad input: --slo-confidence outside (0, 1), a catalog rate outside
#    [0, 1], a rate on an on-prem type, --slo-confidence with --frontier or
#    without rates: one message, exit 2.
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"

if ! command -v jq >/dev/null 2>&1; then
    echo "SKIP: jq not found (Debian: jq)"; exit 77
fi
run() { "$SLO" "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"; }
rc() { cat "$tmp/rc"; }
ERR_PREFIX="slo train: "

"$SLO" catalog check spotdnn-resnet110 >/dev/null 2>&1 || { echo "Bail out! no embedded catalog"; exit 1; }
base=$SLO_SRCDIR/etc/slo/catalogs/spotdnn-resnet110.json
# catalog NAME RATE RESTART: cloud types get RATE
catalog() {
    jq --argjson r "$2" --argjson d "$3" \
        '.restart_overhead_s = $d | .types |= map(if (.site // "cloud") == "cloud" then . + {interruption_rate: $r} else . end)' \
        "$base" >"$tmp/$1.json"
}
catalog r1 0.1 300
catalog r3 0.3 300
catalog r2 0.2 200

# 1. The recommended plan's P against the hand-worked binomial, for several
# rates and deadlines (times D from the answer itself).
for case in "r1 0.1 300 2400" "r1 0.1 300 3000" "r3 0.3 300 2400" "r3 0.3 300 3000" \
            "r2 0.2 200 3000" "r2 0.2 200 2600" "r2 0.2 200 3600"; do
    set -- $case
    run train --workload resnet110 --catalog "$tmp/$1.json" --slo-loss 0.8 --slo-time "$4s" --json
    n=$(jq '[.plan[]] | add' "$tmp/out")
    D=$(jq .time_s "$tmp/out")
    P=$(jq .risk.p_deadline_met "$tmp/out")
    want=$(awk -v n="$n" -v p="$2" -v D="$D" -v T="$4" -v d="$3" 'BEGIN {
        q = 1 - exp(D / 3600 * log(1 - p)); m = int((T - D) / d); if (m > n) m = n
        s = 0; c = 1
        for (i = 0; i <= m; i++) { s += c * q ^ i * (1 - q) ^ (n - i); c = c * (n - i) / (i + 1) }
        printf "%.10f", s }')
    if [ "$(rc)" = 0 ] && awk -v a="$P" -v b="$want" 'BEGIN { exit !((a - b) ^ 2 < 1e-18) }' &&
       [ "$(jq '[.window, .exact, .on_demand] | map(.risk.p_deadline_met) | length' "$tmp/out")" = 3 ] &&
       [ "$(jq .on_demand.risk.p_deadline_met "$tmp/out")" = 1 ] &&
       [ "$(jq -r .risk_model.restart_overhead_s "$tmp/out")" = "$3" ]; then
        ok "rate $2, deadline $4 s: P(met) $P = binomial($n, q) up to $(( (${4} - ${D%.*}) / $3 )) revocations"
    else
        echo "# P $P, hand-worked $want" >>"$tmp/err"; notok "rate $2, deadline $4 s: P(met)"
    fi
done

# 2. The text answer: the risk table, its restart overhead and source.
run train --workload resnet110 --catalog "$tmp/r3.json" --slo-loss 0.8 --slo-time 40m
if [ "$(rc)" = 0 ] && grep -q '^revocation risk .*after 300 s (the catalog.s restart_overhead_s)' "$tmp/out" &&
   grep -Eq '^  recommended +0\.2472 ' "$tmp/out" && grep -Eq '^  on-demand prices only +1\.0000 ' "$tmp/out"; then
    ok "text answer: the risk table"
else notok "text answer: the risk table"; fi
# --restart-overhead overrides the catalog's
run train --workload resnet110 --catalog "$tmp/r3.json" --slo-loss 0.8 --slo-time 40m --restart-overhead 0 --json
if [ "$(rc)" = 0 ] && [ "$(jq -r .risk_model.restart_overhead_from "$tmp/out")" = "--restart-overhead" ] &&
   [ "$(jq .risk.p_deadline_met "$tmp/out")" = 1 ]; then
    ok "--restart-overhead 0: every revocation absorbed, P = 1"
else notok "--restart-overhead 0"; fi
# Without rates: not known, and said.
run train --workload resnet110 --slo-loss 0.8 --slo-time 40m --json
if [ "$(rc)" = 0 ] && [ "$(jq .risk "$tmp/out")" = null ] &&
   jq -r .risk_model.unknown "$tmp/out" | grep -q "gives no interruption_rate for p3.2xlarge"; then
    ok "no rates: risk null, the reason named"
else notok "no rates: risk null"; fi

# 3. --slo-confidence: P reached, no dearer than spotDNN's plan when it reaches it.
for case in "r1 2400 0.6" "r1 2400 0.9" "r1 3000 0.8" "r1 3000 0.95" "r3 2400 0.9" "r3 3000 0.5" "r3 3000 0.9"; do
    set -- $case
    run train --workload resnet110 --catalog "$tmp/$1.json" --slo-loss 0.8 --slo-time "$2s" --json
    cp "$tmp/out" "$tmp/plain.json"
    run train --workload resnet110 --catalog "$tmp/$1.json" --slo-loss 0.8 --slo-time "$2s" --slo-confidence "$3" --json
    p=$(jq .risk.p_deadline_met "$tmp/out")
    e=$(jq .risk.expected_cost_usd "$tmp/out")
    p0=$(jq .risk.p_deadline_met "$tmp/plain.json")
    e0=$(jq .risk.expected_cost_usd "$tmp/plain.json")
    if [ "$(rc)" = 0 ] && awk -v p="$p" -v c="$3" -v e="$e" -v p0="$p0" -v e0="$e0" \
           'BEGIN { exit !(p >= c && (p0 < c || e <= e0 + 1e-9)) }'; then
        ok "$1, $2 s, --slo-confidence $3: P $p, expected $e USD ($(jq -r .risk_model.chosen_pricing "$tmp/out"))"
    else notok "$1, $2 s, --slo-confidence $3"; fi
done
# The text names the pick.
run train --workload resnet110 --catalog "$tmp/r1.json" --slo-loss 0.8 --slo-time 2400s --slo-confidence 0.9
if [ "$(rc)" = 0 ] && grep -q "^recommended plan (--slo-confidence 0.9: the cheapest in expected cost" "$tmp/out"; then
    ok "text: the recommended plan is the risk-aware one"
else notok "text: the risk-aware recommended plan"; fi
# Out of reach (the budget rules out the on-demand plan): refused, the best named.
MAX_ERR_LINES=1 expect "--slo-confidence out of reach: exit 2 naming the best probability" \
    '^slo train: no plan meets the deadline \(2400 s left\) with probability >= 0\.9 \(--slo-confidence\): the most likely of [0-9]+ candidates?, .* meets it with probability 0\.[0-9]{4}$' \
    train --workload resnet110 --catalog "$tmp/r3.json" --slo-loss 0.8 --slo-time 40m --budget 5 --slo-confidence 0.9
run train --workload resnet110 --catalog "$tmp/r3.json" --slo-loss 0.8 --slo-time 40m --budget 5 --slo-confidence 0.9 --json
if [ "$(rc)" = 2 ] && [ "$(jq -r .status "$tmp/out")" = infeasible ] &&
   [ "$(jq -r .closest_kind "$tmp/out")" = most_likely ] &&
   awk -v p="$(jq .closest.risk.p_deadline_met "$tmp/out")" 'BEGIN { exit !(p < 0.9) }'; then
    ok "--json: the refusal's most likely plan and its probability"
else notok "--json refusal"; fi
# The budget binds the expected cost under --slo-confidence: at rate 0.5 the
# plan of 3.29 USD without revocations is expected to cost 5.10 USD, and
# before this --budget 4 recommended it, exit 0. Every budget either gives a
# plan expected within it that reaches the confidence, or exit 2 naming the
# cheapest confident plan, expected above it; both outcomes occur.
catalog r5 0.5 30
seen_ok=0 seen_refused=0
for b in 3.5 4 4.5 5 5.2 6 8; do
    run train --workload resnet110 --catalog "$tmp/r5.json" --slo-loss 0.8 --slo-time 40m --budget "$b" --slo-confidence 0.9 --json
    if [ "$(rc)" = 0 ] && awk -v e="$(jq .risk.expected_cost_usd "$tmp/out")" -v p="$(jq .risk.p_deadline_met "$tmp/out")"            -v b="$b" 'BEGIN { exit !(e <= b && p >= 0.9) }'; then
        seen_ok=1; ok "rate 0.5, --budget $b: expected $(jq .risk.expected_cost_usd "$tmp/out") USD within it"
    elif [ "$(rc)" = 2 ] && [ "$(jq -r .closest_kind "$tmp/out")" = cheapest_expected ] &&
         awk -v e="$(jq .closest.risk.expected_cost_usd "$tmp/out")" -v b="$b" 'BEGIN { exit !(e > b) }'; then
        seen_refused=1; ok "rate 0.5, --budget $b: refused, the cheapest expected $(jq .closest.risk.expected_cost_usd "$tmp/out") USD"
    else notok "rate 0.5, --budget $b: rc $(rc), expected $(jq .risk.expected_cost_usd "$tmp/out") USD"; fi
done
if [ "$seen_ok" = 1 ] && [ "$seen_refused" = 1 ]; then ok "rate 0.5 budgets: both a plan and a refusal"
else notok "rate 0.5 budgets: plan seen $seen_ok, refusal seen $seen_refused"; fi
MAX_ERR_LINES=1 expect "--budget 4 below the expected cost: exit 2 naming the cheapest confident plan" \
    '^slo train: --budget: expected a plan whose expected cost under --slo-confidence 0\.9 is at most 4 USD, found none: the cheapest in expectation of [0-9]+ candidates?, p3\.2xlarge=2,g3\.8xlarge=5 at spot prices \(2255\.81 s, 3\.293483 USD without revocations\), meets the deadline with probability 0\.9428 at an expected 5\.104921 USD$' \
    train --workload resnet110 --catalog "$tmp/r5.json" --slo-loss 0.8 --slo-time 40m --budget 4 --slo-confidence 0.9

# 4. Bad input: one message, exit 2.
for c in 0 1 -0.5 1.5 abc; do
    expect "--slo-confidence $c" '^slo train: --slo-confidence: expected a probability in \(0, 1\)' \
        train --workload resnet110 --catalog "$tmp/r1.json" --slo-loss 0.8 --slo-time 40m --slo-confidence "$c"
done
expect "--slo-confidence without rates names the field" \
    'slo-confidence: expected an interruption rate for every spot type a plan may use, found none: catalog spotdnn-resnet110 gives no interruption_rate for p3.2xlarge' \
    train --workload resnet110 --slo-loss 0.8 --slo-time 40m --slo-confidence 0.9
expect "--slo-confidence with --frontier" '^slo train: --frontier: expected no --slo-confidence' \
    train --workload resnet110 --slo-loss 0.8 --frontier --slo-confidence 0.9
catalog bad 1.5 300
expect "catalog rate 1.5" \
    'interruption_rate: expected the probability that a running spot instance is revoked within an hour, a number in \[0, 1\], or a Spot Instance Advisor bucket .*found 1\.5$' \
    train --workload resnet110 --catalog "$tmp/bad.json" --slo-loss 0.8 --slo-time 40m
catalog neg -0.2 300
expect "catalog rate -0.2" 'types\[0\] \(p3\.2xlarge\)\.interruption_rate: expected .*found -0\.2$' \
    train --workload resnet110 --catalog "$tmp/neg.json" --slo-loss 0.8 --slo-time 40m
jq '.types[0].interruption_rate = "5%"' "$tmp/r1.json" >"$tmp/str.json"
ERR_PREFIX="slo catalog check: "
expect "catalog rate \"5%\" (not a bucket)" 'found the string "5%"$' \
    catalog check "$tmp/str.json"
jq '.types[0].interruption_rate = "<5%"' "$tmp/r1.json" >"$tmp/bucket.json"
if "$SLO" catalog check "$tmp/bucket.json" >/dev/null 2>&1; then ok "catalog rate \"<5%\" (a bucket)"
else notok "catalog rate \"<5%\""; fi
jq '.restart_overhead_s = -1' "$tmp/r1.json" >"$tmp/ro.json"
expect "restart_overhead_s -1" 'restart_overhead_s: expected a number in \[0, 86400\], found -1$' \
    catalog check "$tmp/ro.json"

# 5. slo catalog import --base keeps the site's rates: a pool's own, a plain
# type's for each of its new pools, none from another zone's pool; and the
# restart overhead.
C=$SLO_SRCDIR/tests/catalog
jq '.restart_overhead_s = 240 | (.types[] | select(.name == "p3.2xlarge")) += {interruption_rate: "10-15%"}
    | (.types[] | select(.name == "g3.16xlarge") | .pools[0]) += {interruption_rate: 0.2}' \
    "$C/site-base.json" >"$tmp/base-r.json"
"$SLO" catalog import --spot-prices "$C/spot-price-history.json" --instance-types "$C/instance-types.json" \
    --pricing "$C/get-products.json" --base "$tmp/base-r.json" --quota 4 >"$tmp/out" 2>"$tmp/err"
got=$(jq -c '[.restart_overhead_s, (.types[] | select(.name == "p3.2xlarge" or .name == "g3.16xlarge")
              | .pools[] | .interruption_rate)]' "$tmp/out")
# "10-15%" = 1 - 0.85^(1/730) = 2.226039e-04 (doc/formats.md); p3.2xlarge has 3 pools, g3.16xlarge 2
if echo "$got" | jq -e 'length == 6 and .[0] == 240 and (.[1:4] | all(. > 2.22603e-4 and . < 2.22605e-4))
                        and .[4] == 0.2 and .[5] == null' >/dev/null; then
    ok "catalog import --base keeps the rates and the restart overhead"
else echo "# $got" >>"$tmp/err"; notok "catalog import --base keeps the rates"; fi

# 6. --spot-advisor: each imported pool's rate from its region's bucket
# (tests/catalog/README.md: us-east-1 Linux p3.2xlarge ">20%", g3.8xlarge
# "10-15%", g4dn.4xlarge "<5%"; g3.16xlarge not listed keeps --base's);
# doc/formats.md's table: 3.940e-04, 2.226e-04, 7.026e-05.
ADV=$C/spot-advisor-data.json
"$SLO" catalog import --spot-prices "$C/spot-price-history.json" --instance-types "$C/instance-types.json" \
    --pricing "$C/get-products.json" --base "$tmp/base-r.json" --quota 4 --spot-advisor "$ADV" \
    --output "$tmp/adv.json" >"$tmp/out" 2>"$tmp/err"
got=$(jq -c '[.types[] | select(.pools) | {(.name): [.pools[] | .interruption_rate]}] | add' "$tmp/adv.json" 2>/dev/null)
if echo "$got" | jq -e '(.["p3.2xlarge"] | length == 3 and all(. > 3.9400e-4 and . < 3.9401e-4))
        and (.["g3.8xlarge"] | all(. > 2.2260e-4 and . < 2.2261e-4))
        and (.["g4dn.4xlarge"] | all(. > 7.0262e-5 and . < 7.0263e-5))
        and .["g3.16xlarge"] == [0.2, null] and .["p2.8xlarge"] == [null]' >/dev/null &&
   "$SLO" catalog check "$tmp/adv.json" >/dev/null 2>&1; then
    ok "catalog import --spot-advisor: each pool's bucket as its hourly rate"
else echo "# $got" >>"$tmp/err"; notok "catalog import --spot-advisor"; fi
ERR_PREFIX="slo catalog import: "
adv_bad() { # NAME PATTERN JQ: the advisor edited by JQ is refused, nothing written
    jq "$3" "$ADV" >"$tmp/advbad.json"
    rm -f "$tmp/none.json"
    expect "$1" "$2" catalog import --spot-prices "$C/spot-price-history.json" \
        --instance-types "$C/instance-types.json" --pricing "$C/get-products.json" \
        --spot-advisor "$tmp/advbad.json" --output "$tmp/none.json"
    [ -e "$tmp/none.json" ] && notok "$1: nothing written"
}
adv_bad "--spot-advisor: a label that is no bucket" \
    'ranges\[1\]\.label: expected a Spot Instance Advisor bucket .*found the string "5-10"$' \
    '.ranges[1].label = "5-10"'
adv_bad "--spot-advisor: r that names no range" \
    'spot_advisor\.us-east-1\.Linux\.p3\.2xlarge\.r: expected the index of one of its ranges\[\], found the number 7$' \
    '.spot_advisor["us-east-1"].Linux["p3.2xlarge"].r = 7'
adv_bad "--spot-advisor: not the advisor's shape" \
    'expected the Spot Instance Advisor.s data, an object with "ranges" \(an array\) and "spot_advisor" \(an object\), found' \
    'del(.spot_advisor)'
# A missing key names the keys that are there ("found nothing" before), and
# {} is "an empty object"; a wrong type names the key and what it holds.
adv_bad "--spot-advisor: no ranges names the keys found" \
    'expected the Spot Instance Advisor.s data, an object with "ranges" \(an array\) and "spot_advisor" \(an object\), found an object with keys [a-z_, ]*spot_advisor[a-z_, ]*, no "ranges"$' \
    'del(.ranges)'
adv_bad "--spot-advisor {}: an empty object" 'found an empty object, no "ranges"$' '{}'
adv_bad "--spot-advisor: spot_advisor of the wrong type" 'found "spot_advisor" as an array of 0$' \
    '.spot_advisor = []'
# A directory is a directory (jansson read it as an empty file: "'[' or '{'
# expected near end of file").
mkdir -p "$tmp/advdir"
MAX_ERR_LINES=1 expect "--spot-advisor DIR: expected a file, found a directory" \
    "^slo catalog import: $tmp/advdir: expected a file, found a directory\$" \
    catalog import --spot-prices "$C/spot-price-history.json" --instance-types "$C/instance-types.json" \
    --pricing "$C/get-products.json" --spot-advisor "$tmp/advdir"
# An advisor without the pools' region changed no rate silently (exit 0, no
# word): a note names the region and the regions it lists.
jq '.spot_advisor = {"eu-west-1": .spot_advisor["us-east-1"]}' "$ADV" >"$tmp/adv-eu.json"
"$SLO" catalog import --spot-prices "$C/spot-price-history.json" --instance-types "$C/instance-types.json" \
    --pricing "$C/get-products.json" --base "$tmp/base-r.json" --quota 4 --spot-advisor "$tmp/adv-eu.json" \
    --output "$tmp/adv-eu-cat.json" >"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && [ "$(grep -c 'lists no Linux types in region' "$tmp/err")" = 1 ] &&
   grep -q "^slo catalog import: note: --spot-advisor $tmp/adv-eu.json lists no Linux types in region us-east-1 (it lists eu-west-1); its pools keep --base's interruption_rate\$" "$tmp/err" &&
   "$SLO" catalog import --spot-prices "$C/spot-price-history.json" --instance-types "$C/instance-types.json" \
       --pricing "$C/get-products.json" --base "$tmp/base-r.json" --quota 4 2>/dev/null |
       cmp -s - "$tmp/adv-eu-cat.json"; then
    ok "--spot-advisor without the pools' region: one note naming us-east-1 and eu-west-1"
else notok "--spot-advisor without the pools' region"; fi
finish
