#!/bin/sh
# exports.sh - the installed libraries export exactly the documented API
# (issue 11, item 4): for each shared library `make install` ships (libslo,
# and libsloprophet when built with MPI), every dynamic symbol it defines
# (nm -D --defined-only) is a function or object declared in the installed
# headers of that library, none has the private slo__ prefix, and every
# function those headers declare is exported.
#   libslo.so        slo.h, slo_core.h, slo_train.h, slo_infer.h, slo_comm.h
#                    (every installed header but slo_prophet*.h)
#   libsloprophet.so slo_prophet.h (slo_prophet*.h)
# The declarations are read from the preprocessed headers (cc -E), at file
# level, in the lines the preprocessor attributes to each installed header;
# `static` and `inline` definitions and typedefs are not API of a library.
# Exit 77 (SKIP) only when there is no nm.
. "${SLO_SRCDIR:?make check sets SLO_SRCDIR}/tests/testlib.sh"
. "$SLO_SRCDIR/tests/testinstall.sh"

NM=${NM:-nm}
if ! command -v "$NM" >/dev/null 2>&1; then
    echo "SKIP: no nm (Debian: binutils); the exported symbols are not checked"
    exit 77
fi
CC=${SLO_CC:-${CC:-cc}}

install_tmp "$tmp/inst" || exit 1
inc=$inst_includedir
lib=$inst_libdir
# Open MPI's headers, for slo_prophet.h (#include <mpi.h>).
mpi_cflags=$(pkg-config --cflags ompi-c 2>/dev/null || true)

# declared HEADER...: the functions and extern objects declared in the
# installed headers HEADER (paths under $inc), one name a line, sorted.
declared() {
    for h in "$@"; do
        # shellcheck disable=SC2086 # mpi_cflags is a list of flags
        if ! $CC -std=c11 -E -I"$inc" $mpi_cflags "$h" >"$tmp/pp" 2>"$tmp/pp.err"; then
            echo "cannot preprocess $h:" >&2; sed 's/^/#   /' "$tmp/pp.err" >&2
            echo "PREPROCESS-FAILED"; continue
        fi
        # Only the lines from this header (after the line markers
        # '# LINE "FILE" FLAGS'): what it includes has its own check.
        awk -v want="$h" '
            /^# [0-9]+ "/ { f = $3; gsub(/"/, "", f); keep = (f == want); next }
            /^#/ { next }
            keep { print }' "$tmp/pp" | awk '
            BEGIN {
                n = split("void char short int long float double signed unsigned " \
                          "const volatile restrict struct union enum _Bool _Noreturn " \
                          "extern static inline typedef sizeof _Alignas _Atomic", kw, " ")
                for (i = 1; i <= n; i++) keyword[kw[i]] = 1
                reset()
            }
            function reset() { fname = ""; obj = ""; is_typedef = 0; is_static = 0;
                               is_extern = 0; in_def = 0; after_obj = 0; prev = "" }
            function word(w) {
                if (depth > 0) return
                if (w == "typedef") is_typedef = 1
                else if (w == "static" || w == "inline") is_static = 1
                else if (w == "extern") is_extern = 1
                if (pdepth == 0 && !after_obj && !(w in keyword)) obj = w
            }
            { text = text $0 "\n" }
            END {
                depth = 0; pdepth = 0; len = length(text); i = 1
                while (i <= len) {
                    c = substr(text, i, 1)
                    if (c ~ /[A-Za-z_]/) {
                        j = i
                        while (j <= len && substr(text, j, 1) ~ /[A-Za-z0-9_]/) j++
                        w = substr(text, i, j - i); word(w); prev = w; i = j; continue
                    }
                    if (c == "\"" || c == "\047") {          # string or char literal
                        j = i + 1
                        while (j <= len && substr(text, j, 1) != c) {
                            if (substr(text, j, 1) == "\\") j++
                            j++
                        }
                        i = j + 1; prev = ""; continue
                    }
                    if (c ~ /[ \t\n]/) { i++; continue }
                    if (c == "(") {
                        if (depth == 0 && fname == "" && prev != "" && !(prev in keyword) &&
                            prev !~ /^__/)
                            fname = prev
                        pdepth++
                    } else if (c == ")") pdepth--
                    else if (c == "[" || c == "=") { if (depth == 0 && pdepth == 0) after_obj = 1 }
                    else if (c == "{") {
                        if (depth == 0 && pdepth == 0 && fname != "") in_def = 1
                        depth++
                    } else if (c == "}") {
                        depth--
                        if (depth == 0 && in_def) reset()
                    } else if (c == ";" && depth == 0 && pdepth == 0) {
                        if (!is_typedef && !is_static) {
                            if (fname != "") print fname
                            else if (is_extern && obj != "") print obj
                        }
                        reset()
                    }
                    prev = ""; i++
                }
            }'
    done | sort -u
}

# exported LIB: the dynamic symbols LIB defines, one name a line, sorted
# (without the linker-made _init, _fini, _edata, _end, __bss_start).
exported() {
    "$NM" -D --defined-only "$1" | awk 'NF >= 3 { print $3 } NF == 2 { print $2 }' |
        grep -Ev '^(_init|_fini|_edata|_end|__bss_start)$' | sed 's/@.*//' | sort -u
}

# check LIB HEADER...: LIB against the declarations of HEADER...
check() {
    l=$1; shift
    name=${l##*/}
    exported "$l" >"$tmp/exp"
    declared "$@" >"$tmp/decl"
    if [ ! -s "$tmp/exp" ]; then notok "$name: nm -D found no symbols"; return; fi
    if grep -qx PREPROCESS-FAILED "$tmp/decl"; then notok "$name: a header does not preprocess"; return; fi
    if [ ! -s "$tmp/decl" ]; then notok "$name: no function declared in ${*##*/}"; return; fi
    grep '^slo__' "$tmp/exp" >"$tmp/private"
    comm -23 "$tmp/exp" "$tmp/decl" >"$tmp/undoc"
    comm -13 "$tmp/exp" "$tmp/decl" >"$tmp/missing"
    if [ -s "$tmp/private" ]; then
        notok "$name exports $(wc -l <"$tmp/private") private slo__ symbols"
        sed 's/^/#   private: /' "$tmp/private"
    else ok "$name exports no private slo__ symbol"; fi
    if [ -s "$tmp/undoc" ]; then
        notok "$name exports $(wc -l <"$tmp/undoc") symbols no installed header of it declares"
        sed 's/^/#   undeclared: /' "$tmp/undoc"
    else ok "$name exports only what its headers declare ($(wc -l <"$tmp/exp") symbols)"; fi
    if [ -s "$tmp/missing" ]; then
        notok "$name lacks $(wc -l <"$tmp/missing") functions its headers declare"
        sed 's/^/#   declared, not exported: /' "$tmp/missing"
    else ok "$name exports every function its headers declare ($(wc -l <"$tmp/decl"))"; fi
}

# The installed headers, split by library.
slo_headers=""; prophet_headers=""
for h in "$inc"/*.h; do
    [ -f "$h" ] || continue
    case ${h##*/} in
        slo_prophet*.h) prophet_headers="$prophet_headers $h" ;;
        *) slo_headers="$slo_headers $h" ;;
    esac
done

if [ -f "$lib/libslo.so" ]; then
    # shellcheck disable=SC2086 # lists of paths without spaces
    check "$lib/libslo.so" $slo_headers
else
    echo "not installed: $lib/libslo.so" >"$tmp/err"; notok "libslo.so installed"
fi
if [ -f "$lib/libsloprophet.so" ]; then
    # shellcheck disable=SC2086
    check "$lib/libsloprophet.so" $prophet_headers
elif [ -n "$prophet_headers" ]; then
    notok "slo_prophet*.h installed without libsloprophet.so"
else
    echo "# libsloprophet not built (configure found no Open MPI): only libslo checked"
fi
finish
