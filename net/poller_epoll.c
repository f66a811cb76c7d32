/* net/poller_epoll.c: poller.h on Linux's epoll (included by poller.c).
 * The masks are epoll's own values, so they pass through unchanged. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "net/poller.h"

_Static_assert(POLLER_IN == EPOLLIN && POLLER_OUT == EPOLLOUT && POLLER_ERR == EPOLLERR &&
		       POLLER_HUP == EPOLLHUP,
	       "poller.h's masks are epoll's");

struct poller {
	int epfd;
	struct pollfd pf; /* poller_pollfds */
};

int poller_new(struct poller **out)
{
	struct poller *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (p->epfd < 0) {
		int e = -errno;
		free(p);
		return e;
	}
	*out = p;
	return 0;
}

void poller_free(struct poller *p)
{
	if (!p)
		return;
	close(p->epfd);
	free(p);
}

int poller_pollfds(struct poller *p, struct pollfd **out)
{
	p->pf = (struct pollfd){ .fd = p->epfd, .events = POLLIN };
	*out = &p->pf;
	return 1;
}

static int ctl(struct poller *p, int op, int fd, uint32_t events, void *ptr)
{
	struct epoll_event ev = { .events = events, .data.ptr = ptr };

	return epoll_ctl(p->epfd, op, fd, &ev) ? -errno : 0;
}

int poller_add(struct poller *p, int fd, uint32_t events, void *ptr)
{
	return ctl(p, EPOLL_CTL_ADD, fd, events, ptr);
}

int poller_mod(struct poller *p, int fd, uint32_t events, void *ptr)
{
	return ctl(p, EPOLL_CTL_MOD, fd, events, ptr);
}

int poller_del(struct poller *p, int fd)
{
	return epoll_ctl(p->epfd, EPOLL_CTL_DEL, fd, NULL) ? -errno : 0;
}

#define BATCH 256

int poller_wait(struct poller *p, struct poller_event *evs, int max, int timeout_ms)
{
	struct epoll_event ev[BATCH];
	int n = epoll_wait(p->epfd, ev, max < BATCH ? max : BATCH, timeout_ms);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++)
		evs[i] = (struct poller_event){ ev[i].events, ev[i].data.ptr };
	return n;
}
