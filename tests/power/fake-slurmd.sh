#!/bin/sh
# Fake slurmd for the local provider's tests: records its arguments and its
# blocked-signal mask (SigBlk) in $FAKE_SLURMD_LOG, then behaves as
# $FAKE_SLURMD_MODE says: run (until TERM), exit3 (fail at once, with a
# message), stubborn (ignore TERM).
log=${FAKE_SLURMD_LOG:?}
echo "args: $*" >> "$log"
# Builtins only: while the shell waits for a child it may block signals itself.
while IFS= read -r line; do
    case $line in SigBlk*) echo "$line" >> "$log" ;; esac
done < /proc/$$/status
case ${FAKE_SLURMD_MODE:-run} in
    exit3) echo "slurmd: error: fake start failure"; exit 3 ;;
    stubborn) trap '' TERM ;;
esac
while :; do sleep 0.05; done
