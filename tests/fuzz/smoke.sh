#!/bin/sh
# smoke.sh - the CI run of the fuzz harnesses (make check): build them, run
# each over its seed corpus plus FUZZ_SMOKE_RUNS mutations from a fixed seed
# (reproducible), with ASan, UBSan and every harness's property checks.
# Skips (77) where clang cannot link libFuzzer. `make fuzz` is the long run.
exec "${SHELL:-/bin/sh}" "$SLO_SRCDIR/tests/fuzz/run.sh" smoke
