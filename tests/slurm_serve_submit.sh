#!/bin/sh
# slurm_serve_submit.sh - sbatch --slo-serve=MODEL:rate=R:slo=MS (issue 19
# item 3) on the single-host test cluster (tests/slurm/cluster.sh) with
# gres/mps configured as in tests/slurm_serve.sh (mps:100 per fake GPU),
# spank_slo.so `required` with infer_profile= a copy of the embedded V100
# profile priced as the test catalog's a100-node (node n1), and
# etc/slurm/job_submit.lua:
#   1. a plan of one shared GPU (vgg19 + alexnet): the job's TresPerNode,
#      Features, Partition and NumNodes are what `slo infer` (an independent
#      front end of the same kernel call) plans for the same profile, catalog
#      and workloads (gres:mps:<sum of the tenants' units>); each task of
#      `srun -n 2` gets its tenant's CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, batch
#      and model, equal to the plan's --json;
#   2. a plan of two GPUs (ssd split + vgg19): gres:gpu:2; each tenant picked
#      with SLO_SERVE_TENANT=k gets its share and one GPU (the two GPUs'
#      tenants see different CUDA_VISIBLE_DEVICES);
#   3. bad input, each one message and sbatch exit != 0, no job queued:
#      unknown model (lists the profile's models), malformed spec, rate=0,
#      slo=-1, --slo-serve with --slo-loss; --gpus=1 with the plan is refused
#      by job_submit.lua; a user's --gres=gpu:1 -N 2 is replaced by the plan
#      (as for training);
#   4. the user (uid 65534) cannot change the planned GRES/partition with
#      scontrol update (Access/permission denied); root can;
#   5. forged records (--export=ALL,SLURM_SPANK_SLO_KIND=serve,...) on an
#      unplanned job: no per-tenant share exported;
#   6. afterwards no drained node, no crash.
. "$SLO_SRCDIR/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
cluster_require_slurm
command -v setpriv >/dev/null 2>&1 || cluster_skip "setpriv not found (util-linux): needed to submit as a user"
PY=/usr/bin/python3
"$PY" -c 'import json' 2>/dev/null || cluster_skip "no $PY"
spank=${SLO_SPANK_SO:-$SLO_BUILDDIR/spank_plugin/.libs/spank_slo.so}
[ -e "$spank" ] || cluster_skip "spank_slo.so not built"
spank=$(cluster_private_copy "$spank") || { echo "not ok - copy of spank_slo.so"; exit 1; }
fix=$(cluster_private_fixtures "$SLO_SRCDIR/tests/slurm") || { echo "not ok - copy of the fixtures"; exit 1; }
# the site's GPU profile: the embedded V100 one, priced as node type a100-node
"$SLO" infer --coefficients | "$PY" -c '
import json, sys
p = json.load(sys.stdin); p["gpu"] = {"model": "V100", "instance_type": "a100-node"}
json.dump(p, open(sys.argv[1], "w"))' "$fix/v100-a100node.json" && chmod a+r "$fix/v100-a100node.json" ||
    { echo "not ok - test profile"; exit 1; }
prof=$fix/v100-a100node.json
CLUSTER_PLUGSTACK="required $spank catalog=$fix/catalog.json workloads=$fix/workloads infer_profile=$prof mode=enforce"
CLUSTER_POWER=standin

CLUSTER_MPS=yes   # gres/mps, Count=100 per GPU (tests/slurm/cluster.sh)

cluster_start
D=$CLUSTER_DIR
U=$D/user
mkdir -p "$U" "$tmp/rec" && chown 65534:65534 "$U" && chmod 777 "$tmp/rec"
as_user() { cluster_as_user "$U" "$@"; }
submit() { cluster_submit "$@"; }
field() { cluster_job_field "$job" "$1"; }
njobs() { squeue -h -o %i 2>/dev/null | wc -l; }

# a tenant records what it was given
cat >"$tmp/tenant.sh" <<'EOF'
#!/bin/sh
echo "${SLO_SERVE_TENANT:-none} ${SLO_SERVE_MODEL:-none} ${SLO_SERVE_BATCH:-none} ${SLO_SERVE_GPU:-none} ${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-none} ${CUDA_VISIBLE_DEVICES:-none} ${SLO_GRES:-none} ${SLO_SERVE_TENANTS:-none}" \
    >"$REC.${SLO_SERVE_TENANT:-none}.${SLURM_PROCID:-x}"
EOF
chmod 755 "$tmp/tenant.sh"

# check_plan NAME JOB WORKLOADS...: the job's request and each tenant's
# record against `slo infer --json` of the same profile, catalog, workloads
check_plan() {
    name=$1; j=$2; shift 2
    w=
    for s in "$@"; do w="$w --workload $s"; done
    # shellcheck disable=SC2086
    "$SLO" infer --profile "$prof" --catalog "$fix/catalog.json" $w --json >"$tmp/$name.json" 2>"$tmp/err" ||
        { notok "$name: slo infer"; cat "$tmp/err"; return; }
    scontrol show job "$j" | tr ' ' '\n' | grep -E '^(Partition|NumNodes|Features|TresPerNode|JobState)=' >"$tmp/$name.job"
    if "$PY" - "$tmp/$name.json" "$tmp/$name.job" "$tmp/rec/$name" >"$tmp/out" 2>&1 <<'EOF'
import glob, json, sys
plan = json.load(open(sys.argv[1]))
job = dict(l.strip().split("=", 1) for l in open(sys.argv[2]) if "=" in l)
gpus = plan["gpus"]
tenants = [t for g in gpus for t in g["workloads"]]
units = [int(t["slurm"]["gres"].split(":")[1]) for t in tenants]
want = "gres:mps:%d" % sum(units) if len(gpus) == 1 else "gres:gpu:%d" % len(gpus)
assert job["JobState"] == "COMPLETED", job
assert job["TresPerNode"] == want, (job, want)
assert job["Partition"] == "onprem" and job["NumNodes"] == "1" and job["Features"] == "a100-node", job
print("job: %s %s %s NumNodes=%s (slo infer: %d GPU(s), %s)" % (job["TresPerNode"], job["Partition"],
      job["Features"], job["NumNodes"], len(gpus), want))
seen = {}
for k, t in enumerate(tenants, 1):
    f = glob.glob(sys.argv[3] + ".%d.*" % k)
    assert len(f) == 1, ("tenant %d records" % k, f)
    tid, model, batch, gpu, pct, dev, gres, n = open(f[0]).read().split()
    g = next(i for i, x in enumerate(gpus) if t in x["workloads"])
    assert (model, int(batch), int(gpu), int(pct)) == (t["model"], t["batch"], g, t["slurm"]["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"]), (f[0], model, batch, gpu, pct, t)
    assert int(n) == len(tenants) and gres == want[5:], (gres, n)
    seen.setdefault(g, set()).add(dev)
    print("tenant %d: %s batch %s GPU %s CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%s CUDA_VISIBLE_DEVICES=%s (plan: %s batch %d mps %d)"
          % (k, model, batch, gpu, pct, dev, t["model"], t["batch"], t["slurm"]["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"]))
if len(gpus) > 1:
    devs = [d for g in seen.values() for d in g]
    assert all(len(v) == 1 for v in seen.values()) and len(set(devs)) == len(gpus), ("one device per GPU", seen)
EOF
    then cat "$tmp/out"; ok "$name: the job's gres and each tenant's MPS share, batch and GPU are slo infer's plan"
    else cat "$tmp/out"; sed 's/^/#   /' "$tmp/$name.job"; for f in "$tmp/rec/$name".*; do echo "# $f: $(cat "$f")"; done
        notok "$name: the job's gres and each tenant's MPS share, batch and GPU are slo infer's plan"; fi
}

# ---- 1. one shared GPU: two tenants, one task each (srun -n 2)
submit sbatch --parsable --slo-serve=vgg19:rate=200:slo=60 --slo-serve=alexnet:rate=500:slo=20 \
    -o "$tmp/rec/one.out" --wrap "REC=$tmp/rec/one srun -n 2 $tmp/tenant.sh"
if [ "$rc" = 0 ] && grep -q 'spank_slo: serving plan: 2 models on 1 V100 GPU' "$tmp/err" &&
   grep -q 'slo: request set by the SLO serving plan: partition=onprem nodes=1 gres=mps:' "$tmp/err"; then
    ok "sbatch --slo-serve x2: plan printed and applied"
else
    notok "sbatch --slo-serve x2 (exit $rc)"; sed 's/^/#   /' "$tmp/err"
fi
cluster_wait_job "$job" 120 "COMPLETED|FAILED|CANCELLED|TIMEOUT" >/dev/null
check_plan one "$job" vgg19:rate=200:slo=60 alexnet:rate=500:slo=20

# ---- 2. two GPUs (ssd split over a shared and a dedicated GPU, vgg19):
# gres:gpu:2; tenants picked by SLO_SERVE_TENANT, one step at a time (-n 1:
# the nodes have 2 CPUs, one task per tenant would not fit)
submit sbatch --parsable --slo-serve=ssd:rate=400:slo=25,vgg19:rate=200:slo=60 -n 1 -o "$tmp/rec/two.out" \
    --wrap "for k in 1 2 3; do SLO_SERVE_TENANT=\$k REC=$tmp/rec/two srun -n 1 $tmp/tenant.sh; done"
[ "$rc" = 0 ] && ok "sbatch --slo-serve=A,B (a list): submitted" || { notok "sbatch --slo-serve list (exit $rc)"; sed 's/^/#   /' "$tmp/err"; }
cluster_wait_job "$job" 120 "COMPLETED|FAILED|CANCELLED|TIMEOUT" >/dev/null
check_plan two "$job" ssd:rate=400:slo=25 vgg19:rate=200:slo=60

# ---- 3. bad input: one message, exit != 0, nothing queued
bad() { # NAME EXPECTED-TEXT ARGS...
    name=$1; want=$2; shift 2
    before=$(njobs)
    submit sbatch --parsable "$@" --wrap true
    n=$(grep -c 'error' "$tmp/err")
    if [ "$rc" != 0 ] && grep -qF -- "$want" "$tmp/err" && [ "$(njobs)" = "$before" ] &&
       ! grep -Eqi 'segfault|core dumped|signal' "$tmp/err"; then
        ok "$name: refused ($(grep -F -- "$want" "$tmp/err" | head -1 | cut -c1-150))"
    else
        notok "$name (exit $rc, $n error lines)"; sed 's/^/#   /' "$tmp/err"
    fi
}
bad "unknown model" 'spank_slo: --slo-serve: unknown model "foo"; the profile '"$prof"' has: alexnet, resnet50, vgg19, ssd' \
    --slo-serve=foo:rate=10:slo=50
bad "malformed spec" '--slo-serve: expected MODEL:rate=R:slo=MS, found "vgg19:rate=10" (no slo=)' --slo-serve=vgg19:rate=10
bad "rate 0" '--slo-serve vgg19: rate: expected an arrival rate in req/s, a finite number > 0, found "0"' \
    --slo-serve=vgg19:rate=0:slo=50
bad "slo -1" '--slo-serve vgg19: slo: expected a latency SLO in ms, a finite number > 0, found "-1"' \
    --slo-serve=vgg19:rate=10:slo=-1
bad "unknown key" '--slo-serve vgg19: expected rate=R or slo=MS, found "share=5"' \
    --slo-serve=vgg19:rate=10:slo=50:share=5
bad "with --slo-loss" '--slo-serve: expected alone (a serving job), found --slo-loss with it' \
    --slo-serve=vgg19:rate=10:slo=50 --slo-loss=0.8 --slo-time=40:00
bad "--gpus with an enforced serving plan" "slo: rejected: --gpus/-G" --slo-serve=vgg19:rate=10:slo=50 --gpus=1
bad "infeasible SLO" 'spank_slo: no serving plan meets every SLO' --slo-serve=vgg19:rate=100:slo=1

# a user's own --gres and -N: replaced by the plan, as for training
submit sbatch --parsable --slo-serve=vgg19:rate=200:slo=60 --gres=gpu:1 -N 2 --hold -o /dev/null --wrap true
nn=$(field NumNodes)
if [ "$rc" = 0 ] && [ "$(field TresPerNode)" = "gres:mps:35" ] && [ "${nn%%-*}" = 1 ] && [ "${nn#*-}" = 1 ]; then
    ok "a user's --gres=gpu:1 -N 2: the plan's gres:mps:35 on 1 node instead"
else
    notok "--gres/-N with --slo-serve (exit $rc): $(field TresPerNode) $(field NumNodes)"; sed 's/^/#   /' "$tmp/err"
fi
scancel "$job" 2>/dev/null

# advise: printed, request unchanged
submit sbatch --parsable --slo-serve=vgg19:rate=200:slo=60 --slo-mode=advise --gres=gpu:1 --hold -o /dev/null --wrap true
if [ "$rc" = 0 ] && [ "$(field TresPerNode)" = "gres:gpu:1" ] && grep -q 'advise mode, request unchanged; the plan would set partition=onprem nodes=1 gres=mps:35' "$tmp/err"; then
    ok "--slo-mode=advise: plan printed, the request stays --gres=gpu:1"
else
    notok "advise (exit $rc): $(field TresPerNode)"; sed 's/^/#   /' "$tmp/err"
fi
scancel "$job" 2>/dev/null

# ---- 4. the user cannot change the plan's limits
submit as_user sbatch --parsable --slo-serve=vgg19:rate=200:slo=60 --hold -o /dev/null --wrap true
before="$(field Partition) $(field TresPerNode)"
as_user scontrol update jobid="$job" Gres=mps:100 >"$tmp/out" 2>"$tmp/err2"
urc=$?
as_user scontrol update jobid="$job" Partition=admin >>"$tmp/out" 2>>"$tmp/err2"
prc=$?
if [ "$rc" = 0 ] && [ "$before" = "onprem gres:mps:35" ] && [ "$urc" != 0 ] && [ "$prc" != 0 ] &&
   grep -q 'Access/permission denied' "$tmp/err2" && [ "$(field Partition) $(field TresPerNode)" = "$before" ]; then
    ok "user: scontrol update Gres=mps:100 / Partition=admin of a serving plan refused ($before kept)"
else
    notok "user update of serving job $job (submit $rc, update $urc/$prc): $(field Partition) $(field TresPerNode), was $before"
    sed 's/^/#   /' "$tmp/err" "$tmp/err2"
fi
scontrol update jobid="$job" Gres=mps:50 >"$tmp/out" 2>&1 && [ "$(field TresPerNode)" = "gres:mps:50" ] &&
    ok "root: scontrol update Gres=mps:50 allowed" || { notok "root update"; cat "$tmp/out"; }
scancel "$job" 2>/dev/null

# ---- 5. forged records on an unplanned job: no per-tenant share
F="SLURM_SPANK_SLO_PLAN_VERSION=1,SLURM_SPANK_SLO_MODE=enforce,SLURM_SPANK_SLO_KIND=serve,SLURM_SPANK_SLO_PARTITION=onprem,SLURM_SPANK_SLO_NODES=1,SLURM_SPANK_SLO_CONSTRAINT=,SLURM_SPANK_SLO_GRES=mps:100,SLURM_SPANK_SLO_SERVE_GPUS=1,SLURM_SPANK_SLO_SERVE_TENANTS=1,SLURM_SPANK_SLO_SERVE_PLAN=vgg19:0:8:100:200:60"
submit as_user sbatch --parsable -p onprem -N1 --gres=mps:100 --export="ALL,$F,REC=$tmp/rec/forged" -o /dev/null \
    --wrap "SLO_SERVE_TENANT=1 srun -n 1 $tmp/tenant.sh"
cluster_wait_job "$job" 120 "COMPLETED|FAILED|CANCELLED|TIMEOUT" >/dev/null
r=$(cat "$tmp"/rec/forged.* 2>/dev/null)
# SLO_SERVE_TENANT=1 is the user's own; the plugin adds no model, batch or GPU
case $r in
"1 none none none 100 "*" none none") ok "forged serving records: no per-tenant plan exported (record: $r)" ;;
*) notok "forged serving records exported: $r" ;;
esac

cluster_check_health && ok "no node drained, daemons alive" || notok "no node drained, daemons alive"
cluster_stop || notok "cluster stops"
finish
