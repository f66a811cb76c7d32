/* tests/progs/nosetattr.c: run a program on a kernel "without"
 * mount_setattr(2).
 *
 *   nosetattr PROGRAM [ARG...]
 *
 * Installs a seccomp filter under which mount_setattr fails with ENOSYS, as
 * on Linux before 5.12 or under an outer sandbox that does not know the
 * call, then execs PROGRAM (sbx-preload in the tests). The filter is
 * inherited by bubblewrap, sbx-init and COMMAND, so sbx-init really takes
 * its fallback path: the same probe, the same answer, no test switch inside
 * sbx-init that a sandboxed program could reach.
 *
 * Raw BPF, no libseccomp: the program must build with a bare `cc`. Only the
 * native architecture's call is refused; anything else is allowed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "nosetattr: add this architecture's AUDIT_ARCH"
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442 /* the same number on every architecture */
#endif

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mount_setattr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (argc < 2) {
		fprintf(stderr, "usage: nosetattr PROGRAM [ARG...]\n");
		return 2;
	}
	/* Needed to install a filter without CAP_SYS_ADMIN; bubblewrap is not
	 * setuid on the systems we test (user namespaces). */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		fprintf(stderr, "nosetattr: seccomp: %s\n", strerror(errno));
		return 2;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "nosetattr: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
