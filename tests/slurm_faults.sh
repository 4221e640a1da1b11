#!/bin/sh
# slurm_faults.sh - faults around planned jobs on the single-host test
# cluster (issue 14 "Faults"; tests/slurm/cluster.sh), with spank_slo.so
# `required` (catalog a copy in the cluster directory) and job_submit.lua.
# Documented outcomes (doc/slurm.md "Faults"):
#   1. slurmctld restarted (TERM, then started again from its saved state)
#      while planned jobs are pending (in between, a planned sbatch fails in
#      the plugin's inventory read, exit 1, no job): every job is still there with the same
#      partition, features, time limit and plan mark (AdminComment); a user's
#      scontrol update is still refused (the plan is in the saved job state);
#      a released job runs and sees its plan as SLO_*;
#   2. munge stopped before a planned submission: sbatch fails with the
#      authentication error (no signal, no job); munge started again, the
#      same submission goes through;
#   3. the catalog changed while a planned job is pending: the pending job
#      keeps the plan it was submitted with (and runs with it), the next
#      submission is planned with the new catalog; a corrupt catalog fails
#      new planned submissions naming the file and leaves the pending job alone;
#   4. no lost job, no drained node, no crash in any daemon log.
. "$SLO_SRCDIR/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
cluster_require_slurm
command -v setpriv >/dev/null 2>&1 || cluster_skip "setpriv not found (util-linux)"
spank=${SLO_SPANK_SO:-$SLO_BUILDDIR/spank_plugin/.libs/spank_slo.so}
fix=$SLO_SRCDIR/tests/slurm
[ -e "$spank" ] || cluster_skip "spank_slo.so not built"
spank=$(cluster_private_copy "$spank") || { echo "not ok - copy of spank_slo.so"; exit 1; }
fix=$(cluster_private_fixtures "$fix") || { echo "not ok - copy of the fixtures"; exit 1; }
CLUSTER_POWER=standin
CLUSTER_PLUGSTACK="required $spank catalog=$fix/catalog.json workloads=$fix/workloads mode=enforce"
cluster_start
D=$CLUSTER_DIR
cp "$fix/catalog.json" "$D/catalog.json"
printf 'required %s catalog=%s workloads=%s mode=enforce\n' "$spank" "$D/catalog.json" "$fix/workloads" \
    >"$D/etc/plugstack.conf"
U=$D/user
mkdir -p "$U" && chown 65534:65534 "$U"
as_user() { cluster_as_user "$U" "$@"; }
SLO_ARGS="--slo-workload=testnet --slo-loss=0.8"
view() { # JOB -> what the plan set, as scontrol shows it
    echo "$(cluster_job_field "$1" Partition) $(cluster_job_field "$1" Features) $(cluster_job_field "$1" TimeLimit) $(cluster_job_field "$1" AdminComment)"
}

# ---- 1. slurmctld restart with planned jobs pending
jobs=
for t in 40:00 25:00 23:00; do
    j=$(as_user sbatch --parsable $SLO_ARGS --slo-time=$t --hold -o /dev/null --wrap true 2>>"$tmp/err")
    jobs="$jobs ${j%%;*}"
done
before=$(for j in $jobs; do echo "$j $(view "$j")"; done)
echo "$before" | sed 's/^/# pending: /'
pid=$(cat "$D/run/slurmctld.pid")
kill -TERM "$pid"
cluster_wait '! kill -0 '"$pid"' 2>/dev/null' 300 || { echo "not ok - slurmctld did not stop"; exit 1; }
# while it is down, a planned submission fails in the plugin (no crash, no job)
as_user sbatch --parsable $SLO_ARGS --slo-time=40:00 --hold -o /dev/null --wrap true >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -ge 1 ] && [ "$rc" -lt 128 ] && grep -q 'spank_slo: cannot read the node inventory' "$tmp/err"; then
    ok "slurmctld down: a planned sbatch fails (exit $rc): $(grep -m1 'spank_slo' "$tmp/err" | cut -c1-90)"
else
    notok "planned sbatch with slurmctld down (exit $rc)"
fi
slurmctld >"$D/log/slurmctld-restart.out" 2>&1
if cluster_wait 'scontrol ping 2>/dev/null | grep -q UP' 300; then
    ok "slurmctld restarted from its saved state with $(echo $jobs | wc -w) planned jobs pending"
else
    notok "slurmctld restart"; cluster_dump_logs; exit 1
fi
after=$(for j in $jobs; do echo "$j $(view "$j")"; done)
if [ "$after" = "$before" ] && ! echo "$after" | grep -q ' (null)\| UNLIMITED'; then
    ok "after the restart every pending job has its plan: $(echo "$after" | head -1)"
else
    printf '%s\n---\n%s\n' "$before" "$after" >"$tmp/out"; : >"$tmp/err"; notok "jobs after the restart"
fi
j1=$(echo $jobs | cut -d' ' -f1)
as_user scontrol update jobid="$j1" Partition=admin >"$tmp/out" 2>"$tmp/err"
[ $? != 0 ] && grep -q 'Access/permission denied' "$tmp/err" &&
    ok "after the restart a user's scontrol update Partition=admin is still refused" ||
    notok "scontrol update after the restart"
scontrol release "$j1"
st=$(cluster_wait_job "$j1" 60 'COMPLETED|FAILED|CANCELLED')
[ "$st" = COMPLETED ] && ok "a job released after the restart runs (state $st)" || notok "released job $j1: ${st:-none}"
j=$(as_user sbatch --parsable $SLO_ARGS --slo-time=40:00 -o "$U/after-%j.out" --wrap 'echo "SLO_PLAN=$SLO_PLAN"' 2>"$tmp/err")
j=${j%%;*}
st=$(cluster_wait_job "$j" 60 'COMPLETED|FAILED|CANCELLED')
grep -qx 'SLO_PLAN=a100-node:1' "$U/after-$j.out" 2>/dev/null &&
    ok "a new planned job after the restart sees SLO_PLAN=a100-node:1" ||
    { cp "$U/after-$j.out" "$tmp/out" 2>/dev/null; notok "planned job after the restart (state ${st:-none})"; }

# ---- 2. munge stopped before a planned submission
n0=$(squeue -h | wc -l)
mpid=$(cat "$D/run/munged.pid")
kill -TERM "$mpid"
cluster_wait '! kill -0 '"$mpid"' 2>/dev/null' 100
as_user sbatch --parsable $SLO_ARGS --slo-time=40:00 --hold -o /dev/null --wrap true >"$tmp/out" 2>"$tmp/err"
rc=$?
munged --key-file="$D/munge/munge.key" --socket="$D/run/munge.socket" --pid-file="$D/run/munged.pid" \
    --log-file="$D/log/munged.log" --seed-file="$D/munge/munged.seed" || { echo "not ok - munged restart"; exit 1; }
if [ "$rc" -ge 1 ] && [ "$rc" -lt 128 ] && grep -qi 'munge\|authentication\|credential' "$tmp/err" &&
   [ "$(squeue -h | wc -l)" = "$n0" ]; then
    ok "munge stopped: sbatch --slo-* fails with exit $rc and the authentication error, no job: $(grep -m1 -i 'munge\|auth' "$tmp/err" | cut -c1-80)"
else
    notok "sbatch without munge (exit $rc)"
fi
cluster_wait 'as_user sbatch --parsable $SLO_ARGS --slo-time=40:00 --hold -o /dev/null --wrap true >"$tmp/out" 2>"$tmp/err"' 100
j=$(sed -n '1{s/;.*//;p;}' "$tmp/out")
[ -n "$j" ] && [ "$(cluster_job_field "$j" Features)" = a100-node ] &&
    ok "munge back: the same submission is planned (job $j, a100-node)" || notok "submission after munge restart"
[ -n "$j" ] && scancel "$j"

# ---- 3. the catalog changed while a planned job is pending
jp=$(as_user sbatch --parsable $SLO_ARGS --slo-time=40:00 --hold -o "$U/cat-%j.out" --wrap 'echo "SLO_PLAN=$SLO_PLAN"' 2>"$tmp/err")
jp=${jp%%;*}
old=$(view "$jp")
# the site drops a100-node from its catalog: the same SLO then needs other nodes
jq '.types |= map(select(.name != "a100-node"))' "$fix/catalog.json" >"$D/catalog.json.new" &&
    mv "$D/catalog.json.new" "$D/catalog.json"
jn=$(as_user sbatch --parsable $SLO_ARGS --slo-time=40:00 --hold -o /dev/null --wrap true 2>"$tmp/err")
jn=${jn%%;*}
if [ "$(view "$jp")" = "$old" ] && [ -n "$jn" ] && [ "$(cluster_job_field "$jn" Features)" != a100-node ] &&
   [ "$(cluster_job_field "$jn" Features)" != "(null)" ]; then
    ok "catalog without a100-node: pending job $jp keeps $(cluster_job_field "$jp" Features), the next is planned $(cluster_job_field "$jn" Features)"
else
    echo "pending: $old -> $(view "$jp"); new: $(view "${jn:-0}")" >"$tmp/out"; notok "catalog changed while pending"
fi
printf '{"name": "broken", "types": [\n' >"$D/catalog.json"
as_user sbatch --parsable $SLO_ARGS --slo-time=40:00 --hold -o /dev/null --wrap true >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" != 0 ] && grep -q "$D/catalog.json" "$tmp/err" && [ "$(view "$jp")" = "$old" ] &&
    ok "corrupt catalog: a new planned submission fails naming $D/catalog.json, the pending job is unchanged" ||
    notok "corrupt catalog (exit $rc)"
scontrol release "$jp"
st=$(cluster_wait_job "$jp" 60 'COMPLETED|FAILED|CANCELLED')
grep -qx 'SLO_PLAN=a100-node:1' "$U/cat-$jp.out" 2>/dev/null &&
    ok "the pending job, released after the catalog changes, runs with its own plan (SLO_PLAN=a100-node:1)" ||
    { cp "$U/cat-$jp.out" "$tmp/out" 2>/dev/null; notok "released job $jp (state ${st:-none})"; }
scancel --user=65534 2>/dev/null

# ---- 4. afterwards
lost=0
for j in $jobs; do
    scontrol show job "$j" >/dev/null 2>&1 || lost=$((lost + 1))
done
[ "$lost" = 0 ] && ok "no lost job (all $(echo $jobs | wc -w) pending jobs of the restart still known)" || notok "$lost jobs lost"
if cluster_check_health >"$tmp/out" 2>&1; then ok "no drained or down node, no crash in the daemon logs"; else : >"$tmp/err"; notok "cluster health"; fi
cluster_stop >/dev/null 2>&1 && ok "teardown" || notok "teardown"
finish
