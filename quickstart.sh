#!/usr/bin/env bash
# quickstart.sh - set up a fresh Debian 12 machine and build slo-kernel.
#   ./quickstart.sh run    install packages, build, run `slo train` on the embedded data
#   ./quickstart.sh test   install packages, build with -Werror and run every test:
#                          make check, valgrind, an ASan+UBSan build, make distcheck
# Environment: SLO_REFERENCE_DATA=DIR (default: ../shared/data when present),
# JOBS=N (default: nproc).
set -euo pipefail
mode=${1:-run}
case "$mode" in run|test) ;; *) echo "usage: $0 run|test" >&2; exit 2 ;; esac
cd "$(dirname "$0")"
top=$(pwd)
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

packages=(build-essential autoconf automake libtool pkg-config libjansson-dev liblapacke-dev)
# Tests also build and run the Slurm plugin on a single-host Slurm cluster and
# the MPI profiler and runtime under Open MPI (shared/research notes, 1.1).
[ "$mode" = test ] && packages+=(libcmocka-dev valgrind \
    slurm-wlm slurmctld slurmd slurm-client libslurm-dev munge lua5.1 \
    openmpi-bin libopenmpi-dev libhwloc-dev jq)
# the Python package's PyTorch tests (tests/test_python_ddp.sh)
[ "$mode" = test ] && packages+=(python3-torch python3-torchvision)
# tests/cli_infer_deploy.sh parses Triton fragments against model_config.proto.
[ "$mode" = test ] && packages+=(protobuf-compiler python3-protobuf)
# `slo train --frontier --plot` draws with gnuplot (its test skips without it).
[ "$mode" = test ] && packages+=(gnuplot-nox)
# the training kit's asynchronous PS job on the digits set (tests/test_python_train.sh)
[ "$mode" = test ] && packages+=(python3-sklearn)
# The fuzz harnesses' smoke run (tests/fuzz/) needs clang with libFuzzer.
[ "$mode" = test ] && packages+=(clang libclang-rt-dev)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "quickstart: installing ${missing[*]}"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ -x configure ] && [ configure -nt configure.ac ] && [ configure -nt Makefile.am ] || autoreconf -fi

refdata=()
if [ -n "${SLO_REFERENCE_DATA:-}" ]; then
    refdata=(--with-reference-data="$SLO_REFERENCE_DATA")
elif [ -f ../shared/data/spotdnn/repo_model_reference_evaluations.csv ]; then
    refdata=(--with-reference-data="$top/../shared/data")
fi

build() { # build DIR [configure args...]
    local dir=$1; shift
    mkdir -p "$dir"
    (cd "$dir" && "$top/configure" -q "$@" && make -s -j"$jobs")
}

if [ "$mode" = run ]; then
    build build "${refdata[@]}"
    set -x
    build/cli/slo train --workload resnet110 --slo-loss 0.8 --slo-time 40m
    exit 0
fi

echo "== build with -Werror, make check"
build build --enable-werror --enable-test-hooks "${refdata[@]}"
make -C build -s check -j"$jobs" || { cat build/test-suite.log; exit 1; }
echo "== kernel tests under valgrind"
make -C build -s check-valgrind
echo "== ASan + UBSan build, make check"
build build-asan --enable-werror --enable-test-hooks "${refdata[@]}" \
    CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
    LDFLAGS="-fsanitize=address,undefined"
ASAN_OPTIONS=detect_leaks=1 make -C build-asan -s check -j"$jobs" || { cat build-asan/test-suite.log; exit 1; }
echo "== make distcheck"
make -C build -s distcheck >build/distcheck.log 2>&1 || { tail -50 build/distcheck.log; exit 1; }
tail -4 build/distcheck.log
# One closing line for the whole run: the automake harness's counts of both builds.
count() { awk -v k="# $1:" '$0 ~ "^" k { n += $3 } END { print n + 0 }' build/test-suite.log build-asan/test-suite.log; }
echo "quickstart: $(count PASS) passed, $(count FAIL) failed, $(count SKIP) skipped"
