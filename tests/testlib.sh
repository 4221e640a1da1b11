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

# require_python "IMPORTS" WHAT: PY (SLO_PYTHON, default Debian's
# /usr/bin/python3: the pyenv python3 on PATH has no torch) must run
# `import IMPORTS`, else the test is skipped (exit 77) naming WHAT, the Debian
# packages that bring them. SLO_PYTHON=: skips every Python test.
require_python() {
    PY=${SLO_PYTHON:-/usr/bin/python3}
    if [ "$PY" = : ]; then
        echo "SKIP: SLO_PYTHON=: (the Python tests are off)"
        exit 77
    fi
    if ! "$PY" -c "import $1" 2>/dev/null; then
        echo "SKIP: $PY cannot import $1 ($2)"
        exit 77
    fi
}

# expect NAME PATTERN ARGS...: slo ARGS exits 2 with nothing on stdout and one
# message on stderr matching PATTERN (grep -E): at most MAX_ERR_LINES lines
# (default 2: a note may precede it), each starting with ERR_PREFIX if set.
expect() {
    name=$1; pattern=$2; shift 2
    "$SLO" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && grep -Eq -- "$pattern" "$tmp/err" &&
       [ "$(wc -l <"$tmp/err")" -le "${MAX_ERR_LINES:-2}" ] &&
       { [ -z "${ERR_PREFIX:-}" ] || ! grep -qv "^$ERR_PREFIX" "$tmp/err"; }; then
        ok "$name"
    else
        notok "$name (exit $rc)"
    fi
}

# succeeds NAME PATTERN... -- ARGS...: slo ARGS exits 0 and its stdout matches
# every PATTERN (grep -E).
succeeds() {
    name=$1; shift
    pats=""
    while [ "$1" != "--" ]; do pats="$pats
$1"; shift; done
    shift
    "$SLO" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" != 0 ]; then notok "$name (exit $rc)"; return; fi
    echo "$pats" | while IFS= read -r p; do
        [ -z "$p" ] && continue
        grep -Eq -- "$p" "$tmp/out" || { echo "missing: $p" >>"$tmp/err"; echo x >"$tmp/miss"; }
    done
    if [ -e "$tmp/miss" ]; then rm -f "$tmp/miss"; notok "$name"; else ok "$name"; fi
}

finish() {
    echo "$passes passed, $fails failed"
    [ "$fails" = 0 ]
}
