/* net/poller_hup.h: what poller.h's HUP means, for the pollers that must
 * ask (poll() and kqueue; epoll says it as it is).
 *
 * HUP is epoll's: the descriptor can move nothing more either way (both
 * ways shut, or an error). A peer's FIN alone is a half-close, which the
 * loop must not take for a client gone (loop.c ends a client that hangs
 * up while its connection is made); XNU's poll() and kqueue's EV_EOF say
 * it like a hang-up. The write side tells them apart: a poll() for POLLOUT
 * alone says POLLHUP (or POLLERR) only when it can send no more. On Linux
 * a POLLHUP already means that, and the second poll() agrees. */
#ifndef SBX_NET_POLLER_HUP_H
#define SBX_NET_POLLER_HUP_H

#include <poll.h>
#include <stdbool.h>

static inline bool poller_write_shut(int fd)
{
	struct pollfd q = { .fd = fd, .events = POLLOUT };

	return poll(&q, 1, 0) == 1 && (q.revents & (POLLHUP | POLLERR));
}

#endif
