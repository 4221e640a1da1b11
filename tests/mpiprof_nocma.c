/*
 * mpiprof_nocma.c - run a command with cross-memory attach blocked, as a container
 * without CAP_SYS_PTRACE, Yama ptrace_scope 2/3 or a seccomp profile that
 * denies it blocks it: a seccomp filter makes process_vm_readv and
 * process_vm_writev fail with EPERM (errno 1), then the command is exec'd
 * (the filter is inherited). Under it Open MPI's shared-memory BTL (vader)
 * with single_copy_mechanism cma prints "Read -1, expected N, errno = 1"
 * for each large message, the reproducer of issue 15 (tests/mpiprof.sh).
 * Linux x86_64/aarch64 only; elsewhere it exits 77 (automake's SKIP).
 * Usage: mpiprof_nocma COMMAND [ARG...]
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

int main(int argc, char **argv)
{
#if defined(__linux__) && defined(SYS_process_vm_readv) && \
    (defined(__x86_64__) || defined(__aarch64__))
#if defined(__x86_64__)
#define NOCMA_ARCH AUDIT_ARCH_X86_64
#else
#define NOCMA_ARCH AUDIT_ARCH_AARCH64
#endif
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NOCMA_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_writev, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
    if (argc < 2) {
        fprintf(stderr, "usage: mpiprof_nocma COMMAND [ARG...]\n");
        return 2;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0)) {
        fprintf(stderr, "mpiprof_nocma: cannot install the seccomp filter: %s\n", strerror(errno));
        return 77;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "mpiprof_nocma: %s: %s\n", argv[1], strerror(errno));
    return 127;
#else
    (void)argc;
    (void)argv;
    fprintf(stderr, "mpiprof_nocma: needs Linux seccomp on x86_64 or aarch64\n");
    return 77;
#endif
}
