#!/bin/sh
# slurm_harden.sh - what a user cannot talk a planned job into (issue 14), on
# the single-host Slurm test cluster (tests/slurm/cluster.sh), with
# spank_slo.so `required` and etc/slurm/job_submit.lua; the user is uid
# 65534 (nobody), the admin uid 0 (SlurmUser of the test cluster):
#   1. the time limit of an enforced plan: ceil(deadline / 60) + 5 min
#      (SITE.time_limit_grace_min) - 40:00 -> 00:45:00, also for a user's
#      --time=365-0; a shorter --time=30 stays;
#   2. scontrol update Partition=admin Features=t4-node Gres=gpu:1 of a held
#      planned job: refused for the user (Access/permission denied, nothing
#      changed), allowed for root; the same update of an unplanned job of
#      the user is Slurm's usual business (allowed);
#   3. sbatch --export=ALL,SLURM_SPANK_SLO_*=... on a job without a plan,
#      matching the allocation it asked for: the job sees no SLO_* and no
#      SLURM_SPANK_SLO_*; a real plan's job does see SLO_PLAN (control);
#   4. a plain nested sbatch inside a planned job: not planned, not resized,
#      and it does not inherit the parent's SLO_*; a nested sbatch with its
#      own --slo-* is planned;
#   5. records: an all-on-prem plan says SLO_PRICING=on-prem;
#   6. submission forms: #SBATCH --slo-* lines and a job array are planned
#      and limited like --wrap; a heterogeneous job with a plan is refused;
#   7. no drained node, no crash.
. "$SLO_SRCDIR/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
cluster_require_slurm
command -v setpriv >/dev/null 2>&1 || cluster_skip "setpriv not found (util-linux): needed to submit as a user"
spank=${SLO_SPANK_SO:-$SLO_BUILDDIR/spank_plugin/.libs/spank_slo.so}
fix=$SLO_SRCDIR/tests/slurm
[ -e "$spank" ] || cluster_skip "spank_slo.so not built"
spank=$(cluster_private_copy "$spank") || { echo "not ok - copy of spank_slo.so"; exit 1; }
fix=$(cluster_private_fixtures "$fix") || { echo "not ok - copy of the fixtures"; exit 1; }
CLUSTER_PLUGSTACK="required $spank catalog=$fix/catalog.json workloads=$fix/workloads mode=enforce"
CLUSTER_POWER=standin
cluster_start
D=$CLUSTER_DIR
U=$D/user
mkdir -p "$U" && chown 65534:65534 "$U"
SLO_ARGS="--slo-workload=testnet --slo-loss=0.8 --slo-time=40:00"

as_user() { cluster_as_user "$U" "$@"; }
# submit [as_user] ARGS...: sbatch --parsable; rc, job, $tmp/out, $tmp/err
submit() { cluster_submit "$@"; }
field() { cluster_job_field "$job" "$1"; }

# ---- 1. time limit from the plan
for t in "" "--time=365-0:00:00" "--time=30"; do
    # shellcheck disable=SC2086
    submit as_user sbatch --parsable $SLO_ARGS $t --hold -o /dev/null --wrap true
    want=00:45:00; [ "$t" = --time=30 ] && want=00:30:00
    if [ "$rc" = 0 ] && [ "$(field TimeLimit)" = "$want" ] && [ "$(field Features)" = a100-node ]; then
        ok "enforced plan 0.8 in 40:00 ${t:-(no --time)}: TimeLimit=$want"
    else
        notok "time limit ${t:-(no --time)}: $(field TimeLimit), want $want (exit $rc)"
    fi
    [ -z "$t" ] && held=$job
done

# ---- 2. scontrol update of a held planned job: user refused, admin allowed
req() { echo "$(cluster_job_field "$1" Partition) $(cluster_job_field "$1" Features) $(cluster_job_field "$1" TresPerNode)"; }
before=$(req "$held")
as_user scontrol update jobid="$held" Partition=admin Features=t4-node Gres=gpu:1 >"$tmp/out" 2>"$tmp/err"
urc=$?
if [ "$urc" != 0 ] && grep -q 'Access/permission denied' "$tmp/err" && [ "$(req "$held")" = "$before" ] &&
   grep -q "slo: uid 65534: job $held: refused" "$D/log/slurmctld.log"; then
    ok "user: scontrol update Partition=admin Features=t4-node Gres=gpu:1 refused, job unchanged ($before)"
else
    notok "user update of planned job $held (exit $urc): $(req "$held"), was $before"
fi
for u in "Partition=onprem" "TimeLimit=20"; do
    as_user scontrol update jobid="$held" "$u" >"$tmp/out" 2>"$tmp/err"
    [ $? = 0 ] && ok "user: scontrol update $u (no more than the plan) allowed" || notok "user update $u"
done
as_user scontrol update jobid="$held" TimeLimit=2:00:00 >"$tmp/out" 2>"$tmp/err"
[ $? != 0 ] && [ "$(cluster_job_field "$held" TimeLimit)" = 00:20:00 ] &&
    ok "user: scontrol update TimeLimit=2:00:00 (more than the plan) refused" || notok "user TimeLimit increase"
scontrol update jobid="$held" Partition=admin Features=t4-node Gres=gpu:1 >"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && [ "$(req "$held")" = "admin t4-node gres:gpu:1" ]; then
    ok "root: the same update allowed: $(req "$held")"
else
    notok "root update of planned job $held: $(req "$held")"
fi
submit as_user sbatch --parsable -p onprem --hold -o /dev/null --wrap true
as_user scontrol update jobid="$job" Partition=admin Features=t4-node >"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && [ "$(field Partition) $(field Features)" = "admin t4-node" ]; then
    ok "user: the same update of an unplanned job allowed (the rule is the plan's)"
else
    notok "user update of unplanned job $job: $(field Partition) $(field Features)"
fi
scancel --user=65534 2>/dev/null; scancel "$held" 2>/dev/null

# ---- 3. --export forgery, matching the allocation the job asks for
F=SLURM_SPANK_SLO_PLAN_VERSION=1,SLURM_SPANK_SLO_MODE=enforce,SLURM_SPANK_SLO_PARTITION=onprem,SLURM_SPANK_SLO_NODES=1,SLURM_SPANK_SLO_CONSTRAINT=a100-node,SLURM_SPANK_SLO_INSTANCES=a100-node:1,SLURM_SPANK_SLO_TIME_S=1
# the plan's variables (doc/slurm.md "The recorded plan"), not the SLO_* of make check
PLANVARS='(SLO_(PLAN|PLAN_VERSION|MODE|PARTITION|NODES|INSTANCES|CONSTRAINT|GRES|SPOT|PRICING|COST_USD|COST_USD_PER_H|TIME_S|DEADLINE_S|LOSS|ITERATIONS|WORKERS|WORKLOAD)|SLURM_SPANK_SLO_[A-Z_]*|SLURM_SPANK__SLURM_SPANK_OPTION_slo_[a-z_]*)='
envcmd="env | grep -E '^$PLANVARS' | cut -d= -f1 | sort | paste -sd' ' -; srun -n1 sh -c \"env | grep -cE '^(SLO_PLAN|SLURM_SPANK_SLO_PLAN_VERSION)='\" | sed 's/^/step: /'"
submit as_user sbatch --parsable -p onprem -N1 -C a100-node --gres=gpu:2 --export="ALL,$F" -o "$U/forge-%j.out" --wrap "$envcmd"
st=$( [ -n "$job" ] && cluster_wait_job "$job" 60 'COMPLETED|FAILED|CANCELLED')
out=$U/forge-$job.out
if [ "$st" = COMPLETED ] && [ "$(sed -n 1p "$out")" = "" ] && grep -qx 'step: 0' "$out" &&
   grep -q "spank_slo: SLURM_SPANK_SLO_\* not exported as SLO_\*: job $job's AdminComment" "$D"/log/slurmd-n1.log; then
    ok "--export=SLURM_SPANK_SLO_*: the job and its steps see no SLO_* and no SLURM_SPANK_SLO_* (slurmd log says why)"
else
    cp "$out" "$tmp/out" 2>/dev/null; : >"$tmp/err"; notok "--export forgery (state ${st:-none})"
fi
submit as_user sbatch --parsable $SLO_ARGS -o "$U/real-%j.out" --wrap "$envcmd"
st=$( [ -n "$job" ] && cluster_wait_job "$job" 60 'COMPLETED|FAILED|CANCELLED')
out=$U/real-$job.out
if [ "$st" = COMPLETED ] && grep -q 'SLO_PLAN SLO_PLAN_VERSION' "$out" && grep -qx 'step: 2' "$out" &&
   grep -qw SLO_PRICING "$out"; then
    ok "control: a real plan's job sees SLO_PLAN and SLURM_SPANK_SLO_* (batch and step)"
else
    cp "$out" "$tmp/out" 2>/dev/null; : >"$tmp/err"; notok "real plan environment (state ${st:-none})"
fi

# ---- 4. nested sbatch inside a planned job
nested="env | grep -E '^(SLO_PRICING|SLO_PLAN)=' | sort
sbatch --parsable --hold -o /dev/null --wrap true >nested-plain.id 2>nested-plain.err
sbatch --parsable --hold -o nested-env.out --wrap \"env | grep -E '^$PLANVARS'; echo done\" >nested-env.id 2>&1
sbatch --parsable --hold -o /dev/null --slo-workload=testnet --slo-loss=0.8 --slo-time=25:00 --wrap true >nested-slo.id 2>nested-slo.err"
submit as_user sbatch --parsable $SLO_ARGS -o "$U/parent-%j.out" --wrap "$nested"
st=$( [ -n "$job" ] && cluster_wait_job "$job" 60 'COMPLETED|FAILED|CANCELLED')
parent=$job
if [ "$st" = COMPLETED ] && grep -qx 'SLO_PRICING=on-prem' "$U/parent-$parent.out"; then
    ok "records: the all-on-prem plan a100-node:1 says SLO_PRICING=on-prem"
else
    cp "$U/parent-$parent.out" "$tmp/out" 2>/dev/null; : >"$tmp/err"; notok "SLO_PRICING of an on-prem plan"
fi
job=$(sed 's/;.*//' "$U/nested-plain.id" 2>/dev/null)
if [ -n "$job" ] && [ "$(field Features)" = "(null)" ] && [ "$(field NumNodes)" = 1 ] &&
   [ "$(field Partition)" = onprem ] && [ "$(field TimeLimit)" = UNLIMITED ] &&
   [ "$(field AdminComment)" = "" ] && ! grep -q 'spank_slo' "$U/nested-plain.err"; then
    ok "nested plain sbatch in planned job $parent: not planned, not resized ($(field Partition), 1 node, no features)"
else
    cp "$U/nested-plain.err" "$tmp/err" 2>/dev/null; : >"$tmp/out"
    notok "nested plain sbatch (job ${job:-none}: $(field Partition) $(field NumNodes) $(field Features) $(field TimeLimit))"
fi
job=$(sed 's/;.*//' "$U/nested-slo.id" 2>/dev/null)
if [ -n "$job" ] && [ "$(field Features)" != "(null)" ] && [ "$(field TimeLimit)" = 00:30:00 ]; then
    ok "nested sbatch with its own --slo-* (0.8 in 25:00): planned, $(field Features), TimeLimit 00:30:00"
else
    notok "nested sbatch --slo-* (job ${job:-none}: $(field Features) $(field TimeLimit))"
fi
# the nested job without --slo-* that runs: no inherited plan or option
envjob=$(sed 's/;.*//' "$U/nested-env.id" 2>/dev/null)
[ -n "$envjob" ] && scontrol release "$envjob" 2>/dev/null
st=$( [ -n "$envjob" ] && cluster_wait_job "$envjob" 60 'COMPLETED|FAILED|CANCELLED')
if [ "$st" = COMPLETED ] && [ "$(cat "$U/nested-env.out")" = done ]; then
    ok "nested plain job: no SLO_*, SLURM_SPANK_SLO_* or --slo-* option inherited from job $parent"
else
    cp "$U/nested-env.out" "$tmp/out" 2>/dev/null; : >"$tmp/err"; notok "nested job environment (state ${st:-none})"
fi
scancel --user=65534 2>/dev/null

# ---- 6. submission forms: #SBATCH lines, a job array, a heterogeneous job
cat >"$U/job.sh" <<'EOF'
#!/bin/sh
#SBATCH --slo-workload=testnet
#SBATCH --slo-loss=0.8
#SBATCH --slo-time=40:00
#SBATCH --hold
#SBATCH -o /dev/null
true
EOF
chmod 755 "$U/job.sh"
submit as_user sbatch --parsable job.sh
if [ "$rc" = 0 ] && [ "$(field Features)" = a100-node ] && [ "$(field TimeLimit)" = 00:45:00 ]; then
    ok "#SBATCH --slo-* lines: planned like --wrap (a100-node, 00:45:00)"
else
    notok "#SBATCH --slo-* lines (exit $rc: $(field Features) $(field TimeLimit))"
fi
submit as_user sbatch --parsable --array=1-3 $SLO_ARGS --hold -o /dev/null --wrap true
if [ "$rc" = 0 ] && [ "$(squeue -h -r -j "$job" -o '%f %l' | sort -u)" = "a100-node 45:00" ] &&
   [ "$(squeue -h -r -j "$job" | wc -l)" = 3 ]; then
    ok "job array 1-3 with --slo-*: every task a100-node, 45:00"
else
    squeue -r -j "$job" -o '%i %f %l' >"$tmp/out" 2>&1; notok "job array (exit $rc)"
fi
printf '#!/bin/sh\ntrue\n' >"$U/het.sh"
submit as_user sbatch --parsable $SLO_ARGS --hold -o /dev/null : -n1 het.sh
if [ "$rc" != 0 ] && grep -q 'heterogeneous job' "$tmp/err"; then
    ok "heterogeneous job with --slo-*: refused naming it"
else
    notok "heterogeneous job (exit $rc, job ${job:-none})"
fi
scancel --user=65534 2>/dev/null

# ---- 7. afterwards
if cluster_check_health >"$tmp/out" 2>&1; then ok "no drained or down node, no crash"; else : >"$tmp/err"; notok "cluster health"; fi
cluster_stop >/dev/null 2>&1 && ok "teardown" || notok "teardown"
finish
