#!/bin/sh
# cli_convert.sh - `slo convert perf-analyzer|nvidia-smi|ncu` (issue 19, item
# 1) on the fixtures of tests/infer/{pa,smi,ncu}: the outputs the recipe of
# doc/infer.md would give on the authors' V100 for ResNet-50, written in each
# tool's real format by tests/infer/make_fixtures.py from the upstream profile
# (etc/slo/gpus/v100.json = icloud-ecnu/igniter@b1ff2ab Algorithm/config).
#  - the converters give that profile back, to the fixtures' print precision
#    (perf_analyzer integer us, nvidia-smi 0.01 W and integer MHz, ncu 0.01 %);
#  - the profile they make with tests/infer/resnet50-base.jsonl (the keys
#    nsys and the GPU's specification give) fits (`slo fit infer`), and its
#    solo GPU times predicted at the 9 grid points match the perf_analyzer
#    measurements (read from the CSVs here, in Python) within 3.6 % MAPE
#    (the accuracy of the iGniter data) and within 0.1 point of the MAPE of
#    the upstream profile itself;
#  - bad input: one message naming the file and what is missing, exit 2.
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"

PY=/usr/bin/python3
"$PY" -c 'import json' 2>/dev/null || { echo "SKIP: no $PY"; exit 77; }
fx=$SLO_SRCDIR/tests/infer
pts() { for b in 1 16 32; do for r in 10 50 100; do printf '%s ' "$b:$r:$fx/$1/resnet50-b$b-r$r.csv"; done; done; }
HW="1:$fx/smi/hw-c1.csv 2:$fx/smi/hw-c2.csv 3:$fx/smi/hw-c3.csv 4:$fx/smi/hw-c4.csv 5:$fx/smi/hw-c5.csv"
NCU="1:20:$fx/ncu/resnet50-b1-r20.csv 1:10:$fx/ncu/resnet50-b1-r10.csv 16:50:$fx/ncu/resnet50-b16-r50.csv 32:100:$fx/ncu/resnet50-b32-r100.csv"

# shellcheck disable=SC2046,SC2086
if "$SLO" convert perf-analyzer --model resnet50 $(pts pa) >"$tmp/pa.jsonl" 2>"$tmp/err" &&
   "$SLO" convert nvidia-smi --model resnet50 $(pts smi) --pair "$fx/smi/resnet50-pair.csv" >"$tmp/smi.jsonl" 2>>"$tmp/err" &&
   "$SLO" convert nvidia-smi --hardware $HW --idle "$fx/smi/idle.csv" >"$tmp/hw.jsonl" 2>>"$tmp/err" &&
   "$SLO" convert ncu --model resnet50 $NCU >"$tmp/ncu.jsonl" 2>>"$tmp/err"; then
    ok "the four conversions run"
else
    notok "the four conversions run"
fi
cat "$fx/resnet50-base.jsonl" "$tmp/pa.jsonl" "$tmp/smi.jsonl" "$tmp/hw.jsonl" "$tmp/ncu.jsonl" >"$tmp/profile.jsonl"

if "$PY" - "$SLO_SRCDIR/etc/slo/gpus/v100.json" "$tmp" >"$tmp/out" 2>&1 <<'EOF'
import json, sys
ref = json.load(open(sys.argv[1])); t = sys.argv[2]
got = {}
for f in ("pa", "smi", "hw", "ncu"):
    for sec, kv in json.loads(open("%s/%s.jsonl" % (t, f)).read()).items():
        got.setdefault(sec, {}).update(kv)
m, r = got["resnet50"], ref["resnet50"]
def close(a, b, tol, what):
    if isinstance(a, list):
        for x, y in zip(a, b):
            close(x, y, tol, what)
        assert len(a) == len(b), what
    else:
        assert abs(a - b) <= tol, (what, a, b)
close(m["gpulatency"], r["gpulatency"], 5e-4, "gpulatency ms")        # integer us
close(m["power"], r["power"], 0.006, "power W")                        # 0.01 W
close(m["frequency"], r["frequency"], 1 / 16, "frequency MHz")        # 8 integer samples
close(m["power_2"], r["power_2"], 0.006, "power_2"); close(m["frequency_2"], r["frequency_2"], 1 / 16, "frequency_2")
close(m["l2cache"], r["l2cache"], 0.005, "l2cache %"); close(m["l2caches"], r["l2caches"], 0.005, "l2caches %")
assert m["kernel"] == r["kernel"], m["kernel"]
close(m["activetime_1"], r["activetime_1"], 1e-4, "activetime_1 ms")  # integer ns x 80
h, rh = got["hardware"], ref["hardware"]
close(h["power"], rh["power"], 0.006, "hardware power"); close(h["frequency"], rh["frequency"], 1 / 16, "hardware frequency")
assert h["idlepower"] == rh["idlepower"]
print("profile reproduced")
EOF
then ok "converters reproduce the upstream profile from the fixtures"; else notok "converters reproduce the upstream profile from the fixtures"; cat "$tmp/out"; fi

"$SLO" fit infer "$tmp/profile.jsonl" >"$tmp/coef.json" 2>"$tmp/err" &&
    grep -q '"resnet50"' "$tmp/coef.json" && ok "slo fit infer fits the converted profile" ||
    notok "slo fit infer fits the converted profile"

# MAPE of predicted solo GPU time at the grid against the perf_analyzer fixtures
for prof in "$tmp/profile.jsonl" v100; do
    for b in 1 16 32; do for r in 10 50 100; do
        printf '%s %s ' "$b" "$r"
        "$SLO" infer --profile "$prof" --predict --json --workload "resnet50:share=$r:batch=$b" |
            sed -n 's/.*"t_gpu_ms": \([0-9.e+-]*\).*/\1/p'
    done; done >"$tmp/pred.$(basename "$prof")"
done
if "$PY" - "$fx" "$tmp/pred.profile.jsonl" "$tmp/pred.v100" >"$tmp/out" 2>&1 <<'EOF'
import csv, sys
fx = sys.argv[1]
def meas(b, r):
    rows = list(csv.DictReader(open("%s/pa/resnet50-b%d-r%d.csv" % (fx, b, r))))
    row = min(rows, key=lambda x: int(x["Concurrency"]))
    return float(row["Server Compute Infer"]) / 1000.0
def mape(path):
    e = []
    for line in open(path):
        b, r, p = line.split()
        m = meas(int(b), int(r)); e.append(abs(float(p) - m) / m * 100)
    assert len(e) == 9, e
    return sum(e) / len(e)
a, b = mape(sys.argv[2]), mape(sys.argv[3])
print("MAPE of solo GPU time at the 9 grid points: converted profile %.3f %%, upstream profile %.3f %%" % (a, b))
assert a <= 3.6 and abs(a - b) <= 0.1, (a, b)
EOF
then cat "$tmp/out"; ok "the fitted converted profile predicts the fixtures within 3.6 % MAPE"
else cat "$tmp/out"; notok "the fitted converted profile predicts the fixtures within 3.6 % MAPE"; fi

# Bad input: one message, exit 2, nothing on stdout.
grep -v '^1,' "$fx/pa/resnet50-b1-r10.csv" | sed 's/Server Compute Infer,//; s/,[0-9]*,5,9,/,5,9,/' >"$tmp/pa-missing.csv"
# shellcheck disable=SC2046
expect "perf_analyzer file without Server Compute Infer" \
    "^slo convert: .*pa-missing.csv:1: expected perf_analyzer -f CSV columns \"Concurrency\" and \"Server Compute Infer\" \\(Triton 2.x\\), found no \"Server Compute Infer\" column \\(header: Concurrency, Inferences/Second, .*\\)$" \
    convert perf-analyzer --model resnet50 $(pts pa | sed "s|[^ ]*resnet50-b1-r10.csv|1:10:$tmp/pa-missing.csv|")
# shellcheck disable=SC2046
expect "a missing grid point" '^slo convert: expected the 9 grid points B:R:FILE .*found no 32:100$' \
    convert perf-analyzer --model resnet50 $(pts pa | sed 's| [^ ]*b32-r100.csv||')
printf 'timestamp, power.draw [W]\n2026/11/30 10:00:00.000, 80.00 W\n' >"$tmp/smi-noclock.csv"
# shellcheck disable=SC2046
expect "nvidia-smi file without clocks.sm" '^slo convert: .*smi-noclock.csv:1: expected nvidia-smi --query-gpu CSV columns "power.draw" and "clocks.sm", found no "clocks.sm" column \(header: timestamp, power.draw \[W\]\)$' \
    convert nvidia-smi --hardware 1:"$tmp/smi-noclock.csv" 2:"$fx/smi/hw-c2.csv" 3:"$fx/smi/hw-c3.csv"
# a bad value: file, line and column named (line 3: the second sample)
sed '3 s/52.00 W\|55.00 W/n\/a/' "$fx/smi/idle.csv" >"$tmp/smi-na.csv"
# shellcheck disable=SC2086
expect "nvidia-smi sample without a power" '^slo convert: .*smi-na.csv:3: column power.draw: expected a power > 0 W, found "n/a"$' \
    convert nvidia-smi --hardware $HW --idle "$tmp/smi-na.csv"
# a row cut short (line 3 of the perf_analyzer file)
sed '3 s/,[^,]*$//' "$fx/pa/resnet50-b16-r50.csv" >"$tmp/pa-short.csv"
# shellcheck disable=SC2046
expect "perf_analyzer row with a field missing" '^slo convert: .*pa-short.csv:3: expected 13 fields as in the header, found 12$' \
    convert perf-analyzer --model resnet50 $(pts pa | sed "s|[^ ]*resnet50-b16-r50.csv|16:50:$tmp/pa-short.csv|")
expect "perf_analyzer file not there" '^slo convert: .*nothere.csv: cannot open: ' \
    convert perf-analyzer --model resnet50 $(pts pa | sed "s|[^ ]*resnet50-b16-r50.csv|16:50:$tmp/nothere.csv|")
grep -v lts__ "$fx/ncu/resnet50-b1-r10.csv" >"$tmp/ncu-nol2.csv"
# shellcheck disable=SC2086
expect "ncu file without the L2 metric" '^slo convert: .*ncu-nol2.csv: kernel ID 0: expected metrics gpu__time_duration.sum and lts__t_sectors.avg.pct_of_peak_sustained_elapsed, found the L2 metric missing$' \
    convert ncu --model resnet50 1:20:"$fx/ncu/resnet50-b1-r20.csv" 1:10:"$tmp/ncu-nol2.csv" 16:50:"$fx/ncu/resnet50-b16-r50.csv" 32:100:"$fx/ncu/resnet50-b32-r100.csv"
expect "unknown tool" '^slo convert: expected a tool perf-analyzer, nvidia-smi or ncu, found "nsys"' convert nsys
expect "no --model" '^slo convert: --model: expected the model' convert perf-analyzer 1:10:x.csv
finish
