/* shim/darwin.c: the shim's wrappers as dyld interposes them on macOS
 * (docs/MACOS.md, "The shim"; backend/darwin/interpose.h): one
 * `sbx_dyld_NAME` with libSystem's prototype for each row of
 * shim/symbols.def the interpose table keeps (build/gen/interpose.c
 * names them all: a missing one fails the link).
 *
 * Each asks the check core the Linux wrappers ask (check.c: shim_check,
 * shim_check_open, shim_after; netjudge.c for names and addresses), and
 * then calls NAME itself: dyld applies the table to every image but the
 * one that holds it, so the shim's own call reaches libSystem's
 * definition, with no dlsym. A call libSystem makes inside itself
 * (fopen's open, execvp's execve, remove's unlink) is interposed too and
 * checked again: allowed twice, or refused at the outer call.
 *
 * Portable C: built and unit-tested on Linux against glibc's functions
 * of the same names (tests/unit/shim_dyld.c). Where Darwin's prototype is
 * not glibc's (the xattr calls, syscall) the Linux build maps the call.
 * What it does not do yet: judge syscall()'s numbers, or the Linux
 * shim's transparent proxy path (net.c) (docs/MACOS.md, "What does not
 * exist yet"). The core below it is built without Linux's calls
 * (shim/port.h; docs/MACOS.md, "The shim's check core off Linux").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#include "shim/carry.h"
#include "shim/dirfds.h"
#include "shim/netjudge.h"
#include "shim/wrap.h"

extern char **environ;

/* ---- the PATHCALL rows with libSystem's prototype as symbols.def gives
 * it, generated (gen-interpose.c `rows`): NAME is called by name */

#define PATHCALL(RET, NAME, PARAMS, ARGS, FAIL, CHECKS)                       \
	SHIM_EXPORT RET sbx_dyld_##NAME PARAMS                                \
	{                                                                     \
		__typeof__(&NAME) real_ = NAME;                               \
		WRAP_BODY(RET, real_, ARGS, FAIL, CHECKS)                     \
	}
#include "gen/dyld-rows.h"
#undef PATHCALL

/* ---- the rows whose prototype is Darwin's own (interpose.h,
 * SBX_DARWIN_OWN_PROTOTYPE): the extended attributes take options, where
 * XATTR_NOFOLLOW is Linux's l*xattr. Linux's build maps them onto glibc's
 * calls, flags by name (Darwin's values differ). */

#ifdef __APPLE__
#define DARWIN_XATTR_NOFOLLOW XATTR_NOFOLLOW
static int real_setxattr(const char *p, const char *n, const void *v, size_t s, uint32_t pos,
			 int o)
{
	return setxattr(p, n, v, s, pos, o);
}
static int real_removexattr(const char *p, const char *n, int o)
{
	return removexattr(p, n, o);
}
#else
#define DARWIN_XATTR_NOFOLLOW 0x0001 /* Darwin's values */
#define DARWIN_XATTR_CREATE 0x0002
#define DARWIN_XATTR_REPLACE 0x0004
static int real_setxattr(const char *p, const char *n, const void *v, size_t s, uint32_t pos,
			 int o)
{
	int f = ((o & DARWIN_XATTR_CREATE) ? XATTR_CREATE : 0) |
		((o & DARWIN_XATTR_REPLACE) ? XATTR_REPLACE : 0);

	if (pos) { /* only a resource fork has a position */
		errno = EINVAL;
		return -1;
	}
	return (o & DARWIN_XATTR_NOFOLLOW) ? lsetxattr(p, n, v, s, f) : setxattr(p, n, v, s, f);
}
static int real_removexattr(const char *p, const char *n, int o)
{
	return (o & DARWIN_XATTR_NOFOLLOW) ? lremovexattr(p, n) : removexattr(p, n);
}
#endif

static int xattr_how(int options)
{
	return ((options & DARWIN_XATTR_NOFOLLOW) ? HOW_NOFOLLOW : HOW_FOLLOW) | HOW_EXISTING |
	       HOW_ATTR;
}

SHIM_EXPORT int sbx_dyld_setxattr(const char *p, const char *n, const void *v, size_t s,
				  uint32_t pos, int o)
{
	__typeof__(&real_setxattr) real_ = real_setxattr;
	WRAP_BODY(int, real_, (p, n, v, s, pos, o), -1,
		  P(AT_FDCWD, p, SBX_OP_WRITE, xattr_how(o)))
}

SHIM_EXPORT int sbx_dyld_removexattr(const char *p, const char *n, int o)
{
	__typeof__(&real_removexattr) real_ = real_removexattr;
	WRAP_BODY(int, real_, (p, n, o), -1,
		  P(AT_FDCWD, p, SBX_OP_WRITE, xattr_how(o)))
}

/* ---- open and openat: variadic (wrap.h reads the mode as libSystem's
 * open does) */

SHIM_EXPORT int sbx_dyld_open(const char *path, int flags, ...)
{
	__typeof__(&open) real_ = open;
	WRAP_OPEN_MODE(flags)
	WRAP_OPEN_BODY(real_, AT_FDCWD, (path, flags, mode))
}

SHIM_EXPORT int sbx_dyld_openat(int dirfd, const char *path, int flags, ...)
{
	__typeof__(&openat) real_ = openat;
	WRAP_OPEN_MODE(flags)
	WRAP_OPEN_BODY(real_, dirfd, (dirfd, path, flags, mode))
}

/* ---- descriptors going away or copied: dirfds.c keeps up */

SHIM_EXPORT int sbx_dyld_close(int fd)
{
	shim_dirfd_forget(fd);
	return close(fd);
}

SHIM_EXPORT int sbx_dyld_closedir(DIR *d)
{
	if (d) /* closedir(NULL) is libc's to answer */
		shim_dirfd_forget(dirfd(d));
	return closedir(d);
}

SHIM_EXPORT int sbx_dyld_dup(int fd)
{
	int r = dup(fd);

	if (r >= 0)
		shim_dirfd_copy(fd, r);
	return r;
}

SHIM_EXPORT int sbx_dyld_dup2(int oldfd, int newfd)
{
	int r = dup2(oldfd, newfd);

	if (r >= 0 && oldfd != newfd)
		shim_dirfd_copy(oldfd, newfd);
	return r;
}

/* The third argument, when there is one, an int or a pointer: read as a
 * pointer-sized slot and passed on as one (as wrappers.c's fcntl). */
SHIM_EXPORT int sbx_dyld_fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;
	int r;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	r = fcntl(fd, cmd, arg);
	if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))
		shim_dirfd_copy(fd, r);
	return r;
}

/* ---- the current directory (core.c's cache of it) */

SHIM_EXPORT int sbx_dyld_chdir(const char *path)
{
	WRAP_CHDIR_BODY(chdir(path))
}

SHIM_EXPORT int sbx_dyld_fchdir(int fd)
{
	WRAP_FCHDIR_BODY(fchdir(fd))
}

/* ---- syscall(): Darwin's is deprecated and its numbers are not Linux's
 * (syscall.c judges Linux's): passed on unjudged, the profile decides.
 * Its arguments read as syscall.c reads them: eight slots, whatever the
 * caller passed (Darwin's takes up to eight). */

SHIM_EXPORT int sbx_dyld_syscall(int number, ...)
{
	va_list ap;
	long a[8];

	va_start(ap, number);
	for (int i = 0; i < 8; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return (int)syscall(number, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
}

/* ---- starting programs: the program's path judged as an exec. A bare
 * name is libc's to find along PATH: the execve it then makes with the
 * path found comes back here. The environment the program gets names the
 * shim in DYLD_INSERT_LIBRARIES, ours first, and SBX_SHIM (carry.h): a
 * program that scrubs it keeps the shim in its children (not in one SIP
 * guards: dyld drops DYLD_* there). posix_spawn is a system call of its
 * own, so it carries too; the exec forms without an environment pass
 * through execve. */

static int exec_check(const char *path)
{
	return path && wrap_has_slash(path) ? wrap_exec_check(AT_FDCWD, path, HOW_FOLLOW) : 0;
}

SHIM_EXPORT int sbx_dyld_execve(const char *path, char *const argv[], char *const envp[])
{
	int e = exec_check(path);

	if (e) {
		errno = e;
		return -1;
	}
	FIXED_ENV(envp, env);
	return execve(path, argv, env);
}

SHIM_EXPORT int sbx_dyld_execv(const char *path, char *const argv[])
{
	return sbx_dyld_execve(path, argv, environ);
}

SHIM_EXPORT int sbx_dyld_execvp(const char *file, char *const argv[])
{
	int e = exec_check(file);

	if (e) {
		errno = e;
		return -1;
	}
	return execvp(file, argv);
}

/* the execl family: COLLECT_ARGS (carry.h), then the v-form, as libc's
 * own does */
SHIM_EXPORT int sbx_dyld_execl(const char *path, const char *arg0, ...)
{
	COLLECT_ARGS(arg0, argv)
	va_end(ap_);
	return sbx_dyld_execve(path, argv, environ);
}

SHIM_EXPORT int sbx_dyld_execlp(const char *file, const char *arg0, ...)
{
	COLLECT_ARGS(arg0, argv)
	va_end(ap_);
	return sbx_dyld_execvp(file, argv);
}

SHIM_EXPORT int sbx_dyld_execle(const char *path, const char *arg0, ...)
{
	COLLECT_ARGS(arg0, argv)
	char *const *envp = va_arg(ap_, char *const *); /* after the NULL */
	va_end(ap_);
	return sbx_dyld_execve(path, argv, envp);
}

/* posix_spawn returns its error, errno untouched */
SHIM_EXPORT int sbx_dyld_posix_spawn(pid_t *pid, const char *path,
				     const posix_spawn_file_actions_t *fa,
				     const posix_spawnattr_t *attr, char *const argv[],
				     char *const envp[])
{
	int e = exec_check(path);

	if (e)
		return e;
	FIXED_ENV(envp, env);
	return posix_spawn(pid, path, fa, attr, argv, env);
}

SHIM_EXPORT int sbx_dyld_posix_spawnp(pid_t *pid, const char *file,
				      const posix_spawn_file_actions_t *fa,
				      const posix_spawnattr_t *attr, char *const argv[],
				      char *const envp[])
{
	int e = exec_check(file);

	if (e)
		return e;
	FIXED_ENV(envp, env);
	return posix_spawnp(pid, file, fa, attr, argv, env);
}

/* fork(): in the child, its own pid for the cwd cache and its count of
 * checks from 0 (core.h), as shim.c's */
SHIM_EXPORT pid_t sbx_dyld_fork(void)
{
	pid_t pid = fork();

	if (pid == 0)
		wrap_forked();
	return pid;
}

/* ---- the network: a destination or a name the policy refuses fails
 * with a report (netjudge.c), as net.c's; sockets are passed on */

SHIM_EXPORT int sbx_dyld_socket(int domain, int type, int protocol)
{
	return socket(domain, type, protocol);
}

SHIM_EXPORT int sbx_dyld_socketpair(int domain, int type, int protocol, int sv[2])
{
	return socketpair(domain, type, protocol, sv);
}

SHIM_EXPORT int sbx_dyld_bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	return bind(fd, sa, len);
}

SHIM_EXPORT int sbx_dyld_getsockname(int fd, struct sockaddr *sa, socklen_t *len)
{
	return getsockname(fd, sa, len);
}

SHIM_EXPORT int sbx_dyld_getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	return getsockopt(fd, level, name, val, len);
}

SHIM_EXPORT int sbx_dyld_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	int saved = errno;

	if (shim_judge_addr(sa, len)) {
		errno = EPERM;
		return -1;
	}
	errno = saved;
	return connect(fd, sa, len);
}

SHIM_EXPORT ssize_t sbx_dyld_send(int fd, const void *buf, size_t n, int flags)
{
	return send(fd, buf, n, flags);
}

SHIM_EXPORT ssize_t sbx_dyld_sendto(int fd, const void *buf, size_t n, int flags,
				    const struct sockaddr *sa, socklen_t len)
{
	int saved = errno;

	if (shim_judge_addr(sa, len)) {
		errno = EPERM;
		return -1;
	}
	errno = saved;
	return sendto(fd, buf, n, flags, sa, len);
}

SHIM_EXPORT ssize_t sbx_dyld_sendmsg(int fd, const struct msghdr *msg, int flags)
{
	int saved = errno;

	if (msg && shim_judge_addr(msg->msg_name, msg->msg_namelen)) {
		errno = EPERM;
		return -1;
	}
	errno = saved;
	return sendmsg(fd, msg, flags);
}

SHIM_EXPORT int sbx_dyld_getaddrinfo(const char *node, const char *service,
				     const struct addrinfo *hints, struct addrinfo **res)
{
	int saved = errno;

	if (!(hints && (hints->ai_flags & AI_NUMERICHOST)) && shim_ready() &&
	    shim_judge_lookup(node, service))
		return EAI_FAIL;
	errno = saved;
	return getaddrinfo(node, service, hints, res);
}

SHIM_EXPORT struct hostent *sbx_dyld_gethostbyname(const char *name)
{
	int saved = errno;

	if (shim_ready() && shim_judge_lookup(name, NULL)) {
		h_errno = HOST_NOT_FOUND;
		return NULL;
	}
	errno = saved;
	return gethostbyname(name);
}

SHIM_EXPORT struct hostent *sbx_dyld_gethostbyname2(const char *name, int af)
{
	int saved = errno;

	if (shim_ready() && shim_judge_lookup(name, NULL)) {
		h_errno = HOST_NOT_FOUND;
		return NULL;
	}
	errno = saved;
	return gethostbyname2(name, af);
}

/* The dylib's start-up, as shim.c's constructor is the .so's: dyld runs it
 * when it loads the library, before the program's main and any thread of
 * its, so no thread's first call races another's start of the shim (a
 * call while it starts passes unjudged: the profile holds it, no line
 * says it). One from another image's initializer, earlier still, starts
 * it itself (core.c, state_now). Only in the dylib (SBX_DYLIB): the
 * shim-dyld runner starts the core per test, with the hand-over each
 * test makes. */
#ifdef SBX_DYLIB
__attribute__((constructor)) static void sbx_dyld_start(void)
{
	shim_start();
}
#endif
