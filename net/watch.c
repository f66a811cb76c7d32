/* net/watch.c: descriptors other than connections that the
 * proxy's loop serves (the resolver's queries, the sandbox's DNS
 * sockets). The loop owns the poller and hands each event whose
 * object is a watch to net_watch_fire(); the resolver and the DNS server
 * only know this file, not the loop.
 *
 * A watch removed while a batch of events is being handled may still be
 * named by a later event of the same batch: it is parked on a dead list,
 * never called again, and freed by net_watches_bury() after the batch.
 */
#include <errno.h>
#include <stdlib.h>

#include "net/net.h"
#include "net/compat.h"

struct net_watch {
	uint8_t obj;   /* NET_OBJ_WATCH: the loop tells it from its own objects */
	bool dead;     /* removed during a batch: freed after it */
	int fd;
	net_watch_fn fn;
	void *ctx;
	struct net_watch *next; /* on the dead list */
};

int net_watch_add(struct net_watches *ws, int fd, uint32_t events, net_watch_fn fn, void *ctx,
		  struct net_watch **out)
{
	struct net_watch *w = calloc(1, sizeof(*w));
	int rc;

	if (!w)
		return -ENOMEM;
	w->obj = NET_OBJ_WATCH;
	w->fd = fd;
	w->fn = fn;
	w->ctx = ctx;
	rc = poller_add(ws->poller, fd, events, w);
	if (rc) {
		free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int net_watch_mod(struct net_watches *ws, struct net_watch *w, uint32_t events)
{
	return poller_mod(ws->poller, w->fd, events, w);
}

void net_watch_del(struct net_watches *ws, struct net_watch *w)
{
	if (!w || w->dead)
		return;
	poller_del(ws->poller, w->fd);
	w->dead = true;
	w->next = ws->dead;
	ws->dead = w;
}

void net_watch_fire(struct net_watch *w, uint32_t events)
{
	if (!w->dead)
		w->fn(w->ctx, w->fd, events);
}

void net_watches_bury(struct net_watches *ws)
{
	while (ws->dead) {
		struct net_watch *w = ws->dead;
		ws->dead = w->next;
		free(w);
	}
}
