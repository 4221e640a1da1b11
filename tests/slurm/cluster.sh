# cluster.sh - single-host Slurm test cluster for the integration tests
# (sourced by tests/slurm_*.sh after tests/testlib.sh).
#
# Layout (doc/slurm.md "The test cluster"; tests/slurm/slurm.conf.in):
#   n1 a100-node gpu:a100:2, n2 t4-node gpu:t4:2 (two slurmd, Port 6818/6819);
#   c1,c2 State=CLOUD g4dn.12xlarge,spot gpu:t4:2 (Port 6820/6821), powered up
#   and down by slo-power's local provider; partitions onprem, cloud-spot,
#   burst, and admin (not allowed to plans).
# Everything lives in a mktemp -d directory under /tmp; SLURM_CONF points the
# daemons and commands there, nothing under /etc is touched. Fixed ports
# 6817-6821, so one cluster at a time: cluster_start takes a lock
# (/tmp/slo-kernel-slurm-cluster.lock) that the test holds until it exits.
# How and why: shared/research/slurm-mpi-feasibility.md 2 (pitfalls 2.6).
#
# Use:
#   . "$SLO_SRCDIR/tests/testlib.sh"; . "$SLO_SRCDIR/tests/slurm/cluster.sh"
#   cluster_require_slurm          # exit 77 with a reason when this cannot run
#   CLUSTER_PLUGSTACK='required /path/spank_slo.so catalog=...'  # optional
#   cluster_start                  # up and idle, or exit 1 (logs printed)
#   ... tests ...; cluster_check_health; cluster_stop; finish
# Settings (environment, before cluster_start):
#   CLUSTER_PLUGSTACK   plugstack.conf lines (default: empty file)
#   CLUSTER_POWER       slo-power (default: $SLO_BUILDDIR/power/slo-power, or
#                       $SLO_POWER_BIN) or standin (tests/slurm/power-standin.sh)
#   CLUSTER_SUSPEND_TIME  idle seconds before a cloud node is powered down (default 6)
#   CLUSTER_CRED_EXPIRE   AuthInfo cred_expire, s (default 5, Slurm's minimum)
#   CLUSTER_RESUME_TIMEOUT  ResumeTimeout, s (default 30)
#   CLUSTER_MPS         yes: gres/mps on the fake GPUs (mps:200 per node)
# After cluster_start: CLUSTER_DIR, SLURM_CONF (exported), CLUSTER_LOG,
# CLUSTER_T_LOCKED (date +%s when the lock was taken).

CLUSTER_LOCK=/tmp/slo-kernel-slurm-cluster.lock
CLUSTER_DIR=
CLUSTER_PIDS=
CLUSTER_STOPPED=no
: "${CLUSTER_POWER:=slo-power}"
: "${CLUSTER_SUSPEND_TIME:=6}"
: "${CLUSTER_CRED_EXPIRE:=5}"
: "${CLUSTER_PLUGSTACK:=}"

cluster_skip() { echo "SKIP: $*"; exit 77; }

# True when the build was made with AddressSanitizer: an ASan-built
# spank_slo.so (or test plugin) cannot be loaded into the non-ASan sbatch,
# slurmd and slurmstepd, so the cluster tests are skipped in such builds.
cluster_sanitizer_build() {
    for f in "$SLO_BUILDDIR/kernel/.libs/libslo.so" "$SLO_BUILDDIR/spank_plugin/.libs/spank_slo.so" \
             "$SLO_BUILDDIR/tests/slurm/.libs/forge_spank.so"; do
        [ -e "$f" ] || continue
        if command -v readelf >/dev/null 2>&1; then
            readelf -d "$f" 2>/dev/null | grep -Eq 'NEEDED.*lib(asan|ubsan)' && return 0
        else
            ldd "$f" 2>/dev/null | grep -Eq 'lib(asan|ubsan)' && return 0
        fi
    done
    return 1
}

# Exit 77 (SKIP) with the reason when the cluster cannot run here.
cluster_require_slurm() {
    : "${SLO_BUILDDIR:?SLO_BUILDDIR must name the build tree (make check sets it)}"
    for c in munged mungekey slurmctld slurmd sbatch srun scontrol sinfo squeue scancel flock perl; do
        command -v "$c" >/dev/null 2>&1 ||
            cluster_skip "$c not found (Debian: slurm-wlm slurmctld slurmd slurm-client munge); Slurm cluster tests not run"
    done
    [ "$(id -u)" = 0 ] || cluster_skip "not root: the test cluster's munged, mknod and slurmd need root"
    [ -e /usr/lib/x86_64-linux-gnu/slurm-wlm/job_submit_lua.so ] || ls /usr/lib*/slurm*/job_submit_lua.so >/dev/null 2>&1 ||
        cluster_skip "Slurm's job_submit/lua plugin not found (Debian: slurm-wlm-basic-plugins)"
    if cluster_sanitizer_build; then
        cluster_skip "sanitizer build: an ASan-built plugin cannot be loaded into the non-ASan sbatch/slurmd"
    fi
}

# cluster_private_copy FILE: print the path of a copy of FILE (the build
# tree's spank_slo.so) in the test's scratch directory, copied under the
# lock of tests/testinstall.sh. `make install` relinks spank_slo.so (it
# links libslo.la) in the build tree's .libs: libtool moves the build copy
# aside while it links the one to install, so a cluster test that loads
# .libs/spank_slo.so while another test (make check -j) installs can dlopen
# a half-written file ("file too short", sbatch: "Failed to initialize
# plugin stack"). Readable by the test's other users (uid 65534). Returns
# nonzero, printing nothing, when FILE cannot be copied.
cluster_private_copy() {
    mkdir -p "$tmp/private" && chmod 711 "$tmp" && chmod 755 "$tmp/private" || return 1
    _lk=
    command -v flock >/dev/null 2>&1 && [ -n "${SLO_BUILDDIR:-}" ] &&
        _lk="flock $SLO_BUILDDIR/.install-test.lock"
    $_lk cp "$1" "$tmp/private/${1##*/}" && chmod 755 "$tmp/private/${1##*/}" || return 1
    # The plugin's libslo.so.0 beside it: its RUNPATH names the build tree,
    # which a test user cannot reach when the build lies in a private
    # directory (CI's clone is in a mode-700 mktemp -d); tests that submit
    # as a user run with LD_LIBRARY_PATH=$tmp/private (cluster_as_user).
    _lib=${SLO_BUILDDIR:-.}/kernel/.libs/libslo.so.0
    if [ -e "$_lib" ]; then
        $_lk cp -L "$_lib" "$tmp/private/libslo.so.0" && chmod 755 "$tmp/private/libslo.so.0" || return 1
    fi
    echo "$tmp/private/${1##*/}"
}

# cluster_private_fixtures DIR: print the path of a copy of DIR's catalog.json
# and workloads/ (tests/slurm) that the test user (uid 65534) can read, for
# the same reason as cluster_private_copy.
cluster_private_fixtures() {
    mkdir -p "$tmp/private/fixtures" && chmod 711 "$tmp" && chmod 755 "$tmp/private" "$tmp/private/fixtures" &&
        cp "$1/catalog.json" "$tmp/private/fixtures/" && cp -R "$1/workloads" "$tmp/private/fixtures/" &&
        chmod -R a+rX "$tmp/private/fixtures" && echo "$tmp/private/fixtures"
}

# cluster_as_user DIR CMD...: run CMD in DIR as uid/gid 65534 with no
# groups, finding the private copy's libslo.so.0 (cluster_private_copy).
cluster_as_user() {
    _d=$1; shift
    (cd "$_d" && LD_LIBRARY_PATH="$tmp/private${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        setpriv --reuid=65534 --regid=65534 --clear-groups "$@")
}

# The slo-power binary of this build, or empty.
cluster_slo_power() {
    p=${SLO_POWER_BIN:-$SLO_BUILDDIR/power/slo-power}
    [ -x "$p" ] && echo "$p"
}

# CLUSTER_MPS=yes adds gres/mps (Count=100 per fake GPU, as the serving
# plans assume) to the templates: GresTypes, the nodes' Gres and gres.conf.
_cluster_template() { # SRC DST
    sed -e "s|@TOP@|$CLUSTER_DIR|g" -e "s|@SUSPEND_TIME@|$CLUSTER_SUSPEND_TIME|g" \
        -e "s|@SUSPEND_TIMEOUT@|${CLUSTER_SUSPEND_TIMEOUT:-4}|g" \
        -e "s|@RESUME_TIMEOUT@|${CLUSTER_RESUME_TIMEOUT:-30}|g" \
        -e "s|@CRED_EXPIRE@|$CLUSTER_CRED_EXPIRE|g" "$1" >"$2"
    [ "${CLUSTER_MPS:-no}" = yes ] || return 0
    case $1 in
    */slurm.conf.in)
        sed -i -e 's|^GresTypes=gpu$|GresTypes=gpu,mps|' \
            -e 's|Gres=gpu:\([a-z0-9]*\):2 |Gres=gpu:\1:2,mps:200 |' "$2" ;;
    */gres.conf.in)
        sed -n "s|^NodeName=\([^ ]*\) Name=gpu Type=[a-z0-9]* File=\(.*\)$|NodeName=\1 Name=mps Count=200 File=\2|p" \
            "$1" | sed "s|@TOP@|$CLUSTER_DIR|g" >>"$2" ;;
    esac
}

# Print the last lines of every daemon log (on failure).
cluster_dump_logs() {
    [ -n "$CLUSTER_DIR" ] || return 0
    for f in "$CLUSTER_DIR"/log/*; do
        [ -f "$f" ] || continue
        echo "#   --- $f (last 25 lines)"
        tail -n 25 "$f" | sed 's/^/#   /'
    done
}

_cluster_write_power() {
    mkdir -p "$CLUSTER_DIR/bin"
    if [ "$CLUSTER_POWER" = standin ]; then
        for a in resume suspend resume-fail; do
            printf '#!/bin/sh\nexec %s %s "$@"\n' "$SLO_SRCDIR/tests/slurm/power-standin.sh" "$a" \
                >"$CLUSTER_DIR/bin/$a"
        done
    else
        sp=$(cluster_slo_power)
        [ -n "$sp" ] || { echo "cluster: $SLO_BUILDDIR/power/slo-power not built"; return 1; }
        # slo-power's local provider (its config format: etc/slo/power.conf,
        # slo-power(8)); slo-power reads slo-power.conf beside slurm.conf.
        # Slurm runs the programs with no PATH: absolute paths only.
        cat >"$CLUSTER_DIR/etc/slo-power.conf" <<EOF
# slo-power configuration of the test cluster (tests/slurm/cluster.sh)
provider=local
log=$CLUSTER_DIR/log/slo-power.log
slurmd=$(command -v slurmd)
state_dir=$CLUSTER_DIR/run/power
boot_delay_s=1
stop_timeout_s=10
EOF
        for a in resume suspend resume-fail; do
            printf '#!/bin/sh\nexec %s "$@"\n' "$(dirname "$sp")/slo-power-$a" >"$CLUSTER_DIR/bin/$a"
        done
    fi
    chmod 755 "$CLUSTER_DIR/bin/"*
}

# Wait up to $2 tenths of a second for command $1 to succeed.
cluster_wait() {
    _i=0
    while [ "$_i" -lt "$2" ]; do
        eval "$1" && return 0
        sleep 0.1; _i=$((_i + 1))
    done
    return 1
}

cluster_start() {
    exec 9>"$CLUSTER_LOCK"
    if ! flock -w 900 9; then
        echo "cluster: another test cluster held $CLUSTER_LOCK for 15 min"; exit 1
    fi
    CLUSTER_T_LOCKED=$(date +%s)
    if command -v ss >/dev/null 2>&1 && ss -ltn 2>/dev/null | grep -Eq ':(681[7-9]|682[01])[[:space:]]'; then
        echo "cluster: a port of 6817-6821 is in use (a stale Slurm daemon?):"
        ss -ltnp 2>/dev/null | grep -E ':(681[7-9]|682[01])[[:space:]]' | sed 's/^/#   /'
        exit 1
    fi
    CLUSTER_DIR=$(mktemp -d /tmp/slo-cluster.XXXXXX) || exit 1
    trap 'cluster_stop >/dev/null; rm -rf "${tmp:-}"' EXIT
    trap 'exit 1' INT TERM HUP
    d=$CLUSTER_DIR
    chmod 755 "$d"   # munged wants the socket path searchable by all
    mkdir -p "$d/etc" "$d/run" "$d/log" "$d/munge" "$d/dev" "$d/state/ctld" "$d/state/power"
    for n in n1 n2 c1 c2; do mkdir -p "$d/state/d-$n" "$d/state/tmp-$n"; done
    chmod 700 "$d/munge"
    export SLURM_CONF="$d/etc/slurm.conf"
    CLUSTER_LOG="$d/log"
    # munge with its own key and socket
    mungekey --create --keyfile="$d/munge/munge.key" --bits=1024 2>"$d/log/mungekey.log" &&
        chmod 400 "$d/munge/munge.key" &&
        munged --key-file="$d/munge/munge.key" --socket="$d/run/munge.socket" \
            --pid-file="$d/run/munged.pid" --log-file="$d/log/munged.log" \
            --seed-file="$d/munge/munged.seed" ||
        { echo "cluster: munged did not start"; cluster_dump_logs; exit 1; }
    # configuration
    _cluster_template "$SLO_SRCDIR/tests/slurm/slurm.conf.in" "$d/etc/slurm.conf"
    _cluster_template "$SLO_SRCDIR/tests/slurm/gres.conf.in" "$d/etc/gres.conf"
    cp "$SLO_SRCDIR/etc/slurm/job_submit.lua" "$d/etc/job_submit.lua"
    printf '%s\n' "$CLUSTER_PLUGSTACK" >"$d/etc/plugstack.conf"
    _cluster_write_power || exit 1
    for i in 0 1 2 3 4 5; do mknod "$d/dev/nvidia$i" c 1 3 || { echo "cluster: mknod failed"; exit 1; }; done
    # daemons: -c clears saved state (pitfall 12)
    slurmctld -c >"$d/log/slurmctld.out" 2>&1 || { echo "cluster: slurmctld failed"; cluster_dump_logs; exit 1; }
    for n in n1 n2; do
        slurmd -N "$n" >"$d/log/slurmd-$n.out" 2>&1 || { echo "cluster: slurmd $n failed"; cluster_dump_logs; exit 1; }
    done
    if ! cluster_wait '[ "$(sinfo -h -N -n n1,n2 -t idle -o %N 2>/dev/null | sort -u | wc -l)" = 2 ]' 300; then
        echo "cluster: n1, n2 not idle after 30 s"; sinfo -N 2>&1 | sed 's/^/#   /'; cluster_dump_logs; exit 1
    fi
}

# The pids of every daemon of this cluster: pid files, and any Slurm daemon
# whose environment names our SLURM_CONF (slurmstepd, slurmd started by
# slo-power) -- never the test's own shells.
_cluster_pids() {
    [ -n "$CLUSTER_DIR" ] || return 0
    for f in "$CLUSTER_DIR"/run/*.pid "$CLUSTER_DIR"/run/power/*.pid; do
        [ -s "$f" ] && cat "$f"
    done
    for e in /proc/[0-9]*/environ; do
        p=${e#/proc/}; p=${p%/environ}
        case $(cat "/proc/$p/comm" 2>/dev/null) in
        slurmd|slurmstepd|slurmctld|munged|slo-power*) ;;
        *) continue ;;
        esac
        grep -qsz "^SLURM_CONF=$CLUSTER_DIR/etc/slurm.conf\$" "$e" 2>/dev/null && echo "$p"
    done
}

_cluster_alive() { # PIDS -> the ones still running (and not zombies)
    for p in "$@"; do
        [ -r "/proc/$p/stat" ] || continue
        st=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1)
        [ "$st" = Z ] || echo "$p"
    done
}

# Stop every daemon in parallel (TERM, then KILL after 10 s), remove the
# directory unless CLUSTER_KEEP=1. Returns 1 and prints the survivors when a
# daemon had to be killed or was left. Safe to call twice.
cluster_stop() {
    [ -n "$CLUSTER_DIR" ] && [ "$CLUSTER_STOPPED" = no ] || return 0
    CLUSTER_STOPPED=yes
    pids=$(_cluster_pids | sort -un | tr '\n' ' ')
    # munged last: slurmctld needs it while it shuts down
    munge_pid=$(cat "$CLUSTER_DIR/run/munged.pid" 2>/dev/null)
    slurm_pids=""
    for p in $pids; do [ "$p" = "$munge_pid" ] || slurm_pids="$slurm_pids $p"; done
    [ -n "$slurm_pids" ] && kill -TERM $slurm_pids 2>/dev/null
    _i=0
    while [ -n "$(_cluster_alive $slurm_pids)" ] && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
    left=$(_cluster_alive $slurm_pids | tr '\n' ' ')
    [ -n "$left" ] && kill -KILL $left 2>/dev/null
    [ -n "$munge_pid" ] && kill -TERM "$munge_pid" 2>/dev/null
    _i=0
    while [ -n "$munge_pid" ] && [ -n "$(_cluster_alive $munge_pid)" ] && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
    again=$(_cluster_pids | sort -un | tr '\n' ' ')
    still=$(_cluster_alive $again $munge_pid | tr '\n' ' ')
    rc=0
    if [ -n "$left" ] || [ -n "$still" ]; then
        echo "cluster: daemons that did not stop on TERM: ${left:-none}; still running: ${still:-none}"
        for p in $left $still; do ps -o pid=,args= -p "$p" 2>/dev/null | sed 's/^/#   /'; done
        [ -n "$still" ] && kill -KILL $still 2>/dev/null
        rc=1
    fi
    if [ "${CLUSTER_KEEP:-0}" = 1 ]; then
        echo "cluster: kept $CLUSTER_DIR"
    else
        rm -rf "$CLUSTER_DIR"
    fi
    return $rc
}

# Health after the tests: no drained/down/failed node, no fatal or segfault
# in the logs, slurmctld and both static slurmd still running.
# Prints the problems; returns 1 when there is one.
cluster_check_health() {
    bad=0
    reasons=$(sinfo -h -R -o '%N %E' 2>&1)
    [ -n "$reasons" ] && { echo "#   nodes with a reason: $reasons"; bad=1; }
    states=$(sinfo -h -N -o '%N %T' 2>&1 | sort -u)
    if echo "$states" | grep -Eiq 'drain|down|fail|inval|unk'; then
        echo "#   node states:"; echo "$states" | sed 's/^/#     /'; bad=1
    fi
    if grep -Eis 'fatal|segfault|sig(nal)? 11|core dumped|assertion' "$CLUSTER_DIR"/log/slurm*.log >"$CLUSTER_DIR/health.txt"; then
        echo "#   log lines:"; sed 's/^/#     /' "$CLUSTER_DIR/health.txt" | head -20; bad=1
    fi
    for f in slurmctld slurmd-n1 slurmd-n2; do
        p=$(cat "$CLUSTER_DIR/run/$f.pid" 2>/dev/null)
        if [ -z "$p" ] || [ -z "$(_cluster_alive "$p")" ]; then
            echo "#   $f is not running"; bad=1
        fi
    done
    return $bad
}

# Wait up to $2 seconds until job $1 reaches one of the states in $3
# (regex, e.g. 'COMPLETED|FAILED'); prints the final state.
cluster_wait_job() {
    _end=$(( $(date +%s) + $2 ))
    while :; do
        st=$(scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
        if echo "$st" | grep -Eq "^($3)\$"; then echo "$st"; return 0; fi
        [ "$(date +%s)" -ge "$_end" ] && { echo "${st:-gone}"; return 1; }
        sleep 0.2
    done
}

# cluster_submit CMD...: run a submission (sbatch --parsable ..., or
# cluster_as_user sbatch ...) with its stdout in $tmp/out and stderr in
# $tmp/err; sets rc (its exit status) and job (the job id it printed, ""
# when none).
cluster_submit() {
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    job=$(sed -n '1{s/;.*//;p;}' "$tmp/out")
}

# The value of FIELD in `scontrol show job JOBID` (one token).
cluster_job_field() {
    [ -n "$1" ] || return 0
    scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# The usable nodes per instance type of the live inventory, counted by the
# plugin's rule under spot pricing (tests/slurm_submit.sh states it): JSON
# {"type":count,...} on stdout. TYPES: lines "name site" of the catalog's
# types; NODES: `scontrol -o show nodes` output.
cluster_usable_inventory() { # TYPES NODES
    awk 'NR == FNR { site[$1] = $2; next }
        {
            feat = ""; part = ""; state = ""
            for (i = 1; i <= NF; i++) {
                if ($i ~ /^AvailableFeatures=/) feat = substr($i, 19)
                else if ($i ~ /^Partitions=/) part = substr($i, 12)
                else if ($i ~ /^State=/) state = substr($i, 7)
            }
            pw = state ~ /POWERED_DOWN|POWERING_UP/
            if (state ~ /^(DOWN|FUTURE)/ || state ~ /DRAIN|FAIL|INVALID_REG/) next
            if ((state ~ /^UNKNOWN/ || state ~ /NOT_RESPONDING|\*/) && !pw) next
            np = split(part, P, ","); delete inpart
            for (i = 1; i <= np; i++) inpart[P[i]] = 1
            nf = split(feat, F, ","); delete has
            for (i = 1; i <= nf; i++) has[F[i]] = 1
            for (t in site) {
                if (!(t in has)) continue
                if (site[t] == "onprem" && !("onprem" in inpart) && !("burst" in inpart)) continue
                if (site[t] != "onprem") {
                    if (!("cloud-spot" in inpart) && !("burst" in inpart)) continue
                    if (("ondemand" in has) && !("spot" in has)) continue
                }
                c[t]++
            }
        }
        END { printf "{"; s = ""; for (k in c) { printf "%s\"%s\":%d", s, k, c[k]; s = "," } printf "}" }' "$1" "$2"
}

# The request a training plan makes (slurm_submit.sh, slurm_confidence.sh):
# "partition nodes features gpus" on stdout - the partition from the plan's
# types' sites (onprem, cloud-spot, burst), the nodes, the feature tokens
# "type*count" sorted and joined by "&", the least GPUs per node.
# CATALOG: the catalog file (sites, GPUs); PLAN_JSON: {"type":count,...} as
# `slo train --json` plans.
cluster_expected_request() { # CATALOG PLAN_JSON
    jq -r --argjson plan "$2" '
      [.types[] | select($plan[.name] != null) | {name, site: (.site // "cloud"), gpus, n: $plan[.name]}] as $t
      | (if all($t[]; .site == "onprem") then "onprem"
         elif all($t[]; .site == "cloud") then "cloud-spot" else "burst" end) as $part
      | ([$t[].n] | add) as $nodes
      | ([$t[] | "\(.name)*\(.n)"] | sort | join("&")) as $feat
      | ([$t[].gpus] | min) as $gpus
      | "\($part) \($nodes) \($feat) \($gpus)"' "$1"
}

# Job JOBID's request in cluster_expected_request's form, from scontrol
# (features as sorted type*count tokens; a single type's constraint is
# "type" with all nodes of it; NumNodes min-max read as its min).
cluster_job_request() { # JOBID
    f=$(cluster_job_field "$1" Features); n=$(cluster_job_field "$1" NumNodes); n=${n%%-*}
    case $f in
    \[*) toks=$(echo "$f" | tr -d '[]' | tr '&' '\n' | sort | paste -sd'&' -) ;;
    *) toks="$f*$n" ;;
    esac
    echo "$(cluster_job_field "$1" Partition) $n $toks $(cluster_job_field "$1" TresPerNode | sed 's/^gres:gpu://')"
}
