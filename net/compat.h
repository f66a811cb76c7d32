/* net/compat.h: the few Linux-only calls the proxy makes, each beside its
 * portable fallback (macOS, the BSDs), chosen when compiling by the
 * feature's own macro, never by a guess at run time. `make
 * SBX_PORTABLE=1` defines SBX_PORTABLE, which takes every fallback on
 * Linux too, so the fallbacks are built and tested here (make
 * check-portable; docs/MACOS.md).
 *
 *   net_socket(domain, type, proto)  socket(), non-blocking, close-on-exec
 *   net_accept(fd, addr, len)        accept(), the same
 *       Linux: SOCK_NONBLOCK | SOCK_CLOEXEC in the call (accept4);
 *       else: the plain call, then fcntl(). Between the two the descriptor
 *       lacks FD_CLOEXEC: the proxy's thread execs nothing meanwhile.
 *       Where SO_NOSIGPIPE exists (macOS), every socket gets it.
 *   NET_NOSIGNAL                     send()'s flag: a peer gone is EPIPE,
 *       never SIGPIPE. MSG_NOSIGNAL where defined (POSIX.1-2008, Linux),
 *       else 0 with SO_NOSIGPIPE on the socket; neither: no build.
 *   NET_HAVE_SPLICE                  1: a busy tunnel may move to splice(2)
 *       through a pipe (loop.c splice_start: net_pipe(), net_splice(),
 *       net_pipe_size()). 0: those fail with ENOSYS and are never called
 *       (no pipe is made), and every byte goes through the
 *       direction's bounded queue (recv, send), as the first 64 KiB of
 *       every tunnel and `--no-splice` do on Linux: the same bound, the
 *       same back-pressure and half-close, more system calls per byte.
 *   net_defer_accept(fd, secs)       TCP_DEFER_ACCEPT; where missing,
 *       nothing (a connection is then accepted before its first bytes).
 *   net_random(buf, n)               getrandom(GRND_NONBLOCK), or
 *       getentropy() (n at most 256). 0 or -1 and errno.
 *
 * Include it last, after every system header: in the portable build it
 * poisons the Linux-only names, so a later use of one in net/ fails to
 * compile here rather than on a Mac.
 */
#ifndef SBX_NET_COMPAT_H
#define SBX_NET_COMPAT_H

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

/* Linux's fast paths, each by its own macro */
#if !defined(SBX_PORTABLE) && defined(SOCK_NONBLOCK) && defined(SOCK_CLOEXEC)
#define NET_SOCK_FLAGS 1 /* and so accept4() */
#endif
#if !defined(SBX_PORTABLE) && defined(SPLICE_F_NONBLOCK) && defined(F_SETPIPE_SZ)
#define NET_HAVE_SPLICE 1
#else
#define NET_HAVE_SPLICE 0
#endif

#if defined(MSG_NOSIGNAL)
#define NET_NOSIGNAL MSG_NOSIGNAL
#elif defined(SO_NOSIGPIPE)
#define NET_NOSIGNAL 0
#else
#error "no way to keep send() from raising SIGPIPE (MSG_NOSIGNAL, SO_NOSIGPIPE)"
#endif

int net_socket(int domain, int type, int proto);
int net_accept(int fd, struct sockaddr *addr, socklen_t *len);
int net_random(void *buf, size_t n);

static inline void net_defer_accept(int fd, int secs)
{
#if !defined(SBX_PORTABLE) && defined(TCP_DEFER_ACCEPT)
	setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &secs, sizeof(secs));
#else
	(void)fd;
	(void)secs;
#endif
}

#if NET_HAVE_SPLICE
static inline int net_pipe(int p[2])
{
	return pipe2(p, O_NONBLOCK | O_CLOEXEC);
}

/* up to len bytes from in to out, one of them a pipe */
static inline ssize_t net_splice(int in, int out, size_t len)
{
	return splice(in, NULL, out, NULL, len, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
}

/* the pipe's size; with want > 0, asks for that size first */
static inline int net_pipe_size(int fd, int want)
{
	return want > 0 ? fcntl(fd, F_SETPIPE_SZ, want) : fcntl(fd, F_GETPIPE_SZ);
}
#else
static inline int net_pipe(int p[2])
{
	(void)p;
	errno = ENOSYS;
	return -1;
}

static inline ssize_t net_splice(int in, int out, size_t len)
{
	(void)in, (void)out, (void)len;
	errno = ENOSYS;
	return -1;
}

static inline int net_pipe_size(int fd, int want)
{
	(void)fd, (void)want;
	errno = ENOSYS;
	return -1;
}
#endif

#ifdef SBX_PORTABLE
/* what exists only on Linux (or has a fallback above): not to be named */
#undef SOCK_NONBLOCK
#undef SOCK_CLOEXEC
#undef TCP_DEFER_ACCEPT
#undef F_SETPIPE_SZ
#undef F_GETPIPE_SZ
#undef SPLICE_F_MOVE
#undef SPLICE_F_NONBLOCK
#undef SPLICE_F_MORE
#undef GRND_NONBLOCK
#pragma GCC poison accept4 pipe2 splice tee vmsplice getrandom sendfile \
	epoll_create epoll_create1 epoll_ctl epoll_wait signalfd eventfd timerfd_create \
	SOCK_NONBLOCK SOCK_CLOEXEC TCP_DEFER_ACCEPT F_SETPIPE_SZ F_GETPIPE_SZ \
	SPLICE_F_MOVE SPLICE_F_NONBLOCK SPLICE_F_MORE GRND_NONBLOCK
#endif

#endif
