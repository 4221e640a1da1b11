#!/bin/sh
# cli_catalog.sh - spot pools in the catalog and `slo catalog import` (issue 20).
#
# The import reads tests/catalog/*.json, replicas of what the aws CLI prints
# (shapes from botocore's service models; provenance in
# tests/catalog/README.md). Every expectation below is computed from those
# fixtures with jq, independently of slo: the latest Linux/UNIX spot price of
# each (instance type, zone), the on-demand price of each type, and the
# hourly price of a plan as the sum of its pools' prices.
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"

if ! command -v jq >/dev/null 2>&1; then
    echo "jq is not installed (apt-get install jq); skipping"
    exit 77
fi

F=$SLO_SRCDIR/tests/catalog
SPOT=$F/spot-price-history.json
TYPES=$F/instance-types.json
PRICING=$F/get-products.json
BASE=$F/site-base.json
FILES="--spot-prices $SPOT --instance-types $TYPES --pricing $PRICING"
CAT=$tmp/imported.json

# ------------------------------------------------------------ the expectation
# Latest Linux/UNIX price per (type, zone), for types with GPUs: "TYPE@ZONE PRICE".
jq -r --slurpfile it "$TYPES" '
    ($it[0].InstanceTypes | map(select(.GpuInfo) | .InstanceType)) as $gpu
    | .SpotPriceHistory
    | map(select(.ProductDescription == "Linux/UNIX")
          | select(.InstanceType as $t | $gpu | any(. == $t)))
    | group_by([.InstanceType, .AvailabilityZone])
    | map(max_by(.Timestamp | sub("\\.[0-9]+Z$"; "Z") | sub("\\+00:00$"; "Z") | fromdateiso8601))
    | .[] | "\(.InstanceType)@\(.AvailabilityZone) \(.SpotPrice | tonumber)"' "$SPOT" |
    sort >"$tmp/want_spot"
# On-demand Linux, shared tenancy, no software, used capacity: "TYPE PRICE".
jq -r '.PriceList[] | fromjson
    | select(.product.attributes | .operatingSystem == "Linux" and .tenancy == "Shared"
             and .preInstalledSw == "NA" and .capacitystatus == "Used")
    | "\(.product.attributes.instanceType) \(.terms.OnDemand[].priceDimensions[].pricePerUnit.USD | tonumber)"' \
    "$PRICING" | sort >"$tmp/want_od"

if [ "$(wc -l <"$tmp/want_spot")" = 10 ]; then ok "fixtures: 10 pools of GPU types"; else
    notok "fixtures: expected 10 pools, found $(wc -l <"$tmp/want_spot")"; fi

# ------------------------------------------------------------ import
"$SLO" catalog import $FILES --base "$BASE" --quota 4 --output "$CAT" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && [ ! -s "$tmp/out" ] && [ -s "$CAT" ] &&
   grep -q "note: c5.xlarge has no GPUs" "$tmp/err" &&
   grep -q "note: g5.xlarge of --base .* kept with its old prices" "$tmp/err"; then
    ok "import --output writes the catalog, notes what it left out or kept"
else notok "import --output (exit $rc)"; fi
# p3.2xlarge is one type of quota 2 in the base and 3 zones in the fixtures:
# each pool gets 2, which the import says (6 in all), and the catalog holds
if grep -q "note: p3.2xlarge's quota 2 in --base is now the quota of each of its 3 pools (6 instances in all)" "$tmp/err" &&
   [ "$(jq '[.types[] | select(.name == "p3.2xlarge") | .pools[].quota] | add' "$CAT")" = 6 ]; then
    ok "a base type's one quota given to each of its 3 new pools: said, 6 in all"
else notok "a base type's quota over its pools"; fi

jq -r '.types[] | select(.pools) | .name as $n | .pools[] | "\($n)@\(.zone) \(.spot_usd_per_h)"' \
    "$CAT" | sort >"$tmp/got_spot"
if diff "$tmp/want_spot" "$tmp/got_spot" >"$tmp/out"; then
    ok "every pool's price is its zone's latest spot price in the fixture"
else notok "pool prices differ from the fixture's latest per zone"; fi

jq -r '.types[] | select(.pools) | "\(.name) \(.on_demand_usd_per_h)"' "$CAT" | sort >"$tmp/got_od"
if join "$tmp/got_od" "$tmp/want_od" | awk '$2 != $3 { bad = 1 } END { exit bad }' &&
   [ "$(join "$tmp/got_od" "$tmp/want_od" | wc -l)" = "$(wc -l <"$tmp/got_od")" ]; then
    ok "on-demand prices are the price list's Linux/Shared/NA/Used ones"
else notok "on-demand prices"; fi

# The site's entries and quotas (tests/catalog/site-base.json).
got=$(jq -c '[.types[] | select(.name == "dgx-v100") | .site, .usd_per_h, .quota, .pcie_mbps]' "$CAT")
[ "$got" = '["onprem",0,2,12000]' ] && ok "on-prem entry kept" || { echo "$got" >"$tmp/out"; notok "on-prem entry kept"; }
got=$(jq -c '[.types[] | select(.name == "p3.2xlarge") | .pools[].quota]' "$CAT")
[ "$got" = '[2,2,2]' ] && ok "a type listed without pools gives its quota to each new pool" ||
    { echo "$got" >"$tmp/out"; notok "p3.2xlarge quotas"; }
got=$(jq -c '[.types[] | select(.name == "g3.16xlarge") | (.pools[] | [.zone, .quota]), .pcie_mbps]' "$CAT")
[ "$got" = '[["us-east-1a",3],["us-east-1c",4],9000]' ] && ok "a pool keeps its quota, a new one gets --quota, pcie_mbps kept" ||
    { echo "$got" >"$tmp/out"; notok "g3.16xlarge quotas"; }
got=$(jq -c '[.types[] | select(.name == "g5.xlarge") | .spot_usd_per_h, .quota]' "$CAT")
[ "$got" = '[0.4,4]' ] && ok "a base type the import does not price is kept" ||
    { echo "$got" >"$tmp/out"; notok "g5.xlarge kept"; }
got=$(jq -c '[.types[] | select(.name == "g4dn.4xlarge") | .gpus, .gpu_model, .gpu_memory_gb, .network_mbps]' "$CAT")
[ "$got" = '[1,"T4",16,3125]' ] && ok "GPUs, memory and NIC from describe-instance-types (Up to 25 Gigabit = 3125 MB/s)" ||
    { echo "$got" >"$tmp/out"; notok "g4dn.4xlarge description"; }

# A base pool in a zone the import does not price is left out, with a note.
jq '(.types[] | select(.name == "g3.16xlarge") | .pools) += [{"zone": "us-east-1f", "spot_usd_per_h": 1.4, "quota": 1}]' \
    "$BASE" >"$tmp/base-1f.json"
"$SLO" catalog import $FILES --base "$tmp/base-1f.json" --quota 4 >"$tmp/out" 2>"$tmp/err"
if grep -q "note: pool g3.16xlarge@us-east-1f of --base has no spot price in the import; left out" "$tmp/err" &&
   [ "$(jq -c '[.types[] | select(.name == "g3.16xlarge") | .pools[].zone]' "$tmp/out")" = '["us-east-1a","us-east-1c"]' ]; then
    ok "a base pool the import does not price is left out, with a note"
else notok "a base pool the import does not price"; fi

# Pools in two regions: the second region's on-demand price, from its own
# price list entry (an illustrative 3.2 USD/h), is written on its pool.
jq '.SpotPriceHistory += [{"AvailabilityZone": "us-west-2a", "InstanceType": "p3.2xlarge",
    "ProductDescription": "Linux/UNIX", "SpotPrice": "0.990000", "Timestamp": "2023-01-15T10:00:00.000Z"}]' \
    "$SPOT" >"$tmp/spot-2r.json"
jq '.PriceList += [.PriceList[0] | fromjson | .product.attributes.regionCode = "us-west-2"
    | .terms.OnDemand[].priceDimensions[].pricePerUnit.USD = "3.2000000000" | tojson]' \
    "$PRICING" >"$tmp/pricing-2r.json"
"$SLO" catalog import --spot-prices "$tmp/spot-2r.json" --instance-types "$TYPES" \
    --pricing "$tmp/pricing-2r.json" --quota 1 --name two-regions >"$tmp/2r.json" 2>/dev/null
got=$(jq -c '[.name, (.types[] | select(.name == "p3.2xlarge") | .on_demand_usd_per_h,
    (.pools[] | select(.zone == "us-west-2a") | .spot_usd_per_h, .on_demand_usd_per_h),
    (.pools[] | select(.zone == "us-east-1b") | has("on_demand_usd_per_h")))]' "$tmp/2r.json")
if [ "$got" = '["two-regions",3.06,0.99,3.2,false]' ] && "$SLO" catalog check "$tmp/2r.json" >/dev/null; then
    ok "a pool in another region carries that region's on-demand price"
else echo "$got" >"$tmp/out"; notok "pools in two regions"; fi

# stdout carries the same catalog
"$SLO" catalog import $FILES --base "$BASE" --quota 4 >"$tmp/stdout.json" 2>/dev/null
cmp -s "$tmp/stdout.json" "$CAT" && ok "stdout and --output agree" || notok "stdout and --output differ"

succeeds "catalog check counts the pools" \
    "catalog site-east: 12 entries \\(7 instance types, 10 spot pools, 1 on-prem\\), quota 39" \
    -- catalog check "$CAT"

# ------------------------------------------------------------ it plans
# The plan's hourly price must be the sum over its pools of count x the
# fixture's latest price (want_spot), so the planner used the pools' prices.
for slo in "0.8 1h" "0.7 2h" "1.0 30m" "0.8 45m"; do
    set -- $slo
    if "$SLO" train --workload resnet110 --catalog "$CAT" --slo-loss "$1" --slo-time "$2" --json \
        >"$tmp/plan.json" 2>"$tmp/err"; then
        jq -r '.plan | to_entries[] | "\(.key) \(.value)"' "$tmp/plan.json" | sort >"$tmp/counts"
        want=$(join "$tmp/counts" "$tmp/want_spot" | awk '{ s += $2 * $3 } END { printf "%.6f", s }')
        got=$(jq -r '.usd_per_h * 1000000 | round / 1000000' "$tmp/plan.json")
        status=$(jq -r .status "$tmp/plan.json")
        if [ "$status" = optimal ] && grep -q @ "$tmp/counts" &&
           awk -v a="$want" -v b="$got" 'BEGIN { exit !(a - b < 1e-6 && b - a < 1e-6) }'; then
            ok "plans on the imported catalog: loss $1 in $2, $(tr '\n' ' ' <"$tmp/counts")at $got USD/h"
        else
            echo "want $want USD/h, got $got, status $status" >"$tmp/out"
            notok "plan on the imported catalog: loss $1 in $2"
        fi
    else notok "slo train on the imported catalog: loss $1 in $2"; fi
done

# The human table keeps its columns with pool names (TYPE@ZONE is longer
# than the 16 characters it had): each row's site word starts where the
# header's "site" does, and each row names a pool of the --json plan.
"$SLO" train --workload resnet110 --catalog "$CAT" --slo-loss 0.8 --slo-time 1h >"$tmp/human" 2>&1
"$SLO" train --workload resnet110 --catalog "$CAT" --slo-loss 0.8 --slo-time 1h --json |
    jq -r '.plan | keys[]' | sort >"$tmp/keys"
awk '/^recommended plan/ { t = 1; next }
     t && /instance type/ { col = index($0, " site ") + 1; next }
     t && col && /(cloud|onprem)/ { print $1, index($0, ($2 == "cloud" ? " cloud " : " onprem ")) + 1 == col }
     t && /worker/ { exit }' "$tmp/human" >"$tmp/rows"
sort "$tmp/rows" | awk '{ print $1 }' >"$tmp/names"
if [ -s "$tmp/rows" ] && ! grep -q ' 0$' "$tmp/rows" && cmp -s "$tmp/names" "$tmp/keys" &&
   grep -q @ "$tmp/names"; then
    ok "the human plan table stays aligned with pool names ($(tr '\n' ' ' <"$tmp/names"))"
else cat "$tmp/human" "$tmp/rows" >"$tmp/out"; notok "the human plan table with pool names"; fi

# ------------------------------------------------------------ --from-aws
# A stand-in aws CLI that prints the fixtures and logs how it was called.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/aws" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/aws.log"
case "\$1 \$2" in
"configure get") echo us-east-1 ;;
"ec2 describe-spot-price-history") cat "$SPOT" ;;
"ec2 describe-instance-types") cat "$TYPES" ;;
"pricing get-products") cat "$PRICING" ;;
*) echo "unexpected: \$*" >&2; exit 252 ;;
esac
EOF
chmod +x "$tmp/bin/aws"
PATH="$tmp/bin:$PATH" "$SLO" catalog import --from-aws --base "$BASE" --quota 4 \
    >"$tmp/aws.json" 2>"$tmp/err"
rc=$?
if [ $rc = 0 ] && [ "$(jq -S 'del(.description, .source)' "$tmp/aws.json")" = "$(jq -S 'del(.description, .source)' "$CAT")" ] &&
   grep -q "^ec2 describe-spot-price-history --region us-east-1 --product-descriptions Linux/UNIX --start-time 20[0-9-]*T[0-9:]*Z --output json --instance-types p3.2xlarge g3.16xlarge g5.xlarge\$" "$tmp/aws.log" &&
   grep -q "^ec2 describe-instance-types --region us-east-1 --output json --instance-types p3.2xlarge g3.16xlarge g5.xlarge\$" "$tmp/aws.log" &&
   grep -q "^pricing get-products --region us-east-1 --service-code AmazonEC2 .*Field=regionCode,Value=us-east-1 " "$tmp/aws.log" &&
   grep -q "^configure get region\$" "$tmp/aws.log"; then
    ok "--from-aws runs the aws CLI (region from aws configure, types from --base) and imports the same catalog"
else cat "$tmp/aws.log" >>"$tmp/err" 2>/dev/null; notok "--from-aws (exit $rc)"; fi
rm -f "$tmp/aws.log"
PATH="$tmp/bin:$PATH" "$SLO" catalog import --from-aws --region eu-west-1 --types p3.2xlarge --quota 1 \
    >/dev/null 2>&1
grep -q "^ec2 describe-instance-types --region eu-west-1 --output json --instance-types p3.2xlarge\$" "$tmp/aws.log" &&
    ! grep -q "^configure" "$tmp/aws.log" && ok "--from-aws --region --types" || notok "--from-aws --region --types"

cat >"$tmp/bin/aws" <<'EOF'
#!/bin/sh
echo "Unable to locate credentials. You can configure credentials by running \"aws configure\"." >&2
exit 253
EOF
MAX_ERR_LINES=2 PATH="$tmp/bin:$PATH" expect "--from-aws: the aws CLI fails" \
    'failed \(exit status 253; its message is above\): is the aws CLI configured' \
    catalog import --from-aws --region us-east-1 --types p3.2xlarge
# 513 types: refused before aws runs (the list used to be cut at 512 without a word)
many=$(awk 'BEGIN { for (i = 0; i < 513; i++) printf "%sg%d.xlarge", (i ? "," : ""), i }')
PATH="$tmp/bin:$PATH" expect "--from-aws --types with 513 types" \
    '--types: expected at most 512 instance types, found more' \
    catalog import --from-aws --region us-east-1 --types "$many"
mkdir -p "$tmp/nobin"
# slo is run by its absolute path; PATH holds the tools expect needs, no aws
for tool in grep wc sed; do ln -s "$(command -v $tool)" "$tmp/nobin/$tool"; done
PATH="$tmp/nobin" expect "--from-aws without the aws CLI" \
    '--from-aws: expected the aws CLI on PATH, found none' catalog import --from-aws --types p3.2xlarge

# ------------------------------------------------------------ bad input
expect "describe-instance-types given as spot prices" \
    "$TYPES: expected the JSON that .aws ec2 describe-spot-price-history. prints \\(an object with a SpotPriceHistory array\\), found an object with keys InstanceTypes" \
    catalog import --spot-prices "$TYPES" --instance-types "$TYPES" --pricing "$PRICING"
expect "spot prices given as pricing" \
    "$SPOT: expected the JSON that .aws pricing get-products. prints \\(an object with a PriceList array\\), found an object with keys SpotPriceHistory, NextToken" \
    catalog import --spot-prices "$SPOT" --instance-types "$TYPES" --pricing "$SPOT"
jq .InstanceTypes "$TYPES" >"$tmp/types-array.json"
expect "an array instead of describe-instance-types" \
    "types-array.json: expected the JSON that .aws ec2 describe-instance-types. prints .*found an array of 6" \
    catalog import --spot-prices "$SPOT" --instance-types "$tmp/types-array.json" --pricing "$PRICING"
printf '{"SpotPriceHistory": [' >"$tmp/trunc.json"
expect "malformed JSON" "trunc.json:1:2[0-9]: " \
    catalog import --spot-prices "$tmp/trunc.json" --instance-types "$TYPES" --pricing "$PRICING"

bad_spot() { # NAME PATTERN JQ-FILTER
    jq "$3" "$SPOT" >"$tmp/bad-spot.json"
    expect "$1" "$2" catalog import --spot-prices "$tmp/bad-spot.json" --instance-types "$TYPES" \
        --pricing "$PRICING" --quota 1
}
bad_spot "a spot price as a number" \
    'bad-spot.json: SpotPriceHistory\[2\].SpotPrice: expected a price in USD per instance-hour as a decimal string \("0.918000"\), found the number 0.5' \
    '.SpotPriceHistory[2].SpotPrice = 0.5'
bad_spot "a negative spot price" 'SpotPriceHistory\[0\].SpotPrice: expected a price .* found the string "-0.1"' \
    '.SpotPriceHistory[0].SpotPrice = "-0.1"'
bad_spot "a timestamp that is no time" \
    'SpotPriceHistory\[3\].Timestamp: expected an ISO 8601 time \("2023-01-15T10:23:45.000Z"\), found "yesterday"' \
    '.SpotPriceHistory[3].Timestamp = "yesterday"'
# a name longer than a catalog name holds: the limit, not "expected an instance type"
bad_spot "an instance type of 73 characters" \
    'SpotPriceHistory\[1\].InstanceType: expected an instance type of at most 63 characters, found one of 73' \
    '.SpotPriceHistory[1].InstanceType = "p3." + ("x" * 70)'
# a day the month does not have (was read as 2 March and used as the newest)
bad_spot "a timestamp on 30 February" \
    'SpotPriceHistory\[3\].Timestamp: expected an ISO 8601 time \("2023-01-15T10:23:45.000Z"\), found "2023-02-30T10:00:00.000Z"' \
    '.SpotPriceHistory[3].Timestamp = "2023-02-30T10:00:00.000Z"'
bad_spot "no zone" 'SpotPriceHistory\[4\].AvailabilityZone: expected a zone \("us-east-1a"\), found nothing' \
    'del(.SpotPriceHistory[4].AvailabilityZone)'
bad_spot "two latest prices at one time" \
    'expected one latest price of p3.2xlarge in us-east-1a, found 0.8 and 0.95 .* both at 2023-01-15T12:30:00.000Z' \
    '.SpotPriceHistory += [{"AvailabilityZone": "us-east-1a", "InstanceType": "p3.2xlarge", "ProductDescription": "Linux/UNIX", "SpotPrice": "0.800000", "Timestamp": "2023-01-15T12:30:00.000Z"}]'
bad_spot "no Linux price" 'expected at least one Linux/UNIX spot price, found none among 1 entries' \
    '.SpotPriceHistory |= [.[1]]'

# A directory as an input file is named as one (jansson read it as an empty
# file: "DIR:1:0: '[' or '{' expected near end of file").
mkdir -p "$tmp/a-dir"
expect "--spot-prices DIR: expected a file, found a directory" \
    "^slo catalog import: $tmp/a-dir: expected a file, found a directory\$" \
    catalog import --spot-prices "$tmp/a-dir" --instance-types "$TYPES" --pricing "$PRICING"
jq '.InstanceTypes[0].GpuInfo.Gpus = []' "$TYPES" >"$tmp/bad-types.json"
expect "GpuInfo without GPUs" \
    'bad-types.json: InstanceTypes\[0\] \(p3.2xlarge\).GpuInfo: expected an object with a non-empty Gpus array' \
    catalog import --spot-prices "$SPOT" --instance-types "$tmp/bad-types.json" --pricing "$PRICING"
jq '.PriceList[0] = "{\"product\": "' "$PRICING" >"$tmp/bad-pricing.json"
expect "a price list entry that is no JSON" \
    'bad-pricing.json: PriceList\[0\]: expected a product as JSON text, found malformed JSON' \
    catalog import --spot-prices "$SPOT" --instance-types "$TYPES" --pricing "$tmp/bad-pricing.json"
jq '.PriceList |= map(select(fromjson | .product.attributes.instanceType != "p2.8xlarge"))' \
    "$PRICING" >"$tmp/no-p2.json"
MAX_ERR_LINES=3 expect "a pool without an on-demand price" \
    '--pricing: expected the on-demand price of p2.8xlarge in us-east-1 \(for its spot pool us-east-1b\), found none' \
    catalog import --spot-prices "$SPOT" --instance-types "$TYPES" --pricing "$tmp/no-p2.json" --quota 1
MAX_ERR_LINES=3 expect "every quota 0" 'found every quota 0: give --quota N' catalog import $FILES
expect "a file missing" 'expected --spot-prices F, --instance-types F and --pricing F .* found --pricing missing' \
    catalog import --spot-prices "$SPOT" --instance-types "$TYPES"
expect "files and --from-aws" 'expected either --from-aws or the three files, found both' \
    catalog import $FILES --from-aws
expect "a bad quota" '--quota: expected a whole number of instances in 0..100000, found "2.5"' \
    catalog import $FILES --quota 2.5
expect "a bad base" '--base: expected an embedded catalog .* found "nosuch"' \
    catalog import $FILES --base nosuch

# nothing half-written: a failed import leaves --output as it was, and no
# temporary file beside it
mkdir -p "$tmp/site"
echo '{"kept": true}' >"$tmp/site/catalog.json"
"$SLO" catalog import --spot-prices "$tmp/bad-spot.json" --instance-types "$TYPES" --pricing "$PRICING" \
    --quota 1 --output "$tmp/site/catalog.json" >/dev/null 2>&1
if [ "$(cat "$tmp/site/catalog.json")" = '{"kept": true}' ] && [ "$(ls "$tmp/site")" = catalog.json ]; then
    ok "a failed import leaves --output untouched"
else notok "a failed import touched --output"; fi
"$SLO" catalog import $FILES --quota 1 --output "$tmp/site/catalog.json" 2>/dev/null
if [ "$(ls "$tmp/site")" = catalog.json ] && "$SLO" catalog check "$tmp/site/catalog.json" >/dev/null; then
    ok "a refresh replaces --output whole"
else notok "refresh of --output"; fi
expect "--output in a missing directory" '--output .*/nodir/c.json: cannot create' \
    catalog import $FILES --quota 1 --output "$tmp/nodir/c.json"

# ------------------------------------------------------------ pools in a catalog
pooled() { # NAME POOLS-JSON: a catalog of p3.2xlarge with those pools
    printf '{"name": "t", "types": [{"name": "p3.2xlarge", "gpu_model": "V100", "gpus": 1,
      "on_demand_usd_per_h": 3.06, "pools": [%s]}]}\n' "$2" >"$tmp/$1.json"
}
pooled negprice '{"zone": "us-east-1a", "spot_usd_per_h": -0.9, "quota": 1}'
expect "a pool with a negative price (slo train)" \
    "negprice.json: types\\[0\\] \\(p3.2xlarge\\).pools\\[0\\] \\(us-east-1a\\).spot_usd_per_h: expected a number in \\[0, 1e\\+06\\], found -0.9" \
    train --workload resnet110 --catalog "$tmp/negprice.json" --slo-loss 0.8 --slo-time 1h
pooled negquota '{"zone": "us-east-1a", "spot_usd_per_h": 0.9, "quota": -1}'
expect "a pool with a negative quota" \
    "negquota.json: types\\[0\\] \\(p3.2xlarge\\).pools\\[0\\] \\(us-east-1a\\).quota: expected .*found -1" \
    catalog check "$tmp/negquota.json"
pooled twice '{"zone": "us-east-1a", "spot_usd_per_h": 0.9, "quota": 1}, {"zone": "us-east-1b", "spot_usd_per_h": 0.9, "quota": 1}, {"zone": "us-east-1a", "spot_usd_per_h": 1.1, "quota": 1}'
expect "a zone listed twice" \
    'twice.json: types\[0\] \(p3.2xlarge\).pools\[2\].zone: expected each zone once per instance type, found "us-east-1a" again \(first at pools\[0\]\)' \
    train --workload resnet110 --catalog "$tmp/twice.json" --slo-loss 0.8 --slo-time 1h

# The shipped catalogs load as before (no pools).
succeeds "spotdnn-resnet110 has 5 plain types" "5 entries \\(5 instance types, 0 spot pools, 0 on-prem\\)" \
    -- catalog check spotdnn-resnet110
succeeds "aws-table3 has 7 plain types" "7 entries \\(7 instance types, 0 spot pools, 0 on-prem\\)" \
    -- catalog check "$SLO_SRCDIR/etc/slo/catalogs/aws-table3.json"

# A catalog of 3000 pools (100 types x 30 zones) loads; its load time goes to
# the log (speed is measured, never asserted, in tests).
jq -n '{name: "pools-3000", types: [range(100) as $t | {name: "t\($t).xlarge", gpu_model: "V100",
    gpus: 1, on_demand_usd_per_h: 3, pools: [range(30) as $z |
    {zone: "zone-\($z)", spot_usd_per_h: (1 + $t / 100 + $z / 1000), quota: 2}]}]}' >"$tmp/p3000.json"
start=$(date +%s%N)
succeeds "a catalog of 3000 pools loads" "3000 entries \\(100 instance types, 3000 spot pools" \
    -- catalog check "$tmp/p3000.json"
end=$(date +%s%N)
echo "# slo catalog check of 3000 pools ($(wc -c <"$tmp/p3000.json") bytes): $(( (end - start) / 1000000 )) ms, whole process"

finish
