#!/bin/sh
# slurm_submit.sh - sbatch --slo-* on a real single-host Slurm cluster
# (issue 6 "What it must show"; cluster: tests/slurm/cluster.sh).
#   1. an SLO plan becomes the allocation: scontrol show job's Partition,
#      NumNodes, Features, TresPerNode equal what `slo train --max-nodes N`
#      ($SLO: the same slo_train_solve call through the CLI) plans for the
#      same catalog, workload and live inventory (quotas = usable nodes per
#      instance type in scontrol show nodes, the plugin's rule; N = the
#      plugin's max_nodes), for an on-prem SLO, one that bursts to cloud
#      nodes and, with max_nodes=2, one within the limit and one it makes
#      infeasible (same closest plan); and the job sees the SLO_* variables;
#   2. --slo-mode=advise prints the plan and leaves the request as it was;
#   3. bad input: malformed option values, an infeasible SLO (enforce: fails
#      with the reason and the fastest plan; advise: warns), a missing or
#      corrupt catalog with the plugin optional (warns, job runs) or required
#      (fails), forged plans without spank_slo.so (rejected by job_submit.lua);
#   4. the MPI programs under srun --mpi=pmix (issue 5), when built;
#   5. afterwards no crash, no drained node, every daemon stops.
# Development overrides (default: this build): SLO_SPANK_SO, SLO_SLURM_FIXTURES
# (directory with catalog.json and workloads/), SLO_MPIPROF, SLO_TRAIN_DEMO.
. "$SLO_SRCDIR/tests/testlib.sh"
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
cluster_require_slurm

spank=${SLO_SPANK_SO:-$SLO_BUILDDIR/spank_plugin/.libs/spank_slo.so}
fix=${SLO_SLURM_FIXTURES:-$SLO_SRCDIR/tests/slurm}
forge=$SLO_BUILDDIR/tests/slurm/.libs/forge_spank.so
[ -e "$forge" ] || cluster_skip "test plugin $forge not built (configure found no slurm/spank.h)"
have_spank=no
if [ -e "$spank" ] && [ -e "$fix/catalog.json" ] && [ -d "$fix/workloads" ]; then
    have_spank=yes
    spank=$(cluster_private_copy "$spank") || { echo "not ok - copy of spank_slo.so"; exit 1; }
    line="required $spank catalog=$fix/catalog.json workloads=$fix/workloads mode=enforce"
    CLUSTER_PLUGSTACK="$line
optional $forge"
else
    echo "# spank_slo.so ($spank) or its fixtures ($fix) absent: plugin checks not run"
    CLUSTER_PLUGSTACK="optional $forge"
fi
CLUSTER_POWER=${CLUSTER_POWER:-slo-power}
[ -n "$(cluster_slo_power)" ] || CLUSTER_POWER=standin   # cloud nodes are not used here
t_start=$(date +%s)
cluster_start
D=$CLUSTER_DIR
echo "# cluster up in $(( $(date +%s) - CLUSTER_T_LOCKED )) s after $(( CLUSTER_T_LOCKED - t_start )) s waiting for the lock: $D"

# sbatch ARGS... with stdout/stderr in $tmp/out, $tmp/err; sets rc and job
submit() { cluster_submit sbatch --parsable "$@"; }
# forged WORDS ARGS...: submit with SLO_TEST_FORGE=WORDS (the test plugin's plan)
forged() {
    words=$1; shift
    cluster_submit env "SLO_TEST_FORGE=$words" sbatch --parsable "$@"
}
njobs() { squeue -h -o %i 2>/dev/null | wc -l; }
field() { cluster_job_field "$job" "$1"; }
# the plans' requests: cluster_expected_request, cluster_job_request (cluster.sh)

if [ "$have_spank" = yes ]; then
    command -v jq >/dev/null 2>&1 || cluster_skip "jq not found (Debian: jq): needed to compare with slo train --json"
    # ---- live inventory -> the CLI's catalog. The catalog file's quotas are
    # upper bounds (g4dn.12xlarge: 10) that spank_slo.so lowers to the nodes
    # it sees, so the CLI gets a catalog built from what the plugin saw:
    # `scontrol -o show nodes` read with the plugin's rule
    # (spank_plugin/plan.h sslo_inventory_count / sslo_node_usable): a node
    # counts for type T when its available features hold T, its state is
    # usable (not DOWN, DRAIN, FAIL, FUTURE, INVALID_REG; not UNKNOWN or
    # not responding unless powered down / powering up: CLOUD capacity the
    # ResumeProgram starts), and it is in a partition a plan holding T may
    # go to (on-prem types: onprem or burst; cloud types under spot pricing:
    # cloud-spot or burst, and not an "ondemand"-only node). quota =
    # min(catalog quota, those nodes). The plugin's max_nodes is the CLI's
    # --max-nodes.
    scontrol -o show nodes >"$tmp/nodes"
    jq -r '.types[] | "\(.name) \(.site // "cloud")"' "$fix/catalog.json" >"$tmp/types"
    inv=$(cluster_usable_inventory "$tmp/types" "$tmp/nodes")
    jq --argjson inv "$inv" '.types |= map(.quota = ([.quota, ($inv[.name] // 0)] | min))' \
        "$fix/catalog.json" >"$D/catalog-live.json"
    echo "# usable nodes by instance type (scontrol show nodes, the plugin's rule): $inv"
    max_nodes=64   # the plugin's default (no max_nodes= in plugstack.conf above)

    for case in "onprem 40:00" "burst 23:00"; do
        set -- $case; kind=$1; t=$2
        # ---- what the kernel plans through the CLI
        "$SLO" train --catalog "$D/catalog-live.json" --workload "$fix/workloads/testnet.json" \
            --slo-loss 0.8 --slo-time "$t" --max-nodes "$max_nodes" --json >"$tmp/cli.json" 2>"$tmp/cli.err"
        cli_plan=$(jq -c .plan "$tmp/cli.json" 2>/dev/null)
        cli_time=$(jq -r .time_s "$tmp/cli.json" 2>/dev/null)
        want=$(cluster_expected_request "$D/catalog-live.json" "${cli_plan:-null}" 2>/dev/null)
        echo "# slo train 0.8 in $t: plan $cli_plan, $cli_time s -> expect $want"
        hold=""
        [ "$kind" = burst ] && hold=--hold     # cloud power-up: tests/slurm_cloud.sh
        submit --slo-workload=testnet --slo-loss=0.8 --slo-time="$t" $hold -o "$D/job-%j.out" \
            --wrap 'env | grep "^SLO_" | sort; echo "nodes=$SLURM_JOB_NUM_NODES gpus=$SLURM_GPUS_ON_NODE"'
        if [ "$rc" = 0 ] && [ -n "$job" ]; then
            got=$(cluster_job_request "$job")
            if [ -n "$want" ] && [ "$got" = "$want" ] && [ "$(echo "$want" | cut -d' ' -f1)" = "$kind" ]; then
                ok "$kind SLO (0.8 in $t): job $job = slo train's plan: $got"
            else
                echo "scontrol: $got; slo train: $want" >>"$tmp/err"; notok "$kind SLO (0.8 in $t) allocation"
            fi
            grep -q 'spank_slo' "$tmp/err" && grep -q 'slo: request set by the SLO plan' "$tmp/err" &&
                ok "$kind: the user sees the plan table and job_submit.lua's decision" ||
                notok "$kind: plan not shown to the user"
        else
            notok "$kind SLO submission (exit $rc)"
        fi
        if [ "$kind" = onprem ] && [ -n "$job" ]; then
            st=$(cluster_wait_job "$job" 60 'COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL')
            out="$D/job-$job.out"
            # the job's view: SLO_* from spank_slo.so's remote context
            want_plan=$(echo "$cli_plan" | jq -r 'to_entries | map("\(.key):\(.value)") | join(",")')
            if [ "$st" = COMPLETED ] && grep -qx "SLO_PLAN=$want_plan" "$out" &&
               grep -qx "SLO_PARTITION=onprem" "$out" && grep -qx "SLO_MODE=enforce" "$out" &&
               grep -qx "SLO_NODES=$(echo "$want" | cut -d' ' -f2)" "$out" &&
               grep -q "^SLO_TIME_S=" "$out"; then
                ok "the job sees SLO_PLAN=$want_plan and the other SLO_* variables"
            else
                cp "$out" "$tmp/out" 2>/dev/null; notok "job environment (state $st)"
            fi
            slo_t=$(sed -n 's/^SLO_TIME_S=//p' "$out")
            if [ -n "$slo_t" ] && [ -n "$cli_time" ] &&
               awk -v a="$slo_t" -v b="$cli_time" 'BEGIN { d = a - b; exit !(d < 0.01 && d > -0.01) }'; then
                ok "predicted time: plugin $slo_t s = slo train $cli_time s"
            else
                notok "predicted time: plugin ${slo_t:-none}, slo train ${cli_time:-none}"
            fi
        fi
        [ "$kind" = burst ] && [ -n "$job" ] && scancel "$job"
    done

    # ---- the site's node limit: plugstack max_nodes=2 against slo train
    # --max-nodes 2 on the same live catalog. 0.8 in 25:00 fits in two
    # on-prem nodes (the same plan and allocation); 0.8 in 23:00 needs
    # three, so both refuse it and name the same fastest 2-node plan.
    printf '%s max_nodes=2\noptional %s\n' "$line" "$forge" >"$D/etc/plugstack.conf"
    "$SLO" train --catalog "$D/catalog-live.json" --workload "$fix/workloads/testnet.json" \
        --slo-loss 0.8 --slo-time 25:00 --max-nodes 2 --json >"$tmp/cli.json" 2>"$tmp/cli.err"
    want=$(cluster_expected_request "$D/catalog-live.json" "$(jq -c .plan "$tmp/cli.json" 2>/dev/null || echo null)" 2>/dev/null)
    submit --slo-workload=testnet --slo-loss=0.8 --slo-time=25:00 --hold -o /dev/null --wrap true
    if [ "$rc" = 0 ] && [ -n "$job" ] && [ -n "$want" ] && [ "$(cluster_job_request "$job")" = "$want" ]; then
        ok "max_nodes=2, 0.8 in 25:00: job $job = slo train --max-nodes 2: $want"
    else
        echo "scontrol: $(cluster_job_request "$job"); slo train --max-nodes 2: $want" >>"$tmp/err"
        notok "max_nodes=2, 0.8 in 25:00 (exit $rc)"
    fi
    [ -n "$job" ] && scancel "$job"
    "$SLO" train --catalog "$D/catalog-live.json" --workload "$fix/workloads/testnet.json" \
        --slo-loss 0.8 --slo-time 23:00 --max-nodes 2 --json >"$tmp/cli.json" 2>"$tmp/cli.err"
    cli_rc=$?
    # the CLI's closest plan in the plugin's type:count form, its time to 2 decimals
    fast=$(jq -r '.closest.plan | to_entries | map("\(.key):\(.value)") | join(",")' "$tmp/cli.json" 2>/dev/null)
    fast_t=$(jq -r '.closest.time_s * 100 | round / 100 | tostring' "$tmp/cli.json" 2>/dev/null)
    n0=$(njobs)
    submit --slo-workload=testnet --slo-loss=0.8 --slo-time=23:00 --hold -o /dev/null --wrap true
    if [ "$cli_rc" = 2 ] && [ "$rc" != 0 ] && [ "$(njobs)" = "$n0" ] && [ -n "$fast" ] &&
       jq -e '.status == "infeasible" and .closest_kind == "fastest"' "$tmp/cli.json" >/dev/null &&
       grep -q "fastest plan with the usable nodes (at most max_nodes=2 nodes), $fast, needs $fast_t" "$tmp/err"; then
        ok "max_nodes=2, 0.8 in 23:00: both refuse it, same fastest 2-node plan $fast ($fast_t s)"
    else
        echo "slo train --max-nodes 2 (exit $cli_rc): $fast $fast_t s" >>"$tmp/err"
        notok "max_nodes=2, 0.8 in 23:00 (exit $rc)"
    fi
    printf '%s\n' "$CLUSTER_PLUGSTACK" >"$D/etc/plugstack.conf"

    # ---- advise: the plan is printed, the request is the user's own
    submit -p onprem -N1 --hold -o /dev/null --wrap true
    base_job=$job; base="$(field Partition) $(field NumNodes) $(field Features) $(field TresPerNode) $(field Requeue)"
    submit --slo-mode=advise --slo-workload=testnet --slo-loss=0.8 --slo-time=23:00 -p onprem -N1 --hold \
        -o /dev/null --wrap true
    adv="$(field Partition) $(field NumNodes) $(field Features) $(field TresPerNode) $(field Requeue)"
    if [ "$rc" = 0 ] && [ "$adv" = "$base" ] && grep -q 'partition burst, 3 nodes' "$tmp/err" &&
       grep -q 'advise mode' "$tmp/err"; then
        ok "advise: plan printed (burst, 3 nodes), request unchanged: $adv"
    else
        echo "advise: $adv; without --slo-*: $base" >>"$tmp/err"; notok "advise mode (exit $rc)"
    fi
    scancel "$base_job" "$job" 2>/dev/null

    # ---- the user's own -w / --gpus next to an enforced plan (trial S2, S3):
    # rejected at submission naming the option, not left pending forever
    for u in "-w n2:--nodelist/-w" "--gpus=1:--gpus"; do
        o=${u%%:*}; name=${u#*:}
        n0=$(njobs)
        submit $o --slo-workload=testnet --slo-loss=0.8 --slo-time=40:00 --hold -o /dev/null --wrap true
        if [ "$rc" != 0 ] && [ -z "$job" ] && [ "$(njobs)" = "$n0" ] &&
           grep -q -- "slo: rejected: $name" "$tmp/err" && grep -q -- '--slo-mode=advise' "$tmp/err"; then
            ok "sbatch $o with an enforced plan rejected: $(grep -m1 'slo: rejected' "$tmp/err" | cut -c1-90)"
        else
            notok "sbatch $o with an enforced plan (exit $rc, job ${job:-none})"
            [ -n "$job" ] && scancel "$job"
        fi
    done

    # ---- where the job sees SLO_* and SLURM_SPANK_SLO_* (trial S10, spank_slo(8)
    # ENVIRONMENT), and srun --slo-* inside the allocation (trial S9)
    names='env | grep -Eo "^(SLO_PLAN|SLO_NODES|SLURM_SPANK_SLO_INSTANCES|SLURM_SPANK_SLO_NODES)=" | LC_ALL=C sort | paste -sd" " -'
    submit --slo-workload=testnet --slo-loss=0.8 --slo-time=40:00 -o "$D/env-%j.out" --wrap "
        echo \"batch: \$($names)\"
        srun -n1 sh -c '$names' | sed 's/^/step: /'
        srun -n1 --slo-loss=0.5 true 2>&1 | sed 's/^/srun-slo: /'
        srun -n1 true 2>&1 | sed 's/^/srun-plain: /'"
    st=$( [ -n "$job" ] && cluster_wait_job "$job" 90 'COMPLETED|FAILED|CANCELLED|TIMEOUT')
    out="$D/env-$job.out"
    sed 's/^/# sbatch job: /' "$out" 2>/dev/null
    if [ "$st" = COMPLETED ] && grep -q "^srun-slo: .*spank_slo: inside job $job: --slo-\* ignored for a job step" "$out" &&
       ! grep -q '^srun-plain: .*spank_slo' "$out"; then
        # (Slurm itself may say "step creation temporarily disabled, retrying"
        # while the previous step's node is released on a loaded host: not ours)
        ok "srun --slo-loss inside job $job: one note, plain srun silent"
    else
        cp "$out" "$tmp/out" 2>/dev/null; notok "srun --slo-* inside an allocation (state ${st:-none})"
    fi
    if grep -qx 'batch: SLO_NODES= SLO_PLAN= SLURM_SPANK_SLO_INSTANCES= SLURM_SPANK_SLO_NODES=' "$out" &&
       grep -qx 'step: SLO_NODES= SLO_PLAN= SLURM_SPANK_SLO_INSTANCES= SLURM_SPANK_SLO_NODES=' "$out"; then
        ok "sbatch: batch script and srun steps see SLO_* and SLURM_SPANK_SLO_*"
    else
        cp "$out" "$tmp/out" 2>/dev/null; notok "sbatch job environment (S10)"
    fi
    timeout 120 salloc --slo-workload=testnet --slo-loss=0.8 --slo-time=40:00 sh -c "
        echo \"shell: \$($names)\"
        srun -n1 sh -c '$names' | sed 's/^/step: /'" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    sed 's/^/# salloc: /' "$tmp/out"
    if [ "$rc" = 0 ] && grep -qx 'shell: SLURM_SPANK_SLO_INSTANCES= SLURM_SPANK_SLO_NODES=' "$tmp/out" &&
       grep -qx 'step: SLO_NODES= SLO_PLAN= SLURM_SPANK_SLO_INSTANCES= SLURM_SPANK_SLO_NODES=' "$tmp/out"; then
        ok "salloc: the shell sees only SLURM_SPANK_SLO_*, srun steps also SLO_*"
    else
        notok "salloc environment (S10, exit $rc)"
    fi

    # ---- malformed option values: sbatch fails naming the option, no job
    for bad in --slo-loss=-1 --slo-loss=abc --slo-loss=nan --slo-time=abc --slo-time=0 \
               --slo-workload=a/b --slo-workload=nosuch --slo-budget=0 --slo-pricing=x --slo-mode=x; do
        opt=${bad%%=*}
        n0=$(njobs)
        submit --slo-workload=testnet --slo-loss=0.8 --slo-time=40:00 "$bad" --hold -o /dev/null --wrap true
        if [ "$rc" != 0 ] && [ -z "$job" ] && grep -q -- "$opt" "$tmp/err" && [ "$(njobs)" = "$n0" ]; then
            ok "sbatch $bad rejected: $(grep -m1 -- "$opt" "$tmp/err" | cut -c1-90)"
        else
            notok "sbatch $bad (exit $rc, job ${job:-none})"
        fi
    done

    # ---- infeasible SLO: enforce fails with reason + fastest plan; advise warns
    n0=$(njobs)
    submit --slo-workload=testnet --slo-loss=0.8 --slo-time=15:00 --hold -o /dev/null --wrap true
    if [ "$rc" != 0 ] && [ "$(njobs)" = "$n0" ] && grep -q 'no plan meets the SLO' "$tmp/err" &&
       grep -Eq 'fastest plan.*[a-z0-9.-]+:[0-9]+.*needs [0-9.]+ s' "$tmp/err"; then
        ok "infeasible SLO (0.8 in 15:00), enforce: submission fails with the fastest plan"
    else
        notok "infeasible SLO, enforce (exit $rc)"
    fi
    # the CLI agrees that nothing meets it (exit 2, names the fastest plan)
    "$SLO" train --catalog "$D/catalog-live.json" --workload "$fix/workloads/testnet.json" \
        --slo-loss 0.8 --slo-time 15:00 >"$tmp/out" 2>"$tmp/cli.err"
    [ $? = 2 ] && ok "slo train agrees: no plan meets 0.8 in 15:00" || notok "slo train on the infeasible SLO"
    submit --slo-mode=advise --slo-workload=testnet --slo-loss=0.8 --slo-time=15:00 -p onprem -N1 --hold \
        -o /dev/null --wrap true
    if [ "$rc" = 0 ] && [ -n "$job" ] && grep -qi 'warning.*no plan meets the SLO' "$tmp/err" &&
       [ "$(field Partition) $(field NumNodes)" = "onprem 1-1" ] && [ "$(field Features)" = "(null)" ]; then
        ok "infeasible SLO, advise: warning, job submitted unchanged"
    else
        notok "infeasible SLO, advise (exit $rc)"
    fi
    [ -n "$job" ] && scancel "$job"

    # ---- missing / corrupt catalog: optional warns and lets the job through,
    # required fails clearly (sbatch rereads plugstack.conf on every run)
    printf '{"name": "broken", "types": [\n' >"$D/corrupt.json"
    for cat in /nonexistent/catalog.json "$D/corrupt.json"; do
        for kind in optional required; do
            printf '%s catalog=%s workloads=%s mode=enforce\noptional %s\n' \
                "$kind $spank" "$cat" "$fix/workloads" "$forge" >"$D/etc/plugstack.conf"
            n0=$(njobs)
            submit --slo-workload=testnet --slo-loss=0.8 --slo-time=40:00 -o "$D/cat-%j.out" \
                --wrap 'env | grep "^SLO_" ; echo ran'
            what="catalog $(basename "$cat") with the plugin $kind"
            if [ "$kind" = optional ]; then
                st=$( [ -n "$job" ] && cluster_wait_job "$job" 60 'COMPLETED|FAILED|CANCELLED')
                if [ "$rc" = 0 ] && grep -q "$cat" "$tmp/err" && [ "$st" = COMPLETED ] &&
                   grep -qx ran "$D/cat-$job.out" && ! grep -Eq '^SLO_(PLAN|NODES|PARTITION|MODE)=' "$D/cat-$job.out"; then
                    ok "$what: warning naming the catalog, job ran without a plan"
                else
                    cat "$D/cat-$job.out" >>"$tmp/err" 2>/dev/null
                    notok "$what (exit $rc, state ${st:-none})"
                fi
            else
                if [ "$rc" != 0 ] && [ "$(njobs)" = "$n0" ] && grep -q "$cat" "$tmp/err"; then
                    ok "$what: submission fails naming the catalog"
                else
                    notok "$what (exit $rc)"
                fi
            fi
        done
    done
    # ---- workloads= not a directory (trial S4): optional lets the job through
    # with a warning naming the argument; required fails naming it
    for kind in optional required; do
        printf '%s catalog=%s workloads=/nonexistent/workloads mode=enforce\noptional %s\n' \
            "$kind $spank" "$fix/catalog.json" "$forge" >"$D/etc/plugstack.conf"
        n0=$(njobs)
        submit --slo-workload=testnet --slo-loss=0.8 --slo-time=40:00 -o "$D/wl-%j.out" \
            --wrap 'env | grep "^SLO_" ; echo ran'
        what="workloads=/nonexistent/workloads with the plugin $kind"
        if [ "$kind" = optional ]; then
            st=$( [ -n "$job" ] && cluster_wait_job "$job" 60 'COMPLETED|FAILED|CANCELLED')
            if [ "$rc" = 0 ] && grep -q 'plugstack.conf workloads=/nonexistent/workloads' "$tmp/err" &&
               [ "$st" = COMPLETED ] && grep -qx ran "$D/wl-$job.out" &&
               ! grep -Eq '^SLO_(PLAN|NODES|PARTITION|MODE)=' "$D/wl-$job.out"; then
                ok "$what: warning naming the argument, job ran without a plan"
            else
                notok "$what (exit $rc, state ${st:-none})"
            fi
        elif [ "$rc" != 0 ] && [ "$(njobs)" = "$n0" ] &&
             grep -q 'plugstack.conf workloads=/nonexistent/workloads' "$tmp/err"; then
            ok "$what: submission fails naming the argument"
        else
            notok "$what (exit $rc)"
        fi
    done
    printf '%s\n' "$CLUSTER_PLUGSTACK" >"$D/etc/plugstack.conf"
fi

# ---- forged plans (no spank_slo.so involved: no --slo-* option is given;
# tests/slurm/forge_spank.c records SLO_TEST_FORGE's words as the plan)
GOOD='SLO_PLAN_VERSION=1 SLO_MODE=enforce SLO_PARTITION=onprem SLO_NODES=1 SLO_INSTANCES=t4-node:1 SLO_CONSTRAINT=t4-node SLO_GRES=gpu:1 SLO_SPOT=0 SLO_DEADLINE_S=2400'
forged "$GOOD" --hold -o /dev/null --wrap true
# control: a consistent forged plan does reach job_submit.lua (it is within
# the site's limits, so it is applied like any plan)
if [ "$rc" = 0 ] && [ "$(field Features) $(field TresPerNode)" = "t4-node gres:gpu:1" ]; then
    ok "control: a forged plan within the limits reaches job_submit.lua and is applied"
else
    notok "control: forged plan did not reach job_submit.lua (exit $rc)"
fi
[ -n "$job" ] && scancel "$job"
for f in "SLO_PARTITION=admin:SLO_PARTITION" \
         "SLO_NODES=17 SLO_INSTANCES=t4-node:17:SLO_NODES" \
         "SLO_NODES=2 SLO_INSTANCES=t4-node:2 SLO_CONSTRAINT=t4-node|a100-node:SLO_CONSTRAINT" \
         "SLO_INSTANCES=h100-node:1 SLO_CONSTRAINT=h100-node:SLO_INSTANCES" \
         "SLO_GRES=gpu:64:SLO_GRES"; do
    words=${f%:*}; name=${f##*:}
    n0=$(njobs)
    forged "$GOOD $words" --hold -o /dev/null --wrap true
    if [ "$rc" != 0 ] && [ "$(njobs)" = "$n0" ] && grep -q "slo: rejected: $name" "$tmp/err"; then
        ok "forged plan ($words) rejected: $(grep -m1 'slo: rejected' "$tmp/err" | sed 's/.*slo: rejected: //' | cut -c1-80)"
    else
        notok "forged plan ($words) (exit $rc, job ${job:-none})"
    fi
done

# ---- MPI under srun --mpi=pmix (issue 5), across the fake nodes n1 and n2
mpiprof=${SLO_MPIPROF:-$SLO_BUILDDIR/mpi_profiler/slo-mpiprof}
demo=${SLO_TRAIN_DEMO:-$SLO_BUILDDIR/mpi_runtime/slo-train-demo}
. "$SLO_SRCDIR/tests/mpi_env.sh"
export OMPI_MCA_btl=self,tcp          # vader crashes across fake nodes (tests/mpi_env.sh)
if [ -x "$mpiprof" ]; then
    if mpi_tcp_retry "$tmp/out" "$tmp/err" srun --mpi=pmix -p onprem -N1 -n2 -t 5 "$mpiprof" --quick --output "$D/prof.json" &&
       "$mpiprof" --check "$D/prof.json" >>"$tmp/out" 2>>"$tmp/err"; then
        ok "srun --mpi=pmix -N1 -n2 slo-mpiprof --quick: document passes --check"
    else
        notok "srun --mpi=pmix slo-mpiprof"
    fi
else
    echo "# $mpiprof not built: srun --mpi=pmix slo-mpiprof not run"
fi
if [ -x "$demo" ]; then
    if mpi_tcp_retry "$tmp/out" "$tmp/err" srun --mpi=pmix -p onprem -N2 -n4 --overcommit -t 5 "$demo" --quick; then
        ok "srun --mpi=pmix -N2 -n4 slo-train-demo --quick: allreduce results verified on every rank"
    else
        notok "srun --mpi=pmix -N2 -n4 slo-train-demo (exit $?)"
    fi
else
    echo "# $demo not built: srun --mpi=pmix slo-train-demo not run"
fi

# ---- afterwards: no crash, no drained node; every daemon stops
if cluster_check_health >"$tmp/out" 2>&1; then
    ok "no drained or down node, no fatal/segfault in the daemon logs"
else
    : >"$tmp/err"; notok "cluster health"
fi
if cluster_stop >"$tmp/out" 2>&1; then ok "teardown: every daemon stopped on TERM"; else : >"$tmp/err"; notok "teardown"; fi
echo "# wall time $(( $(date +%s) - t_start )) s, $(( $(date +%s) - CLUSTER_T_LOCKED )) s of it holding the cluster"
finish
