/* shim/port.h: the system calls the shim's check core makes for itself
 * (core.c, check.c, resolve.c, tell.c), each chosen when compiling by the
 * feature's own macro, as net/compat.h chooses the proxy's.
 *
 * Linux (SHIM_RAW_SYSCALLS): raw system calls (common/sys.h). The shim
 * exports the libc functions it would call, so a libc call from inside
 * would come back through a wrapper, and in a fork child about to exec
 * every page of libc first touched is a fault (docs/PERFORMANCE.md).
 * Elsewhere (macOS; `make SBX_PORTABLE=1` and the shim-dyld runner on
 * Linux): libc's calls of the same names. dyld interposes every image but
 * the one that holds the table, so the dylib's own calls reach libSystem
 * directly, never a wrapper; sys.h's instructions are Linux's system-call
 * ABI, and are not even included there.
 *
 * How the supervisor hands the policy and the report channel over
 * (SHIM_HANDOVER_PATHS, core.c's header): Linux's /proc/<holder>/fd/N, or
 * paths the Seatbelt profile lets the sandbox read (the policy) and only
 * write (the report FIFO) (docs/MACOS.md, "The shim's hand-over").
 *
 * The descriptor's own path (shim_fd_path), the kernel's record a refusal
 * is judged by: fcntl(F_GETPATH) where it exists (macOS), else
 * /proc/self/fd/N (Linux, the portable build too: it is the kernel's
 * answer about a descriptor, not a hand-over), else none (-1: the kernel
 * judges the call alone).
 */
#ifndef SBX_SHIM_PORT_H
#define SBX_SHIM_PORT_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__) && !defined(SBX_PORTABLE)
#define SHIM_RAW_SYSCALLS 1
#define SHIM_HANDOVER_PATHS 0
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "common/sys.h"
#else
#define SHIM_RAW_SYSCALLS 0
#define SHIM_HANDOVER_PATHS 1
#endif

/* The loader's variable an exec carries the shim in (carry.h): the
 * shim is loaded by ld.so on Linux, by dyld where the hand-over is by
 * paths (macOS; the shim-dyld runner) */
#if SHIM_HANDOVER_PATHS
#define SHIM_PRELOAD_ENTRY "DYLD_INSERT_LIBRARIES="
#else
#define SHIM_PRELOAD_ENTRY "LD_PRELOAD="
#endif
#define SHIM_PRELOAD_LEN (sizeof(SHIM_PRELOAD_ENTRY) - 1)

/* A directory opened only to walk from (tell.c): O_PATH needs no read
 * permission; without it, a directory the program may not list is a
 * walk's end ("cannot be told"). */
#if SHIM_RAW_SYSCALLS && defined(O_PATH)
#define SHIM_O_WALK O_PATH
#else
#define SHIM_O_WALK O_RDONLY
#endif

#if SHIM_RAW_SYSCALLS
static inline int shim_sys_openat(int dirfd, const char *path, int flags)
{
	return (int)sys_call(SYS_openat, dirfd, path, flags | O_CLOEXEC, 0);
}
static inline void shim_sys_close(int fd) { sys_call(SYS_close, fd); }
static inline ssize_t shim_sys_pread(int fd, void *buf, size_t n, off_t off)
{
	return sys_call(SYS_pread64, fd, buf, n, off);
}
static inline ssize_t shim_sys_write(int fd, const void *buf, size_t n)
{
	return sys_call(SYS_write, fd, buf, n);
}
static inline int shim_sys_fstat(int fd, struct stat *st)
{
	return (int)sys_call(SYS_fstat, fd, st);
}
static inline int shim_sys_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	return (int)sys_call(SYS_newfstatat, dirfd, path, st, flags);
}
static inline ssize_t shim_sys_readlinkat(int dirfd, const char *path, char *buf, size_t n)
{
	return sys_call(SYS_readlinkat, dirfd, path, buf, n);
}
static inline int shim_sys_getsockopt(int fd, int level, int name, void *v, socklen_t *l)
{
	return (int)sys_call(SYS_getsockopt, fd, level, name, v, l);
}
static inline pid_t shim_sys_getpid(void) { return (pid_t)sys_call(SYS_getpid); }
/* clock_gettime() by system call: it is the one libc symbol of version
 * GLIBC_2.17 the shim would need, which every process would pay the
 * loader's version check for (docs/PERFORMANCE.md) */
static inline int shim_sys_monotonic(struct timespec *ts)
{
	return (int)sys_call(SYS_clock_gettime, CLOCK_MONOTONIC, ts);
}
static inline void shim_sys_wait_out(int fd, long ms)
{
	struct pollfd pf = { .fd = fd, .events = POLLOUT };
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	sys_call(SYS_ppoll, &pf, 1, &ts, NULL, 0);
}
#else
static inline int shim_sys_openat(int dirfd, const char *path, int flags)
{
	return openat(dirfd, path, flags | O_CLOEXEC, 0);
}
static inline void shim_sys_close(int fd) { close(fd); }
static inline ssize_t shim_sys_pread(int fd, void *buf, size_t n, off_t off)
{
	return pread(fd, buf, n, off);
}
static inline ssize_t shim_sys_write(int fd, const void *buf, size_t n)
{
	return write(fd, buf, n);
}
static inline int shim_sys_fstat(int fd, struct stat *st) { return fstat(fd, st); }
static inline int shim_sys_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	return fstatat(dirfd, path, st, flags);
}
static inline ssize_t shim_sys_readlinkat(int dirfd, const char *path, char *buf, size_t n)
{
	return readlinkat(dirfd, path, buf, n);
}
static inline int shim_sys_getsockopt(int fd, int level, int name, void *v, socklen_t *l)
{
	return getsockopt(fd, level, name, v, l);
}
static inline pid_t shim_sys_getpid(void) { return getpid(); }
static inline int shim_sys_monotonic(struct timespec *ts)
{
	return clock_gettime(CLOCK_MONOTONIC, ts);
}
static inline void shim_sys_wait_out(int fd, long ms)
{
	struct pollfd pf = { .fd = fd, .events = POLLOUT };

	poll(&pf, 1, (int)ms);
}
#endif

/* Is fd a Unix stream socket (tell.c)? SO_DOMAIN is Linux's; the
 * socket's own address family says the same elsewhere. */
static inline bool shim_unix_stream(int fd)
{
	int v = 0;
	socklen_t l = sizeof(v);

#if SHIM_RAW_SYSCALLS && defined(SO_DOMAIN)
	if (shim_sys_getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l) || v != AF_UNIX)
		return false;
#else
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) || ss.ss_family != AF_UNIX)
		return false;
#endif
	l = sizeof(v);
	return !shim_sys_getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &l) && v == SOCK_STREAM;
}

/* The process's name for a report (at most 15 bytes and a NUL): the
 * thread's comm on Linux, the program's name elsewhere. */
#if SHIM_RAW_SYSCALLS && defined(PR_GET_NAME)
static inline void shim_comm(char out[17])
{
	prctl(PR_GET_NAME, out, 0, 0, 0);
	out[16] = '\0';
}
#else
#include <stdlib.h>
#include <string.h>
static inline void shim_comm(char out[17])
{
#if defined(__APPLE__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__)
	const char *n = getprogname();
#elif defined(__GLIBC__)
	extern char *program_invocation_short_name;
	const char *n = program_invocation_short_name;
#else
	const char *n = NULL;
#endif
	size_t l = n ? strlen(n) : 0;

	if (l > 15)
		l = 15;
	memcpy(out, n ? n : "", l);
	out[l] = '\0';
}
#endif

#endif
