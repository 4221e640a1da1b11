#!/bin/sh
# test_python_ddp.sh - the slo Python package with PyTorch (python3-torch,
# python3-torchvision; skipped, exit 77, without them): the layer profiler's
# ResNet-18 CSV is accepted by `slo comm` (row count and gradient bytes
# checked against torchvision's own parameter count, 11,181,642 fp32 = 44,726,568
# bytes at 10 classes); the DDP plan hook gives gradients bit-identical to
# PyTorch's default DDP on ResNet-18 (gloo, 2 ranks, env:// launch, 3
# iterations) for three `slo comm` plans of that CSV (optimal: few large
# blocks; prophet: held, multi-range blocks; p3: hundreds of slices cutting
# tensors), every rank issuing the plan's blocks in order; and bad plans
# (another plan on rank 1, a plan for another model, a plan whose bytes do
# not match the gradients) refused on every rank with one clear message and
# no hang (tests/python/ddp_check.py waits SLO_TEST_TIMEOUT s at most).
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"
require_python "torch, torchvision" "python3-torch, python3-torchvision"
SLO_PYTHONPATH=$SLO_SRCDIR/python; export SLO_PYTHONPATH
PYTHONPATH=$SLO_PYTHONPATH; export PYTHONPATH
OMP_NUM_THREADS=1; export OMP_NUM_THREADS
check=$SLO_SRCDIR/tests/python/ddp_check.py

# --- layer profiler -> slo comm ----------------------------------------------
if "$PY" -m slo.profiler --model resnet18 --batch 4 --iterations 2 -o "$tmp/r18.csv" 2>"$tmp/err" &&
   [ "$(wc -l <"$tmp/r18.csv")" = 53 ] &&
   [ "$(awk -F, 'NR > 1 { s += $6 } END { print s }' "$tmp/r18.csv")" = 44726568 ] &&
   "$SLO" comm --model "$tmp/r18.csv" --bandwidth 1Gbit --workers 2 >"$tmp/out" 2>>"$tmp/err" &&
   grep -q '^model r18.csv: 52 layers, 41 gradients, 44.7 MB' "$tmp/out"; then
    ok "profiler CSV of ResNet-18 (52 layers, 44726568 gradient bytes) accepted by slo comm"
else
    notok "profiler CSV of ResNet-18"
fi
# bad profiler input: one line naming the option, exit 2, no CSV written
# (before: --batch 0 wrote a CSV of an empty batch with exit 0, --iterations
# 0 and a batch BatchNorm cannot train on ended in a Python traceback)
prof_refused() {
    name=$1; pattern=$2; shift 2
    rm -f "$tmp/bad.csv"
    "$PY" -m slo.profiler "$@" -o "$tmp/bad.csv" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 2 ] && [ ! -e "$tmp/bad.csv" ] && ! grep -q Traceback "$tmp/err" &&
       grep -Eq "^python3 -m slo.profiler: error: $pattern" "$tmp/err"; then
        ok "profiler refuses $name"
    else
        notok "profiler refuses $name (exit $rc: $(tail -1 "$tmp/err"))"
    fi
}
prof_refused "--batch 0" "argument --batch: expected an integer >= 1, found 0" --batch 0
prof_refused "--iterations 0" "argument --iterations: expected an integer >= 1, found 0" --iterations 0
prof_refused "a batch of 1 at 32x32 (BatchNorm of one value)" \
    "--model resnet18 on a batch of 1 x 3 x 32 x 32 .*: the model cannot run it: Expected more than 1 value" \
    --batch 1 --iterations 1
prof_refused "a name that is no model" "--model: expected a torchvision.models name such as resnet18, found \"utils\"" \
    --model utils
for p in optimal prophet p3; do
    "$SLO" comm --model "$tmp/r18.csv" --bandwidth 1Gbit --workers 2 --policy $p --json \
        >"$tmp/plan_$p.json" 2>"$tmp/err" || notok "slo comm --policy $p --json"
done

# --- gradients equal default DDP's, collectives in plan order ------------------
for p in optimal prophet p3; do
    nb=$("$PY" -c 'import sys, slo.plan; print(slo.plan.load_plan(sys.argv[1], sys.argv[2]).n_blocks)' \
        "$tmp/plan_$p.json" $p)
    "$PY" "$check" equal "$tmp/plan_$p.json" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 0 ] && ! grep -q FAIL "$tmp/out" &&
       [ "$(grep -c "^equal [0-2] 62 $nb " "$tmp/out")" = 6 ] &&
       [ "$(grep '^equal 2 ' "$tmp/out" | sort -u | wc -l)" = 1 ]; then
        ok "plan $p ($nb blocks): gradients bit-identical to DDP on 2 ranks x 3 iterations, same sequence"
    else
        notok "plan $p: gradients or collective order (exit $rc)"
    fi
done

# --- refused plans: every rank, one message, no hang ----------------------------
refused() {
    name=$1; pattern=$2; shift 2
    "$PY" "$check" refuse "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 0 ] && [ "$(grep -c '^refused [01]: ' "$tmp/out")" = 2 ] &&
       [ "$(grep -Ec "^refused [01]: (rank 0: )?$pattern" "$tmp/out")" = 2 ]; then
        ok "$name"
    else
        notok "$name (exit $rc)"
    fi
}
refused "rank 1 holds another plan" \
    "plans differ between ranks: rank 0's has [0-9]+ blocks \(checksum [0-9a-f]{16}\), rank 1's has" \
    "$tmp/plan_optimal.json" "$tmp/plan_prophet.json"
"$SLO" comm --model resnet50 --bandwidth 1Gbit --policy optimal --json >"$tmp/r50.json"
refused "a plan for another model (resnet50)" \
    ".*model.layers: expected 52 \(the gradient list of resnet18\), found 176: a plan for another gradient list \(model \"resnet50\"\)" \
    "$tmp/r50.json"
# the optimal plan with its last range 4 bytes longer: a consistent plan for
# 4 bytes more than ResNet-18's gradients
"$PY" - "$tmp/plan_optimal.json" "$tmp/plus4.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["model"]["bytes"] += 4
blk = max(d["policies"][0]["blocks"], key=lambda b: max(r["offset_bytes"] for r in b["ranges"]))
rg = max(blk["ranges"], key=lambda r: r["offset_bytes"])
rg["bytes"] += 4
blk["bytes"] += 4
json.dump(d, open(sys.argv[2], "w"))
PYEOF
refused "a plan whose bytes do not match the gradients" \
    ".*model.bytes: expected 44726568 \(the gradients of resnet18, 52 layers\), found 44726572: the plan's bytes do not match" \
    "$tmp/plus4.json"
echo '{"policy": "optimal"' >"$tmp/broken.json"
refused "a plan that is not JSON" ".*broken.json: not a JSON document" "$tmp/broken.json"

finish
