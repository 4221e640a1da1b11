#!/bin/sh
# slurm_requeue.sh - re-planning in Slurm's requeue path on the single-host
# test cluster (issue 13 item 1; doc/slurm.md "Re-planning on requeue";
# cluster: tests/slurm/cluster.sh), with spank_slo.so `required`,
# job_submit.lua, slo-power's local provider and slo-requeue as
# EpilogSlurmctld:
#   a. a spot reclaim mid-job (POWER_DOWN_FORCE reason=spot-reclaim on the
#      job's cloud node) after the job reported loss 0.82 through its
#      progress file (python/slo/trainlog.py StepLogger at $SLO_PROGRESS_FILE):
#      slo-requeue re-plans the remaining SLO without the reclaimed spot pool
#      (`slo train --elapsed --loss-now --restart-overhead 30s` gives the same
#      plan), the pending job's request is changed to it, the job runs again
#      with the new plan as SLO_* and completes within its deadline;
#   b. a launch that fails for lack of capacity (the local provider's
#      stand-in for InsufficientInstanceCapacity): slo-power backs the pool
#      off, the job is requeued once, the remaining SLO cannot be met with
#      the capacity left, so the job is held (user hold) with a Comment that
#      names the closest plan and its time; no requeue loop (Restarts stays 1);
#   c. no crash, no drained node, every daemon stops.
. "$SLO_SRCDIR/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
cluster_require_slurm
spank=${SLO_SPANK_SO:-$SLO_BUILDDIR/spank_plugin/.libs/spank_slo.so}
requeue=$SLO_BUILDDIR/power/slo-requeue
fix=$SLO_SRCDIR/tests/slurm
[ -e "$spank" ] || cluster_skip "spank_slo.so not built"
[ -x "$requeue" ] || cluster_skip "slo-requeue not built"
[ -n "$(cluster_slo_power)" ] || cluster_skip "slo-power not built"
PY=/usr/bin/python3
[ -x "$PY" ] || cluster_skip "/usr/bin/python3 not found (the job writes its progress with StepLogger)"
spank=$(cluster_private_copy "$spank") || { echo "not ok - copy of spank_slo.so"; exit 1; }
CLUSTER_PLUGSTACK="required $spank catalog=$fix/catalog.json workloads=$fix/workloads mode=enforce"
t_start=$(date +%s)
cluster_start
D=$CLUSTER_DIR
echo "# cluster up in $(( $(date +%s) - CLUSTER_T_LOCKED )) s after $(( CLUSTER_T_LOCKED - t_start )) s waiting for the lock: $D"
rlog=$D/log/slo-requeue.log
# slo-power with the catalog: nodes are mapped to their instance type (pool)
echo "catalog=$fix/catalog.json" >>"$D/etc/slo-power.conf"
plog=$D/log/slo-power.log
backoff=$D/state/ctld/slo-backoff.json

# EpilogSlurmctld = slo-requeue (as etc/slurm/slurm.conf.example); slurmctld
# reads it at start, so it is restarted from its saved state with the line.
cat >"$D/bin/epilog-slurmctld" <<EOF
#!/bin/sh
# slurmctld gives EpilogSlurmctld no SLURM_CONF: the test cluster's is not the default
SLURM_CONF=$SLURM_CONF exec $requeue --log $rlog
EOF
chmod 755 "$D/bin/epilog-slurmctld"
echo "EpilogSlurmctld=$D/bin/epilog-slurmctld" >>"$D/etc/slurm.conf"
pid=$(cat "$D/run/slurmctld.pid")
kill -TERM "$pid"
cluster_wait '! kill -0 '"$pid"' 2>/dev/null' 300 || { echo "not ok - slurmctld did not stop"; exit 1; }
slurmctld >"$D/log/slurmctld-restart.out" 2>&1 || { echo "not ok - slurmctld restart"; cluster_dump_logs; exit 1; }
if ! cluster_wait '[ "$(sinfo -h -N -n n1,n2 -t idle -o %N 2>/dev/null | sort -u | wc -l)" = 2 ]' 600; then
    echo "not ok - n1, n2 not idle after the slurmctld restart"; cluster_dump_logs; exit 1
fi
[ "$(scontrol show config | sed -n 's/^EpilogSlurmctld *= *//p')" = "$D/bin/epilog-slurmctld" ] &&
    ok "slurmctld runs slo-requeue as EpilogSlurmctld" || notok "EpilogSlurmctld not set"

# Every job runs in $D (--chdir): its progress file (SLO_PROGRESS_FILE) is
# written in the job's working directory, which must not be the build tree
# (make distcheck refuses files left there).
SLO_ARGS="--slo-workload=testnet --slo-loss=0.8 --slo-time=23:00"
DEADLINE=1380
# a whole line of `scontrol show job` (Comment, AdminComment hold spaces)
job_line() { scontrol show job "$1" 2>/dev/null | sed -n "s/^ *$2=//p" | head -n 1; }
cloud_node_of() { scontrol show hostnames "$(cluster_job_field "$1" NodeList)" | grep '^c' | head -n 1; }

# ---- a. spot reclaim mid-job: re-planned with the progress made
cat >"$D/job-a.sh" <<EOF
#!/bin/sh
echo "start restart=\${SLURM_RESTART_COUNT:-0} at=\$(date +%s) nodes=\$SLURM_JOB_NODELIST plan=\$SLO_PLAN partition=\$SLO_PARTITION replan=\${SLO_REPLAN:-0} time_s=\$SLO_TIME_S progress=\$SLO_PROGRESS_FILE budget=\${SLURM_SPANK_SLO_BUDGET_USD:-none} rate=\$SLO_COST_USD_PER_H"
if [ "\${SLURM_RESTART_COUNT:-0}" = 0 ]; then
    # the training loop's logger: loss 0.82 reached (target 0.8)
    PYTHONPATH=$SLO_SRCDIR/python $PY -c '
import os
from slo.trainlog import StepLogger
with StepLogger(os.environ["SLO_PROGRESS_FILE"] + ".csv", {"a100-node": 1, "t4-node": 1, "g4dn.12xlarge": 1},
                worker=0, type="a100-node", batch=512, progress=os.environ["SLO_PROGRESS_FILE"]) as log:
    log.log(100, 51200, 0.9)
    log.log(200, 102400, 0.82)
' || echo "progress: StepLogger failed"
    echo progress-written
    sleep 300
fi
echo done
EOF
# with a budget above the plan's 0.999 USD: recorded (SLO_BUDGET_USD), and the
# re-plan gets what the first run left of it
sbatch --parsable --chdir="$D" $SLO_ARGS --slo-budget=1.5 --open-mode=append -o "$D/a-%j.out" "$D/job-a.sh" >"$tmp/out" 2>"$tmp/err"
rc=$?
ja=$(sed -n '1{s/;.*//;p;}' "$tmp/out")
cn=""
if [ "$rc" = 0 ] && [ -n "$ja" ] && grep -q 'g4dn.12xlarge' "$tmp/err"; then
    ok "job $ja planned with a spot cloud node: $(grep -m1 'request set by the SLO plan' "$tmp/err" | cut -c1-120)"
    cluster_wait 'grep -q "^progress-written" "$D/a-$ja.out" 2>/dev/null' 1200 && cn=$(cloud_node_of "$ja")
else
    notok "submission of job a (exit $rc)"
fi
if [ -n "$cn" ]; then
    sleep 10 # some training time to subtract from the deadline (not an assertion)
    scontrol update nodename="$cn" state=POWER_DOWN_FORCE reason=spot-reclaim
    st=$(cluster_wait_job "$ja" 300 'COMPLETED|FAILED|CANCELLED|TIMEOUT')
    first=$(sed -n 's/^start restart=0 at=\([0-9]*\).*/\1/p' "$D/a-$ja.out" | head -n 1)
    second=$(grep '^start restart=1 ' "$D/a-$ja.out" | head -n 1)
    restarts=$(cluster_job_field "$ja" Restarts)
    end=$(date -d "$(cluster_job_field "$ja" EndTime)" +%s 2>/dev/null)
    echo "# $second"
    echo "# slo-requeue: $(grep "job $ja" "$rlog" 2>/dev/null | tail -n 1 | cut -c1-400)"
    if [ "$st" = COMPLETED ] && [ "$restarts" = 1 ] && grep -qx done "$D/a-$ja.out" &&
       echo "$second" | grep -q 'replan=1' && ! echo "$second" | grep -q 'nodes=[^ ]*c[12]' &&
       ! echo "$second" | grep -q 'plan=[^ ]*g4dn'; then
        ok "reclaim of $cn: job $ja re-planned onto on-prem capacity and completed ($second)"
    else
        cat "$D/a-$ja.out" "$rlog" >>"$tmp/err" 2>/dev/null
        notok "reclaim of $cn: state $st, Restarts=$restarts, second run: ${second:-none}"
    fi
    # the re-plan used the progress (loss 0.82), and its plan equals the CLI's
    # re-plan of the same remaining SLO without the reclaimed pool
    line=$(grep "job $ja: slo: re-planned" "$rlog" 2>/dev/null | tail -n 1)
    el=$(echo "$line" | sed -n 's/.*, \([0-9]*\) s of the [0-9]* s deadline used.*/\1/p')
    plan=$(echo "$second" | sed -n 's/.* plan=\([^ ]*\) .*/\1/p')
    pred=$(echo "$second" | sed -n 's/.* time_s=\([^ ]*\) .*/\1/p')
    jq_cat=$tmp/cat-nospot.json
    $PY -c 'import json,sys; c=json.load(open(sys.argv[1])); [t.update(quota=0) for t in c["types"] if t["name"]=="g4dn.12xlarge"]; json.dump(c, open(sys.argv[2],"w"))' \
        "$fix/catalog.json" "$jq_cat"
    cli=$("$SLO" train --catalog "$jq_cat" --workload "$fix/workloads/testnet.json" --slo-loss 0.8 \
          --slo-time 23:00 --exact --max-nodes 64 --elapsed "${el:-0}s" --loss-now 0.82 \
          --restart-overhead 30s 2>&1)
    cli_plan=$(echo "$cli" | awk '/^  instance type/{f=1;next} f&&/workers?,/{exit} f{printf "%s%s:%s", s, $1, $5; s=","}')
    # elapsed: about the 10 s the job ran after its progress (from the progress
    # file: Slurm resets a requeued job's start time); 8 s allows for rounding
    if echo "$line" | grep -q 'loss 0.82' && [ -n "$plan" ] && [ "$plan" = "$cli_plan" ] &&
       [ "${el:-0}" -ge 8 ]; then
        ok "re-plan from loss 0.82 after $el s: $plan, as slo train --elapsed ${el}s --loss-now 0.82 --restart-overhead 30s"
    else
        echo "$cli" | sed 's/^/#   cli: /'
        notok "re-plan '$plan' (log: ${line:-none}) differs from the CLI's '$cli_plan'"
    fi
    # the budget: recorded as given, and the re-plan had 1.5 USD minus the
    # first run at its plan's USD/h for the elapsed time (hand arithmetic:
    # spent = rate x el / 3600, el rounded to 1 s)
    rate=$(sed -n 's/^start restart=0 .* rate=\([0-9.]*\).*/\1/p' "$D/a-$ja.out" | head -n 1)
    spent=$(echo "$line" | sed -n 's/.*, budget 1\.5 USD (\([0-9.e-]*\) USD spent, \([0-9.e-]*\) USD left).*/\1 \2/p')
    if grep -q '^start restart=0 .* budget=1\.5 ' "$D/a-$ja.out" && [ -n "$spent" ] && [ -n "$rate" ] &&
       awk -v s="$spent" -v r="$rate" -v e="${el:-x}" 'BEGIN{split(s, a, " "); w = r * e / 3600;
           exit !(e+0==e && a[1] > 0 && a[1] - w <= r / 3600 + 1e-5 && w - a[1] <= r / 3600 + 1e-5 &&
                  (1.5 - a[1]) - a[2] < 1e-5 && a[2] - (1.5 - a[1]) < 1e-5)}'; then
        ok "budget: SLO_BUDGET_USD=1.5 recorded; re-planned within 1.5 - $rate USD/h x $el s = ${spent#* } USD left"
    else
        notok "budget: rate ${rate:-?}, spent/left '${spent:-none}' (log: ${line:-none})"
    fi
    # within the SLO: elapsed + predicted <= deadline, and the job really ended before it
    if [ -n "$first" ] && [ -n "$end" ] && [ $(( end - first )) -le $DEADLINE ] &&
       awk -v e="${el:-x}" -v p="${pred:-x}" -v d=$DEADLINE 'BEGIN{exit !(e+0==e && p+0==p && e+p<=d)}'; then
        ok "job $ja met its deadline: ended $(( end - first )) s after its first start; plan: $el s used + $pred s predicted <= $DEADLINE s"
    else
        notok "deadline: first start ${first:-?}, end ${end:-?}, elapsed ${el:-?} + predicted ${pred:-?}"
    fi
    ac=$(job_line "$ja" AdminComment)
    [ "$(cluster_job_field "$ja" Partition)" = onprem ] && case $ac in slo-replan:1\ *) true ;; *) false ;; esac &&
        job_line "$ja" Comment | grep -q '^slo: re-planned after spot reclaim of' &&
        ok "scontrol show job: Partition=onprem, AdminComment slo-replan:1 ..., Comment: $(job_line "$ja" Comment | cut -c1-150)" ||
        notok "job record after the re-plan: $(cluster_job_field "$ja" Partition) / $ac / $(job_line "$ja" Comment)"
    grep -q '"g4dn.12xlarge"' "$backoff" 2>/dev/null && grep -q 'spot-reclaim' "$backoff" &&
        ok "the reclaimed pool g4dn.12xlarge spot is backed off in $backoff" ||
        notok "no back-off of the reclaimed pool ($(cat "$backoff" 2>&1 | tr -d '\n' | cut -c1-200))"
else
    [ -n "$ja" ] && { cat "$D/a-$ja.out" >>"$tmp/err" 2>/dev/null; scancel "$ja"; }
    notok "job a never reported progress on a cloud node"
fi

# ---- b. capacity error: the pool is backed off, the SLO can no longer be met -> held, no loop
rm -f "$backoff"
mkdir -p "$D/run/power" && chmod 755 "$D/run/power"
echo "g4dn.12xlarge spot InsufficientInstanceCapacity" >"$D/run/power/capacity-errors"
# the cloud nodes must be powered down to be resumed (and fail) again
cluster_wait '[ "$(sinfo -h -N -p cloud-spot -o %N:%T | sort -u | tr "\n" " ")" = "c1:idle~ c2:idle~ " ]' 1800 ||
    echo "# cloud nodes not idle~: $(sinfo -h -N -p cloud-spot -o %N:%T | tr '\n' ' ')"
sbatch --parsable --chdir="$D" $SLO_ARGS -o "$D/b-%j.out" --wrap 'echo ran; echo "restart=${SLURM_RESTART_COUNT:-0}"' >"$tmp/out" 2>"$tmp/err"
rc=$?
jb=$(sed -n '1{s/;.*//;p;}' "$tmp/out")
if [ "$rc" = 0 ] && [ -n "$jb" ]; then
    cluster_wait '[ "$(cluster_job_field "$jb" Reason)" = JobHeldUser ]' 1800
    reason=$(cluster_job_field "$jb" Reason)
    comment=$(job_line "$jb" Comment)
    r1=$(cluster_job_field "$jb" Restarts)
    echo "# job $jb: JobState=$(cluster_job_field "$jb" JobState) Reason=$reason Restarts=$r1"
    echo "# Comment=$comment" | cut -c1-600
    if [ "$reason" = JobHeldUser ] && [ "$r1" = 1 ] &&
       echo "$comment" | grep -q '^slo: held: the SLO (loss 0.8 within 1380 s) can no longer be met after failed launch of c[12]' &&
       echo "$comment" | grep -q 'the fastest plan with the usable nodes, a100-node:1,t4-node:1, needs [0-9.]* s'; then
        ok "capacity error: job $jb held (JobHeldUser, Restarts=1), Comment names the closest plan a100-node:1,t4-node:1 and its time"
    else
        cat "$plog" "$rlog" >>"$tmp/err" 2>/dev/null
        notok "capacity error: job $jb Reason=$reason Restarts=$r1 Comment=$comment"
    fi
    grep -q 'InsufficientInstanceCapacity' "$backoff" 2>/dev/null &&
        ok "slo-power backed off pool g4dn.12xlarge spot on the capacity error ($backoff)" ||
        notok "no back-off written by slo-power: $(cat "$backoff" 2>&1 | cut -c1-200)"
    # no loop: 20 s later still held, still one restart, the nodes idle
    sleep 20
    r2=$(cluster_job_field "$jb" Restarts)
    busy=$(squeue -h -t R,CF -o %i | wc -l)
    if [ "$r2" = 1 ] && [ "$(cluster_job_field "$jb" JobState)" = PENDING ] && [ "$busy" = 0 ] &&
       ! grep -q '^ran' "$D/b-$jb.out" 2>/dev/null; then
        ok "no requeue loop: 20 s later Restarts=$r2, job pending (held), no job running or configuring"
    else
        notok "requeue loop: Restarts=$r2, state $(cluster_job_field "$jb" JobState), running/configuring jobs $busy"
    fi
    scancel "$jb"
else
    notok "submission of job b (exit $rc)"
fi
rm -f "$D/run/power/capacity-errors"

# ---- c. no crash, no drained node; every daemon stops
if cluster_check_health >"$tmp/out" 2>&1; then
    ok "no drained or down node, no fatal/segfault in the logs"
else
    cat "$tmp/out" >>"$tmp/err"; notok "cluster health"
fi
if cluster_stop >"$tmp/out" 2>&1; then ok "teardown: every daemon stopped on TERM"; else : >"$tmp/err"; notok "teardown"; fi
echo "# wall time $(( $(date +%s) - t_start )) s, $(( $(date +%s) - CLUSTER_T_LOCKED )) s of it holding the cluster"
finish
