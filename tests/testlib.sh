# testlib.sh - shared by the shell tests (sourced): a scratch directory, the
# ok / notok counters and `expect` for bad invocations. make check sets SLO
# (the slo binary) and SLO_SRCDIR; finish prints the closing count.
set -u
: "${SLO:?SLO must name the slo binary (make check sets it)}"
: "${SLO_SRCDIR:?SLO_SRCDIR must name the source tree (make check sets it)}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0

ok() { passes=$((passes + 1)); echo "ok - $1"; }
notok() { fails=$((fails + 1)); echo "not ok - $1"; sed 's/^/#   /' "$tmp/out" "$tmp/err" 2>/dev/null; }

# expect NAME PATTERN ARGS...: slo ARGS exits 2 with nothing on stdout and one
# message (at most 2 lines) on stderr matching PATTERN (grep -E).
expect() {
    name=$1; pattern=$2; shift 2
    "$SLO" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && grep -Eq -- "$pattern" "$tmp/err" &&
       [ "$(wc -l <"$tmp/err")" -le 2 ]; then
        ok "$name"
    else
        notok "$name (exit $rc)"
    fi
}

finish() {
    echo "$passes passed, $fails failed"
    [ "$fails" = 0 ]
}
