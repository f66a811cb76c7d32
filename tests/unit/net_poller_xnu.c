/* tests/unit/net_poller_xnu.c: net/poller_poll.c against a stand-in for
 * XNU's poll(), which Linux's differs from where the poller must not
 * spin (net/poller_hup.h).
 *
 * XNU builds poll() on kqueue (sys_generic.c, poll_nocancel and
 * poll_callback): a read filter for a descriptor whose mask holds any of
 * POLLIN, POLLRDNORM, POLLPRI, POLLRDBAND or POLLHUP, a write filter for
 * POLLOUT, nothing for an empty mask; a filter's EV_EOF is POLLHUP. A
 * socket's read filter says EV_EOF once the peer's FIN came (it can
 * receive no more), its write filter once it can send no more. Both are
 * level-triggered: a poll() with a read filter on a half-closed socket
 * returns at once, every time. The stand-in says what XNU would from
 * what Linux says (POLLRDHUP: the peer's FIN), and counts the calls that
 * would have returned at once. */
#if defined(__linux__) /* the stand-in reads Linux's POLLRDHUP; a Mac runs
			* net_poller.c's tests on its own poll() */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <unistd.h>

#include <criterion/criterion.h>

static int xnu_poll(struct pollfd *fds, nfds_t n, int timeout);

/* poller_poll.c itself, its names its own here (the build's poller is
 * linked beside it) */
#define poll xnu_poll
#define poller_new xnu_poller_new
#define poller_free xnu_poller_free
#define poller_pollfds xnu_poller_pollfds
#define poller_add xnu_poller_add
#define poller_mod xnu_poller_mod
#define poller_del xnu_poller_del
#define poller_wait xnu_poller_wait
#include "net/poller_poll.c"
#undef poll

static int woke;                  /* waits that returned with a descriptor ready */
static const struct pollfd *waits; /* the poller's array (its other calls: poller_hup.h's) */

static int xnu_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	int ready = 0;

	cr_assert_eq(timeout, 0, "the stand-in only answers at once");
	for (nfds_t i = 0; i < n; i++) {
		short ev = fds[i].events, rfilt = POLLIN | POLLRDNORM | POLLPRI | POLLRDBAND | POLLHUP;
		struct pollfd q = { .fd = fds[i].fd, .events = POLLIN | POLLOUT | POLLRDHUP };
		cr_assert_geq(poll(&q, 1, 0), 0);
		short r = 0;
		if (q.revents & POLLNVAL)
			r = POLLNVAL;
		if ((ev & rfilt) && (q.revents & (POLLRDHUP | POLLHUP)))
			r |= POLLHUP; /* the read filter's EV_EOF */
		if ((ev & POLLOUT) && (q.revents & POLLHUP))
			r |= POLLHUP; /* the write filter's: it sends no more */
		r |= q.revents & ev & (POLLIN | POLLOUT);
		if ((ev & (rfilt | POLLOUT)) && (q.revents & POLLERR))
			r |= POLLERR;
		fds[i].revents = r;
		ready += r != 0;
	}
	woke += fds == waits && ready > 0;
	return ready;
}

static void pair(int sv[2])
{
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	for (int i = 0; i < 2; i++)
		cr_assert(!fcntl(sv[i], F_SETFL, O_NONBLOCK));
}

static uint32_t wait_for(struct poller *p, void *ptr)
{
	struct poller_event ev[8];
	struct pollfd *pf;

	xnu_poller_pollfds(p, &pf);
	waits = pf;
	int n = xnu_poller_wait(p, ev, 8, 0);
	uint32_t got = 0;

	cr_assert_geq(n, 0);
	for (int i = 0; i < n; i++)
		if (ev[i].ptr == ptr)
			got |= ev[i].events;
	return got;
}

/* The proxy holds a client with nothing asked while its name is looked
 * up, and a tunnel's end whose stream ended while the other side's bytes
 * are awaited. A peer that shut its side (nc -N, an HTTP/1.0 client) is
 * no hang-up; on XNU the POLLHUP asked for every descriptor would still
 * wake every wait at once for it: the loop would spin until the state
 * changes. It may wake one wait (the poller learns it is a half-close),
 * not every one. */
Test(net_poller_xnu, a_half_close_does_not_wake_every_wait)
{
	struct poller *p;
	int sv[2], tag;

	pair(sv);
	cr_assert_eq(xnu_poller_new(&p), 0);
	cr_assert_eq(xnu_poller_add(p, sv[0], 0, &tag), 0);
	cr_assert_eq(shutdown(sv[1], SHUT_WR), 0);
	woke = 0;
	for (int i = 0; i < 4; i++)
		cr_assert_eq(wait_for(p, &tag), 0, "a half-close is no event");
	cr_assert_leq(woke, 1, "%d of 4 waits woken by a half-close", woke);
	/* a mask changed later (the connection made, nothing to send yet)
	 * does not bring it back */
	cr_assert_eq(xnu_poller_mod(p, sv[0], 0, &tag), 0);
	woke = 0;
	for (int i = 0; i < 4; i++)
		cr_assert_eq(wait_for(p, &tag), 0);
	cr_assert_eq(woke, 0, "%d of 4 waits woken after a mod", woke);
	/* asked for reads, it is readable: the end of its stream */
	cr_assert_eq(xnu_poller_mod(p, sv[0], POLLER_IN, &tag), 0);
	cr_assert_eq(wait_for(p, &tag), POLLER_IN);
	xnu_poller_free(p);
	close(sv[0]);
	close(sv[1]);
}

/* A hang-up before any half-close still comes unasked (what the loop
 * ends a client for while its connection is made), and one after it
 * comes with reads or writes asked. */
Test(net_poller_xnu, a_hang_up_still_comes)
{
	struct poller *p;
	int sv[2], tv[2], a, b;

	pair(sv);
	pair(tv);
	cr_assert_eq(xnu_poller_new(&p), 0);
	cr_assert_eq(xnu_poller_add(p, sv[0], 0, &a), 0);
	close(sv[1]);
	cr_assert(wait_for(p, &a) & POLLER_HUP, "HUP with an empty mask");
	cr_assert_eq(xnu_poller_add(p, tv[0], 0, &b), 0);
	cr_assert_eq(shutdown(tv[1], SHUT_WR), 0);
	cr_assert_eq(wait_for(p, &b), 0);
	close(tv[1]);
	cr_assert_eq(xnu_poller_mod(p, tv[0], POLLER_OUT, &b), 0);
	cr_assert(wait_for(p, &b) & POLLER_HUP, "then its close, writes asked");
	xnu_poller_free(p);
	close(sv[0]);
	close(tv[0]);
}
#endif
