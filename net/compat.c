/* net/compat.c: compat.h's calls, Linux's or the portable fallback. */
#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

/* before compat.h, which poisons the name in the portable build */
#if !defined(SBX_PORTABLE) && defined(GRND_NONBLOCK)
#define NET_GETRANDOM 1
#endif

#include "net/compat.h"

#if defined(SO_NOSIGPIPE) || !defined(NET_SOCK_FLAGS)
/* fd, closed with errno kept (for a failure after it was made) */
static int close_keep(int fd)
{
	int e = errno;
	close(fd);
	errno = e;
	return -1;
}
#endif

/* SO_NOSIGPIPE where the system has it (then NET_NOSIGNAL may be 0) */
static int nosigpipe(int fd)
{
#ifdef SO_NOSIGPIPE
	int one = 1;
	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof(one)))
		return close_keep(fd);
#endif
	return fd;
}

#ifndef NET_SOCK_FLAGS
/* a descriptor from the plain call made non-blocking and close-on-exec */
static int set_flags(int fd)
{
	if (fd < 0)
		return -1;
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) || fcntl(fd, F_SETFD, FD_CLOEXEC))
		return close_keep(fd);
	return nosigpipe(fd);
}
#endif

int net_socket(int domain, int type, int proto)
{
#ifdef NET_SOCK_FLAGS
	return nosigpipe(socket(domain, type | SOCK_NONBLOCK | SOCK_CLOEXEC, proto));
#else
	return set_flags(socket(domain, type, proto));
#endif
}

int net_accept(int fd, struct sockaddr *addr, socklen_t *len)
{
#ifdef NET_SOCK_FLAGS
	return nosigpipe(accept4(fd, addr, len, SOCK_NONBLOCK | SOCK_CLOEXEC));
#else
	return set_flags(accept(fd, addr, len));
#endif
}

int net_random(void *buf, size_t n)
{
#ifdef NET_GETRANDOM
	ssize_t r = getrandom(buf, n, GRND_NONBLOCK);
	if (r < 0)
		return -1;
	if ((size_t)r != n) {
		errno = EIO;
		return -1;
	}
	return 0;
#else
	return getentropy(buf, n);
#endif
}
