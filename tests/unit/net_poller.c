/* tests/unit/net_poller.c: the proxy's readiness seam (net/poller.h), on
 * real socket pairs, for whichever implementation the build chose (epoll;
 * poll() with `make SBX_POLLER=poll`; kqueue on a Mac, build/tests/net-unit):
 * the same answers from each. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "net/poller.h"

static void pair(int sv[2])
{
	cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	for (int i = 0; i < 2; i++) /* fcntl: no SOCK_NONBLOCK on a Mac */
		cr_assert(!fcntl(sv[i], F_SETFL, O_NONBLOCK) && !fcntl(sv[i], F_SETFD, FD_CLOEXEC));
}

/* a poller and a socket pair to watch with it */
static struct poller *poller_pair(int sv[2])
{
	struct poller *p;

	pair(sv);
	cr_assert_eq(poller_new(&p), 0);
	return p;
}

static void poller_pair_free(struct poller *p, int sv[2])
{
	poller_free(p);
	close(sv[0]);
	close(sv[1]);
}

/* the one event of fd's pointer, or 0 */
static uint32_t events_of(struct poller *p, void *ptr)
{
	struct poller_event ev[16];
	int n = poller_wait(p, ev, 16, 0);
	uint32_t got = 0;

	cr_assert_geq(n, 0);
	for (int i = 0; i < n; i++)
		if (ev[i].ptr == ptr) {
			cr_assert_eq(got, 0, "one event per descriptor and wait");
			got = ev[i].events;
		}
	return got;
}

Test(net_poller, reports_what_is_ready_with_its_pointer)
{
	struct poller *p;
	int sv[2], tag;

	p = poller_pair(sv);
	cr_assert_eq(poller_add(p, sv[0], POLLER_IN, &tag), 0);
	cr_assert_eq(events_of(p, &tag), 0, "nothing to read yet");
	cr_assert_eq(write(sv[1], "x", 1), 1);
	cr_assert_eq(events_of(p, &tag), POLLER_IN);
	cr_assert_eq(events_of(p, &tag), POLLER_IN, "level-triggered: again until read");
	char c;
	cr_assert_eq(read(sv[0], &c, 1), 1);
	cr_assert_eq(events_of(p, &tag), 0);
	/* a wait with a time-out and nothing ready comes back empty */
	struct poller_event ev[1];
	cr_assert_eq(poller_wait(p, ev, 1, 20), 0);
	poller_pair_free(p, sv);
}

Test(net_poller, mod_changes_the_mask_and_the_pointer)
{
	struct poller *p;
	int sv[2], a, b;

	p = poller_pair(sv);
	cr_assert_eq(poller_add(p, sv[0], POLLER_IN, &a), 0);
	cr_assert_eq(events_of(p, &a), 0, "writable, but only reads were asked");
	cr_assert_eq(poller_mod(p, sv[0], POLLER_OUT, &b), 0);
	cr_assert_eq(events_of(p, &a), 0, "the old pointer is gone");
	cr_assert_eq(events_of(p, &b), POLLER_OUT);
	cr_assert_eq(write(sv[1], "x", 1), 1);
	cr_assert_eq(poller_mod(p, sv[0], 0, &b), 0);
	cr_assert_eq(events_of(p, &b), 0, "an empty mask keeps it quiet");
	cr_assert_eq(poller_mod(p, sv[0], POLLER_IN | POLLER_OUT, &b), 0);
	cr_assert_eq(events_of(p, &b), POLLER_IN | POLLER_OUT);
	poller_pair_free(p, sv);
}

Test(net_poller, add_twice_mod_or_del_unknown_are_refused)
{
	struct poller *p;
	int sv[2], tag;

	p = poller_pair(sv);
	cr_assert_eq(poller_mod(p, sv[0], POLLER_IN, &tag), -ENOENT);
	cr_assert_eq(poller_del(p, sv[0]), -ENOENT);
	cr_assert_eq(poller_add(p, sv[0], POLLER_IN, &tag), 0);
	cr_assert_eq(poller_add(p, sv[0], POLLER_IN, &tag), -EEXIST);
	cr_assert_eq(poller_del(p, sv[0]), 0);
	cr_assert_eq(write(sv[1], "x", 1), 1);
	cr_assert_eq(events_of(p, &tag), 0, "removed: never reported");
	cr_assert_eq(poller_del(p, sv[0]), -ENOENT);
	cr_assert_eq(poller_add(p, sv[0], POLLER_IN, &tag), 0, "added again after del");
	cr_assert_eq(events_of(p, &tag), POLLER_IN);
	poller_pair_free(p, sv);
}

Test(net_poller, a_hang_up_is_reported_unasked)
{
	struct poller *p;
	int sv[2], tag;

	p = poller_pair(sv);
	cr_assert_eq(poller_add(p, sv[0], 0, &tag), 0);
	close(sv[1]);
	cr_assert(events_of(p, &tag) & POLLER_HUP, "HUP with an empty mask");
	poller_free(p);
	close(sv[0]);
}

/* A half-close (the peer's FIN: it sends no more, still reads) is no
 * hang-up: epoll says nothing for it unasked, and the loop must not end a
 * client that shut its side after its request (XNU's poll() and kqueue
 * say it like one: poller_hup.h). Asked for reads, it is readable. */
Test(net_poller, a_half_close_is_not_a_hang_up)
{
	struct poller *p;
	int sv[2], tag;

	p = poller_pair(sv);
	cr_assert_eq(poller_add(p, sv[0], 0, &tag), 0);
	cr_assert_eq(shutdown(sv[1], SHUT_WR), 0);
	cr_assert_eq(events_of(p, &tag), 0, "a half-close with an empty mask");
	cr_assert_eq(poller_mod(p, sv[0], POLLER_IN, &tag), 0);
	cr_assert_eq(events_of(p, &tag), POLLER_IN, "readable: the end of its stream");
	close(sv[1]);
	cr_assert(events_of(p, &tag) & POLLER_HUP, "then its close is");
	poller_free(p);
	close(sv[0]);
}

/* A descriptor closed without del is forgotten (epoll's way), and its
 * number, when reused, can be watched again. */
Test(net_poller, a_closed_descriptor_is_forgotten)
{
	struct poller *p;
	int sv[2], tv[2], a, b;

	p = poller_pair(sv);
	cr_assert_eq(poller_add(p, sv[0], POLLER_IN | POLLER_OUT, &a), 0);
	int fd = sv[0];
	close(sv[0]);
	cr_assert_eq(events_of(p, &a), 0);
	cr_assert_eq(events_of(p, &a), 0);
	pair(tv);
	cr_assert(tv[0] == fd || tv[1] == fd, "the number is reused");
	cr_assert_eq(poller_add(p, fd, POLLER_OUT, &b), 0);
	cr_assert_eq(events_of(p, &b), POLLER_OUT);
	cr_assert_eq(events_of(p, &a), 0);
	poller_free(p);
	close(sv[1]);
	close(tv[0]);
	close(tv[1]);
}

/* More ready than a wait takes: the next waits hand out the others, so
 * no descriptor waits behind the rest for good. */
Test(net_poller, every_ready_descriptor_comes_in_turn)
{
	enum { N = 10, MAX = 3 };
	struct poller *p;
	int sv[N][2], tag[N];
	bool seen[N] = { false };

	cr_assert_eq(poller_new(&p), 0);
	for (int i = 0; i < N; i++) {
		pair(sv[i]);
		cr_assert_eq(write(sv[i][1], "x", 1), 1);
		cr_assert_eq(poller_add(p, sv[i][0], POLLER_IN, &tag[i]), 0);
	}
	for (int w = 0; w < (N + MAX - 1) / MAX; w++) {
		struct poller_event ev[MAX];
		int n = poller_wait(p, ev, MAX, 0);
		cr_assert_eq(n, MAX, "wait %d: %d (all stay ready: none is read)", w, n);
		for (int i = 0; i < n; i++) {
			int k = (int *)ev[i].ptr - tag;
			cr_assert(k >= 0 && k < N);
			seen[k] = true;
		}
	}
	for (int i = 0; i < N; i++)
		cr_assert(seen[i], "descriptor %d never came", i);
	poller_free(p);
	for (int i = 0; i < N; i++) {
		close(sv[i][0]);
		close(sv[i][1]);
	}
}

/* A caller waiting in its own poll() on poller_pollfds() wakes when a
 * watched descriptor is ready, and not before. */
Test(net_poller, pollfds_wake_the_callers_own_poll)
{
	struct poller *p;
	int sv[2], tag;
	struct pollfd *pf;
	struct pollfd mine[8];

	p = poller_pair(sv);
	cr_assert_eq(poller_add(p, sv[0], POLLER_IN, &tag), 0);
	int n = poller_pollfds(p, &pf);
	cr_assert(n >= 1 && n <= 8);
	memcpy(mine, pf, n * sizeof(*mine));
	cr_assert_eq(poll(mine, n, 0), 0, "nothing yet");
	cr_assert_eq(write(sv[1], "x", 1), 1);
	n = poller_pollfds(p, &pf);
	memcpy(mine, pf, n * sizeof(*mine));
	cr_assert_geq(poll(mine, n, 1000), 1);
	cr_assert_eq(events_of(p, &tag), POLLER_IN);
	poller_pair_free(p, sv);
}
