/* shim/wrappers.c: the file-system wrappers, generated from symbols.def,
 * and the hand-written ones the table points here (open, chdir). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#include <dlfcn.h>

#include "shim/check.h"
#include "shim/dirfds.h"
#include "shim/wrap.h"

/* Not in glibc's headers without fortification, or at all any more. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

/* ---- the generator (its body: shim/wrap.h) */

#define PATHCALL(RET, NAME, PARAMS, ARGS, FAIL, CHECKS)                       \
	SHIM_EXPORT RET NAME PARAMS                                           \
	{                                                                     \
		__typeof__(&NAME) next_ = REAL(NAME);                         \
		WRAP_BODY(RET, next_, ARGS, FAIL, CHECKS)                     \
	}

/* The __xstat family is exported only under the version old binaries
 * linked against; its name is per architecture. Elsewhere it is skipped. */
#if defined(__x86_64__)
#define LIBC_OLD "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define LIBC_OLD "GLIBC_2.17"
#endif

#ifdef LIBC_OLD
#define COMPAT(RET, NAME, PARAMS, ARGS, FAIL, CHECKS, VERSION)                \
	SHIM_EXPORT RET NAME PARAMS;                                          \
	SHIM_EXPORT RET NAME PARAMS                                           \
	{                                                                     \
		typedef RET(*fn_t) PARAMS;                                    \
		static fn_t real_;                                            \
		fn_t f_ = __atomic_load_n(&real_, __ATOMIC_RELAXED);          \
		if (!f_) {                                                    \
			f_ = (fn_t)dlvsym(RTLD_NEXT, #NAME, VERSION);          \
			__atomic_store_n(&real_, f_, __ATOMIC_RELAXED);       \
		}                                                             \
		WRAP_BODY(RET, f_, ARGS, FAIL, CHECKS)                        \
	}
#else
#define COMPAT(...)
#endif

#define HAND(name, file)

#include "shim/symbols.def"

#undef PATHCALL
#undef COMPAT
#undef HAND

/* ---- open: variadic, the mode is there only with O_CREAT or O_TMPFILE
 * (the bodies: shim/wrap.h) */

#define OPEN_WRAP(NAME, DIRFD, ARGS)                                          \
	__typeof__(&NAME) next_ = REAL(NAME);                                 \
	WRAP_OPEN_BODY(next_, DIRFD, ARGS)

SHIM_EXPORT int open(const char *path, int flags, ...)
{
	WRAP_OPEN_MODE(flags)
	OPEN_WRAP(open, AT_FDCWD, (path, flags, mode))
}

SHIM_EXPORT int open64(const char *path, int flags, ...)
{
	WRAP_OPEN_MODE(flags)
	OPEN_WRAP(open64, AT_FDCWD, (path, flags, mode))
}

SHIM_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	WRAP_OPEN_MODE(flags)
	OPEN_WRAP(openat, dirfd, (dirfd, path, flags, mode))
}

SHIM_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	WRAP_OPEN_MODE(flags)
	OPEN_WRAP(openat64, dirfd, (dirfd, path, flags, mode))
}

/* _FORTIFY_SOURCE's checked opens: no mode argument at all */
SHIM_EXPORT int __open_2(const char *path, int flags)
{
	OPEN_WRAP(__open_2, AT_FDCWD, (path, flags))
}

SHIM_EXPORT int __open64_2(const char *path, int flags)
{
	OPEN_WRAP(__open64_2, AT_FDCWD, (path, flags))
}

SHIM_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	OPEN_WRAP(__openat_2, dirfd, (dirfd, path, flags))
}

SHIM_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	OPEN_WRAP(__openat64_2, dirfd, (dirfd, path, flags))
}

/* ---- descriptors going away: dirfds.c forgets them */

SHIM_EXPORT int close(int fd)
{
	__typeof__(&close) next = REAL(close);

	shim_dirfd_forget(fd);
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	return next(fd);
}

/* closedir(NULL) is glibc's EINVAL, not our crash (its parameter is
 * declared nonnull, so the test lives out here) */
static __attribute__((noinline)) void forget_dir(DIR *d)
{
	if (d)
		shim_dirfd_forget(dirfd(d));
}

SHIM_EXPORT int closedir(DIR *d)
{
	__typeof__(&closedir) next = REAL(closedir);

	forget_dir(d);
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	return next(d);
}

/* a copy of a kept directory descriptor (fts keeps its place with
 * F_DUPFD_CLOEXEC) points where the original does */
SHIM_EXPORT int dup(int fd)
{
	__typeof__(&dup) next = REAL(dup);

	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	int r = next(fd);
	if (r >= 0)
		shim_dirfd_copy(fd, r);
	return r;
}

/* fcntl's third argument, when there is one, is an int, a long or a
 * pointer: read as a pointer and passed on as one, as glibc's own fcntl
 * reads it */
#define FCNTL_WRAP(NAME)                                                      \
	SHIM_EXPORT int NAME(int fd, int cmd, ...)                            \
	{                                                                     \
		__typeof__(&NAME) next = REAL(NAME);                          \
		va_list ap;                                                   \
		void *arg;                                                    \
		va_start(ap, cmd);                                            \
		arg = va_arg(ap, void *);                                     \
		va_end(ap);                                                   \
		if (!next) {                                                  \
			errno = ENOSYS;                                       \
			return -1;                                            \
		}                                                             \
		int r = next(fd, cmd, arg);                                   \
		if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC))     \
			shim_dirfd_copy(fd, r);                               \
		return r;                                                     \
	}
FCNTL_WRAP(fcntl)
FCNTL_WRAP(fcntl64)

SHIM_EXPORT int dup2(int oldfd, int newfd)
{
	__typeof__(&dup2) next = REAL(dup2);

	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	int r = next(oldfd, newfd);
	if (r >= 0 && oldfd != newfd)
		shim_dirfd_copy(oldfd, newfd);
	return r;
}

SHIM_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	__typeof__(&dup3) next = REAL(dup3);

	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	int r = next(oldfd, newfd, flags);
	if (r >= 0)
		shim_dirfd_copy(oldfd, newfd);
	return r;
}

/* ---- the current directory */

SHIM_EXPORT int chdir(const char *path)
{
	WRAP_CHDIR_BODY(REAL(chdir)(path))
}

SHIM_EXPORT int fchdir(int fd)
{
	WRAP_FCHDIR_BODY(REAL(fchdir)(fd))
}
