/* net/poller_poll.c: poller.h on portable poll() (included by poller.c).
 *
 * One pollfd array of the watched descriptors, a pointer beside each, and
 * a map from descriptor to its place; removal moves the last entry into
 * the hole. Each wait is one poll() over the whole array, O(watched): the
 * portable fallback, not the fast path. When more are ready than the
 * caller takes, the next wait starts the scan where this one stopped, so
 * no descriptor waits behind others for good. POLLHUP is asked for
 * explicitly: XNU's poll() watches nothing for an empty mask, so a hang-up
 * would never come unasked there; and it is HUP only as epoll means it
 * (poller_hup.h). Once a descriptor's half-close is seen (never on Linux,
 * whose POLLHUP is both ways shut), POLLHUP is no longer asked for it:
 * XNU would say it again at every poll(). Its hang-up then comes with
 * reads or writes asked only (XNU's write filter says it); with nothing
 * asked, a peer that half-closed and then reset is found at the next
 * read or write.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "net/poller.h"
#include "net/poller_hup.h"

_Static_assert(POLLER_IN == POLLIN && POLLER_OUT == POLLOUT && POLLER_ERR == POLLERR &&
		       POLLER_HUP == POLLHUP,
	       "poller.h's masks are poll's");

struct poller {
	struct pollfd *pf;
	void **ptr;
	size_t n, cap;
	int *at;     /* at[fd]: fd's place in pf, or -1 */
	size_t nat;  /* entries of at */
	size_t next; /* where the next wait's scan starts */
};

int poller_new(struct poller **out)
{
	struct poller *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	*out = p;
	return 0;
}

void poller_free(struct poller *p)
{
	if (!p)
		return;
	free(p->pf);
	free(p->ptr);
	free(p->at);
	free(p);
}

int poller_pollfds(struct poller *p, struct pollfd **out)
{
	*out = p->pf;
	return (int)p->n;
}

static int place(const struct poller *p, int fd)
{
	return fd >= 0 && (size_t)fd < p->nat ? p->at[fd] : -1;
}

int poller_add(struct poller *p, int fd, uint32_t events, void *ptr)
{
	if (fd < 0)
		return -EBADF;
	if (place(p, fd) >= 0)
		return -EEXIST;
	if ((size_t)fd >= p->nat) {
		size_t nat = p->nat ? p->nat : 64;
		while (nat <= (size_t)fd)
			nat *= 2;
		int *at = realloc(p->at, nat * sizeof(*at));
		if (!at)
			return -ENOMEM;
		memset(at + p->nat, 0xff, (nat - p->nat) * sizeof(*at)); /* -1 */
		p->at = at;
		p->nat = nat;
	}
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		if (cap > INT_MAX)
			return -ENOMEM;
		struct pollfd *pf = realloc(p->pf, cap * sizeof(*pf));
		if (!pf)
			return -ENOMEM;
		p->pf = pf;
		void **ptrs = realloc(p->ptr, cap * sizeof(*ptrs));
		if (!ptrs)
			return -ENOMEM;
		p->ptr = ptrs;
		p->cap = cap;
	}
	p->pf[p->n] = (struct pollfd){ .fd = fd, .events = (short)(events | POLLHUP) };
	p->ptr[p->n] = ptr;
	p->at[fd] = (int)p->n++;
	return 0;
}

int poller_mod(struct poller *p, int fd, uint32_t events, void *ptr)
{
	int i = place(p, fd);

	if (i < 0)
		return -ENOENT;
	/* POLLHUP stays off for a descriptor whose half-close was seen */
	p->pf[i].events = (short)(events | (p->pf[i].events & POLLHUP));
	p->ptr[i] = ptr;
	return 0;
}

int poller_del(struct poller *p, int fd)
{
	int i = place(p, fd);

	if (i < 0)
		return -ENOENT;
	p->at[fd] = -1;
	if ((size_t)i != --p->n) {
		p->pf[i] = p->pf[p->n];
		p->ptr[i] = p->ptr[p->n];
		p->at[p->pf[i].fd] = i;
	}
	return 0;
}

int poller_wait(struct poller *p, struct poller_event *evs, int max, int timeout_ms)
{
	int ready = poll(p->pf, p->n, timeout_ms);
	int got = 0;

	if (ready < 0)
		return errno == EINTR ? 0 : -errno;
	size_t start = p->next < p->n ? p->next : 0;
	for (size_t k = 0; k < p->n && got < max && got < ready; k++) {
		size_t i = (start + k) % p->n;
		short r = p->pf[i].revents;
		if ((r & POLLHUP) && !(r & POLLERR) && !poller_write_shut(p->pf[i].fd)) {
			/* a half-close (poller_hup.h), which XNU's read
			 * filter says at every poll() from now on: asked
			 * again, a descriptor with nothing else asked would
			 * wake every wait at once, and the loop would spin */
			r &= (short)~POLLHUP;
			p->pf[i].events &= (short)~POLLHUP;
		}
		r &= (short)(p->pf[i].events | POLLERR | POLLHUP | POLLNVAL); /* asked, or unasked ones */
		if (!r || (r & POLLNVAL))
			continue;
		evs[got++] = (struct poller_event){ (uint16_t)r, p->ptr[i] };
		p->next = i + 1;
	}
	/* a descriptor closed while watched: epoll forgets it, so does
	 * this (else poll() would report it at once, forever) */
	for (size_t i = 0; i < p->n;)
		if (p->pf[i].revents & POLLNVAL)
			poller_del(p, p->pf[i].fd); /* the last one moves to i */
		else
			i++;
	return got;
}
