/* net/poller_kqueue.c: poller.h on the BSDs' and macOS's kqueue (included
 * by poller.c when built with SBX_POLLER=kqueue).
 *
 * kqueue watches a descriptor with one filter per direction. poller.h's
 * contract is epoll's, and each difference is met here:
 *  - ERR and HUP come unasked: the read filter stays registered while a
 *    descriptor is watched. With IN asked it is level-triggered; without
 *    it is edge-triggered (EV_CLEAR), and its events are handed out only
 *    for an end (HUP, and ERR with the socket's error): data waiting
 *    unread must not wake every wait while the caller holds back.
 *  - HUP is epoll's: both ways shut, or an error. kqueue's EV_EOF on the
 *    read filter is the peer's FIN alone (a half-close, which the loop
 *    must not take for a client gone), so it is HUP only when its write
 *    side is shut too (poller_hup.h).
 *  - one event per descriptor and wait: kqueue gives the read and the
 *    write filter's events apart; those of one descriptor are merged.
 *  - every change of a call is tried (EV_RECEIPT): kevent() stops at the
 *    first failing one, which would leave a descriptor half-registered;
 *    one that fails is left with no filter and not watched.
 *  - a descriptor closed without del is forgotten: the kernel drops its
 *    filters at close, so an add over a number this poller still thinks
 *    watched first asks the kernel whether it is (EV_RECEIPT).
 * Level to edge and back is a delete and an add: whether an EV_ADD over a
 * live filter changes its EV_CLEAR is not documented.
 *
 * It has not run: no machine sbx is developed on has kqueue. The Mac's
 * build takes poll() until .github/workflows/macos.yml shows the proxy's
 * tests pass on this one (docs/MACOS.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/event.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>

#include "net/poller.h"
#include "net/poller_hup.h"

#define W_ON 0x1u  /* watched (as far as this poller knows) */
#define W_IN 0x2u  /* the read filter level-triggered */
#define W_OUT 0x4u /* the write filter registered */

struct poller {
	int kq;
	struct pollfd pf; /* poller_pollfds */
	uint8_t *st;      /* st[fd]: W_* */
	void **ptr;       /* ptr[fd]: the caller's pointer */
	size_t nst;
};

int poller_new(struct poller **out)
{
	struct poller *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->kq = kqueue();
	if (p->kq < 0 || fcntl(p->kq, F_SETFD, FD_CLOEXEC)) {
		int e = -errno;
		if (p->kq >= 0)
			close(p->kq);
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
	close(p->kq);
	free(p->st);
	free(p->ptr);
	free(p);
}

int poller_pollfds(struct poller *p, struct pollfd **out)
{
	p->pf = (struct pollfd){ .fd = p->kq, .events = POLLIN };
	*out = &p->pf;
	return 1;
}

static int grow(struct poller *p, int fd)
{
	if ((size_t)fd < p->nst)
		return 0;
	size_t n = p->nst ? p->nst : 64;
	while (n <= (size_t)fd)
		n *= 2;
	uint8_t *st = realloc(p->st, n);
	if (!st)
		return -ENOMEM;
	p->st = st;
	void **ptr = realloc(p->ptr, n * sizeof(*ptr));
	if (!ptr)
		return -ENOMEM;
	p->ptr = ptr;
	memset(p->st + p->nst, 0, n - p->nst);
	p->nst = n;
	return 0;
}

static uint8_t state(const struct poller *p, int fd)
{
	return fd >= 0 && (size_t)fd < p->nst ? p->st[fd] : 0;
}

/* The changes, each tried (receipts in ch's order): 0, or the first
 * failure's -errno; a delete of a filter not there is no failure. */
static int change(struct poller *p, struct kevent *ch, int n)
{
	struct kevent res[3];
	int err = 0;

	for (int i = 0; i < n; i++)
		ch[i].flags |= EV_RECEIPT;
	int r = kevent(p->kq, ch, n, res, n, NULL);
	if (r < 0)
		return -errno;
	for (int i = 0; i < r; i++) {
		int e = (res[i].flags & EV_ERROR) ? (int)res[i].data : 0;
		if (e == ENOENT && (ch[i].flags & EV_DELETE))
			e = 0;
		if (e && !err)
			err = -e;
	}
	return err;
}

/* fd not watched at all, whatever was registered */
static void forget(struct poller *p, int fd)
{
	struct kevent ch[2];

	EV_SET(&ch[0], fd, EVFILT_READ, EV_DELETE, 0, 0, NULL);
	EV_SET(&ch[1], fd, EVFILT_WRITE, EV_DELETE, 0, 0, NULL);
	(void)change(p, ch, 2);
	p->st[fd] = 0;
}

/* From what is registered (old) to what events asks, in one kevent(). */
static int apply(struct poller *p, int fd, uint8_t old, uint32_t events, void *ptr)
{
	struct kevent ch[3];
	int n = 0;
	uint8_t now = W_ON | ((events & POLLER_IN) ? W_IN : 0) | ((events & POLLER_OUT) ? W_OUT : 0);

	if ((old & W_ON) && (old & W_IN) != (now & W_IN))
		EV_SET(&ch[n++], fd, EVFILT_READ, EV_DELETE, 0, 0, NULL);
	EV_SET(&ch[n++], fd, EVFILT_READ, EV_ADD | EV_ENABLE | ((now & W_IN) ? 0 : EV_CLEAR), 0, 0,
	       ptr);
	if (now & W_OUT)
		EV_SET(&ch[n++], fd, EVFILT_WRITE, EV_ADD | EV_ENABLE, 0, 0, ptr);
	else if (old & W_OUT)
		EV_SET(&ch[n++], fd, EVFILT_WRITE, EV_DELETE, 0, 0, NULL);
	int rc = change(p, ch, n);
	if (rc) {
		forget(p, fd);
		return rc;
	}
	p->st[fd] = now;
	p->ptr[fd] = ptr;
	return 0;
}

/* Is fd's read filter still in the kernel (the descriptor not closed since
 * it was added)? Asked without changing it: a delete whose receipt says
 * ENOENT, else the filter put back as it was. */
static int still_watched(struct poller *p, int fd)
{
	struct kevent ch, got;
	uint8_t old = p->st[fd];

	EV_SET(&ch, fd, EVFILT_READ, EV_DELETE | EV_RECEIPT, 0, 0, NULL);
	if (kevent(p->kq, &ch, 1, &got, 1, NULL) != 1)
		return -errno;
	if ((got.flags & EV_ERROR) && got.data == ENOENT)
		return 0;
	if ((got.flags & EV_ERROR) && got.data != 0)
		return -(int)got.data;
	/* it was: put it back (the write filter was never touched) */
	EV_SET(&ch, fd, EVFILT_READ, EV_ADD | EV_ENABLE | ((old & W_IN) ? 0 : EV_CLEAR), 0, 0,
	       p->ptr[fd]);
	if (kevent(p->kq, &ch, 1, NULL, 0, NULL) < 0)
		return -errno;
	return 1;
}

int poller_add(struct poller *p, int fd, uint32_t events, void *ptr)
{
	int rc;

	if (fd < 0)
		return -EBADF;
	if ((rc = grow(p, fd)))
		return rc;
	if (p->st[fd] & W_ON) {
		if ((rc = still_watched(p, fd)) != 0)
			return rc < 0 ? rc : -EEXIST;
		p->st[fd] = 0; /* closed and its number reused: the kernel forgot it */
	}
	return apply(p, fd, 0, events, ptr);
}

int poller_mod(struct poller *p, int fd, uint32_t events, void *ptr)
{
	uint8_t old = state(p, fd);

	if (!(old & W_ON))
		return -ENOENT;
	return apply(p, fd, old, events, ptr);
}

int poller_del(struct poller *p, int fd)
{
	if (!(state(p, fd) & W_ON))
		return -ENOENT;
	forget(p, fd);
	return 0;
}

#define BATCH 256

int poller_wait(struct poller *p, struct poller_event *evs, int max, int timeout_ms)
{
	struct kevent ev[BATCH];
	uintptr_t id[BATCH]; /* the descriptor of evs[k] */
	struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
	int got = 0;

	if (max <= 0)
		return -EINVAL; /* epoll's answer; kevent() would not wait */
	int n = kevent(p->kq, NULL, 0, ev, max < BATCH ? max : BATCH, timeout_ms < 0 ? NULL : &ts);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		uint32_t e = 0;
		int fd = (int)ev[i].ident;
		if (ev[i].flags & EV_ERROR)
			continue;
		bool eof = ev[i].flags & EV_EOF, err = eof && ev[i].fflags;
		if (ev[i].filter == EVFILT_READ) {
			bool hup = eof && (err || poller_write_shut(fd));
			if (state(p, fd) & W_IN)
				e = POLLER_IN | (hup ? POLLER_HUP : 0);
			else if (hup)
				e = POLLER_HUP; /* edge-triggered: only an end is news */
		} else if (ev[i].filter == EVFILT_WRITE) {
			e = POLLER_OUT | (eof ? POLLER_HUP : 0);
		}
		if (!e)
			continue;
		e |= err ? POLLER_ERR : 0;
		int k = 0; /* the other filter's event of the same descriptor */
		while (k < got && id[k] != ev[i].ident)
			k++;
		if (k < got) {
			evs[k].events |= e;
		} else {
			id[got] = ev[i].ident;
			evs[got++] = (struct poller_event){ e, ev[i].udata };
		}
	}
	return got;
}
