/* shim/syscall.c: glibc's variadic syscall(), for the numbers that take a
 * path the policy can refuse.
 *
 * libuv (Node) stats through syscall(SYS_statx); Rust's std and other
 * runtimes reach statx, openat2 and faccessat2 the same way, past every
 * libc wrapper. Those calls are judged and explained like the libc entry
 * points in symbols.def: the same check before the call (a refusal fails
 * with the errno the boundary gives, -1 and errno as syscall() returns
 * it), the same look after a failure. Every other number goes straight to
 * the real syscall(): one switch, no other work.
 *
 * The arguments: syscall() takes up to six longs after the number and has
 * no way to say how many were passed. The six are read as glibc's own
 * syscall() reads them (its assembly moves six registers whatever the
 * caller set): on x86_64 and aarch64 the extra ones are registers and a
 * caller's stack slot, read and passed on unchanged.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "shim/check.h"
#include "shim/dirfds.h"

struct sc_path {
	int dirfd;
	const char *path;
	enum sbx_op op;
	int how;
};

#define ONE(d, p, o, h) (c[0] = (struct sc_path){ (int)(d), (const char *)(p), (o), (h) }, 1)
#define TWO(d, p, o, h, d2, p2, o2, h2)                                       \
	(c[0] = (struct sc_path){ (int)(d), (const char *)(p), (o), (h) },   \
	 c[1] = (struct sc_path){ (int)(d2), (const char *)(p2), (o2), (h2) }, 2)

#define W_NEW (HOW_NOFOLLOW | HOW_CREATE)
#define W_OLD (HOW_NOFOLLOW | HOW_EXISTING)

/* openat2's flags live behind a pointer the program passed: read without
 * faulting (the kernel would answer EFAULT, the shim must not crash). */
static bool openat2_flags(long how, long size, int *flags)
{
	struct open_how oh;
	struct iovec local = { &oh, sizeof(oh.flags) }, remote = { (void *)how, sizeof(oh.flags) };

	if (!how || size < (long)sizeof(oh.flags))
		return false;
	if (sys_call(SYS_process_vm_readv, getpid(), &local, 1, &remote, 1, 0) !=
	    (long)sizeof(oh.flags))
		return false;
	*flags = (int)oh.flags;
	return true;
}

/* Which arguments of call `nr` are paths, and how each is used: 0 for a
 * number the shim leaves alone. */
static int describe(long nr, const long *a, struct sc_path *c)
{
	int fl;

	switch (nr) {
	/* opening */
#ifdef SYS_open
	case SYS_open:
		return ONE(AT_FDCWD, a[0], shim_open_op((int)a[1]), shim_open_how((int)a[1]));
#endif
#ifdef SYS_creat
	case SYS_creat:
		return ONE(AT_FDCWD, a[0], SBX_OP_WRITE, HOW_FOLLOW);
#endif
	case SYS_openat:
		return ONE(a[0], a[1], shim_open_op((int)a[2]), shim_open_how((int)a[2]));
#ifdef SYS_openat2
	case SYS_openat2:
		if (!openat2_flags(a[2], a[3], &fl))
			return 0; /* the kernel answers EFAULT / EINVAL */
		return ONE(a[0], a[1], shim_open_op(fl), shim_open_how(fl));
#endif
	/* looking */
#ifdef SYS_stat
	case SYS_stat:
		return ONE(AT_FDCWD, a[0], SBX_OP_READ, HOW_FOLLOW);
	case SYS_lstat:
		return ONE(AT_FDCWD, a[0], SBX_OP_READ, HOW_NOFOLLOW);
#endif
	case SYS_newfstatat:
		return ONE(a[0], a[1], SBX_OP_READ, at_how((int)a[3]));
#ifdef SYS_statx
	case SYS_statx:
		return ONE(a[0], a[1], SBX_OP_READ, at_how((int)a[2]));
#endif
#ifdef SYS_access
	case SYS_access:
		return ONE(AT_FDCWD, a[0], SBX_OP_READ, HOW_FOLLOW);
#endif
	case SYS_faccessat:
		return ONE(a[0], a[1], SBX_OP_READ, HOW_FOLLOW);
#ifdef SYS_faccessat2
	case SYS_faccessat2:
		return ONE(a[0], a[1], SBX_OP_READ, at_how((int)a[3]));
#endif
	case SYS_chdir:
		return ONE(AT_FDCWD, a[0], SBX_OP_READ, HOW_FOLLOW);
	/* starting a program (the environment is the caller's: a raw execve
	 * is judged, not given the shim back) */
	case SYS_execve:
		return ONE(AT_FDCWD, a[0], SBX_OP_EXEC, HOW_FOLLOW);
	case SYS_execveat:
		return ONE(a[0], a[1], SBX_OP_EXEC, at_how((int)a[4]));
	/* changing the tree */
#ifdef SYS_mkdir
	case SYS_mkdir:
		return ONE(AT_FDCWD, a[0], SBX_OP_WRITE, W_NEW | HOW_DIR);
	case SYS_rmdir:
		return ONE(AT_FDCWD, a[0], SBX_OP_WRITE, W_OLD);
	case SYS_unlink:
		return ONE(AT_FDCWD, a[0], SBX_OP_WRITE, W_OLD);
	case SYS_mknod:
		return ONE(AT_FDCWD, a[0], SBX_OP_WRITE, W_NEW);
	case SYS_rename:
		return TWO(AT_FDCWD, a[0], SBX_OP_WRITE, W_OLD, AT_FDCWD, a[1], SBX_OP_WRITE, HOW_NOFOLLOW);
	case SYS_link:
		return TWO(AT_FDCWD, a[0], SBX_OP_READ, HOW_NOFOLLOW, AT_FDCWD, a[1], SBX_OP_WRITE, W_NEW);
	case SYS_symlink:
		return ONE(AT_FDCWD, a[1], SBX_OP_WRITE, W_NEW);
	case SYS_chmod:
		return ONE(AT_FDCWD, a[0], SBX_OP_WRITE, HOW_FOLLOW | HOW_EXISTING);
	case SYS_chown:
		return ONE(AT_FDCWD, a[0], SBX_OP_WRITE, HOW_FOLLOW | HOW_EXISTING);
	case SYS_lchown:
		return ONE(AT_FDCWD, a[0], SBX_OP_WRITE, HOW_NOFOLLOW | HOW_EXISTING);
	case SYS_utimes:
		return ONE(AT_FDCWD, a[0], SBX_OP_WRITE, HOW_FOLLOW | HOW_EXISTING);
	case SYS_utime:
		return ONE(AT_FDCWD, a[0], SBX_OP_WRITE, HOW_FOLLOW | HOW_EXISTING);
#endif
	case SYS_mkdirat:
		return ONE(a[0], a[1], SBX_OP_WRITE, W_NEW | HOW_DIR);
	case SYS_mknodat:
		return ONE(a[0], a[1], SBX_OP_WRITE, W_NEW);
	case SYS_unlinkat:
		return ONE(a[0], a[1], SBX_OP_WRITE, W_OLD);
#ifdef SYS_renameat
	case SYS_renameat:
#endif
	case SYS_renameat2:
		return TWO(a[0], a[1], SBX_OP_WRITE, W_OLD, a[2], a[3], SBX_OP_WRITE, HOW_NOFOLLOW);
	case SYS_linkat:
		return TWO(a[0], a[1], SBX_OP_READ, link_how((int)a[4]), a[2], a[3], SBX_OP_WRITE, W_NEW);
	case SYS_symlinkat:
		return ONE(a[1], a[2], SBX_OP_WRITE, W_NEW);
	case SYS_fchmodat:
		return ONE(a[0], a[1], SBX_OP_WRITE, HOW_FOLLOW | HOW_EXISTING);
#ifdef SYS_fchmodat2
	case SYS_fchmodat2:
		return ONE(a[0], a[1], SBX_OP_WRITE, at_how((int)a[3]) | HOW_EXISTING);
#endif
	case SYS_fchownat:
		return ONE(a[0], a[1], SBX_OP_WRITE, at_how((int)a[4]) | HOW_EXISTING);
	case SYS_truncate:
		return ONE(AT_FDCWD, a[0], SBX_OP_WRITE, HOW_FOLLOW | HOW_EXISTING);
	case SYS_utimensat:
		/* a NULL path is futimens() on the descriptor */
		return a[1] ? ONE(a[0], a[1], SBX_OP_WRITE, at_how((int)a[3]) | HOW_EXISTING) : 0;
	default:
		return 0;
	}
}

SHIM_EXPORT long syscall(long nr, ...)
{
	__typeof__(&syscall) next = REAL(syscall);
	struct sc_path c[2];
	struct pending pd[2];
	long a[6], r;
	int n, e = 0;
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	n = describe(nr, a, c);
	if (nr == SYS_close || nr == SYS_dup3
#ifdef SYS_dup2
	    || nr == SYS_dup2
#endif
	   )
		shim_dirfd_forget((int)(nr == SYS_close ? a[0] : a[1])); /* not copied: rare */
	if (nr == SYS_fchdir) {
		r = next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
		if (r == 0)
			shim_cwd_changed();
		return r;
	}
	for (int i = 0; i < n && !e; i++)
		e = shim_check(&pd[i], c[i].dirfd, c[i].path, c[i].op, c[i].how);
	if (e) {
		errno = e;
		return -1;
	}
	r = next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (nr == SYS_chdir && r == 0)
		shim_cwd_changed();
	if (SHIM_AFTER_NEEDED(pd, n, r == -1))
		shim_after(pd, n, r == -1);
	return r;
}
