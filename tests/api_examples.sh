#!/bin/sh
# api_examples.sh - the programs of the API documentation build against the
# installed library and print what the documentation says (issue 11, item 5).
# `make install` into a scratch DESTDIR, pkg-config pointed at it
# (tests/testinstall.sh); then for each doc/examples/X.c:
#   - doc/examples/X.out exists and doc/api/X.md holds X.c, character for
#     character, as a fenced ```c block (the page shows the program tested);
#   - X.c includes only installed headers: <slo.h>, <slo_prophet.h> and the C
#     library's, no "quoted" or per-part header;
#   - it compiles with `cc $(pkg-config --cflags libslo) X.c $(pkg-config
#     --libs libslo)` (-std=c11 -Wall -Wextra -Werror); an example that
#     includes <slo_prophet.h> with mpicc and libsloprophet too;
#   - it runs from an empty directory with LD_LIBRARY_PATH at the installed
#     lib dir (the runtime's under mpirun, settings of tests/mpi_env.sh, with
#     the ranks its "mpirun -np N" comment names, else 2), exits 0, and its
#     stdout is X.out.
# Every doc/api/X.md has its doc/examples/X.c. And the installed libslo(3)
# formats without a warning (groff -man -ww), when groff is there.
# Examples of the runtime are skipped (not failed) without Open MPI.
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"
. "$SLO_SRCDIR/tests/testinstall.sh"
. "$SLO_SRCDIR/tests/mpi_env.sh"

CC=${SLO_CC:-${CC:-cc}}
ex=$SLO_SRCDIR/doc/examples
api=$SLO_SRCDIR/doc/api

install_tmp "$tmp/inst" || exit 1
mkdir "$tmp/run"

# 1. pkg-config gives the scratch tree's flags.
if pkg-config --exists libslo && [ "$(pkg-config --variable=libdir libslo)" = "$inst_libdir" ] &&
   pkg-config --cflags libslo | grep -q -- "-I$inst_includedir" &&
   pkg-config --libs libslo | grep -q -- "-L$inst_libdir"; then
    ok "pkg-config libslo names the installed copy"
else
    { echo "PKG_CONFIG_PATH=$PKG_CONFIG_PATH"; pkg-config --cflags --libs libslo; } >"$tmp/err" 2>&1
    notok "pkg-config libslo names the installed copy"
fi

# fenced_c FILE: each ```c block of FILE, to FILE.blockN (N = 1, 2, ...).
fenced_c() {
    awk -v out="$tmp/block" '
        !inb && /^```c[ \t]*$/ { inb = 1; n++; f = out n; printf "" >f; next }
        inb && /^```[ \t]*$/ { inb = 0; close(f); next }
        inb { print >f }' "$1"
}

n_ex=0
for src in "$ex"/*.c; do
    [ -f "$src" ] || continue
    n_ex=$((n_ex + 1))
    x=$(basename "$src" .c)
    : >"$tmp/out"; : >"$tmp/err"

    # The page shows the program tested.
    rm -f "$tmp"/block*
    if [ ! -f "$api/$x.md" ]; then
        echo "no doc/api/$x.md" >"$tmp/err"; notok "$x: doc/api/$x.md shows $x.c"
    else
        fenced_c "$api/$x.md"
        same=no
        for b in "$tmp"/block*; do
            [ -f "$b" ] && cmp -s "$b" "$src" && same=yes
        done
        if [ "$same" = yes ]; then ok "$x: doc/api/$x.md shows $x.c"
        else
            if [ -f "$tmp/block1" ]; then diff -u "$src" "$tmp/block1" >"$tmp/err"
            else echo "doc/api/$x.md has no \`\`\`c block" >"$tmp/err"; fi
            notok "$x: doc/api/$x.md shows $x.c (diff to its first \`\`\`c block)"
        fi
    fi

    # Only the installed headers.
    if grep -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*("|<slo_(core|train|infer|comm|private)[^>]*>)' \
           "$src" >"$tmp/err"; then
        notok "$x: includes only <slo.h>, <slo_prophet.h> and the C library"
    else ok "$x: includes only <slo.h>, <slo_prophet.h> and the C library"; fi

    if [ ! -f "$ex/$x.out" ]; then
        echo "no doc/examples/$x.out" >"$tmp/err"; notok "$x: expected output doc/examples/$x.out"
        continue
    fi

    # Build against the installed library.
    pkgs=libslo; cc=$CC; mpi=no
    if grep -Eq '^[[:space:]]*#[[:space:]]*include[[:space:]]*<slo_prophet' "$src"; then
        if [ ! -f "$inst_libdir/libsloprophet.so" ]; then
            echo "# SKIP $x: includes <slo_prophet.h>, and libsloprophet is not built (no Open MPI)"
            continue
        fi
        pkgs="libsloprophet libslo"; mpi=yes
        command -v mpicc >/dev/null 2>&1 && cc=mpicc
    fi
    # shellcheck disable=SC2046 # pkg-config prints lists of flags
    # The build's own CFLAGS/LDFLAGS too: a sanitizer build's library needs
    # its runtime linked into the program (ASan must come first).
    if $cc -std=c11 -Wall -Wextra -Werror ${SLO_BUILD_CFLAGS:-} $(pkg-config --cflags $pkgs) \
           "$src" ${SLO_BUILD_LDFLAGS:-} $(pkg-config --libs $pkgs) -o "$tmp/$x" \
           >"$tmp/out" 2>"$tmp/err"; then
        ok "$x: compiles with pkg-config $pkgs ($cc)"
    else notok "$x: compiles with pkg-config $pkgs ($cc)"; continue; fi

    # Run it where there are no files to read.
    if [ "$mpi" = yes ]; then
        if [ "${SLO_MPIRUN:-no}" = no ] || [ ! -x "$SLO_MPIRUN" ]; then
            echo "# SKIP $x: built, not run: configure found no mpirun"
            continue
        fi
        np=$(sed -n 's/.*mpirun -np \([0-9][0-9]*\).*/\1/p' "$src" | head -n 1)
        (cd "$tmp/run" && LD_LIBRARY_PATH=$inst_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
            timeout 120 "$SLO_MPIRUN" -np "${np:-2}" -x LD_LIBRARY_PATH "$tmp/$x") \
            >"$tmp/out" 2>"$tmp/err"
    else
        (cd "$tmp/run" && LD_LIBRARY_PATH=$inst_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
            timeout 60 "$tmp/$x") >"$tmp/out" 2>"$tmp/err"
    fi
    rc=$?
    if [ "$rc" != 0 ]; then notok "$x: runs and exits 0 (exit $rc)"; continue; fi
    ok "$x: runs and exits 0"
    if diff -u "$ex/$x.out" "$tmp/out" >"$tmp/err"; then ok "$x: prints doc/examples/$x.out"
    else notok "$x: prints doc/examples/$x.out (diff: expected, printed)"; fi
done
if [ "$n_ex" -gt 0 ]; then ok "$n_ex programs in doc/examples"
else echo "no doc/examples/*.c" >"$tmp/err"; notok "programs in doc/examples"; fi

# Every page of doc/api has its program.
for page in "$api"/*.md; do
    [ -f "$page" ] || continue
    x=$(basename "$page" .md)
    if [ -f "$ex/$x.c" ]; then ok "doc/api/$x.md has doc/examples/$x.c"
    else echo "no doc/examples/$x.c" >"$tmp/err"; notok "doc/api/$x.md has doc/examples/$x.c"; fi
done

# 2. The man page installed beside the library formats cleanly.
man3=$inst_mandir/man3/libslo.3
if [ ! -f "$man3" ]; then
    echo "not installed: $man3" >"$tmp/err"; notok "libslo(3) installed"
elif command -v groff >/dev/null 2>&1; then
    if groff -man -Tutf8 -ww -z "$man3" >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/err" ]; then
        ok "libslo(3) installed, formats without a warning"
    else notok "libslo(3) formats without a warning (groff -man -ww)"; fi
else
    ok "libslo(3) installed (no groff: not formatted)"
fi
finish
