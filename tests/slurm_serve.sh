#!/bin/sh
# slurm_serve.sh - the scripts of `slo infer --emit slurm` on the single-host
# test cluster (tests/slurm/cluster.sh) with gres/mps configured: the
# cluster's config plus the MPS lines of doc/examples/slurm-mps
# (GresTypes=gpu,mps, mps:100 per fake GPU), added below by wrapping the
# cluster's template step. For a plan with a shared GPU of two tenants and a
# split workload's dedicated GPUs, every script is submitted with sbatch and
# each tenant (SLO_SERVE_COMMAND) records what Slurm gave it; the test checks
# that each tenant ran with --gres=mps:N and CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=N
# as in the plan's --json, that the tenants of one script ran in one job on
# one node and one GPU (the same CUDA_VISIBLE_DEVICES), and that the job's
# TRES asks the sum of its tenants' counts. Afterwards no node is drained.
. "$SLO_SRCDIR/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
cluster_require_slurm
PY=/usr/bin/python3
"$PY" -c 'import json' 2>/dev/null || cluster_skip "no $PY"

CLUSTER_MPS=yes   # gres/mps, Count=100 per GPU (tests/slurm/cluster.sh)

cluster_start
sinfo -h -N -n n1 -o '%G' | grep -Eq 'mps(:[a-z0-9]+)?:200' && ok "gres/mps configured on the test cluster" ||
    { notok "gres/mps configured on the test cluster"; sinfo -N -o '%N %G' | sed 's/^/#   /'; }

# two tenants on one GPU (the nodes have 2 CPUs: one per tenant) and ssd at a
# rate that needs dedicated GPUs (one tenant each)
W="--workload vgg19:rate=200:slo=60 --workload alexnet:rate=500:slo=20 --workload ssd:rate=400:slo=25"
# shellcheck disable=SC2086
"$SLO" infer $W --json --emit slurm --output-dir "$tmp/jobs" >"$tmp/plan.json" 2>"$tmp/err" ||
    notok "--emit slurm (exit $?)"
mkdir -p "$tmp/rec" && chmod 777 "$tmp" "$tmp/rec"
# a tenant: what its step was given, by Slurm (scontrol show step) and in
# its environment
cat >"$tmp/tenant.sh" <<'EOF2'
#!/bin/sh
g=$(scontrol show step "$SLURM_JOB_ID.$SLURM_STEP_ID" 2>/dev/null | grep -o 'gres[:/]mps[:=][0-9]*' | head -1)
echo "$SLO_WORKLOAD $SLURM_JOB_ID $SLURMD_NODENAME ${CUDA_VISIBLE_DEVICES:-none} ${g:-none} $CUDA_MPS_ACTIVE_THREAD_PERCENTAGE" >"$SLO_REC.$SLO_WORKLOAD"
EOF2
chmod 755 "$tmp/tenant.sh"
jobs=
for f in "$tmp"/jobs/slo-serve-gpu*.sbatch; do
    j=${f##*gpu}; j=${j%.sbatch}
    id=$(SLO_SERVE_COMMAND="$tmp/tenant.sh" SLO_REC="$tmp/rec/gpu$j" \
         sbatch --parsable --partition=onprem --output="$tmp/rec/gpu$j.out" "$f" 2>"$tmp/err")
    if [ -z "$id" ]; then notok "sbatch $f"; cat "$tmp/err"; continue; fi
    jobs="$jobs $j:$id"
done
for ji in $jobs; do cluster_wait_job "${ji#*:}" 60 "COMPLETED|FAILED|CANCELLED|TIMEOUT" >/dev/null 2>&1 || true; done
for ji in $jobs; do
    j=${ji%%:*}; id=${ji#*:}
    scontrol show job "$id" 2>/dev/null | tr ' ' '\n' | grep -E '^(TresPerNode|TRES|JobState)=' >"$tmp/rec/gpu$j.job"
done
if "$PY" - "$tmp/plan.json" "$tmp/rec" $jobs >"$tmp/out" 2>&1 <<'EOF'
import glob, json, os, sys
plan = json.load(open(sys.argv[1])); rec = sys.argv[2]
for ji in sys.argv[3:]:
    j, jid = ji.split(":"); g = plan["gpus"][int(j) - 1]
    job = open(os.path.join(rec, "gpu%s.job" % j)).read()
    total = sum(int(t["slurm"]["gres"].split(":")[1]) for t in g["workloads"])
    assert "mps:%d" % total in job, (j, job, total)
    seen = set()
    for t in g["workloads"]:
        f = os.path.join(rec, "gpu%s.%d" % (j, t["workload"]))
        w, rjob, node, dev, gres, pct = open(f).read().split()
        n = int(t["slurm"]["gres"].split(":")[1])
        assert rjob == jid and int(w) == t["workload"], (f, rjob, jid)
        assert pct == str(n) == str(t["slurm"]["CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"]), (f, pct, n)
        assert gres.replace("/", ":").replace("=", ":") == "gres:mps:%d" % n, (f, gres, n)
        seen.add((node, dev))
        print("GPU %s job %s: workload %s (%s) on %s device %s, step gres %s, CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%s"
              % (j, jid, w, t["model"], node, dev, gres, pct))
    assert len(seen) == 1, ("tenants of one GPU on different devices", seen)
EOF
then cat "$tmp/out"; ok "each tenant runs with its plan's gres/mps and MPS percentage, co-located on one GPU"
else cat "$tmp/out"; for f in "$tmp"/rec/*; do echo "# $f: $(cat "$f")"; done; notok "each tenant runs with its plan's gres/mps and MPS percentage, co-located on one GPU"; fi
cluster_check_health && ok "no node drained, daemons alive" || notok "no node drained, daemons alive"
cluster_stop || notok "cluster stops"
finish
