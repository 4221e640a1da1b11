#!/bin/sh
# power_aws_validate.sh - an independent check of slo-power's EC2 requests:
# the AWS CLI validates parameters against the EC2 service model (botocore)
# before it signs or sends anything. The dry-run CreateFleet requests (spot
# and on-demand) and the suspend's describe-instances filters must pass that
# validation. Nothing can reach AWS: no credentials are visible (config files
# /dev/null, credential variables unset, instance metadata disabled) and the
# endpoint is a closed local port, so the CLI stops at "Unable to locate
# credentials" or "Could not connect" once the input is valid.
. "$SLO_SRCDIR/tests/testlib.sh"
P=$SLO_BUILDDIR/power
FIX=$SLO_SRCDIR/tests/power
AWS=$(command -v aws 2>/dev/null) || { echo "SKIP: the aws CLI is not installed"; exit 77; }
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_PROFILE AWS_DEFAULT_PROFILE \
      AWS_CONTAINER_CREDENTIALS_RELATIVE_URI AWS_CONTAINER_CREDENTIALS_FULL_URI \
      AWS_WEB_IDENTITY_TOKEN_FILE AWS_ROLE_ARN SLURM_CONF SLO_POWER_CONF
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_EC2_METADATA_DISABLED=true
export AWS_MAX_ATTEMPTS=1 AWS_RETRY_MODE=standard
ENDPOINT=--endpoint-url=http://127.0.0.1:9

sed -e "s|@SRCDIR@|$SLO_SRCDIR|" -e "s|@AWS@|$AWS|" "$FIX/ec2.conf.in" > "$tmp/ec2.conf"
# Probe: the CLI must report invalid input as such here, or this test proves nothing.
printf '{"Type": "instant", "Bogus": 1}\n' > "$tmp/bad.json"
timeout 120 "$AWS" --region us-east-1 $ENDPOINT ec2 create-fleet --cli-input-json "file://$tmp/bad.json" >"$tmp/out" 2>"$tmp/err"
if grep -q "Parameter validation failed" "$tmp/err"; then
    ok "the aws CLI rejects an invalid CreateFleet input offline"
else
    echo "SKIP: this aws CLI does not validate parameters offline: $(head -c 200 "$tmp/err")"; exit 77
fi

# valid NAME FILE: create-fleet input FILE passes validation.
valid() {
    timeout 120 "$AWS" --region us-east-1 $ENDPOINT ec2 create-fleet --cli-input-json "file://$2" >"$tmp/out" 2>"$tmp/err"
    if ! grep -q "Parameter validation failed\|Unknown parameter\|Invalid type" "$tmp/err" &&
       grep -q "Unable to locate credentials\|Could not connect" "$tmp/err"; then
        ok "$1"
    else
        notok "$1"
    fi
}
"$P/slo-power" --dry-run --config "$tmp/ec2.conf" --node-table "$FIX/nodes.txt" resume 'c[1-3]' \
    >"$tmp/reqs" 2>"$tmp/err" || notok "dry run"
# Split the two printed requests (each ends with a line "}" at column 0).
awk -v d="$tmp" 'BEGIN{n=1} {print > (d "/req" n ".json")} /^}$/{n++}' "$tmp/reqs"
valid "spot CreateFleet request passes the EC2 model" "$tmp/req1.json"
valid "on-demand CreateFleet request passes the EC2 model" "$tmp/req2.json"
valid "hand-written spot fixture passes the EC2 model" "$FIX/fleet-spot-c1-2.json"
valid "hand-written on-demand fixture passes the EC2 model" "$FIX/fleet-ondemand-c3.json"

# The suspend's commands, as printed by --dry-run, parse (shorthand filters).
"$P/slo-power" --dry-run --config "$tmp/ec2.conf" suspend 'c[1-2]' >"$tmp/cmds" 2>"$tmp/err"
describe=$(grep ' describe-instances ' "$tmp/cmds" | sed "s|^aws |$AWS $ENDPOINT |")
timeout 120 sh -c "$describe" >"$tmp/out" 2>"$tmp/err"
if ! grep -q "Parameter validation failed\|Error parsing parameter\|usage:" "$tmp/err" &&
   grep -q "Unable to locate credentials\|Could not connect" "$tmp/err"; then
    ok "describe-instances tag filters parse"
else
    notok "describe-instances tag filters parse"
fi
# create-tags and terminate-instances exactly as test_power checks slo-power
# issues them (tests/test_power.c, test_ec2_resume_ok / test_ec2_terminate).
for args in "create-tags --resources i-0aaa0000000000001 --tags Key=Name,Value=c1 Key=slo-power:node,Value=c1" \
            "terminate-instances --instance-ids i-0aaa0000000000001"; do
    timeout 120 "$AWS" --region us-east-1 --output json $ENDPOINT ec2 $args >"$tmp/out" 2>"$tmp/err"
    if ! grep -q "Parameter validation failed\|Error parsing parameter\|usage:" "$tmp/err" &&
       grep -q "Unable to locate credentials\|Could not connect" "$tmp/err"; then
        ok "${args%% *} arguments parse"
    else
        notok "${args%% *} arguments parse"
    fi
done
finish
