#!/bin/sh
# slurm_lua.sh - etc/slurm/job_submit.lua without a cluster: syntax with
# `luac -p` (configure's LUAC, Debian lua5.1), then its rules case by case
# in a Lua 5.1 interpreter with a stand-in for slurmctld's `slurm` table
# (tests/slurm/test_job_submit.lua; the cases come from doc/slurm.md).
# slurmctld's job_submit/lua is built against Lua 5.1 on Debian 12. Then the
# plugin's real records ($SLO_BUILDDIR/tests/spank_records) through the script.
. "$SLO_SRCDIR/tests/testlib.sh"
script=$SLO_SRCDIR/etc/slurm/job_submit.lua
luac=${SLO_LUAC:-no}
[ "$luac" = no ] && luac=$(command -v luac5.1 || command -v luac || echo no)
lua=$(command -v lua5.1 || command -v lua || echo no)
if [ "$luac" = no ] && [ "$lua" = no ]; then
    echo "SKIP: neither luac nor lua found (Debian: lua5.1); job_submit.lua not checked"
    exit 77
fi
if [ "$luac" != no ]; then
    if "$luac" -p "$script" >"$tmp/out" 2>"$tmp/err"; then ok "luac -p job_submit.lua"
    else notok "luac -p job_submit.lua"; fi
    # a syntax error must be caught by the same check (the check can fail)
    printf 'function slurm_job_submit(\n' >"$tmp/bad.lua"
    if "$luac" -p "$tmp/bad.lua" >"$tmp/out" 2>"$tmp/err"; then notok "luac -p rejects a broken script"
    else ok "luac -p rejects a broken script"; fi
else
    echo "# luac not found: syntax check not run (the interpreter below parses it too)"
fi
if [ "$lua" = no ]; then
    echo "# lua interpreter not found (Debian: lua5.1): rule cases not run"
else
    "$lua" "$SLO_SRCDIR/tests/slurm/test_job_submit.lua" "$script" >"$tmp/cases" 2>&1
    rc=$?
    cat "$tmp/cases"
    n=$(grep -c '^ok - ' "$tmp/cases")
    if [ "$rc" = 0 ] && ! grep -q '^not ok' "$tmp/cases" && [ "$n" -ge 40 ]; then
        ok "job_submit.lua rules: $n cases"
    else
        cp "$tmp/cases" "$tmp/out"; : >"$tmp/err"
        notok "job_submit.lua rules (exit $rc)"
    fi
    # The plugin's own records (sslo_plan() output of spank_plugin/plan.c,
    # printed by tests/spank_records, built where Slurm's headers are) for
    # several plans must pass job_submit.lua as they are.
    records=$SLO_BUILDDIR/tests/spank_records
    if [ ! -x "$records" ]; then
        echo "# $records not built (configure found no Slurm headers): plugin records not checked"
    elif ! "$records" >"$tmp/records" 2>"$tmp/err"; then
        : >"$tmp/out"
        notok "tests/spank_records prints the plugin's records"
    else
        "$lua" "$SLO_SRCDIR/tests/slurm/test_job_submit.lua" "$script" "$tmp/records" \
            >"$tmp/cases" 2>&1
        rc=$?
        cat "$tmp/cases"
        n=$(grep -c '^ok - plugin records' "$tmp/cases")
        if [ "$rc" = 0 ] && ! grep -q '^not ok' "$tmp/cases" && [ "$n" -ge 20 ]; then
            ok "job_submit.lua applies the plugin's records: $n cases"
        else
            cp "$tmp/cases" "$tmp/out"; : >"$tmp/err"
            notok "job_submit.lua on the plugin's records (exit $rc)"
        fi
    fi
fi
finish
