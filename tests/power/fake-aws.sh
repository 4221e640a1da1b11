#!/bin/sh
# Fake aws CLI for the slo-power tests. Records each call's arguments (one line
# per call) in $FAKE_AWS_LOG, copies a --cli-input-json file:// request to
# $FAKE_AWS_LOG.request.N.json, and prints the fixture named by
# $FAKE_AWS_<SUBCOMMAND> (create-fleet -> FAKE_AWS_CREATE_FLEET, ...), or
# $FAKE_AWS_<SUBCOMMAND>_FIRST on the first call when that is set.
# $FAKE_AWS_FAIL=<subcommand> makes that subcommand fail like the real CLI;
# $FAKE_AWS_HANG=<subcommand> makes it hang (sleep, as a stuck aws would).
# $FAKE_AWS_THROTTLE=<subcommand>:N makes the first N calls of that subcommand
# fail as the aws CLI does once its own retries of a throttled request are
# spent (RequestLimitExceeded, exit 254; counted in $FAKE_AWS_LOG.throttle.SUB).
# EC2's request limits are enforced as EC2 does: more than 200 values in one
# filter (FilterLimitExceeded), more than 1000 ids in one terminate-instances.
log=${FAKE_AWS_LOG:?}
echo "$*" >> "$log"
after_ids=0
n_ids=0
for a in "$@"; do
    case $a in
        *Values=*)
            commas=$(printf '%s' "${a#*Values=}" | tr -cd , | wc -c)
            if [ "$commas" -ge 200 ]; then
                echo "An error occurred (FilterLimitExceeded) when calling the DescribeInstances operation: The maximum number of filter values specified on a single call is 200" >&2
                exit 254
            fi ;;
    esac
    if [ "$after_ids" = 1 ]; then
        case $a in --*) after_ids=0 ;; *) n_ids=$((n_ids + 1)) ;; esac
    fi
    [ "$a" = --instance-ids ] && after_ids=1
done
case " $* " in
    *" terminate-instances "*)
        if [ "$n_ids" -gt 1000 ]; then
            echo "An error occurred (InvalidParameterValue) when calling the TerminateInstances operation: more than 1000 instance ids ($n_ids)" >&2
            exit 254
        fi ;;
esac
sub=
prev=
for a in "$@"; do
    [ "$prev" = ec2 ] && sub=$a
    case $a in
        file://*) n=$(wc -l < "$log"); cp "${a#file://}" "$log.request.$((n)).json" ;;
    esac
    prev=$a
done
if [ "${FAKE_AWS_FAIL:-}" = "$sub" ]; then
    echo "" >&2
    echo "An error occurred (UnauthorizedOperation) when calling the $sub operation: You are not authorized to perform this operation." >&2
    exit 254
fi
if [ -n "${FAKE_AWS_THROTTLE:-}" ] && [ "${FAKE_AWS_THROTTLE%:*}" = "$sub" ]; then
    cf=$log.throttle.$sub
    done_n=0
    [ -e "$cf" ] && done_n=$(wc -l < "$cf")
    if [ "$done_n" -lt "${FAKE_AWS_THROTTLE##*:}" ]; then
        echo x >> "$cf"
        op=$(echo "$sub" | sed 's/\(^\|-\)\([a-z]\)/\U\2/g')
        echo "" >&2
        echo "An error occurred (RequestLimitExceeded) when calling the $op operation (reached max retries: 4): Request limit exceeded." >&2
        exit 254
    fi
fi
if [ "${FAKE_AWS_HANG:-}" = "$sub" ]; then
    exec sleep 100000
fi
var=FAKE_AWS_$(echo "$sub" | tr 'a-z-' 'A-Z_')
eval "file=\${$var:-}"
# $FAKE_AWS_<SUBCOMMAND>_FIRST: the fixture for the first such call only.
eval "first=\${${var}_FIRST:-}"
if [ -n "$first" ] && [ ! -e "$log.first.$sub" ]; then
    : > "$log.first.$sub"
    file=$first
fi
[ -n "$file" ] && cat "$file"
exit 0
