#!/bin/sh
# cli_infer_deploy.sh - `slo infer --emit triton|slurm --output-dir DIR`
# (issue 19, item 2):
#  - every Triton fragment parses as protobuf text format against Triton's
#    own ModelConfig message: tests/infer/model_config.proto (copied from
#    triton-inference-server/common, provenance in its header) compiled with
#    protoc and read with /usr/bin/python3's google.protobuf.text_format, as
#    Triton parses config.pbtxt; its fields are those of the plan's --json
#    (name = directory, max_batch_size = the largest planned batch, preferred
#    batches, KIND_GPU) and the queue delay is SLO/2 (SLO 60 ms -> 30000 us,
#    worked by hand);
#  - every Slurm script passes bash -n, asks --gres=mps:SUM for its tenants'
#    counts (at most 100), runs each tenant with --gres=mps:N and
#    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=N equal to the plan's --json (run here
#    with a stand-in srun on PATH that records what each tenant gets), and
#    the rounded shares, re-predicted by `slo infer --predict` (an independent
#    path through the model), meet every SLO/2 and rate;
#  - bad input: one message, exit 2, nothing written.
# Skipped (77) without protoc or /usr/bin/python3 with google.protobuf
# (quickstart.sh installs protobuf-compiler and python3-protobuf).
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"

PY=/usr/bin/python3
command -v protoc >/dev/null 2>&1 || { echo "SKIP: protoc not found"; exit 77; }
"$PY" -c 'import google.protobuf' 2>/dev/null || { echo "SKIP: $PY lacks google.protobuf"; exit 77; }
mkdir -p "$tmp/pb"
protoc -I"$SLO_SRCDIR/tests/infer" --python_out="$tmp/pb" "$SLO_SRCDIR/tests/infer/model_config.proto" ||
    { echo "protoc failed"; exit 1; }

# Mixed plan: two vgg19 workloads (directories vgg19_w1, vgg19_w4), one ssd
# split over dedicated GPUs (rate 600 > one GPU), alexnet, resnet50.
W="--workload vgg19:rate=200:slo=60 --workload alexnet:rate=500:slo=20 --workload ssd:rate=600:slo=25
   --workload vgg19:rate=50:slo=80 --workload resnet50:rate=300:slo=40"
# shellcheck disable=SC2086
if "$SLO" infer $W --json --emit triton --output-dir "$tmp/triton" >"$tmp/plan.json" 2>"$tmp/err" &&
   PYTHONPATH="$tmp/pb" "$PY" - "$tmp/plan.json" "$tmp/triton" >"$tmp/out" 2>>"$tmp/err" <<'EOF'
import json, os, sys
from google.protobuf import text_format
import model_config_pb2 as mc
plan = json.load(open(sys.argv[1])); root = sys.argv[2]
wl = {}
for g in plan["gpus"]:
    for t in g["workloads"]:
        wl.setdefault(t["workload"], []).append(t)
models = [wl[k][0]["model"] for k in sorted(wl)]
assert sorted(os.listdir(root)) == sorted(
    m if models.count(m) == 1 else "%s_w%d" % (m, k) for k, m in zip(sorted(wl), models)), os.listdir(root)
for k in sorted(wl):
    m = wl[k][0]["model"]
    d = m if models.count(m) == 1 else "%s_w%d" % (m, k)
    c = text_format.Parse(open(os.path.join(root, d, "config.pbtxt")).read(), mc.ModelConfig())
    batches = sorted({t["batch"] for t in wl[k]})
    assert c.name == d, (c.name, d)
    assert c.max_batch_size == max(batches), (d, c.max_batch_size, batches)
    assert c.WhichOneof("scheduling_choice") == "dynamic_batching"
    assert list(c.dynamic_batching.preferred_batch_size) == batches
    assert c.dynamic_batching.max_queue_delay_microseconds == int(wl[k][0]["slo_ms"] * 500)
    assert len(c.instance_group) == 1 and c.instance_group[0].kind == mc.ModelInstanceGroup.KIND_GPU
    assert c.instance_group[0].count == 1
    print("%s max_batch %d preferred %s delay %d us" % (d, c.max_batch_size, batches,
          c.dynamic_batching.max_queue_delay_microseconds))
print("split workloads:", [k for k in wl if len(wl[k]) > 1])
EOF
then
    cat "$tmp/out"
    grep -q "^vgg19_w1 .* delay 30000 us" "$tmp/out" && grep -q "^split workloads: \[3\]" "$tmp/out" &&
        ok "Triton fragments parse against model_config.proto and match the plan" ||
        notok "Triton fragments: SLO 60 ms -> 30000 us, ssd split"
else
    notok "Triton fragments parse against model_config.proto and match the plan"
fi

# Slurm: scripts, then run each with a stand-in srun recording each tenant.
# shellcheck disable=SC2086
"$SLO" infer $W --json --emit slurm --output-dir "$tmp/slurm" >"$tmp/plan2.json" 2>"$tmp/err" ||
    notok "--emit slurm (exit $?)"
cmp -s "$tmp/plan.json" "$tmp/plan2.json" && ok "--emit does not change the plan" ||
    notok "--emit does not change the plan"
mkdir -p "$tmp/bin"
cat >"$tmp/bin/srun" <<'EOF'
#!/bin/sh
# stand-in srun: record this tenant's gres and MPS environment
g=; for a in "$@"; do case $a in --gres=*) g=${a#--gres=};; esac; done
echo "$SLO_WORKLOAD $g $CUDA_MPS_ACTIVE_THREAD_PERCENTAGE" >>"$SLO_RECORD"
EOF
chmod +x "$tmp/bin/srun"
good=yes
for f in "$tmp"/slurm/slo-serve-gpu*.sbatch; do
    bash -n "$f" || good=no
    : >"$tmp/rec"
    SLO_RECORD="$tmp/rec" PATH="$tmp/bin:$PATH" bash "$f" >/dev/null 2>&1 || good=no
    j=${f##*gpu}; j=${j%.sbatch}
    # the plan's GPU j: per tenant "workload gres pct", and the job's gres
    "$PY" - "$tmp/plan2.json" "$j" "$f" "$tmp/rec" >"$tmp/check" 2>&1 <<'EOF' || good=no
import json, re, sys
plan = json.load(open(sys.argv[1])); g = plan["gpus"][int(sys.argv[2]) - 1]
script = open(sys.argv[3]).read()
want = sorted("%d %s %d" % (t["workload"], t["slurm"]["gres"], t["slurm"]["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"])
              for t in g["workloads"])
got = sorted(open(sys.argv[4]).read().split("\n")[:-1])
assert want == got, (want, got)
counts = [int(t["slurm"]["gres"].split(":")[1]) for t in g["workloads"]]
assert all(c == t["slurm"]["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"] for c, t in zip(counts, g["workloads"]))
assert sum(counts) <= 100 and all(abs(c - t["share_pct"]) < 1 for c, t in zip(counts, g["workloads"]))
assert "#SBATCH --gres=mps:%d\n" % sum(counts) in script
assert "#SBATCH --ntasks=%d\n" % len(counts) in script
# the --predict arguments at the rounded shares, for the re-check
print(" ".join("--workload %s:share=%d:batch=%d:rate=%.17g:slo=%.17g" %
               (t["model"], c, t["batch"], t["rate_rps"], t["slo_ms"]) for c, t in zip(counts, g["workloads"])))
EOF
    [ "$good" = yes ] || { cat "$tmp/check"; break; }
    # shellcheck disable=SC2046
    "$SLO" infer --predict $(cat "$tmp/check") >"$tmp/pred" 2>&1 || good=no
    grep -q MISSES "$tmp/pred" && { cat "$tmp/pred"; good=no; }
    [ "$(grep -c meets "$tmp/pred")" = "$(wc -w <"$tmp/check" | awk '{print $1 / 2}')" ] || good=no
done
n=$(ls "$tmp"/slurm/slo-serve-gpu*.sbatch | wc -l)
[ "$n" = "$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["n_gpus"])' "$tmp/plan2.json")" ] ||
    good=no
[ "$good" = yes ] && ok "Slurm scripts: one per GPU ($n), each tenant's gres = its MPS percentage, rounded shares meet SLO/2 (--predict)" ||
    notok "Slurm scripts"

# Bad input: one message, exit 2, nothing on stdout, nothing written.
expect "--emit unknown" '^slo infer: --emit: expected triton or slurm, found "yaml"$' \
    infer --workload vgg19:rate=200:slo=60 --emit yaml --output-dir "$tmp/x"
expect "--emit without --output-dir" '^slo infer: --emit: expected together with --output-dir DIR' \
    infer --workload vgg19:rate=200:slo=60 --emit slurm
expect "--output-dir without --emit" '^slo infer: --output-dir: expected together with --emit' \
    infer --workload vgg19:rate=200:slo=60 --output-dir "$tmp/x"
expect "--emit with --predict" '^slo infer: --emit: only for planning, not with --predict' \
    infer --predict --workload vgg19:share=20:batch=3 --emit slurm --output-dir "$tmp/x"
expect "unwritable --output-dir" '^slo infer: --output-dir: expected a directory to write into, cannot create ".*/no/such": ' \
    infer --workload vgg19:rate=200:slo=60 --emit triton --output-dir "$tmp/no/such"
[ ! -e "$tmp/x" ] && ok "nothing written on bad input" || notok "nothing written on bad input"
# A directory whose files' paths pass 4095 characters (PATH_MAX 4096): they
# were cut silently, so the script went to another name; now refused.
long=$tmp/long
while [ ${#long} -lt 4040 ]; do long=$long/dddddddddddddddddddddddddddddddddddddddd; done
long=$long/$(printf '%*s' $((4089 - ${#long})) '' | tr ' ' e)   # 4090 characters
if mkdir -p "$long" 2>/dev/null; then
    expect "an --output-dir whose file paths are too long" \
        '^slo infer: --output-dir: expected a path of at most 4095 characters, found [0-9]+ for ' \
        infer --workload vgg19:rate=200:slo=60 --emit slurm --output-dir "$long"
    [ -z "$(ls -A "$long")" ] && ok "nothing written under the too-long --output-dir" ||
        notok "files written under the too-long --output-dir"
fi
# A plan whose shares cannot round to whole gres/mps units (a profile with
# u = 0.5 % and no interference terms, 101 one-unit alexnet tenants on one
# GPU: ceil gives 101 units, so one would get 0): exit 2 naming it.
"$SLO" infer --coefficients | "$PY" -c '
import json, sys
p = json.load(sys.stdin); p["hardware"]["unit"] = 0.5
# no interference, no power: every tenant keeps its solo one-unit share
p["hardware"]["coefficients"].update(sched_alpha_ms=0, sched_beta_ms=0)
p["alexnet"]["coefficients"].update(kp_w_per_rps=0, bp_w=0, alpha_cache_per_pct=0)
json.dump(p, open(sys.argv[1], "w"))' "$tmp/halfunit.json"
i=0; : >"$tmp/tiny"; while [ $i -lt 101 ]; do echo "--workload alexnet:rate=1:slo=1000" >>"$tmp/tiny"; i=$((i + 1)); done
# shellcheck disable=SC2046
"$SLO" infer --profile "$tmp/halfunit.json" --json $(cat "$tmp/tiny") >"$tmp/tiny.json" 2>"$tmp/err"
echo "half-unit plan: $("$PY" -c 'import json,sys; p=json.load(open(sys.argv[1])); print(p["n_gpus"], "GPUs, mps_verified", p["mps_verified"])' "$tmp/tiny.json" 2>&1)"
# shellcheck disable=SC2046
expect "a share that rounds to 0 units" '^slo infer: --emit slurm: the plan.s MPS shares do not round to Slurm.s gres/mps units: GPU 1, workload [0-9]+ \(alexnet\): MPS share 0.5 % rounds to 0 of the 100 gres/mps units' \
    infer --profile "$tmp/halfunit.json" $(cat "$tmp/tiny") --emit slurm --output-dir "$tmp/x"
[ ! -e "$tmp/x" ] && ok "nothing written for a share that rounds to 0" || notok "nothing written for a share that rounds to 0"
# Re-emitting into the same DIR: a 3-GPU plan, then a 1-GPU plan. The old
# plan's scripts for GPUs 2 and 3 are removed (submitting DIR's scripts would
# start them beside the new plan); a file of that name not written by slo stays.
"$SLO" infer --workload alexnet:rate=2000:slo=15 --workload resnet50:rate=1500:slo=40 \
    --workload vgg19:rate=600:slo=60 --emit slurm --output-dir "$tmp/re" >/dev/null 2>&1
echo "mine" >"$tmp/re/slo-serve-gpu9.sbatch"
n_before=$(ls "$tmp/re"/slo-serve-gpu[1-3].sbatch 2>/dev/null | wc -l)
"$SLO" infer --workload alexnet:rate=500:slo=15 --emit slurm --output-dir "$tmp/re" >/dev/null 2>"$tmp/err"
if [ "$n_before" = 3 ] && [ -f "$tmp/re/slo-serve-gpu1.sbatch" ] &&
   [ ! -e "$tmp/re/slo-serve-gpu2.sbatch" ] && [ ! -e "$tmp/re/slo-serve-gpu3.sbatch" ] &&
   [ "$(cat "$tmp/re/slo-serve-gpu9.sbatch")" = mine ] &&
   grep -q "note: removed $tmp/re/slo-serve-gpu3.sbatch (GPU 3 of an earlier plan; this plan has 1)" "$tmp/err"; then
    ok "re-emit: an earlier plan's scripts for GPUs 2, 3 removed, a foreign file kept"
else notok "re-emit into the same DIR ($n_before scripts before; $(ls "$tmp/re" | tr '\n' ' '))"; fi
finish
