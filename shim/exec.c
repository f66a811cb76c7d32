/* shim/exec.c: starting programs.
 *
 * A child keeps the shim only if its environment still has LD_PRELOAD
 * naming it and SBX_SHIM: `env -i`, a scrubbed execve() envp or a program
 * that cleared its environment would lose both. Every exec and spawn entry
 * point puts them back (shim/carry.h). The new environment is built on the
 * stack (these calls run in vfork children, where malloc is off limits).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/check.h"
#include "common/elfcheck.h"
#include "shim/carry.h"
#include "shim/exec.h"
#include "shim/wrap.h"

extern char **environ;

/* The next definitions of the exec calls a fork child makes. Looked up
 * in the parent before each fork (shim_exec_before_fork, from the fork()
 * wrapper), once: looked up in the child instead, every child would pay
 * dlsym's pages (about seven page faults) right before its exec throws
 * them away. Relaxed atomics: two threads racing store the same address. */
static struct {
	__typeof__(&execve) execve;
	__typeof__(&execvpe) execvpe;
	__typeof__(&execveat) execveat;
	__typeof__(&fexecve) fexecve;
} next;

#define NEXT(name)                                                            \
	({                                                                    \
		__typeof__(&name) f_ = __atomic_load_n(&next.name, __ATOMIC_RELAXED); \
		if (!f_) {                                                    \
			f_ = (__typeof__(&name))shim_dlsym(#name);            \
			__atomic_store_n(&next.name, f_, __ATOMIC_RELAXED);   \
		}                                                             \
		f_;                                                           \
	})

void shim_exec_before_fork(void)
{
	if (__atomic_load_n(&next.fexecve, __ATOMIC_RELAXED))
		return;
	(void)NEXT(execve);
	(void)NEXT(execvpe);
	(void)NEXT(execveat);
	(void)NEXT(fexecve);
}

/* The report of a static binary (rare: its buffer only then). */
static __attribute__((noinline)) void report_static(int dirfd, const char *path)
{
	char abs[PATH_MAX];

	if (shim_abspath(dirfd, path, abs, sizeof(abs)) == 0)
		shim_report(WIRE_NOTE, WIRE_EXEC, abs, 0);
}

static void shim_note_static(int dirfd, const char *path)
{
	if (elf_is_static(dirfd, path))
		report_static(dirfd, path);
}

/* A bare name, as execvp() would find it, then the look (below). */
static __attribute__((noinline)) void note_static_in_path(const char *name)
{
	char found[PATH_MAX];

	if (elf_find_in_path(name, found, sizeof(found)))
		shim_note_static(AT_FDCWD, found);
}

/* A static binary about to be started: said before the exec (the shim is
 * gone after it); the supervisor says it once per run. sbx's own (the ssh
 * ProxyCommand, sbx-init --socks-connect) is not said. */
static void note_static(int dirfd, const char *path)
{
	/* under the guard: nothing the look does is judged */
	if (!shim_enter())
		return;
	if (dirfd == AT_FDCWD && !wrap_has_slash(path)) {
		note_static_in_path(path);
	} else {
		const char *base = path;
		for (const char *p = path; *p; p++)
			if (*p == '/')
				base = p + 1;
		if (!(base[0] == 's' && base[1] == 'b' && base[2] == 'x' && base[3] == '-' &&
		      base[4] == 'i' && base[5] == 'n' && base[6] == 'i' && base[7] == 't' &&
		      !base[8]))
			shim_note_static(dirfd, path);
	}
	shim_leave();
}

static int exec_check(int dirfd, const char *path, int how)
{
	int e;

	if (!path)
		return 0;
	if (dirfd == AT_FDCWD && !wrap_has_slash(path)) {
		note_static(dirfd, path);
		return 0;
	}
	e = wrap_exec_check(dirfd, path, how);
	if (!e)
		note_static(dirfd, path);
	return e;
}

static int do_execve(const char *path, char *const argv[], char *const envp[])
{
	int e = exec_check(AT_FDCWD, path, HOW_FOLLOW);

	if (e) {
		errno = e;
		return -1;
	}
	FIXED_ENV(envp, env);
	return NEXT(execve)(path, argv, env);
}

static int do_execvpe(const char *file, char *const argv[], char *const envp[])
{
	int e = exec_check(AT_FDCWD, file, HOW_FOLLOW);

	if (e) {
		errno = e;
		return -1;
	}
	FIXED_ENV(envp, env);
	return NEXT(execvpe)(file, argv, env);
}

SHIM_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return do_execve(path, argv, envp);
}

SHIM_EXPORT int execv(const char *path, char *const argv[])
{
	return do_execve(path, argv, environ);
}

SHIM_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return do_execvpe(file, argv, envp);
}

SHIM_EXPORT int execvp(const char *file, char *const argv[])
{
	return do_execvpe(file, argv, environ);
}

SHIM_EXPORT int execveat(int dirfd, const char *path, char *const argv[],
			 char *const envp[], int flags)
{
	int e = exec_check(dirfd, path, ((flags & AT_SYMLINK_NOFOLLOW) ? HOW_NOFOLLOW : 0) |
				       ((flags & AT_EMPTY_PATH) ? HOW_EMPTY_OK : 0));

	if (e) {
		errno = e;
		return -1;
	}
	FIXED_ENV(envp, env);
	return NEXT(execveat)(dirfd, path, argv, env, flags);
}

SHIM_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	FIXED_ENV(envp, env);
	return NEXT(fexecve)(fd, argv, env);
}

/* ---- the execl family: the arguments, counted, into an array on the
 * stack (COLLECT_ARGS, carry.h) */

SHIM_EXPORT int execl(const char *path, const char *arg0, ...)
{
	COLLECT_ARGS(arg0, argv);
	va_end(ap_);
	return do_execve(path, argv, environ);
}

SHIM_EXPORT int execlp(const char *file, const char *arg0, ...)
{
	COLLECT_ARGS(arg0, argv);
	va_end(ap_);
	return do_execvpe(file, argv, environ);
}

SHIM_EXPORT int execle(const char *path, const char *arg0, ...)
{
	COLLECT_ARGS(arg0, argv);
	char *const *envp = va_arg(ap_, char *const *); /* after the NULL */
	va_end(ap_);
	return do_execve(path, argv, envp);
}

/* ---- posix_spawn: errors are returned, not put in errno */

SHIM_EXPORT int posix_spawn(pid_t *pid, const char *path,
			    const posix_spawn_file_actions_t *fa,
			    const posix_spawnattr_t *attr, char *const argv[],
			    char *const envp[])
{
	int e = exec_check(AT_FDCWD, path, HOW_FOLLOW);

	if (e)
		return e;
	FIXED_ENV(envp, env);
	return REAL(posix_spawn)(pid, path, fa, attr, argv, env);
}

SHIM_EXPORT int posix_spawnp(pid_t *pid, const char *file,
			     const posix_spawn_file_actions_t *fa,
			     const posix_spawnattr_t *attr, char *const argv[],
			     char *const envp[])
{
	int e = exec_check(AT_FDCWD, file, HOW_FOLLOW);

	if (e)
		return e;
	FIXED_ENV(envp, env);
	return REAL(posix_spawnp)(pid, file, fa, attr, argv, env);
}
