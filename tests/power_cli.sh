#!/bin/sh
# power_cli.sh - slo-power as a program: usage and config errors (exit 2, a
# message naming the file/line/key), the config search beside SLURM_CONF, and
# --dry-run of the ec2 provider with a fake node table, whose CreateFleet
# requests must equal the hand-written tests/power/fleet-*.json (compared with
# jansson's json_equal by tests/power_json_equal). No daemon is used.
. "$SLO_SRCDIR/tests/testlib.sh"
P=$SLO_BUILDDIR/power
FIX=$SLO_SRCDIR/tests/power
JEQ=$SLO_BUILDDIR/tests/power_json_equal
unset SLO_POWER_CONF SLURM_CONF SLURM_RESUME_FILE

sed -e "s|@SRCDIR@|$SLO_SRCDIR|" -e "s|@AWS@|$tmp/no-aws|" "$FIX/ec2.conf.in" > "$tmp/ec2.conf"
echo "log=$tmp/power.log" >> "$tmp/ec2.conf"

# run NAME WANT_RC STDERR_PATTERN PROGRAM ARGS...: exit code and one stderr line.
run() {
    name=$1; want=$2; pat=$3; shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = "$want" ] && grep -Eq -- "$pat" "$tmp/err"; then ok "$name"; else notok "$name (exit $rc)"; fi
}

# ---- usage and config errors: exit 2, nothing on stdout
run "no action" 2 "expected an action resume, suspend or resume-fail, found nothing" "$P/slo-power"
run "bad action" 2 "expected an action .* found 'start'" "$P/slo-power" start c1
run "no hostlist" 2 "expected one HOSTLIST argument" "$P/slo-power" resume
run "two hostlists" 2 "expected one HOSTLIST argument after the action, found 2" "$P/slo-power-resume" c1 c2
run "unknown option" 2 "unknown option '--force'" "$P/slo-power" --force resume c1
# slo-requeue (EpilogSlurmctld): one line naming the argument, exit 2
run1() { run "$@"; [ "$(wc -l <"$tmp/err")" = 1 ] || notok "$1: $(wc -l <"$tmp/err") stderr lines, expected 1"; }
run1 "slo-requeue unknown option" 2 '^slo-requeue: unknown option or extra argument "--bogus" \(expected \[--plugstack FILE\]' \
    "$P/slo-requeue" --bogus
run1 "slo-requeue extra argument" 2 '^slo-requeue: unknown option or extra argument "8"' "$P/slo-requeue" 7 8
run1 "slo-requeue bad --restart-overhead" 2 '^slo-requeue: --restart-overhead: expected a duration >= 0 \(30s, 1:00\), found "-5s"$' \
    "$P/slo-requeue" --restart-overhead -5s 7
run "bad hostlist" 2 "hostlist: expected node names of \[A-Za-z0-9._-\]" "$P/slo-power" --dry-run resume 'c/1'
run "missing config" 2 "$tmp/none.conf: cannot read the config file" \
    "$P/slo-power" --dry-run --node-table "$FIX/nodes.txt" --config "$tmp/none.conf" resume c1
printf 'provider=ec2\nregion=us-east-1\nregoin=x\n' > "$tmp/typo.conf"
run "unknown key names file:line" 2 "$tmp/typo.conf:3: unknown key 'regoin'" \
    "$P/slo-power" --dry-run --node-table "$FIX/nodes.txt" --config "$tmp/typo.conf" suspend c1
printf 'provider=local\nstate_dir=/x\nsubnets=subnet-1\n' > "$tmp/mixed.conf"
run "key of the other provider" 2 "mixed.conf:3: subnets applies to provider ec2" \
    "$P/slo-power" --dry-run --config "$tmp/mixed.conf" suspend c1
sed 's|^catalog=.*|catalog=/nonexistent/cat.json|' "$tmp/ec2.conf" > "$tmp/nocat.conf"
run "missing catalog" 2 "catalog=/nonexistent/cat.json" \
    "$P/slo-power" --dry-run --node-table "$FIX/nodes.txt" --config "$tmp/nocat.conf" resume c1
run "no slurm config" 2 "cannot read the Slurm config /nonexistent/slurm.conf \(SLURM_CONF\)" \
    env SLURM_CONF=/nonexistent/slurm.conf "$P/slo-power" --config "$tmp/ec2.conf" suspend c1
# once NAME PATTERN PROGRAM ARGS...: exit 2 and exactly one stderr line
# matching PATTERN (trial P5: every error line was printed twice on resume).
once() {
    name=$1; pat=$2; shift 2
    "$@" >"$tmp/out1" 2>"$tmp/err"
    rc=$?
    c=$(grep -Ec -- "$pat" "$tmp/err")
    if [ "$rc" = 2 ] && [ "$c" = 1 ]; then ok "$name"; else notok "$name (exit $rc, $c lines)"; cat "$tmp/err"; fi
}
printf 'provider=ec2\nfoo=bar\n' > "$tmp/foo.conf"
once "unknown key reported once on resume" "foo.conf:2: unknown key 'foo'" \
    "$P/slo-power" --dry-run --node-table "$FIX/nodes.txt" --config "$tmp/foo.conf" resume c1
once "missing config reported once on resume" "none.conf: cannot read the config file" \
    "$P/slo-power" --dry-run --config "$tmp/none.conf" resume 'c[1-2]'
once "missing node table reported once" "none.txt: cannot read the node table" \
    "$P/slo-power" --dry-run --node-table "$tmp/none.txt" --config "$tmp/ec2.conf" resume c1
printf 'provider=local\nstate_dir=/x\nstate_dir=/y\n' > "$tmp/rep.conf"
once "repeated key reported once" "rep.conf:3: state_dir is set twice" \
    "$P/slo-power" --dry-run --config "$tmp/rep.conf" resume c1
grep -v '^region=' "$tmp/ec2.conf" > "$tmp/noreg.conf"
once "missing region reported once" "noreg.conf: region: missing" \
    "$P/slo-power" --dry-run --node-table "$FIX/nodes.txt" --config "$tmp/noreg.conf" resume c1
if [ -s "$tmp/out" ]; then notok "errors print nothing on stdout"; else ok "errors print nothing on stdout"; fi

# ---- dry run: the CreateFleet requests, one per (instance type, capacity) group
SLURM_RESUME_FILE=$FIX/resume-file.json "$P/slo-power" --dry-run --config "$tmp/ec2.conf" \
    --node-table "$FIX/nodes.txt" resume 'c[1-3]' >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$FIX/fleet-spot-c1-2.json" "$FIX/fleet-ondemand-c3.json" > "$tmp/want.json"
if [ "$rc" = 0 ] && "$JEQ" "$tmp/want.json" "$tmp/out" 2>>"$tmp/err"; then
    ok "dry-run resume prints the hand-written spot and on-demand requests"
else
    notok "dry-run resume requests (exit $rc)"
fi
grep -q "node=c\[1-2\]: info: CreateFleet 2 x g4dn.12xlarge spot for job 6" "$tmp/err" &&
    ok "stderr names the group, type, capacity and job" || notok "stderr line of the group"
# Trial P6: a dry run appended its CreateFleet lines to the production log= file.
if [ ! -e "$tmp/power.log" ] && grep -q "info: dry run, 3 node(s), config .*, not writing log=$tmp/power.log" "$tmp/err"; then
    ok "dry run leaves the log= file alone and says so"
else
    notok "dry run wrote the log= file"
fi
# Trial P6: a node table line may be a hostlist (like NodeName=), and a node
# missing from --node-table is reported against that file, not slurmctld.
printf 'g4dn-spot-[001-002] g4dn.12xlarge,spot\n' > "$tmp/range.txt"
"$P/slo-power" --dry-run --config "$tmp/ec2.conf" --node-table "$tmp/range.txt" \
    resume 'g4dn-spot-[001-002]' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && grep -q "info: CreateFleet 2 x g4dn.12xlarge spot" "$tmp/err" &&
   [ "$(grep -c '"Type": "instant"' "$tmp/out")" = 1 ]; then
    ok "node table range line g4dn-spot-[001-002] is expanded"
else
    notok "node table range line (exit $rc)"
fi
"$P/slo-power" --dry-run --config "$tmp/ec2.conf" --node-table "$tmp/range.txt" \
    resume 'zz-1' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q "error: node zz-1 is not in the node table $tmp/range.txt" "$tmp/err" &&
   ! grep -q slurmctld "$tmp/err"; then
    ok "node missing from --node-table names the file"
else
    notok "node missing from --node-table (exit $rc)"
fi
printf 'g[1-2] g4dn.12xlarge,spot\ng2 p3.2xlarge,spot\n' > "$tmp/dup.txt"
run "node listed twice in the node table" 2 "dup.txt:2: node g2 is listed twice" \
    "$P/slo-power" --dry-run --config "$tmp/ec2.conf" --node-table "$tmp/dup.txt" resume g1
# The same through slo-power-resume, with the config found beside SLURM_CONF.
mkdir "$tmp/etc" && cp "$tmp/ec2.conf" "$tmp/etc/slo-power.conf" && : > "$tmp/etc/slurm.conf"
SLURM_CONF=$tmp/etc/slurm.conf SLURM_RESUME_FILE=$FIX/resume-file.json \
    "$P/slo-power-resume" --dry-run --node-table "$FIX/nodes.txt" 'c[1-3]' >"$tmp/out2" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && "$JEQ" "$tmp/want.json" "$tmp/out2" 2>>"$tmp/err"; then
    ok "slo-power-resume finds slo-power.conf beside SLURM_CONF"
else
    notok "slo-power-resume beside SLURM_CONF (exit $rc)"
fi
# Trial P11: the newer SLURM_RESUME_FILE shape (nodes_alloc / nodes_resume)
# gives the same requests and job tags, without a warning.
SLURM_RESUME_FILE=$FIX/resume-file-nodes-alloc.json "$P/slo-power" --dry-run --config "$tmp/ec2.conf" \
    --node-table "$FIX/nodes.txt" resume 'c[1-3]' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && "$JEQ" "$tmp/want.json" "$tmp/out" 2>>"$tmp/err" && ! grep -q warning "$tmp/err" &&
   grep -q "CreateFleet 2 x g4dn.12xlarge spot for job 6" "$tmp/err"; then
    ok "newer SLURM_RESUME_FILE (nodes_alloc, nodes_resume) keeps the job tags"
else
    notok "newer SLURM_RESUME_FILE (exit $rc)"; cat "$tmp/err"
fi
# A node whose features name no instance type: exit 1, the node and cause
# named; the other node's request is still printed.
"$P/slo-power" --dry-run --config "$tmp/ec2.conf" --node-table "$FIX/nodes.txt" \
    resume 'c3,bad1' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && grep -q "provider=ec2 node=bad1: error: no feature of node bad1 names an instance type of catalog aws-table3 (features: cloud,spot)" "$tmp/err" &&
   [ "$(grep -c '"Type": "instant"' "$tmp/out")" = 1 ]; then
    ok "unmapped node fails by name, the others go on"
else
    notok "unmapped node (exit $rc)"
fi
# Suspend: the cluster's instances by tag (one filter value whatever the node
# count: EC2 takes at most 200 per filter), then terminate-instances, printed.
"$P/slo-power" --dry-run --config "$tmp/ec2.conf" suspend 'c[1-300]' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] &&
   grep -qx "aws --region us-east-1 --output json ec2 describe-instances --filters Name=tag:slo-power:cluster,Values=testc Name=instance-state-name,Values=pending,running,stopping,stopped" "$tmp/out" &&
   grep -q "ec2 terminate-instances --instance-ids" "$tmp/out"; then
    ok "dry-run suspend prints describe-instances by tag and terminate-instances"
else
    notok "dry-run suspend (exit $rc)"
fi
# Local provider dry run: the slurmd command line.
printf 'provider=local\nslurmd=/bin/true\nstate_dir=%s/st\n' "$tmp" > "$tmp/local.conf"
"$P/slo-power" --dry-run --config "$tmp/local.conf" resume 'c[1-2]' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && grep -q "^/bin/true -D -b -N c2 " "$tmp/out" && [ ! -e "$tmp/st" ]; then
    ok "local dry-run prints slurmd -D -b -N NODE and creates nothing"
else
    notok "local dry-run (exit $rc)"
fi
# resume-fail: the released node is forced down so it is idle~ again (dry run:
# the request on stdout, nothing changed).
"$P/slo-power" --dry-run --config "$tmp/local.conf" resume-fail 'c[1-2]' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 0 ] && [ "$(grep -c '^scontrol update nodename=c[12] state=POWER_DOWN_FORCE reason="slo-power: did not register within ResumeTimeout' "$tmp/out")" = 2 ]; then
    ok "resume-fail dry run: each released node would be forced down (POWER_DOWN_FORCE)"
else
    notok "resume-fail dry run (exit $rc)"
fi
# aws_timeout_s: a key of the ec2 provider, a number of seconds in [1, 3600].
printf 'aws_timeout_s=0\n' | cat "$tmp/ec2.conf" - > "$tmp/tmo.conf"
run "aws_timeout_s range" 2 "tmo.conf:[0-9]+: aws_timeout_s: expected a number in \[1, 3600\], found '0'" \
    "$P/slo-power" --dry-run --config "$tmp/tmo.conf" suspend c1
printf 'aws_timeout_s=30\n' >> "$tmp/local.conf"
run "aws_timeout_s is an ec2 key" 2 "local.conf:4: aws_timeout_s applies to provider ec2" \
    "$P/slo-power" --dry-run --config "$tmp/local.conf" suspend c1
# Trial P7: a per-type launch template for a type the catalog lacks.
printf 'launch_template[nosuch.type]=lt-0abc\n' | cat "$tmp/ec2.conf" - > "$tmp/notype.conf"
line=$(wc -l < "$tmp/notype.conf")
once "launch_template for a type not in the catalog names file:line" \
    "notype.conf:$line: launch_template\[nosuch.type\]: expected an instance type of catalog aws-table3" \
    "$P/slo-power" --dry-run --node-table "$FIX/nodes.txt" --config "$tmp/notype.conf" resume c1

# ---- P10: installed paths agree in the docs, the example configs and the build.
# Autoconf's default prefix comes from configure itself; the build's
# sysconfdir from its Makefile (what `make install` uses for the catalogs).
pre=$(sed -n 's/^ac_default_prefix=//p' "$SLO_SRCDIR/configure")
MAN=$SLO_SRCDIR/doc/man/slo-power.8 EX=$SLO_SRCDIR/etc/slurm/slurm.conf.example PC=$SLO_SRCDIR/etc/slo/power.conf
bad=""
for a in resume suspend resume-fail; do
    for f in "$MAN" "$EX"; do
        grep -q "Program=$pre/sbin/slo-power-$a\$" "$f" || bad="$bad ${f##*/}:$a"
    done
done
grep -q "/usr/sbin/slo-power\|[ (]/etc/slo/" "$MAN" "$PC" && bad="$bad stale-/usr/sbin-or-/etc/slo"
grep -q "default $pre/sbin" "$MAN" || bad="$bad man:SBINDIR-default"
grep -q "$pre/etc/slo/power.conf" "$MAN" || bad="$bad man:conf"
grep -q "$pre/etc/slo/catalogs/" "$MAN" || bad="$bad man:catalogs"
cat=$(sed -n 's/^catalog=//p' "$PC")
case $cat in "$pre/etc/slo/catalogs/"*) [ -f "$SLO_SRCDIR/etc/slo/catalogs/${cat##*/}" ] || bad="$bad power.conf:no-such-catalog" ;;
    *) bad="$bad power.conf:catalog=$cat" ;; esac
[ -n "$pre" ] || bad="$bad no-ac_default_prefix"
if [ -z "$bad" ]; then ok "man page, power.conf and slurm.conf.example name the default install paths"
else notok "install paths disagree:$bad"; fi
prefix=$(sed -n 's/^prefix = //p' "$SLO_BUILDDIR/Makefile")
sc=$(sed -n 's/^sysconfdir = //p' "$SLO_BUILDDIR/Makefile" | sed "s|\${prefix}|$prefix|")
if "$P/slo-power" --help | tr -s ' \n' ' ' | grep -qF "else $sc/slo/power.conf)"; then
    ok "default config is SYSCONFDIR/slo/power.conf of this build ($sc)"
else notok "default config path is not $sc/slo/power.conf"; fi
# ---- issue 14: the node table's lines have any length. A comment of exactly
# 2047 characters before " c9 ..." was split by a 2048-byte fgets, and its
# tail became a live node c9 that a fleet was planned for; now c9 is not in
# the table (exit 1, nothing on stdout) and the same table's real c1 works.
{ printf '# %s' "$(head -c 2045 /dev/zero | tr '\0' x)"; printf 'c9 g4dn.12xlarge,spot\n'
  cat "$FIX/nodes.txt"; } >"$tmp/long.txt"
"$P/slo-power" --dry-run --node-table "$tmp/long.txt" --config "$tmp/ec2.conf" resume c9 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && grep -q "node c9 is not in the node table" "$tmp/err"; then
    ok "a 2047-character comment stays a comment: c9 is not a node of the table"
else
    notok "long comment line (exit $rc)"
fi
"$P/slo-power" --dry-run --node-table "$tmp/long.txt" --config "$tmp/ec2.conf" resume c1 >"$tmp/out" 2>"$tmp/err" &&
    grep -q 'CreateFleet' "$tmp/err" && ok "the same table's c1 resumes (dry run)" || notok "c1 after a long comment"
# duplicates among 100,000 names (the documented limit; Slurm's hostlist
# takes at most 65,536 per range), found by sorting: named, exit 2
"$P/slo-power" --dry-run --node-table "$FIX/nodes.txt" --config "$tmp/ec2.conf" resume \
    'c[1-50000],d[1-49999],c31337' >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ] && grep -q "hostlist: node c31337 appears twice" "$tmp/err"; then
    ok "c[1-50000],d[1-49999],c31337: the duplicate c31337 named"
else
    notok "duplicate among 100,000 names (exit $rc)"
fi
printf 'c1 g4dn.12xlarge,spot\nn1 a100-node\ng[1-3] g4dn.12xlarge,spot\nc1 g4dn.12xlarge,spot\n' >"$tmp/dup.txt"
run "node listed twice in the table" 2 "dup.txt:4: node c1 is listed twice \\(also line 1\\)" \
    "$P/slo-power" --dry-run --node-table "$tmp/dup.txt" --config "$tmp/ec2.conf" resume c1
# a dry run whose requests cannot be written fails (it said "done", exit 0)
if [ -w /dev/full ]; then
    "$P/slo-power" --dry-run --config "$tmp/ec2.conf" --node-table "$FIX/nodes.txt" resume 'c[1-2]' \
        >/dev/full 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 1 ] && grep -q 'stdout: write error: No space left on device' "$tmp/err" &&
       ! grep -q 'info: done$' "$tmp/err"; then
        ok "--dry-run > /dev/full: write error, exit 1"
    else
        : >"$tmp/out"; notok "--dry-run > /dev/full (exit $rc)"
    fi
fi
finish
