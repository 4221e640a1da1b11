#!/bin/sh
# slurm_imds.sh - spot interruption notices and failed launches on the
# single-host Slurm test cluster (issue 13 items 2 and 3; cluster:
# tests/slurm/cluster.sh, slo-power's local provider):
#   1. slo-spot-watch --node c1 polls a stand-in metadata service
#      (tests/power/imds-standin.py: IMDSv2 token, 404 until armed); a
#      requeueable job on c1 traps SIGUSR1 in its batch script and in an srun
#      step. A terminate notice is armed: the job records the signal (the
#      site's spot_signal=USR1 from slo-power.conf) while c1 is still up,
#      then after spot_grace_s it is requeued, c1 is powered down
#      (POWER_DOWN_FORCE -> SuspendProgram), and the job runs again
#      (Restarts=1) and completes;
#   2. a launch that "succeeds" but whose node never registers (c2's slurmd
#      replaced once by a process that never contacts slurmctld): after
#      ResumeTimeout (shortened to 20 s here) Slurm runs the ResumeFailProgram,
#      slo-power resume-fail stops it and forces c2 down, c2 is idle~ again
#      (not down~) and the job that asked for it runs there;
#   3. no drained or down node, every daemon stops.
. "$SLO_SRCDIR/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
cluster_require_slurm
[ -n "$(cluster_slo_power)" ] || cluster_skip "slo-power not built"
W=$SLO_BUILDDIR/power/slo-spot-watch
[ -x "$W" ] || cluster_skip "$W not built"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || cluster_skip "no python3 for the stand-in metadata service"
CLUSTER_RESUME_TIMEOUT=20
t_start=$(date +%s)
cluster_start
D=$CLUSTER_DIR
plog=$D/log/slo-power.log
echo "# cluster up in $(( $(date +%s) - CLUSTER_T_LOCKED )) s after $(( CLUSTER_T_LOCKED - t_start )) s waiting for the lock: $D"
cloud_state() { sinfo -h -N -n "$1" -o '%T' 2>/dev/null | head -n 1; }

# The stand-in metadata service, and the site's spot settings in the
# cluster's slo-power.conf (where slo-spot-watch finds it, beside slurm.conf).
S=$D/imds
mkdir -p "$S"
"$PY" "$SLO_SRCDIR/tests/power/imds-standin.py" "$S" 2>"$D/log/imds-standin.err" &
spid=$!
wpid=
trap 'kill $spid $wpid 2>/dev/null; cluster_stop >/dev/null; rm -rf "$tmp"' EXIT
cluster_wait '[ -s "$S/port" ]' 300 || { notok "stand-in metadata service did not start"; finish; exit 1; }
cat >>"$D/etc/slo-power.conf" <<EOF
spot_signal=USR1
spot_grace_s=8
imds_endpoint=http://127.0.0.1:$(cat "$S/port")
EOF

# The local provider's slurmd, through a wrapper: a node with a
# never-register-NODE marker gets (once) a process that never registers.
mkdir -p "$D/fakebin"
cat >"$D/fakebin/slurmd" <<EOF
#!/bin/sh
for a; do node=\$a; done
if [ -e "$D/never-register-\$node" ]; then
    rm -f "$D/never-register-\$node"
    echo "fake slurmd for \$node: never registers"
    trap 'exit 0' TERM
    while :; do sleep 0.2; done
fi
exec $(command -v slurmd) "\$@"
EOF
chmod 755 "$D/fakebin/slurmd"
sed -i "s|^slurmd=.*|slurmd=$D/fakebin/slurmd|" "$D/etc/slo-power.conf"

# ---- 1. interruption notice -> SIGUSR1 to the job on c1 -> requeue
cat >"$D/spot-job.sh" <<'EOF'
#!/bin/sh
echo "start restart=${SLURM_RESTART_COUNT:-0} node=$SLURMD_NODENAME"
if [ "${SLURM_RESTART_COUNT:-0}" -ge 1 ]; then echo done; exit 0; fi
trap 'echo "batch got USR1 at $(date +%s)"' USR1
srun -n1 sh -c 'trap "echo step got USR1; exit 0" USR1; echo step running; while :; do sleep 0.2; done' &
while :; do sleep 0.2; done
EOF
"$W" --node c1 --interval 0.5 --log "$D/log/spot-watch.log" >"$D/log/spot-watch.out" 2>&1 &
wpid=$!
t0=$(date +%s)
job=$(sbatch --parsable -p cloud-spot -w c1 --requeue --open-mode=append -o "$D/spot-%j.out" "$D/spot-job.sh" 2>"$tmp/err")
running=no
if [ -n "$job" ]; then
    end=$(( $(date +%s) + 120 ))
    while [ "$(date +%s)" -lt "$end" ]; do
        grep -q '^step running' "$D/spot-$job.out" 2>/dev/null && { running=yes; break; }
        sleep 0.3
    done
fi
if [ "$running" = yes ]; then
    ok "job $job runs on c1 (batch script and srun step), slo-spot-watch polling ($(( $(date +%s) - t0 )) s)"
    printf '{"action": "terminate", "time": "%s"}' "$(date -u -d "@$(( $(date +%s) + 120 ))" +%Y-%m-%dT%H:%M:%SZ)" >"$S/instance-action"
    t_notice=$(date +%s)
    # the watcher hands the node over and exits
    i=0
    while kill -0 "$wpid" 2>/dev/null && [ $i -lt 900 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$wpid" 2>/dev/null; then
        wrc=running
    else
        wait "$wpid"; wrc=$?
    fi
    wpid=
    rm -f "$S/instance-action"
    st=$(cluster_wait_job "$job" 180 'COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL')
    restarts=$(cluster_job_field "$job" Restarts)
    out=$D/spot-$job.out
    # the signal reached the batch script and the step while c1 was up: both
    # lines come before the second run's start
    first_start2=$(grep -n '^start restart=1' "$out" | head -n 1 | cut -d: -f1)
    usr1_b=$(grep -n '^batch got USR1' "$out" | head -n 1 | cut -d: -f1)
    usr1_s=$(grep -n '^step got USR1' "$out" | head -n 1 | cut -d: -f1)
    if [ "$wrc" = 0 ] && [ -n "$usr1_b" ] && [ -n "$usr1_s" ] && [ -n "$first_start2" ] &&
       [ "$usr1_b" -lt "$first_start2" ] && [ "$usr1_s" -lt "$first_start2" ]; then
        ok "the notice reached the job as SIGUSR1 (batch script and step) before c1 was taken"
    else
        cat "$out" "$D/log/spot-watch.log" >>"$tmp/err" 2>/dev/null
        notok "signal before the node was taken (watcher exit $wrc, USR1 lines ${usr1_b:-none}/${usr1_s:-none}, second start ${first_start2:-none})"
    fi
    t_usr1=$(sed -n 's/^batch got USR1 at //p' "$out" | head -n 1)
    if grep -q "sent SIGUSR1 to job $job" "$D/log/spot-watch.log" &&
       grep -q "requeued job $job" "$D/log/spot-watch.log" &&
       grep -q 'powered c1 down (POWER_DOWN_FORCE)' "$D/log/spot-watch.log" &&
       grep -q 'suspend provider=local node=c1' "$plog" &&
       [ "$st" = COMPLETED ] && [ "$restarts" = 1 ] && grep -qx done "$out"; then
        ok "after the 8 s grace: job $job requeued, c1 powered down by slo-power, the job ran again and completed (Restarts=1, signal $(( ${t_usr1:-0} - t_notice )) s after the notice, done $(( $(date +%s) - t_notice )) s after)"
    else
        cat "$out" "$D/log/spot-watch.log" "$plog" >>"$tmp/err" 2>/dev/null
        notok "requeue after the notice: state $st, Restarts=$restarts"
    fi
else
    cat "$D/spot-$job.out" "$D/log/spot-watch.out" >>"$tmp/err" 2>/dev/null
    notok "job ${job:-none} never ran on c1"
    [ -n "$job" ] && scancel "$job"
    kill "$wpid" 2>/dev/null; wpid=
fi

# ---- 2. a node that never registers is usable again after ResumeFailProgram
: >"$D/never-register-c2"
t0=$(date +%s)
job2=$(sbatch --parsable -p cloud-spot -w c2 --requeue -o "$D/fail-%j.out" --wrap 'echo ran on $SLURMD_NODENAME' 2>"$tmp/err")
if [ -n "$job2" ]; then
    # ResumeTimeout (20 s), then the ResumeFailProgram
    if cluster_wait 'grep -q "resume-fail provider=local node=c2: info: did not register within ResumeTimeout: released and powered down" "$plog" 2>/dev/null' 1200; then
        ok "c2 never registered: after ResumeTimeout slo-power resume-fail released it and forced it down ($(( $(date +%s) - t0 )) s)"
    else
        cat "$plog" >>"$tmp/err" 2>/dev/null; sinfo -N >>"$tmp/err" 2>&1
        notok "no resume-fail for c2 within 120 s (c2: $(cloud_state c2))"
    fi
    st=$(cluster_wait_job "$job2" 240 'COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL')
    if [ "$st" = COMPLETED ] && grep -qx 'ran on c2' "$D/fail-$job2.out" 2>/dev/null; then
        ok "c2 usable again: job $job2 ran on it after the failed launch (Restarts=$(cluster_job_field "$job2" Restarts), $(( $(date +%s) - t0 )) s)"
    else
        cat "$D/fail-$job2.out" "$plog" >>"$tmp/err" 2>/dev/null; sinfo -N -R >>"$tmp/err" 2>&1
        notok "job $job2 on c2 after the failed launch: $st (c2: $(cloud_state c2))"
        [ -n "$job2" ] && scancel "$job2"
    fi
else
    notok "submission to c2"
fi

# ---- 3. health and teardown
if cluster_wait '[ "$(cloud_state c1)" = idle~ ] && [ "$(cloud_state c2)" = idle~ ]' 1800; then
    ok "c1 and c2 powered down again (idle~)"
else
    { scontrol show node c1,c2; squeue -a; } >"$tmp/err" 2>&1
    notok "cloud nodes: c1 $(cloud_state c1), c2 $(cloud_state c2)"
fi
if cluster_check_health >"$tmp/out" 2>&1; then
    ok "no drained or down node, no fatal/segfault in the logs"
else
    : >"$tmp/err"; notok "cluster health"
fi
kill "$spid" 2>/dev/null
if cluster_stop >"$tmp/out" 2>&1; then ok "teardown: every daemon stopped on TERM"; else : >"$tmp/err"; notok "teardown"; fi
echo "# wall time $(( $(date +%s) - t_start )) s, $(( $(date +%s) - CLUSTER_T_LOCKED )) s of it holding the cluster"
finish
