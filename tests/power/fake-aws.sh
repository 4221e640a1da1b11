#!/bin/sh
# Fake aws CLI for the slo-power tests. Records each call's arguments (one line
# per call) in $FAKE_AWS_LOG, copies a --cli-input-json file:// request to
# $FAKE_AWS_LOG.request.N.json, and prints the fixture named by
# $FAKE_AWS_<SUBCOMMAND> (create-fleet -> FAKE_AWS_CREATE_FLEET, ...), or
# $FAKE_AWS_<SUBCOMMAND>_FIRST on the first call when that is set.
# $FAKE_AWS_FAIL=<subcommand> makes that subcommand fail like the real CLI.
log=${FAKE_AWS_LOG:?}
echo "$*" >> "$log"
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
