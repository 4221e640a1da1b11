#!/bin/sh
# slurm_cloud.sh - cloud bursting on the single-host Slurm test cluster
# (issue 6 "What it must show"; cluster: tests/slurm/cluster.sh):
#   1. a plan that needs a cloud node (sbatch --slo-loss=0.8 --slo-time=23:00
#      with the test catalog: a100-node + t4-node + one g4dn.12xlarge spot
#      node) powers that node up through the ResumeProgram
#      (slo-power, local provider), the job runs on it;
#   2. a simulated spot reclaim (scontrol update nodename=cN
#      state=POWER_DOWN_FORCE reason=spot-reclaim, as AWS ParallelCluster
#      does; feasibility notes 5.1) kills the job, which job_submit.lua made
#      requeueable, and the job runs again and completes (SLURM_RESTART_COUNT=1);
#   3. idle cloud nodes are powered down again (sinfo: idle~) by the
#      SuspendProgram;
#   4. no crash, no drained node, every daemon stops.
# The requeued job waits cred_expire + 1 s before it is eligible again
# (feasibility pitfall 14): the cluster uses AuthInfo cred_expire=5 (Slurm's
# minimum) instead of the default 120 s.
# Without spank_slo.so the same plans are recorded by the test plugin
# tests/slurm/forge_spank.c. Development overrides: SLO_SPANK_SO,
# SLO_SLURM_FIXTURES, SLO_POWER_BIN, CLUSTER_POWER=standin.
. "$SLO_SRCDIR/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
cluster_require_slurm

if [ "$CLUSTER_POWER" != standin ] && [ -z "$(cluster_slo_power)" ]; then
    cluster_skip "slo-power ($SLO_BUILDDIR/power/slo-power) not built; cloud bursting not tested"
fi
spank=${SLO_SPANK_SO:-$SLO_BUILDDIR/spank_plugin/.libs/spank_slo.so}
fix=${SLO_SLURM_FIXTURES:-$SLO_SRCDIR/tests/slurm}
forge=$SLO_BUILDDIR/tests/slurm/.libs/forge_spank.so
[ -e "$forge" ] || cluster_skip "test plugin $forge not built (configure found no slurm/spank.h)"
if [ -e "$spank" ] && [ -e "$fix/catalog.json" ]; then
    spank=$(cluster_private_copy "$spank") || { echo "not ok - copy of spank_slo.so"; exit 1; }
    CLUSTER_PLUGSTACK="required $spank catalog=$fix/catalog.json workloads=$fix/workloads mode=enforce
optional $forge"
    # the burst plan of the test catalog (a100-node + t4-node + g4dn.12xlarge)
    slo_args="--slo-workload=testnet --slo-loss=0.8 --slo-time=23:00"
    forge_words=""
    how="sbatch $slo_args (spank_slo.so)"
else
    echo "# spank_slo.so or its fixtures absent: the burst plan is recorded by the test plugin"
    CLUSTER_PLUGSTACK="optional $forge"
    slo_args=""
    forge_words="SLO_PLAN_VERSION=1 SLO_MODE=enforce SLO_PARTITION=burst SLO_NODES=3 SLO_INSTANCES=a100-node:1,t4-node:1,g4dn.12xlarge:1 SLO_CONSTRAINT=[a100-node*1&t4-node*1&g4dn.12xlarge*1] SLO_GRES=gpu:2 SLO_SPOT=1 SLO_DEADLINE_S=1380"
    how="a forged burst plan (test plugin)"
fi
t_start=$(date +%s)
cluster_start
D=$CLUSTER_DIR
plog=$D/log/slo-power.log
[ "$CLUSTER_POWER" = standin ] && plog=$D/log/power.log
echo "# cluster up in $(( $(date +%s) - CLUSTER_T_LOCKED )) s after $(( CLUSTER_T_LOCKED - t_start )) s waiting for the lock: $D (power: $CLUSTER_POWER)"

submit() {
    env ${forge_words:+"SLO_TEST_FORGE=$forge_words"} sbatch --parsable $slo_args "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    job=$(sed -n '1{s/;.*//;p;}' "$tmp/out")
}
cloud_states() { sinfo -h -N -p cloud-spot -o '%N:%T' | sort -u | tr '\n' ' '; }
# the cloud node among a job's nodes (c1 or c2)
cloud_node_of() { scontrol show hostnames "$(cluster_job_field "$1" NodeList)" | grep '^c' | head -n 1; }

if [ "$(cloud_states)" = "c1:idle~ c2:idle~ " ]; then
    ok "cloud nodes start powered down: $(cloud_states)"
else
    notok "cloud nodes at start: $(cloud_states)"
fi

# ---- 1. burst: the plan's cloud node is powered up, the job runs on it
t0=$(date +%s)
submit -o "$D/burst-%j.out" --wrap 'srun -l sh -c "echo \$SLURMD_NODENAME gpus=\$CUDA_VISIBLE_DEVICES"'
if [ "$rc" = 0 ] && [ -n "$job" ]; then
    st=$(cluster_wait_job "$job" 90 'COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL')
    cn=$(cloud_node_of "$job")
    ran_on=$(sed 's/^[0-9]*: //' "$D/burst-$job.out" 2>/dev/null | cut -d' ' -f1 | sort | paste -sd, -)
    # the plan a100-node:1,t4-node:1,g4dn.12xlarge:1 = n1, n2 and one cloud node
    if [ "$st" = COMPLETED ] && [ -n "$cn" ] && [ "$ran_on" = "$cn,n1,n2" ] &&
       [ "$(cluster_job_field "$job" Partition)" = burst ] &&
       grep -q "resume.*$cn\|$cn.*resume" "$plog" 2>/dev/null; then
        ok "$how: $cn powered up by the ResumeProgram, the job ran on $ran_on ($(( $(date +%s) - t0 )) s)"
    else
        cat "$plog" "$D/burst-$job.out" >>"$tmp/err" 2>/dev/null
        notok "burst job $job: state $st, cloud node ${cn:-none}, ran on ${ran_on:-?}"
    fi
    grep -q 'requeue=yes' "$tmp/err" && [ "$(cluster_job_field "$job" Requeue)" = 1 ] &&
        ok "the spot plan made the job requeueable (Requeue=1)" || notok "spot plan without Requeue=1"
else
    notok "burst submission (exit $rc)"
fi

# ---- 2. spot reclaim: POWER_DOWN_FORCE on the job's cloud node -> requeue -> completes
t0=$(date +%s)
submit --open-mode=append -o "$D/reclaim-%j.out" --wrap \
    'echo "start restart=${SLURM_RESTART_COUNT:-0} nodes=$SLURM_JOB_NODELIST"
     [ "${SLURM_RESTART_COUNT:-0}" -ge 1 ] || sleep 300
     echo done'
rjob=$job
reclaimed=""
if [ "$rc" = 0 ] && [ -n "$rjob" ]; then
    end=$(( $(date +%s) + 90 ))
    while [ "$(date +%s)" -lt "$end" ]; do
        if grep -q '^start restart=0' "$D/reclaim-$rjob.out" 2>/dev/null; then
            reclaimed=$(cloud_node_of "$rjob")
            break
        fi
        sleep 0.3
    done
fi
if [ -n "$reclaimed" ]; then
    scontrol update nodename="$reclaimed" state=POWER_DOWN_FORCE reason=spot-reclaim
    st=$(cluster_wait_job "$rjob" 150 'COMPLETED|FAILED|CANCELLED|TIMEOUT')
    restarts=$(cluster_job_field "$rjob" Restarts)
    if [ "$st" = COMPLETED ] && [ "$restarts" = 1 ] &&
       grep -q '^start restart=1' "$D/reclaim-$rjob.out" && grep -qx 'done' "$D/reclaim-$rjob.out" &&
       grep -q "suspend.*$reclaimed\|$reclaimed.*suspend" "$plog" 2>/dev/null; then
        ok "spot reclaim of $reclaimed: job $rjob requeued (Restarts=1) and completed ($(( $(date +%s) - t0 )) s)"
    else
        cat "$D/reclaim-$rjob.out" "$plog" >>"$tmp/err" 2>/dev/null
        notok "spot reclaim of $reclaimed: state $st, Restarts=$restarts"
    fi
else
    notok "reclaim job ${rjob:-none} never ran on a cloud node (exit $rc)"
    [ -n "$rjob" ] && scancel "$rjob"
fi

# ---- 3. idle cloud nodes power down (SuspendTime, then SuspendTimeout)
t0=$(date +%s)
if cluster_wait '[ "$(cloud_states)" = "c1:idle~ c2:idle~ " ]' 900; then
    ok "idle cloud nodes powered down again: $(cloud_states)($(( $(date +%s) - t0 )) s)"
else
    notok "cloud nodes after 90 s idle: $(cloud_states)"
fi
if [ "$CLUSTER_POWER" != standin ]; then
    running=$(for f in "$D"/run/power/*.pid; do [ -s "$f" ] && _cluster_alive "$(cat "$f")"; done)
    [ -z "$running" ] && ok "slo-power left no cloud slurmd running" || notok "cloud slurmd still running: $running"
fi

# ---- 4. no crash, no drained node; every daemon stops
if cluster_check_health >"$tmp/out" 2>&1; then
    ok "no drained or down node (the reclaim reason is cleared), no fatal/segfault in the logs"
else
    : >"$tmp/err"; notok "cluster health"
fi
if cluster_stop >"$tmp/out" 2>&1; then ok "teardown: every daemon stopped on TERM"; else : >"$tmp/err"; notok "teardown"; fi
echo "# wall time $(( $(date +%s) - t_start )) s, $(( $(date +%s) - CLUSTER_T_LOCKED )) s of it holding the cluster"
finish
