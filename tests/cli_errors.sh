#!/bin/sh
# cli_errors.sh - every kind of bad input to `slo train` gets one clear
# message on stderr naming the file, field or option, exit status 2, and
# nothing on stdout (no partial output).
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"

T="train --workload resnet110"

expect "no command" "slo: expected a command \\(train, .*\\), found none"
expect "unknown command" 'unknown command "plan"' plan
expect "unknown option" 'unknown or ambiguous option "--slo-lost"' $T --slo-lost 0.8 --slo-time 40m
expect "missing workload" "--workload: expected NAME or FILE.*missing" train --slo-loss 0.8 --slo-time 40m
expect "missing loss" "--slo-loss: expected a value, found it missing" $T --slo-time 40m
expect "missing time" "--slo-time: expected a value, found it missing" $T --slo-loss 0.8
expect "option without value" "--slo-time: expected a value, found none" $T --slo-loss 0.8 --slo-time
expect "loss not a number" '--slo-loss: expected a number, found "abc"' $T --slo-loss abc --slo-time 40m
expect "malformed time" '--slo-time: expected a duration .* found "40x"' $T --slo-loss 0.8 --slo-time 40x
expect "unlimited time" '--slo-time: expected a duration .* found "UNLIMITED"' $T --slo-loss 0.8 --slo-time UNLIMITED
expect "zero time" '--slo-time: expected a duration greater than zero' $T --slo-loss 0.8 --slo-time 0s
expect "unknown workload" '--workload: expected an embedded workload \(resnet110\) or a JSON file path, found "bert"' \
    train --workload bert --slo-loss 0.8 --slo-time 40m
expect "unknown catalog" '--catalog: expected an embedded catalog .* found "gcp"' $T --catalog gcp --slo-loss 0.8 --slo-time 40m
expect "loss at the asymptote" '--slo-loss: target loss 0.5 is at or below .* asymptotic loss 0.5' \
    $T --slo-loss 0.5 --slo-time 40m
expect "loss below the asymptote" 'target loss 0.3 is at or below' $T --slo-loss 0.3 --slo-time 40m
expect "impossible deadline" 'no plan meets the SLO: loss 0.8 within 60 s; the fastest plan' \
    $T --slo-loss 0.8 --slo-time 1m
expect "bad pricing" '--pricing: expected spot or on-demand, found "cheap"' $T --slo-loss 0.8 --slo-time 40m --pricing cheap
expect "negative budget" '--budget: expected a cost in USD in \(0, 1e300\], found "-1"' $T --slo-loss 0.8 --slo-time 40m --budget -1
expect "budget beyond the range" '--budget: expected a cost in USD in \(0, 1e300\], found "1e308"' $T --slo-loss 0.8 --slo-time 40m --budget 1e308
expect "existing unknown type" '--existing: expected an instance type .* found "p9.xlarge"' \
    $T --slo-loss 0.8 --slo-time 40m --existing p9.xlarge=2
expect "existing bad count" '--existing: p3.2xlarge: expected a count from 0 to the catalog.s quota 2, found "x"' \
    $T --slo-loss 0.8 --slo-time 40m --existing p3.2xlarge=x
expect "existing above quota" '--existing: g3.16xlarge: expected a count from 0 to the catalog.s quota 8, found "9"' \
    $T --slo-loss 0.8 --slo-time 40m --existing g3.16xlarge=9
expect "existing type twice" '--existing: expected each instance type once, found g3.16xlarge again' \
    $T --slo-loss 0.8 --slo-time 40m --existing g3.16xlarge=1,g3.16xlarge=2
expect "existing empty" '--existing: expected TYPE=N\[,TYPE=N...\], found ","' $T --slo-loss 0.8 --slo-time 40m --existing ,
expect "conflicting repeat" '--slo-time: given twice with different values \("40m", "2h"\)' \
    $T --slo-loss 0.8 --slo-time 40m --slo-time 2h
expect "ambiguous abbreviation" 'unknown or ambiguous option "--slo"' $T --slo 0.8 --slo-time 40m
expect "leading space in a number" '--slo-loss: expected a number, found " 0.8"' $T --slo-loss " 0.8" --slo-time 40m
expect "elapsed past deadline" '--elapsed: expected less than --slo-time' $T --slo-loss 0.8 --slo-time 40m --elapsed 1h
expect "loss-now below target" '--loss-now: the loss reached so far \(0.7\) already meets the target 0.8' \
    $T --slo-loss 0.8 --slo-time 40m --loss-now 0.7
expect "stray argument" 'unexpected argument "extra"' $T --slo-loss 0.8 --slo-time 40m extra

# Files: missing, malformed, incomplete, out of range.
expect "missing catalog file" "$tmp/none.json: cannot open" $T --catalog "$tmp/none.json" --slo-loss 0.8 --slo-time 40m
printf '{"name": "c", "types": [\n  {"name": "a",}\n]}\n' >"$tmp/malformed.json"
expect "malformed catalog" "malformed.json: line 2, column [0-9]+: malformed JSON" \
    $T --catalog "$tmp/malformed.json" --slo-loss 0.8 --slo-time 40m
sed 's/"spot_usd_per_h": 0.918/"spot_usd_per_h": -0.918/' "$SLO_SRCDIR/etc/slo/catalogs/spotdnn-resnet110.json" >"$tmp/negative.json"
expect "negative price" 'negative.json: types\[0\] \(p3.2xlarge\).spot_usd_per_h: expected a number in \[0, 1e\+06\], found -0.918' \
    $T --catalog "$tmp/negative.json" --slo-loss 0.8 --slo-time 40m
sed 's/"spot_usd_per_h": 0.918, //' "$SLO_SRCDIR/etc/slo/catalogs/spotdnn-resnet110.json" >"$tmp/noprice.json"
expect "missing price" 'noprice.json: types\[0\] \(p3.2xlarge\).spot_usd_per_h: expected .* found it missing' \
    $T --catalog "$tmp/noprice.json" --slo-loss 0.8 --slo-time 40m
sed 's/"quota": [0-9]*/"quota": 0/' "$SLO_SRCDIR/etc/slo/catalogs/spotdnn-resnet110.json" >"$tmp/noquota.json"
expect "zero quota everywhere" 'noquota.json: types\[\].quota: expected at least one instance type with quota > 0' \
    $T --catalog "$tmp/noquota.json" --slo-loss 0.8 --slo-time 40m
sed 's/"b_req_mbps": 142,//' "$SLO_SRCDIR/etc/slo/workloads/resnet110.json" >"$tmp/wl.json"
expect "not a text file" '/dev/zero: expected a text file, found a NUL byte at offset 0' \
    train --workload /dev/zero --slo-loss 0.8 --slo-time 40m
expect "incomplete workload" 'wl.json: b_req_mbps: expected a number >= 1e-09, found it missing' \
    train --workload "$tmp/wl.json" --slo-loss 0.8 --slo-time 40m
printf '{"name": "other", "types": [{"name": "x1", "gpu_model": "A100", "gpus": 1, "spot_usd_per_h": 1, "on_demand_usd_per_h": 3, "quota": 4}]}\n' >"$tmp/other.json"
expect "no profiled type in catalog" '--workload resnet110, --catalog .*other.json: workload resnet110 profiles none of the catalog' \
    $T --catalog "$tmp/other.json" --slo-loss 0.8 --slo-time 40m

expect "hex loss" '--slo-loss: expected a number, found "0x1"' $T --slo-loss 0x1 --slo-time 40m
expect "hex deadline" '--slo-time: expected a duration .*found "0x10m"' $T --slo-loss 0.8 --slo-time 0x10m
finish
