#!/bin/sh
# test_python_plan.sh - the Python package's plan rules are libsloprophet's
# (python/slo/plan.py, mpi_runtime/prophet_plan.c): on `slo comm` plans of
# every policy for a hand-written 5-layer model with a parameter-free layer
# (0 bytes) and a layer of 10 bytes (2.5 fp32 elements: boundaries rounded),
# and for ResNet-50's built-in table, the gradient-list and plan checksums
# the Python code computes equal the C runtime's own (tests/python/
# plan_checksum, which maps the plan exactly as slo_prophet_set_plan does),
# and both refuse a plan for another model with the same reason.
# Needs only the standard library (no torch); skipped without a Python.
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"
PY=${SLO_PYTHON:-/usr/bin/python3}
[ "$PY" = : ] && { echo "SKIP: no Python"; exit 77; }
PYTHONPATH=$SLO_SRCDIR/python; export PYTHONPATH
C=${SLO_BUILDDIR:?}/tests/python/plan_checksum

pysum() {  # PLAN POLICY CSV -> "grads HEX plan HEX blocks N" by slo.plan
    "$PY" - "$@" <<'PYEOF'
import csv, sys
import slo.plan as sp
rows = list(csv.DictReader(open(sys.argv[3])))
g = [int(r.get("param_bytes") or r.get("grad_bytes")) for r in rows if r.get("layer_type") != "Input"]
p = sp.load_plan(sys.argv[1], sys.argv[2])
try:
    pieces = sp.check_plan(p, g, "the list")
except sp.PlanError as e:
    print("refused:", e)
    sys.exit(0)
print("grads %016x plan %016x blocks %d" % (sp.grads_checksum(g, 4), sp.schedule_checksum(p, pieces, g), p.n_blocks))
PYEOF
}

printf 'forward_ms,backward_ms,param_bytes\n1,2,4096\n1,1,0\n2,3,10\n1,2,800000\n1,1,64\n' >"$tmp/five.csv"
"$SLO" comm --model "$tmp/five.csv" --bandwidth 1Gbit --workers 4 --json >"$tmp/five.json"
"$SLO" comm --model resnet50 --bandwidth 3Gbit --json >"$tmp/r50.json"
# the 10-byte layer is 2.5 elements: the list registered is the plan's
# layer spans rounded to elements (boundaries 4106 -> 4108, 804106 -> 804108,
# end 804170 -> 804172: 4096, 0, 12, 800000, 64 bytes)
printf 'forward_ms,backward_ms,param_bytes\n1,2,4096\n1,1,0\n2,3,12\n1,2,800000\n1,1,64\n' >"$tmp/five_e.csv"
for case in "five.json five_e.csv" "r50.json r50"; do
    set -- $case
    csvf=$tmp/$2
    [ "$2" = r50 ] && csvf=$SLO_SRCDIR/etc/slo/models/resnet50_layers.csv
    for pol in fifo prio p3 bytescheduler horovod ddp prophet optimal; do
        c=$("$C" "$tmp/$1" $pol "$csvf" 2>&1)
        p=$(pysum "$tmp/$1" $pol "$csvf" 2>&1)
        if [ -n "$c" ] && [ "$c" = "$p" ]; then
            ok "$1 $pol: Python checksums = libsloprophet's ($c)"
        else
            echo "# C:      $c"; echo "# Python: $p"
            notok "$1 $pol: checksums differ"
        fi
    done
done
# another model's plan: both refuse, for the layer count
c=$("$C" "$tmp/r50.json" optimal "$tmp/five_e.csv" 2>&1)
p=$(pysum "$tmp/r50.json" optimal "$tmp/five_e.csv" 2>&1)
if echo "$c" | grep -q 'model.layers: expected 5' && echo "$p" | grep -q 'refused: .*model.layers: expected 5 .*found 176'; then
    ok "a resnet50 plan on a 5-layer list: both refuse on model.layers"
else
    echo "# C:      $c"; echo "# Python: $p"
    notok "a resnet50 plan on a 5-layer list"
fi
# a key given twice (issue 15: the last offset_bytes won): both readers refuse
# the whole document; before, Python's json.loads kept the last key silently
"$PY" - "$tmp/five.json" "$tmp/dup.json" <<'PYEOF'
import sys
t = open(sys.argv[1]).read()
# the first range of the optimal plan's first block gets a second bytes key
i = t.index('"optimal"')
j = t.index('"offset_bytes"', i)
open(sys.argv[2], "w").write(t[:j] + '"bytes": 4, ' + t[j:])
PYEOF
c=$("$C" "$tmp/dup.json" optimal "$tmp/five_e.csv" 2>&1)
p=$(pysum "$tmp/dup.json" optimal "$tmp/five_e.csv" 2>&1)
if echo "$c" | grep -q 'duplicate object key' &&
   echo "$p" | grep -q 'PlanError: .*dup.json: expected `slo comm --json` output, found the key "bytes" given twice'; then
    ok "a plan with a key given twice: both refuse"
else
    echo "# C:      $c"; echo "# Python: $p"
    notok "a plan with a key given twice"
fi
# a plan over the runtime's 64 MiB input limit (a real plan padded with
# blanks: valid JSON): refused by slo.plan as libsloprophet refuses it
{ cat "$tmp/five.json"; head -c 67108864 /dev/zero | tr '\0' ' '; } >"$tmp/big.json"
p=$("$PY" -c 'import sys, slo.plan as sp
try:
    sp.load_plan(sys.argv[1], "optimal")
except sp.PlanError as e:
    print("refused:", e)' "$tmp/big.json" 2>&1)
rm -f "$tmp/big.json"
if echo "$p" | grep -q 'refused: .*big.json: expected an input of at most 64 MiB, found more'; then
    ok "a plan of 64 MiB + its text: refused as libsloprophet refuses it"
else
    echo "# Python: $p"; notok "a plan over 64 MiB"
fi
finish
