#!/bin/sh
# Without Slurm's headers (libslurm-dev) slo-power is not built.
echo "SKIP: slo-power needs slurm/slurm.h and libslurm (Debian: libslurm-dev)"
exit 77
