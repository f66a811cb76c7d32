/* net/poller.h: the proxy's readiness seam, so net/ calls no epoll itself.
 *
 * A poller watches descriptors, each with a pointer the caller gets back
 * with its events. Level-triggered, like epoll's default and poll(): an
 * event comes back at every wait for as long as it holds. Two
 * implementations, chosen when building (one object, net/poller.c):
 *   epoll   Linux's, the default;
 *   poll    portable poll(), `make SBX_POLLER=poll` (what a system without
 *           epoll uses; on Linux it runs the proxy's tests on it).
 * Removing a descriptor during a batch is the caller's business: events
 * already handed out still name its pointer (loop.c's dead lists).
 */
#ifndef SBX_NET_POLLER_H
#define SBX_NET_POLLER_H

#include <stdint.h>

/* the events, both ways; ERR and HUP come back whether asked or not */
#define POLLER_IN 0x1u
#define POLLER_OUT 0x4u
#define POLLER_ERR 0x8u
#define POLLER_HUP 0x10u

struct poller;
struct poller_event {
	uint32_t events;
	void *ptr;
};

int poller_new(struct poller **out); /* 0 or -errno; caller owns *out */
void poller_free(struct poller *p);  /* NULL is fine; closes no watched descriptor */
/* For a caller that waits in its own poll(): the descriptors that show
 * events wait, n entries at *out (borrowed until the next call on p;
 * poll() may write their revents there). epoll: one, its own descriptor,
 * readable while events wait; poll: every watched descriptor. */
struct pollfd;
int poller_pollfds(struct poller *p, struct pollfd **out);
/* 0 or -errno (-EEXIST: fd watched already; -ENOENT: not watched). An
 * events mask of 0 keeps fd watched but quiet (except ERR and HUP). */
int poller_add(struct poller *p, int fd, uint32_t events, void *ptr);
int poller_mod(struct poller *p, int fd, uint32_t events, void *ptr);
int poller_del(struct poller *p, int fd); /* before fd is closed */
/* Up to max events, waiting at most timeout_ms (-1: until one comes):
 * their count, 0 on time-out or a signal, -errno. */
int poller_wait(struct poller *p, struct poller_event *evs, int max, int timeout_ms);

#endif
