#!/bin/sh
# power-standin.sh - development stand-in for slo-power's local provider
# (ResumeProgram / SuspendProgram / ResumeFailProgram of the test cluster).
# Not used by the final tests once slo-power exists; kept for debugging the
# harness alone:  CLUSTER_POWER=standin.
#   power-standin.sh resume|suspend|resume-fail HOSTLIST
# resume: start `slurmd -b -N NODE` for each node after a 1 s fake boot, with
# the signal mask cleared (feasibility notes 2.6 pitfalls 9 and 10);
# suspend: TERM the node's slurmd by its pid file.
set -u
# slurmscriptd runs us with a minimal environment: slurmd is in /usr/sbin
PATH=/usr/sbin:/usr/bin:/sbin:/bin:${PATH:-}; export PATH
action=$1; hosts=$2
: "${SLURM_CONF:?}"
top=$(dirname "$(dirname "$SLURM_CONF")")
echo "$(date +%T) $action $hosts ${SLURM_RESUME_FILE:+resume_file=$(cat "$SLURM_RESUME_FILE" 2>/dev/null)}" >>"$top/log/power.log"
for n in $(scontrol show hostnames "$hosts"); do
    case $action in
    resume)
        # own session: slurmscriptd kills the program's process group when it exits
        setsid sh -c 'sleep 1; exec perl -MPOSIX -e "sigprocmask(SIG_SETMASK, POSIX::SigSet->new); exec @ARGV" slurmd -b -N "$1"' \
            sh "$n" </dev/null >>"$top/log/power.log" 2>&1 &
        ;;
    suspend)
        pf=$top/run/slurmd-$n.pid
        [ -s "$pf" ] && kill "$(cat "$pf")" 2>/dev/null
        ;;
    resume-fail) ;;
    esac
done
exit 0
