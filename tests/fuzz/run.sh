#!/bin/sh
# Build and run the libFuzzer harnesses of tests/fuzz/ (README.md there).
#
#   run.sh build          build every harness into $SLO_BUILDDIR/tests/fuzz/
#   run.sh fuzz           build, then fuzz each harness for FUZZ_SECONDS
#                         (default 60) from its seed corpus, printing
#                         executions, coverage (cov:, ft:) and crashes
#   run.sh smoke          build, then run each harness over its seed corpus
#                         and FUZZ_SMOKE_RUNS (default 500) mutations from
#                         the fixed seed 1, so the run is reproducible: the
#                         check `make check` runs (tests/fuzz/smoke.sh)
#
# The kernel sources are compiled again with clang and
# -fsanitize=fuzzer-no-link,address,undefined (libFuzzer needs the coverage
# of the code it explores, which the gcc-built libslo-internal.la lacks),
# into $SLO_BUILDDIR/tests/fuzz/obj, rebuilt only when a source or header
# changes. Environment (make fuzz sets them from configure): FUZZ_CC (clang),
# SLO_SRCDIR, SLO_BUILDDIR, JANSSON_CFLAGS, JANSSON_LIBS, LAPACKE_CFLAGS,
# LAPACKE_LIBS, FUZZ_HAVE_SLURM (yes: also the slo-power harnesses, -lslurm),
# FUZZ_JOBS (parallel fuzzers, default 1), FUZZ_HARNESSES (names to run,
# default all). Exit: 0 all ran without a crash, 1 a crash or property
# failure (its input is saved under $SLO_BUILDDIR/tests/fuzz/crashes/), 77 no
# clang with libFuzzer (a skip), 2 bad usage.
set -eu
mode=${1:-fuzz}
case $mode in build|fuzz|smoke) ;; *) echo "usage: $0 build|fuzz|smoke" >&2; exit 2;; esac
: "${SLO_SRCDIR:?SLO_SRCDIR: expected the source tree}"
: "${SLO_BUILDDIR:?SLO_BUILDDIR: expected the configured build tree}"
FUZZ_CC=${FUZZ_CC:-clang}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_SMOKE_RUNS=${FUZZ_SMOKE_RUNS:-500}
FUZZ_JOBS=${FUZZ_JOBS:-1}
JANSSON_CFLAGS=${JANSSON_CFLAGS:-$(pkg-config --cflags jansson 2>/dev/null || true)}
JANSSON_LIBS=${JANSSON_LIBS:-$(pkg-config --libs jansson 2>/dev/null || echo -ljansson)}
LAPACKE_CFLAGS=${LAPACKE_CFLAGS:-$(pkg-config --cflags lapacke 2>/dev/null || true)}
LAPACKE_LIBS=${LAPACKE_LIBS:-$(pkg-config --libs lapacke 2>/dev/null || echo -llapacke)}
FUZZ_HAVE_SLURM=${FUZZ_HAVE_SLURM:-no}
src=$SLO_SRCDIR
out=$SLO_BUILDDIR/tests/fuzz
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined"

if [ "$FUZZ_CC" = no ] || ! command -v "$FUZZ_CC" >/dev/null 2>&1; then
    echo "SKIP: no clang with libFuzzer (configure found FUZZ_CC=$FUZZ_CC; Debian: clang)"
    exit 77
fi
mkdir -p "$out/obj" "$out/crashes" "$out/work"
probe=$out/obj/probe.c
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);
int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$probe"
if ! "$FUZZ_CC" -fsanitize=fuzzer,address,undefined "$probe" -o "$out/obj/probe" 2>/dev/null; then
    echo "SKIP: $FUZZ_CC cannot link -fsanitize=fuzzer,address,undefined (Debian: clang, libclang-rt-dev)"
    exit 77
fi

cppflags="-D_POSIX_C_SOURCE=200809L -DHAVE_CONFIG_H -I$SLO_BUILDDIR -I$src/kernel -I$src/kernel/core \
-I$src/kernel/train -I$src/kernel/infer -I$src/kernel/comm -I$SLO_BUILDDIR/kernel \
-I$src/spank_plugin -I$src/power -I$src/tests/fuzz $JANSSON_CFLAGS $LAPACKE_CFLAGS"
# no -Werror: the gcc build enforces the warnings; clang's own must not stop a fuzz run
cflags="-std=c11 -g -O1 -Wall -Wextra $sanitize"
newest_header=$(ls -t "$src"/kernel/*/*.h "$src"/spank_plugin/*.h "$src"/power/*.h \
    "$src"/tests/fuzz/fuzz.h "$SLO_BUILDDIR/config.h" | head -n 1)

# compile SRC into obj/NAME.o when SRC or the newest header is newer
compile() {
    o=$out/obj/$2.o
    if [ ! -f "$o" ] || [ "$1" -nt "$o" ] || [ "$newest_header" -nt "$o" ]; then
        # shellcheck disable=SC2086
        "$FUZZ_CC" $cppflags $cflags $3 -c "$1" -o "$o"
    fi
    objs="$objs $o"
}

[ -f "$SLO_BUILDDIR/kernel/embedded.c" ] || (cd "$SLO_BUILDDIR" && ${MAKE:-make} -s kernel/embedded.c)
objs=
for f in "$src"/kernel/core/*.c "$src"/kernel/train/*.c "$src"/kernel/infer/*.c \
    "$src"/kernel/comm/*.c "$SLO_BUILDDIR/kernel/embedded.c"; do
    compile "$f" "kernel-$(basename "$f" .c)" -fsanitize=fuzzer-no-link
done
kernel_objs=$objs
objs=
compile "$src/spank_plugin/args.c" spank-args -fsanitize=fuzzer-no-link
spank_objs=$objs
power_objs=
if [ "$FUZZ_HAVE_SLURM" = yes ]; then
    objs=
    for f in config nodes util slurm ec2 local retry backoff; do
        compile "$src/power/$f.c" "power-$f" "-fsanitize=fuzzer-no-link -DPOWER_SYSCONFDIR=\"/etc\""
    done
    power_objs=$objs
fi

harnesses=
for h in "$src"/tests/fuzz/fuzz_*.c; do
    name=$(basename "$h" .c)
    name=${name#fuzz_}
    extra=
    libs="$JANSSON_LIBS $LAPACKE_LIBS -lm"
    case $name in
    spank_args) extra=$spank_objs ;;
    power_*)
        [ "$FUZZ_HAVE_SLURM" = yes ] || { echo "fuzz $name: skipped (no libslurm: slo-power is not built)"; continue; }
        extra=$power_objs; libs="$libs -lslurm" ;;
    esac
    if [ -n "${FUZZ_HARNESSES:-}" ]; then
        case " $FUZZ_HARNESSES " in *" $name "*) ;; *) continue ;; esac
    fi
    objs=
    compile "$h" "fuzz-$name" -fsanitize=fuzzer-no-link
    bin=$out/fuzz_$name
    if [ ! -x "$bin" ] || [ -n "$(find $objs $kernel_objs $extra -newer "$bin" 2>/dev/null | head -n 1)" ]; then
        # shellcheck disable=SC2086
        "$FUZZ_CC" $cflags -fsanitize=fuzzer $objs $extra $kernel_objs $libs -o "$bin"
    fi
    harnesses="$harnesses $name"
done
[ "$mode" = build ] && { echo "built:$harnesses"; exit 0; }

# run NAME: fuzz one harness from a private copy of its seed corpus (the
# tree's corpus is never written); print one summary line.
run_one() {
    name=$1
    corpus=$src/tests/fuzz/corpus/$name
    work=$out/work/$name
    rm -rf "$work"; mkdir -p "$work"
    if [ "$mode" = smoke ]; then limit="-runs=$FUZZ_SMOKE_RUNS -seed=1"; else limit="-max_total_time=$FUZZ_SECONDS"; fi
    log=$out/$name.log
    start=$(date +%s)
    set +e
    # shellcheck disable=SC2086
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        LSAN_OPTIONS=suppressions=$src/tests/fuzz/lsan.supp:print_suppressions=0 \
        TMPDIR=$work "$out/fuzz_$name" $limit -timeout=20 -rss_limit_mb=2048 -error_exitcode=1 \
        -print_final_stats=1 -artifact_prefix="$out/crashes/$name-" \
        "$work" "$corpus" >"$log" 2>&1
    rc=$?
    set -e
    secs=$(($(date +%s) - start))
    line=$(grep -E '#[0-9]+[[:space:]]+DONE|#[0-9]+[[:space:]]+(pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(printf '%s\n' "$line" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(printf '%s\n' "$line" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    seeds=$(ls "$corpus" | wc -l)
    if [ $rc -eq 0 ]; then verdict="0 crashes"; else verdict="CRASH or property failure (exit $rc; log $log)"; fi
    printf '%-16s %3d seeds %9s execs in %3d s  cov: %-5s ft: %-6s %s\n' "$name" "$seeds" \
        "${execs:-?}" "$secs" "${cov:-?}" "${ft:-?}" "$verdict"
    [ $rc -eq 0 ] || { tail -n 40 "$log" >&2; return 1; }
}

fail=0
if [ "$FUZZ_JOBS" -gt 1 ]; then
    for name in $harnesses; do
        ( rc=0; run_one "$name" >"$out/work/$name.summary" 2>&1 || rc=$?; echo $rc >"$out/work/$name.rc" ) &
        while [ "$(jobs -p | wc -l)" -ge "$FUZZ_JOBS" ]; do sleep 1; done
    done
    wait
    for name in $harnesses; do
        cat "$out/work/$name.summary"
        [ "$(cat "$out/work/$name.rc")" = 0 ] || fail=1
    done
else
    for name in $harnesses; do run_one "$name" || fail=1; done
fi
exit $fail
