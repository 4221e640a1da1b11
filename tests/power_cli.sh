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
grep -q "node=c\[1-2\]: info: CreateFleet 2 x g4dn.12xlarge spot for job 6" "$tmp/power.log" &&
    ok "log names the group, type, capacity and job" || notok "log line of the group"
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
# aws_timeout_s: a key of the ec2 provider, a number of seconds in [1, 3600].
printf 'aws_timeout_s=0\n' | cat "$tmp/ec2.conf" - > "$tmp/tmo.conf"
run "aws_timeout_s range" 2 "tmo.conf:[0-9]+: aws_timeout_s: expected a number in \[1, 3600\], found '0'" \
    "$P/slo-power" --dry-run --config "$tmp/tmo.conf" suspend c1
printf 'aws_timeout_s=30\n' >> "$tmp/local.conf"
run "aws_timeout_s is an ec2 key" 2 "local.conf:4: aws_timeout_s applies to provider ec2" \
    "$P/slo-power" --dry-run --config "$tmp/local.conf" suspend c1
finish
