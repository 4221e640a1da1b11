#!/bin/sh
# cli_comm.sh - `slo comm`: the issue's example on the built-in models (table,
# --json schema, --trace as Chrome trace-event JSON), a per-layer CSV given
# as a file (the hand-worked three-layer model of tests/test_comm.c: FIFO
# 12 ms, PRIO 11 ms, T_LB 10 ms), a gradient staircase file (hand-worked,
# and shared/data's resnet50_v2_mxnet_prophet_gradients.csv when
# SLO_REFERENCE_DATA is set), and bad input: one clear message on stderr,
# exit 2, nothing on stdout. Also: the input limits (sizes that crashed or
# hung), a trace that cannot be written (exit 1, nothing on stdout), options
# given twice, CSV headers (repeats, spaces, BOM), unit spellings and the
# overlap efficiency with no compute.
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"
# every error is exactly one line "slo comm: ..."
MAX_ERR_LINES=1
ERR_PREFIX="slo comm: "


# --- the issue's example ------------------------------------------------------
succeeds "resnet50 table" \
    '^model resnet50: 176 layers, 107 gradients, 102\.2 MB' \
    '^link: ring allreduce, 8 workers, 10 Gbit/s \(1250 MB/s\), alpha 20 us \(280 us per collective\), 1 in flight' \
    'lower bound T_LB 443\.47 ms' \
    '^fifo +443\.[0-9]+ +1\.00' '^prio ' '^p3 ' '^bytescheduler ' '^horovod ' '^ddp ' \
    '^prophet ' '^optimal +443\.[0-9]+ +1\.00' '^plan of optimal: [0-9]+ blocks' \
    -- comm --model resnet50 --bandwidth 10Gbit --latency 20us --workers 8

# 1.25GB/s is 10 Gbit/s: the same numbers
"$SLO" comm --model vgg16 --bandwidth 10Gbit --json >"$tmp/a" 2>/dev/null
"$SLO" comm --model vgg16 --bandwidth 1.25GB/s --json >"$tmp/b" 2>/dev/null
"$SLO" comm --model vgg16 --bandwidth 1250MB/s --json >"$tmp/c" 2>/dev/null
if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && cmp -s "$tmp/a" "$tmp/c"; then
    ok "bandwidth units 10Gbit = 1.25GB/s = 1250MB/s"
else
    : >"$tmp/out"; : >"$tmp/err"; notok "bandwidth units 10Gbit = 1.25GB/s = 1250MB/s"
fi

succeeds "vgg16 --json schema" \
    '"lower_bound_s": 0\.77' '"sequential_s": ' '"compute_s": ' '"communication_s": ' \
    '"policies": \[' '"name": "fifo"' '"name": "optimal"' '"name": "prophet"' \
    '"iteration_s": ' '"rho": ' '"overlap_efficiency": ' '"speedup_vs_fifo": ' \
    '"blocks": \[' '"first_layer": ' '"last_layer": ' '"bytes": ' '"start_s": ' \
    '"end_s": ' '"done_s": ' '"ranges": \[' '"offset_bytes": ' \
    '"bandwidth_bytes_per_s": 1250000000' '"collective": "ring"' '"workers": 8' \
    -- comm --model vgg16 --bandwidth 10Gbit --json

# rho of optimal on VGG-16 at 10 Gbit/s: within 1.03 of the bound
"$SLO" comm --model vgg16 --bandwidth 10Gbit --policy optimal >"$tmp/out" 2>"$tmp/err"
rho=$(awk '$1 == "optimal" { print $3 }' "$tmp/out")
if [ -n "$rho" ] && awk -v r="$rho" 'BEGIN { exit !(r >= 1 && r <= 1.03) }'; then
    ok "optimal within 1.03 of T_LB on vgg16 at 10 Gbit/s ($rho)"
else
    notok "optimal within 1.03 of T_LB on vgg16 at 10 Gbit/s ($rho)"
fi

# --trace: Chrome trace-event JSON, compute and link tracks per policy
if "$SLO" comm --model resnet50 --bandwidth 3Gbit --trace "$tmp/trace.json" \
       >"$tmp/out" 2>"$tmp/err" && [ -s "$tmp/trace.json" ] &&
   grep -q '"traceEvents"' "$tmp/trace.json" && grep -q '"ph":"X"' "$tmp/trace.json" &&
   grep -q '"thread_name"' "$tmp/trace.json" && grep -q '"name":"link"' "$tmp/trace.json" &&
   grep -q '"name":"compute"' "$tmp/trace.json" && grep -q '"cat":"transfer"' "$tmp/trace.json" &&
   grep -q '"cat":"forward"' "$tmp/trace.json" && grep -q '"cat":"backward"' "$tmp/trace.json"; then
    ok "--trace writes a trace-event file"
else
    notok "--trace writes a trace-event file"
fi
if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); ev=d["traceEvents"]; assert len({e["pid"] for e in ev}) == 8; assert all(e["dur"] >= 0 for e in ev if e["ph"] == "X")' "$tmp/trace.json" 2>"$tmp/err"; then
        ok "--trace parses as JSON, 8 processes"
    else
        notok "--trace parses as JSON, 8 processes"
    fi
fi

# --- a per-layer CSV file: the three-layer model of test_comm.c ---------------
# (f, b, bytes) = (1, 2, 2000), (1, 1, 1000), (2, 1, 4000) ms/B; 2 workers ring
# (w = 1), 1 MB/s (1000 B = 1 ms), alpha 0: T_LB 10, FIFO 12, PRIO 11 ms.
cat >"$tmp/three.csv" <<'EOF'
topo_index,layer_type,forward_ms,backward_ms,param_bytes
0,Input,5.0,0.0,0
1,Conv2d,1,2,2000
2,Conv2d,1,1,1000
3,Linear,2,1,4000
EOF
succeeds "CSV model, FIFO and PRIO hand-worked" \
    '^model three\.csv: 3 layers, 3 gradients' 'lower bound T_LB 10\.00 ms' \
    '^fifo +12\.00 +1\.2000' '^prio +11\.00 +1\.1000' '^optimal +10\.00 +1\.0000' \
    -- comm --model "$tmp/three.csv" --bandwidth 1MB/s --latency 0us --workers 2

succeeds "--policy prio shows its plan" '^plan of prio: 3 blocks' '^ +0 +2-2 +1 +0\.004 +1\.000 +5\.000 +5\.000' \
    -- comm --model "$tmp/three.csv" --bandwidth 8Mbit --latency 0s --workers 2 --policy prio

# --- a gradient ready-time file: the staircase of test_comm.c ----------------
# (format of shared/data/prophet/resnet50_v2_mxnet_prophet_gradients.csv)
# steps {4,5} at 0, {2,3} at 4 ms, {0,1} at 8 ms; bytes 1000, 1000, 2000,
# 2000, 3000, 3000; --forward-ms 16 gives f = (4, 4, 4, 4, 0, 0) ms. Same link
# as above: T_LB 25, Prophet 25 (it reaches the bound), FIFO 28 ms.
cat >"$tmp/stairs.csv" <<'EOF'
grad_index,byteps_priority,mxnet_arg_name,bytes_fp32,prophet_step,step_interval_ms_bs64
0,0,g0,1000,2,9
1,-1,g1,1000,2,9
2,-2,g2,2000,1,4
3,-3,g3,2000,1,4
4,-4,g4,3000,0,4
5,-5,g5,3000,0,4
EOF
succeeds "gradient staircase file, Prophet and FIFO hand-worked" \
    '^model stairs\.csv: 6 layers, 6 gradients' 'compute F\+Bw 24\.00 ms' \
    'lower bound T_LB 25\.00 ms' '^fifo +28\.00 +1\.1200' '^prophet +25\.00 +1\.0000' \
    -- comm --model "$tmp/stairs.csv" --bandwidth 1MB/s --latency 0us --workers 2 --forward-ms 16
# default forward: 182.5 / 260.9 x Bw (8 ms) = 5.60 ms
succeeds "gradient staircase file, default forward time" 'compute F\+Bw 13\.60 ms' \
    -- comm --model "$tmp/stairs.csv" --bandwidth 1MB/s --latency 0us --workers 2

if [ -n "${SLO_REFERENCE_DATA:-}" ] && [ "$SLO_REFERENCE_DATA" != no ]; then
    # the authors' staircase at the paper's 3 Gbit/s: Prophet beats FIFO
    # (column "vs fifo" above 1.1)
    succeeds "resnet50_v2_mxnet_prophet_gradients.csv" \
        '^model resnet50_v2_mxnet_prophet_gradients\.csv: 157 layers, 157 gradients, 102\.2 MB' \
        'compute F\+Bw 324\.60 ms' '^prophet +[0-9.]+ +1\.[0-9]+ +[0-9.]+ +1\.[1-9]' \
        -- comm --model "$SLO_REFERENCE_DATA/prophet/resnet50_v2_mxnet_prophet_gradients.csv" \
        --bandwidth 3Gbit
else
    echo "# skipped the staircase-file check: SLO_REFERENCE_DATA is unset or empty"
fi

succeeds "--help" '^usage: slo comm' -- comm --help
succeeds "slo --help lists comm" '^  comm +compare gradient communication schedulers' -- --help

# PS with push and pull pipelined: T_LB uses w = 1 (one direction), and the
# PS latency per collective is 2 alpha
succeeds "ps, unlimited in flight" \
    '^link: parameter server, 8 workers, 3 Gbit/s \(375 MB/s\), alpha 20 us \(40 us per collective\), 0 in flight \(unlimited\)' \
    'lower bound T_LB 443\.[0-9]+ ms' '^optimal +44[0-9]\.[0-9]+ +1\.00' \
    -- comm --model resnet50 --bandwidth 3Gbit --collective ps --in-flight 0

# --- bad input ----------------------------------------------------------------
expect "unknown model" '--model: expected a built-in model \(resnet50, vgg16\) or a per-layer CSV file, found "alexnet"' \
    comm --model alexnet --bandwidth 10Gbit
expect "missing model" '--model: expected resnet50, vgg16 or a per-layer CSV file, found it missing' \
    comm --bandwidth 10Gbit
# trial finding: "--model --json" made "--json" the model name
expect "an option as a value" '--model: expected a value, found the option "--json"' \
    comm --model --json --bandwidth 3Gbit
expect "missing bandwidth" '--bandwidth: expected a bandwidth such as 10Gbit' \
    comm --model resnet50
expect "zero bandwidth" '--bandwidth: expected a bandwidth > 0, found "0Gbit"' \
    comm --model resnet50 --bandwidth 0Gbit
expect "bandwidth without unit" '--bandwidth: expected a number with a unit.*found "10" \(no unit\)' \
    comm --model resnet50 --bandwidth 10
expect "bandwidth unknown unit" '--bandwidth: .*found "10GHz" \(unknown unit\)' \
    comm --model resnet50 --bandwidth 10GHz
expect "latency without unit" '--latency: expected a number with a unit s, ms, us or ns.*found "20"' \
    comm --model resnet50 --bandwidth 10Gbit --latency 20
expect "one worker" '--workers: expected an integer >= 2, found "1"' \
    comm --model resnet50 --bandwidth 10Gbit --workers 1
expect "bad collective" '--collective: expected ring or ps, found "tree"' \
    comm --model resnet50 --bandwidth 10Gbit --collective tree
expect "bad policy" '--policy: expected one of all, fifo, prio, p3, bytescheduler, horovod, ddp, prophet, optimal, found "wfbp"' \
    comm --model resnet50 --bandwidth 10Gbit --policy wfbp
expect "unknown option" 'unknown option "--fast"' comm --model resnet50 --bandwidth 10Gbit --fast
expect "missing file" "$tmp/none.csv: cannot open" comm --model "$tmp/none.csv" --bandwidth 10Gbit

: >"$tmp/empty.csv"
expect "empty CSV" 'empty\.csv: expected a header line with columns forward_ms, backward_ms, param_bytes, found an empty file' \
    comm --model "$tmp/empty.csv" --bandwidth 10Gbit
printf 'forward_ms,backward_ms,param_bytes\n1.0,2.0,-4096\n' >"$tmp/neg.csv"
expect "negative size" 'neg\.csv:2: column param_bytes: expected a number >= 0, found "-4096"' \
    comm --model "$tmp/neg.csv" --bandwidth 10Gbit
printf 'forward_ms,backward_ms,param_bytes\n1.0,2.0\n' >"$tmp/short.csv"
expect "malformed row" 'short\.csv:2: expected 3 fields as in the header, found 2' \
    comm --model "$tmp/short.csv" --bandwidth 10Gbit
printf 'fwd,bwd,bytes\n1,2,3\n' >"$tmp/cols.csv"
expect "wrong columns" 'cols\.csv:1: header: expected a column forward_ms' \
    comm --model "$tmp/cols.csv" --bandwidth 10Gbit
printf 'forward_ms,backward_ms,param_bytes\n1,2,x7\n' >"$tmp/nan.csv"
expect "not a number" 'nan\.csv:2: column param_bytes: expected a number >= 0, found "x7"' \
    comm --model "$tmp/nan.csv" --bandwidth 10Gbit
expect "--forward-ms with a built-in model" '--forward-ms: expected a gradient ready-time file as --model, found the built-in model "vgg16"' \
    comm --model vgg16 --bandwidth 10Gbit --forward-ms 100
expect "--forward-ms with a per-layer CSV" 'three\.csv:1: --forward-ms: expected a gradient ready-time file \(column grad_index\), found a per-layer CSV' \
    comm --model "$tmp/three.csv" --bandwidth 10Gbit --forward-ms 100
expect "negative --forward-ms" '--forward-ms: expected a number of milliseconds >= 0, found "-1"' \
    comm --model "$tmp/stairs.csv" --bandwidth 10Gbit --forward-ms -1
printf 'grad_index,bytes_fp32,prophet_step\n0,5,0\n' >"$tmp/nogap.csv"
expect "staircase without intervals" 'nogap\.csv:1: header: expected a column step_interval_ms_bs64 \(with prophet_step\)' \
    comm --model "$tmp/nogap.csv" --bandwidth 10Gbit
printf 'grad_index,bytes_fp32,prophet_step,step_interval_ms_bs64\n0,5,2,1\n1,5,0,1\n' >"$tmp/skip.csv"
expect "staircase skipping a step" 'skip\.csv:3: column prophet_step: expected 2 or 1' \
    comm --model "$tmp/skip.csv" --bandwidth 10Gbit
expect "unwritable trace" '--trace: cannot write' \
    comm --model "$tmp/three.csv" --bandwidth 1MB/s --workers 2 --trace "$tmp/no/such/dir/t.json"

# --- limits: huge sizes are input errors, not crashes or hangs ---------------
# (1e300 bytes: Prophet overflowed its partition count and wrote past a heap
# buffer; P3 and ByteScheduler hung from 1e13; 1e17-1e25: "out of memory",
# "p3: internal: policy stalled")
for b in 1e300 1e50 1e25 1e17 1e13 100000000001; do
    printf 'forward_ms,backward_ms,param_bytes\n1,2,%s\n' "$b" >"$tmp/m_b.csv"
    for p in prophet p3 bytescheduler all; do
        expect "param_bytes $b, --policy $p" "m_b\.csv:2: column param_bytes: expected at most 1e\+11 bytes per layer, found \"$b\"" \
            comm --model "$tmp/m_b.csv" --bandwidth 10Gbit --policy "$p"
    done
done
printf 'forward_ms,backward_ms,param_bytes\n1,2,1e11\n' >"$tmp/max.csv"
succeeds "1e11 bytes (the limit): every policy runs" '^fifo ' '^p3 ' '^bytescheduler ' '^prophet ' '^optimal ' \
    -- comm --model "$tmp/max.csv" --bandwidth 10Gbit
printf 'forward_ms,backward_ms,param_bytes\n1,2,6e10\n1,2,6e10\n' >"$tmp/total.csv"
expect "total bytes" 'total\.csv:3: column param_bytes: expected a total of at most 1e\+11 bytes over the rows' \
    comm --model "$tmp/total.csv" --bandwidth 10Gbit
printf 'forward_ms,backward_ms,param_bytes\n1e300,2,5\n' >"$tmp/time.csv"
expect "huge time" 'time\.csv:2: column forward_ms: expected at most 1e\+08 ms, found "1e300"' \
    comm --model "$tmp/time.csv" --bandwidth 10Gbit
expect "tiny bandwidth" '--bandwidth: expected a bandwidth in 8bit/s\.\.800Tbit/s \(1B/s\.\.100TB/s\), found "1e-300Gbit"' \
    comm --model resnet50 --bandwidth 1e-300Gbit
expect "huge bandwidth" '--bandwidth: expected a bandwidth in 8bit/s\.\.800Tbit/s.*found "1e300Gbit"' \
    comm --model resnet50 --bandwidth 1e300Gbit
expect "huge latency" '--latency: expected a latency in 0s\.\.1s \(0\.\.1000ms\), found "1e300s"' \
    comm --model resnet50 --bandwidth 10Gbit --latency 1e300s
expect "huge --forward-ms" '--forward-ms: expected at most 1e\+08 ms, found "1e300"' \
    comm --model "$tmp/stairs.csv" --bandwidth 10Gbit --forward-ms 1e300
expect "too many workers" '--workers: expected an integer >= 2, found "2000000" \(the range is 2\.\.1000000\)' \
    comm --model resnet50 --bandwidth 10Gbit --workers 2000000

# --- a trace that cannot be written: exit 1, nothing on stdout ----------------
if [ -w /dev/full ]; then
    "$SLO" comm --model "$tmp/three.csv" --bandwidth 1MB/s --workers 2 --trace /dev/full \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
       grep -q '^slo comm: --trace: cannot write "/dev/full": ' "$tmp/err"; then
        ok "--trace /dev/full: exit 1, nothing on stdout"
    else
        notok "--trace /dev/full: exit 1, nothing on stdout (exit $rc)"
    fi
    # the output itself: exit 1 (doc/cli.md)
    "$SLO" comm --model "$tmp/three.csv" --bandwidth 1MB/s --workers 2 >/dev/full 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 1 ] && grep -q 'cannot write the output' "$tmp/err"; then
        ok "stdout on /dev/full: exit 1"
    else
        : >"$tmp/out"; notok "stdout on /dev/full: exit 1 (exit $rc)"
    fi
else
    echo "# skipped the /dev/full checks: /dev/full is not writable"
fi

# --- an option given twice must agree (doc/cli.md), --policy too --------------
expect "--workers twice" '--workers: given twice with different values \("8", "4"\)' \
    comm --model resnet50 --bandwidth 10Gbit --workers 8 --workers 4
expect "--collective twice" '--collective: given twice with different values' \
    comm --model resnet50 --bandwidth 10Gbit --collective ps --collective ring
expect "--model twice" '--model: given twice with different values \("resnet50", "vgg16"\)' \
    comm --model resnet50 --model vgg16 --bandwidth 10Gbit
expect "--policy twice" '--policy: given twice with different values \("fifo", "p3"\)' \
    comm --model resnet50 --bandwidth 10Gbit --policy fifo --policy p3
expect "--bandwidth twice" '--bandwidth: given twice with different values' \
    comm --model resnet50 --bandwidth 10Gbit --bandwidth 1Gbit
succeeds "the same value twice is fine" '^plan of prio' \
    -- comm --model resnet50 --bandwidth 10Gbit --workers 8 --workers 8 --policy prio --policy prio

# --- CSV headers and bytes -----------------------------------------------------
printf 'forward_ms,backward_ms,forward_ms,param_bytes\n1,2,3,4\n' >"$tmp/dup.csv"
expect "duplicated column" 'dup\.csv:1: header: expected each column once, found forward_ms twice \(columns 1 and 3\)' \
    comm --model "$tmp/dup.csv" --bandwidth 10Gbit
printf 'forward_ms,backward_ms,grad_bytes,param_bytes\n1,2,3,4\n' >"$tmp/both.csv"
expect "grad_bytes and param_bytes" 'both\.csv:1: header: expected one of param_bytes or grad_bytes, found both' \
    comm --model "$tmp/both.csv" --bandwidth 10Gbit
printf 'forward_ms,backward_ms,param_bytes\n1,2,4096.5\n' >"$tmp/frac.csv"
expect "fractional bytes" 'frac\.csv:2: column param_bytes: expected a whole number of bytes, found "4096\.5"' \
    comm --model "$tmp/frac.csv" --bandwidth 10Gbit
printf 'forward_ms, bwd_ms, param_bytes\n1,2,3\n' >"$tmp/sp.csv"
expect "header with spaces names the bad column" 'sp\.csv:1: header: expected a column backward_ms \(or ready_ms\), found columns "forward_ms, bwd_ms, param_bytes"' \
    comm --model "$tmp/sp.csv" --bandwidth 10Gbit
printf 'forward_ms, backward_ms, param_bytes\n1, 2, 4096\n' >"$tmp/sp2.csv"
succeeds "header with spaces is read" '^model sp2\.csv: 1 layers, 1 gradients' \
    -- comm --model "$tmp/sp2.csv" --bandwidth 10Gbit
printf '\357\273\277forward_ms,backward_ms,param_bytes\n1,2,4096\n' >"$tmp/bom.csv"
succeeds "UTF-8 BOM skipped" '^model bom\.csv: 1 layers, 1 gradients' \
    -- comm --model "$tmp/bom.csv" --bandwidth 10Gbit

# --- units: the listed spellings, no spaces -------------------------------------
expect "10GB (no /s)" '--bandwidth: .*found "10GB" \(bytes per second are written B/s' \
    comm --model resnet50 --bandwidth 10GB
expect "bandwidth with a space" '--bandwidth: expected a number with a unit, no spaces.*found "10 Gbit" \(a space\)' \
    comm --model resnet50 --bandwidth "10 Gbit"
expect "latency with a space" '--latency: .*found "20 us" \(a space\)' \
    comm --model resnet50 --bandwidth 10Gbit --latency "20 us"
expect "--workers with a space" '--workers: expected an integer >= 2, found " 8"' \
    comm --model resnet50 --bandwidth 10Gbit --workers " 8"
expect "--forward-ms with a space" '--forward-ms: expected a number of milliseconds >= 0, found " 5"' \
    comm --model "$tmp/stairs.csv" --bandwidth 10Gbit --forward-ms " 5"

# --- overlap efficiency with no compute: T_seq = T_LB, FIFO's latency makes it
# worse than no overlap, so its efficiency is negative (it printed 1.000)
printf 'forward_ms,backward_ms,param_bytes\n0,0,4096\n0,0,4096\n' >"$tmp/z.csv"
succeeds "zero compute: negative overlap for fifo" 'no overlap 0\.01 ms, lower bound T_LB 0\.01 ms' \
    '^fifo +0\.57 +[0-9.]+ +-[0-9.]+ ' -- comm --model "$tmp/z.csv" --bandwidth 10Gbit

# Numbers are decimal: strtod's hexadecimal forms are not taken (a new user
# found "--bandwidth 0x10Gbit" read as 16 Gbit/s).
expect "hex bandwidth" '--bandwidth: expected a number with a unit.*found "0x10Gbit"' \
    comm --model resnet50 --bandwidth 0x10Gbit
expect "hex latency" '--latency: expected a number with a unit.*found "0x14us"' \
    comm --model resnet50 --bandwidth 10Gbit --latency 0x14us
expect "hex forward time" '--forward-ms: expected a number of milliseconds >= 0, found "0x10"' \
    comm --model "$SLO_REFERENCE_DATA/prophet/resnet50_v2_mxnet_prophet_gradients.csv" \
    --bandwidth 10Gbit --forward-ms 0x10
# --trace never overwrites an input (it used to empty the --model or
# --profile file it was given).
cp "$SLO_SRCDIR/etc/slo/models/resnet50_layers.csv" "$tmp/m.csv"
before=$(cksum <"$tmp/m.csv")
expect "trace over the model" '--trace: expected a file other than the inputs, found ".*m.csv", which is the --model file' \
    comm --model "$tmp/m.csv" --bandwidth 10Gbit --trace "$tmp/m.csv"
if [ "$(cksum <"$tmp/m.csv")" = "$before" ]; then ok "the model file is intact"; else notok "the model file was changed"; fi
# A header alone, with no newline, is on line 1 (was reported as line 0).
printf 'a,b' >"$tmp/h1.csv"
expect "header without newline" 'h1.csv:1: header: expected a column forward_ms' \
    comm --model "$tmp/h1.csv" --bandwidth 10Gbit
# The documented limit itself is accepted: 1e8 ms of forward time split over
# the staircase's gradients sums a few ulps above 1e5 s.
if [ -n "${SLO_REFERENCE_DATA:-}" ] && [ "$SLO_REFERENCE_DATA" != no ]; then
    succeeds "forward time at the limit" 'compute F\+Bw 100000' -- comm \
        --model "$SLO_REFERENCE_DATA/prophet/resnet50_v2_mxnet_prophet_gradients.csv" \
        --bandwidth 10Gbit --forward-ms 1e8 --policy fifo
fi
# The plan part of --json is the kernel's plan (slo_comm_plan_to_json):
# integer byte counts in whole fp32 elements, ranges that tile the buffer
# exactly (the simulator cuts Prophet's and ByteScheduler's partitions of
# ResNet-50 into fractional bytes; the plan rounds them to elements).
if command -v jq >/dev/null 2>&1; then
    "$SLO" comm --model resnet50 --bandwidth 3Gbit --json >"$tmp/plan.json" 2>"$tmp/err"
    if jq -e '(4 * ((.model.bytes / 4) | round)) as $t | all(.policies[];
            ([.blocks[].ranges[]] | sort_by(.offset_bytes)) as $r
            | all($r[]; (.bytes | floor) == .bytes and (.offset_bytes | floor) == .offset_bytes
                        and .bytes % 4 == 0 and .offset_bytes % 4 == 0 and .bytes > 0)
              and $r[0].offset_bytes == 0 and ($r | map(.bytes) | add) == $t
              and all(range(1; $r | length); $r[.].offset_bytes == $r[. - 1].offset_bytes + $r[. - 1].bytes))' \
           "$tmp/plan.json" >/dev/null; then
        ok "--json plans: integer whole-element ranges tiling the buffer, every policy"
    else
        : >"$tmp/out"; notok "--json plans: integer whole-element ranges tiling the buffer, every policy"
    fi
else
    echo "# skip: --json plan check (no jq)"
fi
# --- --profile: nccl-tests all_reduce_perf output (comm_nccl.c) ------------------
# tests/nccl/all_reduce_perf_8gpu.txt is NOT a measurement: the print format
# of nccl-tests 2.19.6 with times made by tests/nccl/make_fixture.py from
# t = 30 us + bytes / 20 GB/s on 8 ranks, so the ring reading must give
# alpha_step = 30 / (2 x 7) = 2.143 us and B = 2 x 7 / 8 x 20 GB/s = 35 GB/s
# (280 Gbit/s), 8 workers.
nccl=$SLO_SRCDIR/tests/nccl/all_reduce_perf_8gpu.txt
succeeds "nccl-tests all_reduce_perf profile: the generating alpha-beta back" \
    '^link: ring allreduce, 8 workers, 280 Gbit/s .*alpha 2\.143 us \(30 us per collective\)' \
    -- comm --model resnet50 --profile "$nccl" --policy optimal
# NCCL_DEBUG=INFO lines among the rows ("host:pid:tid [dev] NCCL INFO ..."),
# one from a host named by its address (10-0-3-7: begins with a digit, as a
# row does): logs, not rows; the same link back (it was refused as a row
# before the header)
awk 'NR == 5 { print "10-0-3-7:41230:41230 [0] NCCL INFO Bootstrap : Using eth0:10.0.3.7<0>" }
     /^ *1024 / { print "10-0-3-7:41230:41237 [3] NCCL INFO comm 0x55 rank 3 nranks 8 - Init COMPLETE" }
     { print }' "$nccl" >"$tmp/nccl_info.txt"
succeeds "nccl-tests output with NCCL_DEBUG=INFO lines of a host named 10-0-3-7" \
    '^link: ring allreduce, 8 workers, 280 Gbit/s .*alpha 2\.143 us \(30 us per collective\)' \
    -- comm --model resnet50 --profile "$tmp/nccl_info.txt" --policy optimal
sed 's/busbw/bw/g' "$nccl" >"$tmp/nccl_nobusbw.txt"
expect "nccl-tests: a missing column" \
    'nccl_nobusbw\.txt:[0-9]+: column busbw: expected the all_reduce_perf header .*found it missing' \
    comm --model resnet50 --profile "$tmp/nccl_nobusbw.txt"
awk '!/^#/ && $1 == 1024 { $9 = 3 } { print }' "$nccl" >"$tmp/nccl_wrong.txt"
expect "nccl-tests: corrupted data (#wrong > 0)" \
    'nccl_wrong\.txt:[0-9]+: column #wrong: expected 0 wrong elements, found "3"' \
    comm --model resnet50 --profile "$tmp/nccl_wrong.txt"
# the in-place run's #wrong (the row's last field) counts too: before, only
# the out-of-place one was checked and a corrupted in-place run was read
awk '!/^#/ && $1 == 1024 { $13 = 3 } { print }' "$nccl" >"$tmp/nccl_wrong_ip.txt"
expect "nccl-tests: corrupted in-place data (#wrong > 0)" \
    'nccl_wrong_ip\.txt:[0-9]+: column #wrong \(in-place\): expected 0 wrong elements, found "3"' \
    comm --model resnet50 --profile "$tmp/nccl_wrong_ip.txt"
grep -v 'Rank  [4-7]' "$nccl" >"$tmp/nccl_4ranks.txt"
expect "nccl-tests: busbw of another rank count" \
    'column busbw: expected algbw x 2\(p-1\)/p = .* for the 4 ranks listed' \
    comm --model resnet50 --profile "$tmp/nccl_4ranks.txt"
sed 's/all_reduce_perf/all_gather_perf/' "$nccl" >"$tmp/nccl_ag.txt"
expect "nccl-tests: another collective" \
    "expected the output of all_reduce_perf, found all_gather_perf's" \
    comm --model resnet50 --profile "$tmp/nccl_ag.txt"
sed '/^#.*size/s/ time / cputime /g' "$nccl" >"$tmp/nccl_cpu.txt"
expect "nccl-tests: cputime (-C 1)" 'column time: expected the GPU time in us, found cputime' \
    comm --model resnet50 --profile "$tmp/nccl_cpu.txt"
awk '!/^#/ && $1 == 4096 { NF = 5 } { print }' "$nccl" >"$tmp/nccl_short.txt"
expect "nccl-tests: a short row" 'nccl_short\.txt:[0-9]+: expected at least [0-9]+ fields as the header names, found 5' \
    comm --model resnet50 --profile "$tmp/nccl_short.txt"
# --- --recommend: framework knobs (comm_recommend.c) ----------------------------
# Hand-worked: layers (forward order) of 10, 10 and 2 MiB, 10 ms backward
# each, no forward, ring of 2 (w = 1), alpha 0, B = 1000 MiB/s (10 MiB in
# 10 ms). Backward readies layer 2 at 10 ms, 1 at 20, 0 at 30.
# T_LB = max over k: layer 0's 30 ms + its 10 ms transfer = 40 ms.
# DDP default (first bucket 1 MiB, then 25 MiB): {2} at 10 ms (done 12),
# {1, 0} = 20 MiB at 30 ms, done 50: T = 50 ms. Any bucket_cap_mb <= 10 with
# a first bucket <= 2 MiB sends one layer per bucket: done 12, 30, 40:
# T = 40 ms = T_LB. Horovod's default (1 ms cycles, 128 MiB) already sends
# each layer at its ready time: 40 ms. DeepSpeed's default 5e8 elements is
# one 22 MiB bucket at 30 ms: 52 ms; per-layer buckets: 40 ms.
printf 'forward_ms,backward_ms,param_bytes\n0,10,10485760\n0,10,10485760\n0,10,2097152\n' >"$tmp/three.csv"
rec() { "$SLO" comm --model "$tmp/three.csv" --bandwidth 1000MiB/s --latency 0s --workers 2 \
        --recommend "$1" --json; }
if rec ddp >"$tmp/out" 2>"$tmp/err" &&
   jq -e '.recommend | .default_iteration_s == 0.05 and (.iteration_s - 0.04 | fabs) < 1e-12
          and .status == "optimal" and .knobs.bucket_cap_mb <= 10 and .knobs.first_bucket_mb <= 2
          and .defaults.bucket_cap_mb == 25 and .defaults.first_bucket_bytes == 1048576' \
          "$tmp/out" >/dev/null; then
    ok "--recommend ddp: hand-worked 50 ms default -> 40 ms = T_LB (bucket <= 10 MiB, first <= 2 MiB)"
else
    notok "--recommend ddp: hand-worked"
fi
if rec horovod >"$tmp/out" 2>"$tmp/err" &&
   jq -e '.recommend | (.default_iteration_s - 0.04 | fabs) < 1e-12 and .knobs == .defaults' \
       "$tmp/out" >/dev/null; then
    ok "--recommend horovod: hand-worked default already 40 ms = T_LB, kept"
else
    notok "--recommend horovod: hand-worked"
fi
if rec deepspeed >"$tmp/out" 2>"$tmp/err" &&
   jq -e '.recommend | (.default_iteration_s - 0.052 | fabs) < 1e-12
          and (.iteration_s - 0.04 | fabs) < 1e-12
          and .knobs.reduce_bucket_size * 4 <= 2097152' "$tmp/out" >/dev/null; then
    ok "--recommend deepspeed: hand-worked 52 ms default -> 40 ms (buckets <= 2 MiB)"
else
    notok "--recommend deepspeed: hand-worked"
fi
expect "--recommend under a parameter server" \
    'recommend horovod: expected --collective ring \(horovod reduces gradients by allreduce\), found --collective ps' \
    comm --model resnet50 --bandwidth 10Gbit --collective ps --recommend horovod
# resnet50: the default knobs' T is the ddp / horovod policy's T of the policy
# table (one simulator), the optimal plan's is the optimal row's, and the
# recommendation lies between the lower bound and the default
"$SLO" comm --model resnet50 --bandwidth 3Gbit --json >"$tmp/pol.json" 2>/dev/null
for fw in ddp horovod; do
    "$SLO" comm --model resnet50 --bandwidth 3Gbit --recommend $fw --json >"$tmp/out" 2>"$tmp/err"
    if jq -e --slurpfile p "$tmp/pol.json" --arg fw $fw '
           ($p[0].policies[] | select(.name == $fw) | .iteration_s) as $d
           | ($p[0].policies[] | select(.name == "optimal") | .iteration_s) as $o
           | .recommend | (.default_iteration_s - $d | fabs) <= 1e-9 * $d
             and (.optimal_iteration_s - $o | fabs) <= 1e-9 * $o
             and .iteration_s <= .default_iteration_s and .iteration_s >= .lower_bound_s' \
           "$tmp/out" >/dev/null; then
        ok "--recommend $fw on resnet50: default = the $fw policy's T, T_LB <= knobs <= default"
    else
        notok "--recommend $fw on resnet50"
    fi
done
expect "--recommend: an unknown framework" '^slo comm: --recommend: expected ddp, horovod or deepspeed, found "mxnet"' \
    comm --model resnet50 --bandwidth 10Gbit --recommend mxnet
expect "--recommend with --policy" '^slo comm: --recommend: expected no --policy with it' \
    comm --model resnet50 --bandwidth 10Gbit --recommend ddp --policy fifo
finish
