#!/bin/sh
# slurm_install.sh - the site install of doc/slurm.md "Install" on a machine
# that has never seen the project (issue 14 "What it must show"): in a
# private mount namespace a fresh tmpfs covers the configured prefix
# (/usr/local) and /etc/ld.so.cache is replaced by a cache built from
# /etc/ld.so.conf without that prefix's directories - the state of a fresh
# machine, whose cache does not list /usr/local/lib, and of one where
# nobody ran ldconfig after `make install`. Then, with no other step:
#   1. `make install` (as root into the live prefix, no DESTDIR; the ldconfig
#      of the install hook is switched off with LDCONFIG=no, so only the
#      RUNPATH can make the programs run) and the installed programs name
#      $libdir in their RUNPATH;
#   2. the installed slo plans from the installed catalog by name, and an
#      admin's edit of SYSCONFDIR/slo/catalogs/NAME.json is what it reads
#      (every price doubled: same plan, cost exactly twice the compiled-in
#      copy's - a min-cost plan is invariant under scaling every price);
#   3. the installed slo-power and slo-power-resume run (--dry-run of the
#      ec2 provider for c[1-2] of job 6 in tests/power/resume-file.json: the
#      hand-written CreateFleet request tests/power/fleet-spot-c1-2.json);
#   4. when Slurm is here: the plugstack line of the installed
#      plugstack.conf.example, verbatim (`required`, the installed
#      spank_slo.so, catalogs/site.json and workloads/ as install creates
#      them), on the test cluster: a plain sbatch runs, and a planned sbatch
#      (workload testnet copied into SYSCONFDIR/slo/workloads/ as the docs
#      say) gets the plan's request.
# Root only (mount namespace, tmpfs); a prefix other than /usr/local or one
# under /tmp is not covered with a tmpfs (exit 77, SKIP, with the reason).
. "$SLO_SRCDIR/tests/testlib.sh"
: "${SLO_BUILDDIR:?}" "${SLO_PREFIX:?}" "${SLO_LIBDIR:?}" "${SLO_BINDIR:?}" "${SLO_SBINDIR:?}"
: "${SLO_SYSCONFDIR_CONF:?}" "${SLO_PKGLIBDIR:?}"

if [ -z "${SLO_INSTALL_NS:-}" ]; then
    [ "$(id -u)" = 0 ] || { echo "SKIP: not root: a private mount namespace and tmpfs need root"; exit 77; }
    command -v unshare >/dev/null 2>&1 || { echo "SKIP: unshare not found (util-linux)"; exit 77; }
    case $SLO_PREFIX in
    /usr/local|/tmp/?*) ;;
    *) echo "SKIP: prefix $SLO_PREFIX: only /usr/local or a prefix under /tmp is covered with a tmpfs here"; exit 77 ;;
    esac
    unshare -m --propagation private true 2>/dev/null ||
        { echo "SKIP: unshare -m fails here (no CAP_SYS_ADMIN?)"; exit 77; }
    rm -rf "$tmp"
    SLO_INSTALL_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi

# ---- a fresh prefix and a linker cache that does not list it
mkdir -p "$SLO_PREFIX"
mount -t tmpfs slo-install-test "$SLO_PREFIX" || { echo "not ok - mount tmpfs on $SLO_PREFIX"; exit 1; }
cat /etc/ld.so.conf /etc/ld.so.conf.d/*.conf 2>/dev/null | grep -v '^[[:space:]]*include' |
    grep -v "^$SLO_PREFIX" >"$tmp/ld.so.conf"
ldconfig -f "$tmp/ld.so.conf" -C "$tmp/ld.so.cache" 2>/dev/null &&
    mount --bind "$tmp/ld.so.cache" /etc/ld.so.cache ||
    { echo "not ok - a linker cache without $SLO_PREFIX"; exit 1; }
if ldconfig -p | grep -q " => $SLO_PREFIX/"; then
    notok "the linker cache still lists $SLO_PREFIX"
else
    ok "fresh machine: $SLO_PREFIX is an empty tmpfs, the linker cache does not list it"
fi
unset LD_LIBRARY_PATH

# ---- 1. make install, as doc/slurm.md says (LDCONFIG=no: the RUNPATH alone)
_lock=
command -v flock >/dev/null 2>&1 && _lock="flock $SLO_BUILDDIR/.install-test.lock"
if $_lock "${SLO_MAKE:-make}" -C "$SLO_BUILDDIR" install LDCONFIG=no >"$tmp/out" 2>"$tmp/err"; then
    ok "make install into $SLO_PREFIX"
else
    notok "make install"; exit 1
fi
slo=$SLO_BINDIR/slo
etc=$SLO_SYSCONFDIR_CONF/slo
for f in "$slo" "$SLO_SBINDIR/slo-power" "$SLO_SBINDIR/slo-power-resume" "$SLO_PKGLIBDIR/spank_slo.so"; do
    [ -e "$f" ] || { [ "${f##*/}" = spank_slo.so ] && continue; }
    rp=$(readelf -d "$f" 2>/dev/null | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
    case :$rp: in
    *:"$SLO_LIBDIR":*) ok "${f##*/}: RUNPATH $rp" ;;
    *) readelf -d "$f" >"$tmp/out" 2>&1; : >"$tmp/err"; notok "${f##*/}: RUNPATH '$rp' does not name $SLO_LIBDIR" ;;
    esac
done
case ":$(readelf -d "$SLO_PKGLIBDIR/spank_slo.so" 2>/dev/null | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p'):" in
*:"$SLO_BUILDDIR"*) notok "spank_slo.so: RUNPATH names the build tree" ;;
esac

# ---- 2. slo by name: the installed catalog, and an admin's edit of it
unset SLO_SYSCONFDIR
run_plan() { # -> "plan-json cost" of slo train with catalog NAME
    env -u SLO_SYSCONFDIR "$slo" train --workload resnet110 --catalog spotdnn-resnet110 \
        --slo-loss 0.8 --slo-time 40m --json >"$tmp/out" 2>"$tmp/err" &&
        jq -cr '"\(.plan | tojson) \(.cost_usd)"' "$tmp/out"
}
if base=$(run_plan) && [ -n "$base" ]; then
    ok "installed slo plans (catalog spotdnn-resnet110 by name): $base"
else
    notok "installed slo train (exit $?)"
fi
cat="$etc/catalogs/spotdnn-resnet110.json"
jq '.types |= map((if .spot_usd_per_h then .spot_usd_per_h *= 2 else . end)
                  | (if .on_demand_usd_per_h then .on_demand_usd_per_h *= 2 else . end))' "$cat" >"$tmp/cat.json" &&
    cp "$tmp/cat.json" "$cat"
if edited=$(run_plan) && [ "${edited%% *}" = "${base%% *}" ] &&
   awk -v a="${edited#* }" -v b="${base#* }" 'BEGIN { d = a - 2 * b; exit !(b > 0 && d < 2e-6 && d > -2e-6) }'; then
    ok "slo --catalog spotdnn-resnet110 reads $cat: prices doubled, same plan, cost ${base#* } -> ${edited#* }"
else
    notok "edited installed catalog not read: before $base, after ${edited:-none}"
fi
mv "$cat" "$tmp/moved.json"
if again=$(run_plan) && [ "$again" = "$base" ]; then
    ok "without the installed file, the compiled-in copy: $again"
else
    notok "compiled-in fallback: $again, want $base"
fi
mv "$tmp/moved.json" "$cat"

# ---- 3. slo-power and slo-power-resume from the install
sed -e "s|@SRCDIR@|$SLO_SRCDIR|" -e "s|@AWS@|$tmp/no-aws|" "$SLO_SRCDIR/tests/power/ec2.conf.in" >"$tmp/ec2.conf"
echo "log=$tmp/power.log" >>"$tmp/ec2.conf"
for p in slo-power-resume slo-power; do
    a=; [ "$p" = slo-power ] && a=resume
    # shellcheck disable=SC2086
    if env -u SLURM_CONF -u SLO_POWER_CONF SLURM_RESUME_FILE="$SLO_SRCDIR/tests/power/resume-file.json" "$SLO_SBINDIR/$p" --dry-run \
        --node-table "$SLO_SRCDIR/tests/power/nodes.txt" --config "$tmp/ec2.conf" $a 'c[1-2]' \
        >"$tmp/out" 2>"$tmp/err" &&
       "$SLO_BUILDDIR/tests/power_json_equal" "$tmp/out" "$SLO_SRCDIR/tests/power/fleet-spot-c1-2.json" >>"$tmp/err" 2>&1; then
        ok "installed $p --dry-run $a c[1-2]: the CreateFleet request of tests/power/fleet-spot-c1-2.json"
    else
        notok "installed $p (exit $?)"
    fi
done

# ---- 4. the plugstack.conf example's line, verbatim, on the test cluster
ex=$(find "$SLO_PREFIX" -name plugstack.conf.example | head -n1)
# (the example is written for the default prefix /usr/local)
line=$(grep -E '^(required|optional) ' "$ex" 2>/dev/null | sed "s|/usr/local/|$SLO_PREFIX/|g")
case $line in
"required $SLO_PKGLIBDIR/spank_slo.so catalog=$etc/catalogs/site.json workloads=$etc/workloads "*)
    ok "installed plugstack.conf.example names the installed plugin and catalog: $line" ;;
*) : >"$tmp/out"; echo "$line" >"$tmp/err"; notok "plugstack.conf.example ($ex) names other paths than install creates" ;;
esac
for f in "$etc/catalogs/site.json" "$etc/workloads" "$SLO_PKGLIBDIR/spank_slo.so"; do
    [ -e "$f" ] && ok "install created $f" || { : >"$tmp/out" >"$tmp/err"; notok "install did not create $f"; }
done
if ! command -v slurmctld >/dev/null 2>&1 || [ ! -e "$SLO_PKGLIBDIR/spank_slo.so" ]; then
    echo "# Slurm or spank_slo.so absent: the sbatch part not run"
    finish
fi
. "$SLO_SRCDIR/tests/slurm/cluster.sh"
cluster_require_slurm
cp "$SLO_SRCDIR/tests/slurm/workloads/testnet.json" "$etc/workloads/testnet.json"
CLUSTER_PLUGSTACK=$line
CLUSTER_POWER=standin
cluster_start
sbatch --parsable -o "$CLUSTER_DIR/plain-%j.out" --wrap 'echo ran' >"$tmp/out" 2>"$tmp/err"
rc=$?; job=$(sed -n '1{s/;.*//;p;}' "$tmp/out")
st=$( [ -n "$job" ] && cluster_wait_job "$job" 60 'COMPLETED|FAILED|CANCELLED')
if [ "$rc" = 0 ] && [ "$st" = COMPLETED ] && grep -qx ran "$CLUSTER_DIR/plain-$job.out"; then
    ok "plugin required from the install: a plain sbatch runs (job $job)"
else
    notok "plain sbatch with the installed plugin required (exit $rc, state ${st:-none})"
fi
sbatch --parsable --slo-workload=testnet --slo-loss=0.8 --slo-time=40:00 --hold -o /dev/null \
    --wrap true >"$tmp/out" 2>"$tmp/err"
rc=$?; job=$(sed -n '1{s/;.*//;p;}' "$tmp/out")
if [ "$rc" = 0 ] && [ -n "$job" ] && [ "$(cluster_job_field "$job" Features)" != "(null)" ] && grep -q 'request set by the SLO plan' "$tmp/err"; then
    ok "planned sbatch with the installed site.json and workloads/testnet.json: $(grep -m1 'request set' "$tmp/err" | sed 's/.*plan: //')"
else
    notok "planned sbatch with the installed plugin (exit $rc)"
fi
[ -n "$job" ] && scancel "$job"
if cluster_check_health >"$tmp/out" 2>&1; then ok "no drained node, no crash"; else : >"$tmp/err"; notok "cluster health"; fi
cluster_stop >/dev/null 2>&1
finish
