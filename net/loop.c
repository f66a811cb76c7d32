/* net/loop.c: the relay, one loop for every connection (poller.h).
 *
 * A connection is two ends (the sandbox's client, the upstream we dial) and
 * two directions, each with one bounded queue: at most NET_BUF_SIZE bytes in
 * a user-space buffer, or a pipe of the same size when an established tunnel
 * is relayed with splice(2) (1 MiB for a few bulk transfers: bulk_grow;
 * Linux only: elsewhere, and in the portable build, the queue relays it
 * all, net/compat.h).
 * A direction reads its source only while its queue has room, so a side
 * that stops reading stops the other side at once (its socket buffer
 * fills, TCP tells the sender): memory per connection is fixed whatever
 * the peers do.
 *
 * Everything is non-blocking and level-triggered. A poller event only says
 * "something may be possible"; pump() then moves what it can in both
 * directions, remembers which calls would block (rd/wr flags, so it does
 * not ask again before the poller says so), and sets the interest mask to what
 * it is waiting for. A connection closed while a batch of events is being
 * handled is parked on a dead list and freed after the batch, since the
 * batch may still name its other end.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/net.h"
#include "net/compat.h"

#define SWEEP_MS 1000           /* how often timeouts are looked at */
#define LINGER_MS 2000          /* reading a refused client's rest before close */
#define HEAD_READ_MAX (NET_HEAD_MAX + 4096) /* room to tell a long head from a long body */
#define SOCKS_READ_MAX 1024
#define MAX_EVENTS 256
#define CHAIN_MAX 1024          /* the upstream proxy's answer head */
#define POOL_MAX 8              /* released queues kept for the next connections */
#define POOL_KEEP 16384         /* ... when they dirtied at most this much */
#define SPLICE_AFTER 65536      /* a tunnel's direction splices after this much */
#define BULK_AFTER (4u << 20)   /* ... and gets a big pipe after this much more */
#define BULK_PIPE (1u << 20)    /* a big pipe's size (pipe-max-size's default) */
#define BULK_MAX 8              /* big pipes at once: the user's pipe pages are shared */
#define SPLICE_MAX 128          /* spliced directions at once (pipe pairs), same reason */
#define DEFER_ACCEPT_S 1        /* TCP_DEFER_ACCEPT on the HTTP and SOCKS listeners */
#define ACCEPT_PAUSE_MS 250     /* a listener unwatched after accept() found no descriptor */

struct listener {
	uint8_t obj;
	int fd;
	enum net_listener_kind kind;
	unsigned port; /* NET_LISTEN_HOSTPORT: the host's port */
	bool paused;   /* out of descriptors: not watched until resume_at */
	bool (*peer_ok)(int fd); /* net_loop_add_listener_checked */
	struct listener *next;
};

struct conn;

struct end {
	uint8_t obj;
	bool rd, wr;  /* not known to block: worth a read / write call */
	int fd;
	uint32_t ev;  /* the interest mask the poller holds */
	struct conn *c;
};

struct buf {
	char *b; /* NET_BUF_SIZE, taken when first needed (buf_get) */
	size_t off, len;
	size_t hi; /* bytes of b ever written: its dirtied pages */
};

struct dir {
	struct buf q;      /* bytes to send, ahead of any in the pipe */
	int pipe[2];       /* splice mode; -1 otherwise */
	size_t inpipe, pipesz;
	bool pipe_full;    /* the pipe refused more before inpipe reached pipesz */
	uint64_t moved;    /* bytes sent from the queue, then the pipe */
	bool bulk;         /* its pipe is a big one (bulk_grow) */
	bool eof;          /* the source will send nothing more */
	bool shut;         /* the sink was told (SHUT_WR) */
};

enum st {
	ST_HTTP_HEAD,   /* reading a request head */
	ST_SOCKS_GREET,
	ST_SOCKS_REQ,
	ST_RESOLVING,   /* the name is being looked up (resolve.c) */
	ST_CONNECTING,  /* dialling addrs[ai] */
	ST_CHAIN,       /* asking the user's upstream proxy (http/socks_proxy_port) */
	ST_TUNNEL,      /* CONNECT or SOCKS: bytes both ways */
	ST_HTTP_FWD,    /* one plain request: its body up, the response down */
	ST_LINGER,      /* a last answer goes out, then the rest is read and dropped */
	ST_DEAD,
};

struct conn {
	struct end cli, up;
	struct net_loop *l;
	enum st st;
	enum net_listener_kind kind;
	enum net_proto proto;
	struct dir c2u, u2c;
	uint64_t deadline; /* handshake, connect or linger; 0 = none */
	uint64_t active;   /* last byte moved (idle timeout) */
	struct net_host host;
	unsigned port;
	/* the checked addresses, IPv4 or IPv6 only: a sockaddr_storage
	 * each would be 800 bytes more per connection */
	union inet_sa { struct sockaddr sa; struct sockaddr_in in; struct sockaddr_in6 in6; }
		addrs[NET_MAX_ADDRS];
	size_t naddrs, ai;
	char addr_text[INET6_ADDRSTRLEN + 8];
	struct net_lookup *lookup;          /* ST_RESOLVING */
	const struct sbx_rule *allowed_by;  /* the policy's allowing rule, across the lookup */
	bool chained;                       /* dialled the upstream proxy, not the host */
	/* plain HTTP */
	uint64_t up_allow;  /* bytes of this request still to go upstream */
	size_t head_scanned; /* bytes of a partial head already searched for its end */
	bool keep_alive, head_req, resp_pending, resp_self, accept_json;
	char client[INET6_ADDRSTRLEN + 8];
	/* net_loop_dial: no client socket; the upstream is handed to done() */
	net_dial_fn done;
	void *done_ctx;
	int pid;
	char comm[16];
	struct conn *prev, *next;
};

struct net_loop {
	const struct policy *p;
	struct net_cfg cfg;
	struct net_ctx *ctx;
	struct net_resolver *resolver;
	struct net_names *names;
	struct net_dnsserve *dns;
	struct listener *listeners;
	struct net_watches watches; /* the poller, and the resolver's and DNS server's watches */
	struct conn *conns, *dead;
	size_t nconns;
	struct conn *spare;   /* freed records kept for reuse (conn_new) */
	size_t nspare;
	char *pool[POOL_MAX]; /* released queues kept for reuse (buf_get) */
	size_t pool_hi[POOL_MAX], npool;
	unsigned nbulk;       /* directions holding a big pipe (BULK_MAX) */
	unsigned npipes;      /* directions holding a pipe pair (SPLICE_MAX) */
	bool in_batch;        /* net_loop_run_once is handling events */
	uint64_t now, next_sweep;
	unsigned npaused;     /* listeners paused for want of a descriptor */
	uint64_t resume_at;   /* ... watched again then, or when a connection closes */
	bool said_nofile;     /* cfg.nofile called */
};

static bool would_block(int e) { return e == EAGAIN || e == EWOULDBLOCK; }

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void addr_text(const struct sockaddr *sa, char *out, size_t sz)
{
	char ip[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;
		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		port = ntohs(in->sin_port);
		snprintf(out, sz, "%s:%u", ip, port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		port = ntohs(in6->sin6_port);
		snprintf(out, sz, "[%s]:%u", ip, port);
	} else {
		snprintf(out, sz, "?");
	}
}

static void report_c(struct conn *c, enum net_outcome o, const struct sbx_rule *rule,
		     const char *reason, const char *fix, bool candidate)
{
	struct net_loop *l = c->l;
	struct event ev = net_event(o, c->proto, c->host.text, c->port, rule, reason, fix);

	ev.address = c->addr_text;
	ev.client = c->client;
	ev.candidate = candidate;
	ev.pid = c->pid;
	ev.comm = c->proto == NET_PROTO_SECCOMP ? c->comm : NULL;
	if (l->cfg.report)
		l->cfg.report(l->cfg.rctx, &ev);
}

static void report(struct conn *c, enum net_outcome o, const struct sbx_rule *rule,
		   const char *reason, const char *fix)
{
	report_c(c, o, rule, reason, fix, false);
}

/* ---- buffers and interest */

/* A queue's 64 KiB is a mapping of its own: only the pages a connection
 * touches count, and a tunnel that moves on to splice(2) gives them back
 * at once (a freed heap block stays in the process: 500 tunnels kept
 * ~8 kB each that way). A released queue that dirtied at most POOL_KEEP
 * bytes waits in the loop's pool for the next connection instead of going
 * back with munmap: every new connection needs a queue or two for its
 * handshake, and an munmap per queue was a quarter of the supervisor's
 * time for 2000 sequential connections (a TLB shoot-down on every CPU the
 * process ran on). The pool holds at most POOL_MAX queues, so what it
 * keeps resident is bounded: POOL_MAX x POOL_KEEP. A queue taken from the
 * pool may hold an earlier connection's bytes: only [off, off+len) is ever
 * read, and that is always this connection's. */
static int buf_get(struct net_loop *l, struct buf *q)
{
	if (q->b)
		return 0;
	if (l->npool) {
		q->b = l->pool[--l->npool];
		q->hi = l->pool_hi[l->npool];
		return 0;
	}
	void *m = mmap(NULL, NET_BUF_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	q->b = m;
	q->hi = 0;
	return 0;
}

/* After bytes were written into q: how far its pages are dirtied. */
static void buf_mark(struct buf *q)
{
	if (q->off + q->len > q->hi)
		q->hi = q->off + q->len;
}

static void buf_release(struct net_loop *l, struct buf *q)
{
	if (q->b && q->hi <= POOL_KEEP && l->npool < POOL_MAX) {
		l->pool_hi[l->npool] = q->hi;
		l->pool[l->npool++] = q->b;
	} else if (q->b) {
		munmap(q->b, NET_BUF_SIZE);
	}
	q->b = NULL;
	q->off = q->len = q->hi = 0;
}

static int buf_put(struct net_loop *l, struct buf *q, const void *data, size_t n)
{
	if (buf_get(l, q))
		return -ENOMEM;
	if (q->off + q->len + n > NET_BUF_SIZE) {
		memmove(q->b, q->b + q->off, q->len);
		q->off = 0;
	}
	if (q->len + n > NET_BUF_SIZE)
		return -ENOBUFS;
	memcpy(q->b + q->off + q->len, data, n);
	q->len += n;
	buf_mark(q);
	return 0;
}

static void set_events(struct net_loop *l, struct end *e, uint32_t want)
{
	if (e->fd < 0 || e->ev == want)
		return;
	poller_mod(l->watches.poller, e->fd, want, e);
	e->ev = want;
}

static bool drainable(const struct conn *c, const struct dir *d)
{
	if (d->inpipe)
		return true;
	if (!d->q.len)
		return false;
	if (d == &c->c2u)
		return c->st == ST_TUNNEL || (c->st == ST_HTTP_FWD && c->up_allow);
	return !(c->st == ST_HTTP_FWD && c->resp_pending);
}

static size_t room(const struct dir *d, size_t cap)
{
	if (d->pipe[0] >= 0)
		return d->pipe_full ? 0 : d->pipesz - d->inpipe;
	return d->q.len < cap ? cap - d->q.len : 0;
}

static bool want_read_cli(const struct conn *c)
{
	switch (c->st) {
	case ST_HTTP_HEAD: return !c->c2u.eof && room(&c->c2u, HEAD_READ_MAX);
	case ST_SOCKS_GREET:
	case ST_SOCKS_REQ: return !c->c2u.eof && room(&c->c2u, SOCKS_READ_MAX);
	case ST_TUNNEL: return !c->c2u.eof && room(&c->c2u, NET_BUF_SIZE);
	case ST_HTTP_FWD:
		return !c->c2u.eof && c->up_allow > c->c2u.q.len && room(&c->c2u, NET_BUF_SIZE);
	case ST_LINGER: return c->u2c.shut && !c->c2u.eof;
	default: return false;
	}
}

static bool want_read_up(const struct conn *c)
{
	if (c->st == ST_CHAIN)
		return true;
	return (c->st == ST_TUNNEL || c->st == ST_HTTP_FWD) && !c->u2c.eof &&
	       room(&c->u2c, NET_BUF_SIZE);
}

static void update_events(struct conn *c)
{
	uint32_t ce = 0, ue = 0;

	if (c->st == ST_DEAD)
		return;
	if (want_read_cli(c))
		ce |= POLLER_IN;
	if (drainable(c, &c->u2c))
		ce |= POLLER_OUT;
	if (c->up.fd >= 0) {
		if (c->st == ST_CONNECTING || drainable(c, &c->c2u))
			ue |= POLLER_OUT;
		if (want_read_up(c))
			ue |= POLLER_IN;
	}
	set_events(c->l, &c->cli, ce);
	set_events(c->l, &c->up, ue);
}

/* ---- life and death */

static void dir_free(struct net_loop *l, struct dir *d)
{
	buf_release(l, &d->q);
	if (d->pipe[0] >= 0) {
		close(d->pipe[0]);
		close(d->pipe[1]);
		l->npipes--;
	}
	d->pipe[0] = d->pipe[1] = -1;
	if (d->bulk)
		l->nbulk--;
	d->bulk = false;
}

static void close_up(struct conn *c)
{
	if (c->up.fd >= 0) {
		poller_del(c->l->watches.poller, c->up.fd);
		close(c->up.fd);
	}
	c->up.fd = -1;
	c->up.ev = 0;
	c->up.rd = c->up.wr = false;
}

static void conn_kill(struct conn *c)
{
	struct net_loop *l = c->l;

	if (c->st == ST_DEAD)
		return;
	net_resolve_cancel(l->resolver, c->lookup);
	c->lookup = NULL;
	close_up(c);
	if (c->cli.fd >= 0) {
		poller_del(l->watches.poller, c->cli.fd);
		close(c->cli.fd);
	}
	c->cli.fd = -1;
	dir_free(c->l, &c->c2u);
	dir_free(c->l, &c->u2c);
	c->st = ST_DEAD;
	if (c->prev)
		c->prev->next = c->next;
	else
		l->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->next = l->dead;
	c->prev = NULL;
	l->dead = c;
	l->nconns--;
	if (l->npaused)
		l->resume_at = 0; /* descriptors free: the listeners may try again */
}

/* Send what is queued for the client, then close (reading and dropping
 * what it still sends, so our answer is not lost to a reset). */
static void linger(struct conn *c)
{
	close_up(c);
	if (c->c2u.pipe[0] >= 0)
		dir_free(c->l, &c->c2u);
	buf_release(c->l, &c->c2u.q);
	c->u2c.eof = true;
	c->st = ST_LINGER;
	c->deadline = c->l->now + LINGER_MS;
}

static void json_str(char *out, size_t sz, size_t *o, const char *s)
{
#define P(ch) do { if (*o + 1 < sz) out[(*o)++] = (ch); } while (0)
	if (!s) {
		for (const char *n = "null"; *n; n++)
			P(*n);
		return;
	}
	P('"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			P('\\');
			P((char)*p);
		} else if (*p < 0x20) {
			char esc[8];
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			for (char *e = esc; *e; e++)
				P(*e);
		} else {
			P((char)*p);
		}
	}
	P('"');
#undef P
	out[*o < sz ? *o : sz - 1] = '\0';
}

static void respond(struct conn *c, unsigned status, const char *phrase, const char *ctype,
		    const char *body)
{
	char head[256];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.1 %u %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
			 "Connection: close\r\n\r\n", status, phrase, ctype, strlen(body));

	buf_release(c->l, &c->u2c.q);
	if (buf_put(c->l, &c->u2c.q, head, (size_t)n) || buf_put(c->l, &c->u2c.q, body, strlen(body)))
		buf_release(c->l, &c->u2c.q);
	linger(c);
}

static void target_text(const struct conn *c, char *out, size_t sz)
{
	bool v6 = c->host.kind == NET_HOST_V6;
	snprintf(out, sz, "%s%s%s:%u", v6 ? "[" : "", c->host.text, v6 ? "]" : "", c->port);
}

/* The 403 an agent can act on: what was refused, by which rule from
 * where, and the setting that would allow it. */
static void respond_denied(struct conn *c, const struct net_decision *d)
{
	char target[300], rule[400] = "", body[2048];
	const char *src = d->rule ? d->rule->source : NULL;

	target_text(c, target, sizeof(target));
	if (d->rule)
		snprintf(rule, sizeof(rule), "%s = %s", sbx_rule_key(d->rule->kind), d->rule->value);
	if (c->accept_json) {
		size_t o = 0;
		int n = snprintf(body, sizeof(body), "{\"error\":\"forbidden\",\"layer\":\"proxy\","
				 "\"op\":\"connect\",\"decision\":\"deny\",\"target\":");
		o = (size_t)n;
		json_str(body, sizeof(body), &o, target);
		o += (size_t)snprintf(body + o, sizeof(body) - o, ",\"rule\":");
		json_str(body, sizeof(body), &o, d->rule ? rule : NULL);
		o += (size_t)snprintf(body + o, sizeof(body) - o, ",\"source\":");
		json_str(body, sizeof(body), &o, src);
		o += (size_t)snprintf(body + o, sizeof(body) - o, ",\"reason\":");
		json_str(body, sizeof(body), &o, d->reason);
		o += (size_t)snprintf(body + o, sizeof(body) - o, ",\"fix\":");
		json_str(body, sizeof(body), &o, d->fix);
		if (o + 3 < sizeof(body))
			memcpy(body + o, "}\n", 3);
		respond(c, 403, "Forbidden", "application/json", body);
		return;
	}
	snprintf(body, sizeof(body),
		 "sbx: the sandbox's network policy refused the connection to %s.\n"
		 "reason: %s\n"
		 "rule: %s%s%s%s\n"
		 "fix: %s\n",
		 target, d->reason, d->rule ? rule : "none (no allow_domains rule names it)",
		 src ? " (" : "", src ? src : "", src ? ")" : "",
		 d->fix[0] ? d->fix : "none");
	respond(c, 403, "Forbidden", "text/plain; charset=utf-8", body);
}

static void fail_text(struct conn *c, unsigned status, const char *phrase, const char *why)
{
	char body[512], target[300];

	target_text(c, target, sizeof(target));
	if (c->accept_json) {
		size_t o = (size_t)snprintf(body, sizeof(body),
					    "{\"error\":\"%s\",\"layer\":\"proxy\",\"target\":", phrase);
		json_str(body, sizeof(body), &o, target);
		o += (size_t)snprintf(body + o, sizeof(body) - o, ",\"reason\":");
		json_str(body, sizeof(body), &o, why);
		if (o + 3 < sizeof(body))
			memcpy(body + o, "}\n", 3);
		respond(c, status, phrase, "application/json", body);
	} else {
		snprintf(body, sizeof(body), "sbx proxy: %s: %s\n",
			 c->host.text[0] ? target : "request", why);
		respond(c, status, phrase, "text/plain; charset=utf-8", body);
	}
}

static void socks_answer(struct conn *c, uint8_t rep, bool last)
{
	unsigned char r[10];
	size_t n = net_socks_reply(rep, r);

	if (buf_put(c->l, &c->u2c.q, r, n))
		c->u2c.q.len = 0;
	if (last)
		linger(c);
}

/* ---- a connection of the notify layer's (net_loop_dial)
 *
 * It has no client: what the proxy would answer a client (a 403, a SOCKS
 * reply, a 502) becomes done()'s errno, and the dialled socket is handed
 * over instead of relayed. */

/* err 0: the upstream socket, connected, goes to done(); otherwise
 * done() gets the errno. true when `c` was such a connection (now dead).
 *
 * Only a connected socket is handed over, and only once the kernel takes
 * it for connected (SS_CONNECTED, which a non-blocking connect() leaves
 * to a second call): a TCP socket in the host's namespace that the kernel
 * takes for unconnected -- mid-handshake, or after its connect failed --
 * can be connected anew, anywhere, by sendto(MSG_FASTOPEN), which no
 * filter sees the address of (tested: notify.sh). */
static bool handed(struct conn *c, int err)
{
	net_dial_fn fn = c->done;
	int fd = -1;

	if (!fn)
		return false;
	if (!err) {
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);
		fd = c->up.fd;
		if (fd >= 0) /* watched even with an empty mask */
			poller_del(c->l->watches.poller, fd);
		c->up.fd = -1;
		c->up.ev = 0;
		/* connect() again on the established socket: 0 (or EISCONN),
		 * and the socket is SS_CONNECTED for good */
		if (fd >= 0 && (getpeername(fd, (struct sockaddr *)&peer, &pl) ||
				(connect(fd, (struct sockaddr *)&peer, pl) && errno != EISCONN))) {
			close(fd);
			fd = -1;
		}
		if (fd < 0)
			err = EHOSTUNREACH;
	}
	c->done = NULL;
	conn_kill(c);
	fn(c->done_ctx, fd, err);
	return true;
}

/* ---- dialling */

static void dial(struct conn *c);

static void dial_failed(struct conn *c, int err)
{
	char why[160];

	snprintf(why, sizeof(why), "cannot connect to %s: %s", c->addr_text, strerror(err));
	report(c, NET_EV_FAILED, c->allowed_by, why, NULL);
	if (handed(c, err))
		return;
	if (c->proto == NET_PROTO_HOSTPORT)
		conn_kill(c); /* a raw TCP client learns it as a reset */
	else if (c->proto == NET_PROTO_SOCKS)
		socks_answer(c, err == ECONNREFUSED ? NET_SOCKS_REFUSED :
			     err == ENETUNREACH ? NET_SOCKS_NET_UNREACH :
			     err == ETIMEDOUT ? NET_SOCKS_TTL : NET_SOCKS_HOST_UNREACH, true);
	else if (err == ETIMEDOUT)
		fail_text(c, 504, "Gateway Timeout", why);
	else
		fail_text(c, 502, "Bad Gateway", why);
}

static void tunnel_start(struct conn *c)
{
	if (handed(c, 0))
		return;
	c->active = c->l->now;
	c->deadline = 0;
	if (c->proto == NET_PROTO_HTTP) {
		c->st = ST_HTTP_FWD;
		c->resp_pending = true;
		return;
	}
	if (c->proto == NET_PROTO_SOCKS) {
		socks_answer(c, NET_SOCKS_OK, false);
	} else if (c->proto == NET_PROTO_HOSTPORT) {
		/* nothing to answer: the bytes simply flow */
	} else {
		static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
		buf_put(c->l, &c->u2c.q, ok, sizeof(ok) - 1);
	}
	c->st = ST_TUNNEL;
	/* the head's queue, empty unless the client sent early bytes */
	if (!c->c2u.q.len)
		buf_release(c->l, &c->c2u.q);
}

/* A tunnel's direction that has relayed SPLICE_AFTER bytes through its
 * queue moves on to splice(2), which moves pages between the sockets
 * without copying them through us (81 % of direct against 63 % for a
 * 1 GiB download). Most connections never get there (a request and its
 * answer, an idle keep-alive), and for them a pipe pair is four
 * descriptors and eight system calls more per connection than the queue,
 * so the pipe is made only then. Called with the queue empty, so every
 * byte of the pipe comes after the queue's; a failure (EMFILE) just
 * leaves the direction on its queue. A pipe's pages count against the
 * user's pipe-user-pages-soft (16384 pages by default), which all their
 * programs share: past it the kernel gives every new pipe of theirs 8 KiB.
 * So at most SPLICE_MAX directions splice at once (2048 pages, 64 KiB
 * each); the others relay through their queues, slower but the same. */
static void splice_start(struct conn *c, struct dir *d)
{
	if (!NET_HAVE_SPLICE || c->st != ST_TUNNEL || c->l->cfg.no_splice || d->pipe[0] >= 0 ||
	    d->moved < SPLICE_AFTER || c->l->npipes >= SPLICE_MAX)
		return;
	if (net_pipe(d->pipe)) {
		d->pipe[0] = d->pipe[1] = -1;
		d->moved = 0; /* not again at once */
		return;
	}
	c->l->npipes++;
	/* a user over pipe-user-pages-soft gets smaller pipes: ask */
	int sz = net_pipe_size(d->pipe[0], 0);
	d->pipesz = sz > 0 ? (size_t)sz : 4096;
	buf_release(c->l, &d->q);
}

/* A direction that has spliced BULK_AFTER bytes is a download or an
 * upload, not a conversation: its pipe grows from 64 KiB to 1 MiB, so each
 * splice(2) moves up to sixteen times more and the supervisor makes about a
 * tenth of the calls (its CPU per GiB halved; docs/PERFORMANCE.md). A
 * pipe's pages count against the user's pipe-user-pages-soft, which every
 * program of theirs shares, so at most BULK_MAX directions hold a big pipe
 * at once; past that, or when the kernel says no (EPERM over the limit),
 * the pipe stays as it is. Growing an open pipe keeps what is in it. */
static void bulk_grow(struct net_loop *l, struct dir *d)
{
	if (d->bulk || d->moved < SPLICE_AFTER + BULK_AFTER || l->nbulk >= BULK_MAX)
		return;
	int sz = net_pipe_size(d->pipe[0], (int)BULK_PIPE);
	if (sz <= 0) {
		d->moved = 0; /* not again at once */
		return;
	}
	d->pipesz = (size_t)sz;
	d->pipe_full = false;
	d->bulk = true;
	l->nbulk++;
}

static void chain_send(struct conn *c);

/* The upstream connection is made: ask the user's proxy, or relay. */
static void established(struct conn *c)
{
	c->up.wr = true;
	if (c->chained)
		chain_send(c);
	else
		tunnel_start(c);
}

static void dial(struct conn *c)
{
	struct net_loop *l = c->l;
	int serr = EHOSTUNREACH; /* no address could even get a socket */

	while (c->ai < c->naddrs) {
		const struct sockaddr *sa = &c->addrs[c->ai++].sa;
		socklen_t sl = sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
			       sizeof(struct sockaddr_in6);
		int fd = net_socket(sa->sa_family, SOCK_STREAM, 0);

		addr_text(sa, c->addr_text, sizeof(c->addr_text));
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE) {
				serr = errno; /* said as it is, not as "no route" */
				l->watches.nofile++;
			}
			continue;
		}
		int rc = connect(fd, sa, sl);
		/* On loopback (and to a host close by) the handshake is over
		 * before connect() returns EINPROGRESS: a second connect()
		 * says so (0 once established, EALREADY while it is not, the
		 * failure otherwise), which saves a trip through epoll and
		 * SO_ERROR for every such connection. */
		if (rc && errno == EINPROGRESS) {
			rc = connect(fd, sa, sl);
			if (rc && errno == EALREADY)
				errno = EINPROGRESS;
		}
		bool now = !rc || errno == EISCONN;
		if (!now && errno != EINPROGRESS) {
			int e = errno;
			close(fd);
			if (c->ai >= c->naddrs) {
				dial_failed(c, e);
				return;
			}
			continue;
		}
		uint32_t want = now ? POLLER_IN : POLLER_OUT;
		if (poller_add(l->watches.poller, fd, want, &c->up)) {
			close(fd);
			continue;
		}
		c->up.fd = fd;
		c->up.ev = want;
		c->up.rd = c->up.wr = false;
		c->st = ST_CONNECTING;
		if (now)
			established(c);
		return;
	}
	dial_failed(c, serr);
}

/* ---- chaining to the user's own proxy (http_proxy_port, socks_proxy_port)
 *
 * A host is decided here exactly as without it: the policy, then the
 * resolved-address check on every answer of the proxy's own resolver
 * (a name that resolves to loopback, metadata or this host is refused;
 * one that does not resolve is refused too: it cannot be checked). Then
 * the upstream proxy is asked for the host as the client named it (an
 * HTTP CONNECT, or a SOCKS5 CONNECT by name), the plain-HTTP requests
 * too, through a CONNECT tunnel, so one path serves all three kinds of
 * client. It resolves the name again, its own way: docs/NETWORK.md
 * ("Chaining") says what that leaves. */

static void chain_fail(struct conn *c, const char *why)
{
	char msg[300];

	snprintf(msg, sizeof(msg), "the upstream proxy at %s %s", c->addr_text, why);
	buf_release(c->l, &c->u2c.q); /* its partial answer is not the client's */
	report(c, NET_EV_FAILED, c->allowed_by, msg, NULL);
	if (handed(c, ECONNREFUSED))
		return;
	if (c->proto == NET_PROTO_SOCKS)
		socks_answer(c, NET_SOCKS_FAIL, true);
	else
		fail_text(c, 502, "Bad Gateway", msg);
}

static void chain_send(struct conn *c)
{
	char req[600];
	int n;
	bool v6 = c->host.kind == NET_HOST_V6;

	if (c->l->cfg.chain_http_port) {
		n = snprintf(req, sizeof(req), "CONNECT %s%s%s:%u HTTP/1.1\r\nHost: %s%s%s:%u\r\n\r\n",
			     v6 ? "[" : "", c->host.text, v6 ? "]" : "", c->port,
			     v6 ? "[" : "", c->host.text, v6 ? "]" : "", c->port);
	} else {
		size_t hl = strlen(c->host.text), o = 0;
		unsigned char *b = (unsigned char *)req;
		b[o++] = 5; b[o++] = 1; b[o++] = 0;           /* greeting: no auth */
		b[o++] = 5; b[o++] = 1; b[o++] = 0;           /* CONNECT */
		if (c->host.kind == NET_HOST_V4) {
			b[o++] = 1;
			memcpy(b + o, &c->host.v4, 4);
			o += 4;
		} else if (v6) {
			b[o++] = 4;
			memcpy(b + o, &c->host.v6, 16);
			o += 16;
		} else {
			b[o++] = 3;
			b[o++] = (unsigned char)hl;
			memcpy(b + o, c->host.text, hl);
			o += hl;
		}
		b[o++] = (unsigned char)(c->port >> 8);
		b[o++] = (unsigned char)c->port;
		n = (int)o;
	}
	/* a fresh socket's buffer takes these few bytes whole */
	if (send(c->up.fd, req, (size_t)n, NET_NOSIGNAL) != n) {
		chain_fail(c, "could not be written to");
		return;
	}
	c->st = ST_CHAIN;
}

/* The upstream proxy's answer: 1 done (tunnel), 0 more, -1 failed (answered). */
static int chain_read(struct conn *c)
{
	/* the answer gathers in the client's queue, empty until the tunnel */
	struct buf *q = &c->u2c.q;
	/* a handed-over socket (net_loop_dial) must keep the tunnel's first
	 * bytes: its answer is read one byte at a time, to its end exactly */
	size_t want = c->done ? 1 : CHAIN_MAX - q->len;
	ssize_t n = buf_get(c->l, q) ? -1 : recv(c->up.fd, q->b + q->len, want, 0);
	char why[160];

	if (n < 0 && would_block(errno)) {
		c->up.rd = false;
		return 0;
	}
	if (n <= 0) {
		chain_fail(c, "closed the connection without an answer");
		return -1;
	}
	q->len += (size_t)n;
	buf_mark(q);
	const unsigned char *b = (const unsigned char *)q->b;
	size_t len = q->len, used;
	if (c->l->cfg.chain_http_port) {
		const char *end = memmem(b, len, "\r\n\r\n", 4);
		if (!end) {
			if (len < CHAIN_MAX)
				return 0;
			chain_fail(c, "sent an over-long answer");
			return -1;
		}
		used = (size_t)((const unsigned char *)end - b) + 4;
		if (len < 12 || memcmp(b, "HTTP/1.", 7) || b[9] != '2') {
			const char *eol = memchr(b, '\r', len);
			snprintf(why, sizeof(why), "refused: %.*s", eol ? (int)(eol - (const char *)b) : 0,
				 (const char *)b);
			for (char *p = why; *p; p++)
				if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
					*p = '?';
			chain_fail(c, why);
			return -1;
		}
	} else {
		/* 05 00, then 05 REP 00 ATYP ADDR PORT */
		if (len < 2 + 5)
			return 0;
		if (b[0] != 5 || b[1] != 0 || b[2] != 5) {
			chain_fail(c, "does not take SOCKS5 without authentication");
			return -1;
		}
		size_t alen = b[5] == 1 ? 4 : b[5] == 4 ? 16 : b[5] == 3 ? 1u + b[6] : 0;
		if (!alen) {
			chain_fail(c, "sent a malformed SOCKS5 answer");
			return -1;
		}
		used = 2 + 4 + alen + 2;
		if (len < used)
			return 0;
		if (b[3] != 0) {
			snprintf(why, sizeof(why), "refused (SOCKS5 reply %u)", b[3]);
			chain_fail(c, why);
			return -1;
		}
	}
	/* bytes the upstream sent past its answer belong to the tunnel */
	memmove(q->b, q->b + used, len - used);
	q->len = len - used;
	return 1;
}

static void connected(struct conn *c)
{
	int err = 0;
	socklen_t el = sizeof(err);

	if (getsockopt(c->up.fd, SOL_SOCKET, SO_ERROR, &err, &el))
		err = errno;
	if (!err) {
		established(c);
		return;
	}
	close_up(c);
	if (c->ai < c->naddrs)
		dial(c);
	else
		dial_failed(c, err);
}

static void refuse(struct conn *c, const struct net_decision *d)
{
	/* under --learn, a host no rule names may become an allow_domains
	 * rule; a deny rule's or the address check's refusal never does */
	bool cand = c->l->cfg.learn && !d->rule && c->host.kind == NET_HOST_NAME &&
		    !strncmp(d->reason, "not in allow_domains", 20);

	report_c(c, NET_EV_DENIED, d->rule, d->reason, d->fix, cand);
	if (handed(c, EPERM))
		return;
	if (c->proto == NET_PROTO_SOCKS)
		socks_answer(c, NET_SOCKS_NOT_ALLOWED, true);
	else
		respond_denied(c, d);
}

static void unreachable(struct conn *c, const struct sbx_rule *rule, const char *why)
{
	report(c, NET_EV_FAILED, rule, why, NULL);
	if (handed(c, EHOSTUNREACH))
		return;
	if (c->proto == NET_PROTO_SOCKS)
		socks_answer(c, NET_SOCKS_HOST_UNREACH, true);
	else
		fail_text(c, 502, "Bad Gateway", why);
}

/* The checked addresses: dial them, in order; or, chaining, the user's
 * proxy on the host's 127.0.0.1, to be asked for the host. */
static void go(struct conn *c, const struct net_decision *d)
{
	struct net_loop *l = c->l;
	unsigned up = l->cfg.chain_http_port ? l->cfg.chain_http_port : l->cfg.chain_socks_port;
	struct net_decision chain;

	if (up) {
		struct sockaddr_in *in = (struct sockaddr_in *)&chain.addrs[0];
		memset(&chain, 0, sizeof(chain));
		chain.rule = d->rule;
		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		in->sin_port = htons((uint16_t)up);
		chain.naddrs = 1;
		c->chained = true;
		d = &chain;
	}
	c->naddrs = 0;
	for (size_t i = 0; i < d->naddrs && i < NET_MAX_ADDRS; i++) {
		sa_family_t f = d->addrs[i].ss_family;
		if (f == AF_INET || f == AF_INET6) /* all the decision gives */
			memcpy(&c->addrs[c->naddrs++], &d->addrs[i],
			       f == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	}
	c->ai = 0;
	addr_text((const struct sockaddr *)&c->addrs[0], c->addr_text, sizeof(c->addr_text));
	report(c, NET_EV_ALLOWED, d->rule, NULL, NULL);
	c->deadline = c->l->now + c->l->cfg.connect_ms;
	dial(c);
}

/* The answers for an allowed name: the resolved-address check, then dial. */
static void resolved(void *ctx, int rc, const struct sockaddr_storage *addrs, size_t n,
		     const char *err)
{
	struct conn *c = ctx;
	struct net_decision d;

	c->lookup = NULL;
	if (c->st != ST_RESOLVING)
		return;
	if (rc) {
		unreachable(c, c->allowed_by, err);
	} else {
		memset(&d, 0, sizeof(d));
		net_decide_check(c->l->p, c->l->ctx, &c->host, c->port, c->allowed_by, addrs, n, &d);
		if (d.verdict == NET_DENY)
			refuse(c, &d);
		else
			go(c, &d);
	}
	update_events(c);
}

/* A stand-in address from the sandbox's resolver stands for its name:
 * the request is decided on that name (also when it comes wrapped in
 * IPv6, `64:ff9b::c613:1`: decided on its canonical form). false: it
 * stands for nothing (answered and reported). */
static bool standin_name(struct conn *c)
{
	struct sockaddr_storage ss, cs;
	const struct in_addr *a;
	const char *name;

	if (c->host.kind == NET_HOST_NAME)
		return true;
	net_host_addr(&c->host, 0, &ss);
	if (net_addr_canon((const struct sockaddr *)&ss, &cs) == NET_FORM_OTHER ||
	    cs.ss_family != AF_INET)
		return true;
	a = &((const struct sockaddr_in *)(const void *)&cs)->sin_addr;
	if (!net_names_is_standin(a))
		return true;
	name = c->l->names ? net_names_name(c->l->names, a) : NULL;
	if (name && !net_host_parse(name, strlen(name), &c->host))
		return true;
	/* no rule can allow it: it is no address anywhere */
	struct net_decision d = { .verdict = NET_DENY };
	snprintf(d.reason, sizeof(d.reason), "%s stands for no name (the sandbox's resolver "
		 "never gave it out)", c->host.text);
	report(c, NET_EV_DENIED, NULL, d.reason, "");
	if (handed(c, EPERM))
		return false;
	if (c->proto == NET_PROTO_SOCKS)
		socks_answer(c, NET_SOCKS_HOST_UNREACH, true);
	else
		respond_denied(c, &d);
	return false;
}

/* The policy's decision, acted on: refuse, or look the name up and check
 * its addresses (asynchronously), or dial the checked literal. */
static void decide(struct conn *c)
{
	struct net_loop *l = c->l;
	struct net_decision d;
	struct sockaddr_storage addrs[NET_MAX_ADDRS];
	size_t n = 0;
	char err[300];
	int rc;

	if (!standin_name(c))
		return;
	net_decide_policy(l->p, &c->host, c->port, &d);
	if (d.verdict == NET_DENY) {
		refuse(c, &d);
		return;
	}
	c->allowed_by = d.rule;
	c->deadline = l->now + l->cfg.connect_ms;
	if (c->host.kind != NET_HOST_NAME) {
		net_decide(l->p, l->ctx, &c->host, c->port, &d);
		if (d.verdict == NET_DENY)
			refuse(c, &d);
		else
			go(c, &d);
		return;
	}
	rc = net_ctx_test_lookup(l->ctx, c->host.text, addrs, NET_MAX_ADDRS, &n, err, sizeof(err));
	if (rc != -ENOSYS) {
		c->st = ST_RESOLVING;
		resolved(c, rc, addrs, n, err);
		return;
	}
	c->st = ST_RESOLVING;
	rc = net_resolve(l->resolver, c->host.text, resolved, c, &c->lookup);
	if (rc) {
		snprintf(err, sizeof(err), "cannot resolve %s: %s", c->host.text, strerror(-rc));
		resolved(c, rc, NULL, 0, err);
	}
}

/* ---- handshakes */

static void http_head(struct conn *c)
{
	struct buf *q = &c->c2u.q;
	struct net_http_req req;
	int status = 400, rc = 0;

	/* A head ends with its blank line: look for it in the new bytes only,
	 * so a client sending one byte at a time costs linear work, not a
	 * parse of the whole head per byte (16 KiB x 16 KiB). A head over
	 * the limit is parsed at once, for its 431. */
	if (q->len && q->len < NET_HEAD_MAX) {
		size_t from = c->head_scanned > 3 ? c->head_scanned - 3 : 0;
		const char *nb = q->b + q->off + from;
		/* \n\n too: a bare-LF head is refused (400) at its end, not timed out */
		if (memmem(nb, q->len - from, "\r\n\r\n", 4) || memmem(nb, q->len - from, "\n\n", 2))
			rc = net_http_parse_request(q->b + q->off, q->len, &req, &status);
		c->head_scanned = q->len;
	} else if (q->len) {
		rc = net_http_parse_request(q->b + q->off, q->len, &req, &status);
	}
	if (rc == 0) {
		if (c->c2u.eof) /* closed mid-head, or between requests */
			conn_kill(c);
		return;
	}
	if (rc < 0) {
		static const struct { unsigned s; const char *p, *why; } st[] = {
			{ 400, "Bad Request", "malformed request (docs/NETWORK.md: what the proxy accepts)" },
			{ 431, "Request Header Fields Too Large", "request head over 16 KiB or 100 headers" },
			{ 501, "Not Implemented", "only CONNECT and http:// requests are proxied" },
			{ 505, "HTTP Version Not Supported", "only HTTP/1.0 and HTTP/1.1" },
		};
		size_t i = status == 431 ? 1 : status == 501 ? 2 : status == 505 ? 3 : 0;
		c->host.text[0] = '\0';
		report(c, NET_EV_ERROR, NULL, st[i].why, NULL);
		fail_text(c, st[i].s, st[i].p, st[i].why);
		return;
	}
	c->head_scanned = 0;
	c->host = req.host;
	c->port = req.port;
	c->accept_json = req.accept_json;
	if (req.connect) {
		c->proto = NET_PROTO_CONNECT;
		/* bytes after the head (a TLS hello sent early) go through */
		q->off += req.head_len;
		q->len -= req.head_len;
	} else {
		char head[NET_HEAD_MAX + 64];
		int n = net_http_rewrite(q->b + q->off, &req, head, sizeof(head));
		if (n < 0) {
			report(c, NET_EV_ERROR, NULL, "request head cannot be rewritten", NULL);
			fail_text(c, 400, "Bad Request", "malformed request");
			return;
		}
		c->proto = NET_PROTO_HTTP;
		/* HEAD_READ_MAX leaves room for the head to grow by a line */
		size_t rest = q->len - req.head_len;
		memmove(q->b + n, q->b + q->off + req.head_len, rest);
		memcpy(q->b, head, (size_t)n);
		q->off = 0;
		q->len = (size_t)n + rest;
		buf_mark(q);
		c->up_allow = (uint64_t)n + (req.body == NET_BODY_CHUNKED ? UINT64_MAX / 2 :
					     req.body == NET_BODY_LENGTH ? req.content_length : 0);
		/* a chunked body is relayed to the end: we do not find where it
		 * stops, so nothing can follow it on this connection */
		c->keep_alive = req.keep_alive && req.body != NET_BODY_CHUNKED;
		c->head_req = !strcmp(req.method, "HEAD");
	}
	decide(c);
}

static void socks_step(struct conn *c)
{
	struct buf *q = &c->c2u.q;
	const unsigned char *b = (const unsigned char *)q->b + q->off;

	if (!q->len)
		goto more;
	if (c->st == ST_SOCKS_GREET) {
		bool noauth;
		int rc = net_socks_parse_greeting(b, q->len, &noauth);
		if (rc == 0)
			goto more;
		if (rc < 0) {
			report(c, NET_EV_ERROR, NULL, "not a SOCKS5 greeting", NULL);
			conn_kill(c);
			return;
		}
		q->off += (size_t)rc;
		q->len -= (size_t)rc;
		unsigned char ans[2] = { 5, noauth ? 0x00 : 0xff };
		buf_put(c->l, &c->u2c.q, ans, 2);
		if (!noauth) {
			report(c, NET_EV_ERROR, NULL, "SOCKS5 client offers no method without authentication", NULL);
			linger(c);
			return;
		}
		c->st = ST_SOCKS_REQ;
		b = (const unsigned char *)q->b + q->off;
		if (!q->len)
			goto more;
	}
	struct net_socks_req req;
	uint8_t rep;
	int rc = net_socks_parse_request(b, q->len, &req, &rep);
	if (rc == 0)
		goto more;
	c->proto = NET_PROTO_SOCKS;
	if (rc < 0) {
		report(c, NET_EV_ERROR, NULL, rep == NET_SOCKS_BAD_CMD ?
		       "SOCKS5 command not supported (only CONNECT)" :
		       rep == NET_SOCKS_BAD_ATYP ? "SOCKS5 address type not supported" :
		       "malformed SOCKS5 request", NULL);
		socks_answer(c, rep, true);
		return;
	}
	q->off += (size_t)rc;
	q->len -= (size_t)rc;
	c->host = req.host;
	c->port = req.port;
	decide(c);
	return;
more:
	if (c->c2u.eof)
		conn_kill(c);
}

/* ---- moving bytes */


/* src -> d's queue. >0 moved, 0 nothing, <0 fatal. */
static ssize_t fill(struct conn *c, struct dir *d, struct end *src, size_t cap)
{
	ssize_t n;
	size_t r = room(d, cap);

	if (d->eof || !src->rd || !r)
		return 0;
	if (d->pipe[0] >= 0) {
		n = net_splice(src->fd, d->pipe[1], r);
		if (n > 0)
			d->inpipe += (size_t)n;
	} else {
		if (buf_get(c->l, &d->q))
			return -ENOMEM;
		if (d->q.off + d->q.len + r > NET_BUF_SIZE) {
			memmove(d->q.b, d->q.b + d->q.off, d->q.len);
			d->q.off = 0;
		}
		n = recv(src->fd, d->q.b + d->q.off + d->q.len, r, 0);
		if (n > 0) {
			d->q.len += (size_t)n;
			buf_mark(&d->q);
			/* less than asked: the socket is drained for now; the
			 * interest mask keeps EPOLLIN, so a level-triggered
			 * epoll says when more (or the EOF) comes, and the
			 * recv() that would only say EAGAIN is saved */
			if ((size_t)n < r)
				src->rd = false;
		}
	}
	if (n > 0) {
		c->active = c->l->now;
		return n;
	}
	if (n == 0) {
		d->eof = true;
		return 1; /* an EOF is progress: it has to be passed on */
	}
	if (would_block(errno)) {
		/* with bytes in the pipe, EAGAIN may be the pipe's (its slots
		 * are pages, and a socket's small packets use one each) */
		if (d->pipe[0] >= 0 && d->inpipe)
			d->pipe_full = true;
		else
			src->rd = false;
		return 0;
	}
	return -errno;
}

/* d's queue -> dst, at most *allow bytes from the buffer (NULL: no limit);
 * then, with pass_eof, the source's EOF as our SHUT_WR. */
static ssize_t drain(struct conn *c, struct dir *d, struct end *dst, uint64_t *allow,
		     bool pass_eof)
{
	ssize_t n, total = 0;

	if (dst->fd < 0)
		return 0;
	if (d->q.len && dst->wr && (!allow || *allow)) {
		size_t len = d->q.len;
		if (allow && *allow < len)
			len = (size_t)*allow;
		n = send(dst->fd, d->q.b + d->q.off, len, NET_NOSIGNAL);
		if (n < 0) {
			if (!would_block(errno))
				return -errno;
			dst->wr = false;
			return 0;
		}
		if ((size_t)n < len)
			dst->wr = false; /* full for now: EPOLLOUT says when not */
		d->q.off += (size_t)n;
		d->q.len -= (size_t)n;
		d->moved += (uint64_t)n;
		if (allow)
			*allow -= (uint64_t)n;
		if (!d->q.len) {
			d->q.off = 0;
			/* an idle connection holds no queue (the pool has it);
			 * a busy buffered one keeps its own (buf_release) */
			splice_start(c, d);
			if (d->pipe[0] >= 0 || d->q.hi <= POOL_KEEP)
				buf_release(c->l, &d->q);
		}
		total += n;
	}
	if (!d->q.len && d->inpipe && dst->wr) {
		n = net_splice(d->pipe[0], dst->fd, d->inpipe);
		if (n < 0) {
			if (!would_block(errno))
				return -errno;
			dst->wr = false;
		} else {
			d->inpipe -= (size_t)n;
			d->pipe_full = false;
			d->moved += (uint64_t)n;
			bulk_grow(c->l, d);
			total += n;
		}
	}
	if (total)
		c->active = c->l->now;
	/* the source's EOF, passed on once everything before it is out (bytes
	 * past *allow are the next request's, never sent upstream) */
	bool flushed = !d->inpipe && (!d->q.len || (allow && !*allow));
	if (pass_eof && d->eof && flushed && !d->shut) {
		/* The last EOF of a tunnel: both ends are closed next
		 * (pump_relay), and close() says FIN as shutdown() would,
		 * since the other direction's EOF was read from dst: nothing
		 * unread there turns it into a reset. */
		const struct dir *other = d == &c->c2u ? &c->u2c : &c->c2u;
		if (c->st != ST_TUNNEL || !other->shut)
			shutdown(dst->fd, SHUT_WR);
		d->shut = true;
		total++;
	}
	return total;
}

/* The response head, rewritten before the client sees any of it. */
static void response_head(struct conn *c)
{
	struct buf *q = &c->u2c.q;
	struct net_http_resp resp;
	char head[NET_HEAD_MAX + 64];
	int rc = q->len ? net_http_parse_response(q->b + q->off, q->len, c->head_req, &resp) : 0;

	if (rc == 0 && !c->u2c.eof && room(&c->u2c, NET_BUF_SIZE) > 64)
		return;
	c->resp_pending = false;
	if (rc <= 0) {
		if (!q->len && c->u2c.eof) {
			fail_text(c, 502, "Bad Gateway", "the server closed the connection without a response");
			return;
		}
		c->resp_self = false; /* passed through as it is; the client reads to EOF */
		return;
	}
	c->resp_self = resp.self_delimited;
	int n = net_http_rewrite_response(q->b + q->off, &resp, c->keep_alive && c->resp_self,
					  head, sizeof(head));
	if (n < 0 || q->len - resp.head_len + (size_t)n > NET_BUF_SIZE) {
		c->resp_self = false;
		return;
	}
	size_t rest = q->len - resp.head_len;
	memmove(q->b + n, q->b + q->off + resp.head_len, rest);
	memcpy(q->b, head, (size_t)n);
	q->off = 0;
	q->len = (size_t)n + rest;
	buf_mark(q);
}

/* The response is over (upstream EOF, all of it sent): next request, or close. */
static void http_done(struct conn *c)
{
	if (c->keep_alive && c->resp_self && !c->up_allow && !c->c2u.eof) {
		close_up(c);
		c->u2c.eof = c->u2c.shut = false;
		c->c2u.shut = false;
		c->resp_pending = c->resp_self = false;
		c->head_scanned = 0;
		buf_release(c->l, &c->u2c.q);
		c->st = ST_HTTP_HEAD;
		c->deadline = c->l->now + c->l->cfg.handshake_ms;
		c->addr_text[0] = '\0';
		http_head(c); /* a pipelined request may be waiting */
		return;
	}
	close_up(c);
	c->u2c.eof = true;
	linger(c);
}

static int pump_relay(struct conn *c)
{
	ssize_t a, b, x, y;
	uint64_t *allow = c->st == ST_HTTP_FWD ? &c->up_allow : NULL;

	size_t cap = NET_BUF_SIZE;
	if (c->st == ST_HTTP_FWD) /* this request's bytes only, the next one waits */
		cap = c->up_allow > c->c2u.q.len ?
		      c->c2u.q.len + (size_t)(c->up_allow - c->c2u.q.len < NET_BUF_SIZE ?
					      c->up_allow - c->c2u.q.len : NET_BUF_SIZE) :
		      c->c2u.q.len;
	if (cap > NET_BUF_SIZE)
		cap = NET_BUF_SIZE;
	a = fill(c, &c->c2u, &c->cli, cap);
	b = fill(c, &c->u2c, &c->up, NET_BUF_SIZE);
	if (a < 0 || b < 0)
		return -1;
	if (c->st == ST_HTTP_FWD && c->resp_pending && b > 0)
		response_head(c);
	if (c->st != ST_HTTP_FWD && c->st != ST_TUNNEL)
		return 0;
	x = drain(c, &c->c2u, &c->up, allow, true);
	/* a plain response's end is not the client connection's */
	y = (c->st == ST_HTTP_FWD && c->resp_pending) ? 0 :
	    drain(c, &c->u2c, &c->cli, NULL, c->st == ST_TUNNEL);
	if (x < 0 || y < 0)
		return -1;
	if (c->st == ST_HTTP_FWD && c->u2c.eof && !c->u2c.q.len) {
		http_done(c);
		return 0;
	}
	if (c->st == ST_TUNNEL && c->c2u.shut && c->u2c.shut) {
		conn_kill(c);
		return 0;
	}
	return a > 0 || b > 0 || x > 0 || y > 0;
}

static void pump(struct conn *c)
{
	for (int iter = 0; iter < 32 && c->st != ST_DEAD; iter++) {
		enum st before = c->st;
		ssize_t r;

		switch (c->st) {
		case ST_HTTP_HEAD:
		case ST_SOCKS_GREET:
		case ST_SOCKS_REQ:
			/* the SOCKS method answer goes out while the request is awaited */
			if (drain(c, &c->u2c, &c->cli, NULL, false) < 0) {
				conn_kill(c);
				return;
			}
			r = fill(c, &c->c2u, &c->cli, c->st == ST_HTTP_HEAD ? HEAD_READ_MAX : SOCKS_READ_MAX);
			if (r < 0) {
				conn_kill(c);
				return;
			}
			if (r > 0 || iter == 0) {
				if (c->st == ST_HTTP_HEAD)
					http_head(c);
				else
					socks_step(c);
			}
			if (c->st == before && r == 0)
				goto out;
			break;
		case ST_RESOLVING:
			goto out;
		case ST_CHAIN: {
			if (!c->up.rd)
				goto out;
			int r2 = chain_read(c);
			if (r2 == 0 && !c->up.rd)
				goto out;
			if (r2 > 0)
				tunnel_start(c);
			break;
		}
		case ST_CONNECTING:
			if (c->up.wr)
				connected(c);
			if (c->st == ST_CONNECTING)
				goto out;
			break;
		case ST_TUNNEL:
		case ST_HTTP_FWD:
			r = pump_relay(c);
			if (r < 0) {
				conn_kill(c);
				return;
			}
			if (r == 0 && c->st == before)
				goto out;
			break;
		case ST_LINGER: {
			ssize_t y = drain(c, &c->u2c, &c->cli, NULL, true);
			if (y < 0 || (c->u2c.shut && c->c2u.eof)) {
				conn_kill(c);
				return;
			}
			if (c->u2c.shut && c->cli.rd) {
				char sink[4096];
				ssize_t n = recv(c->cli.fd, sink, sizeof(sink), 0);
				if (n == 0 || (n < 0 && !would_block(errno))) {
					conn_kill(c);
					return;
				}
				if (n < 0)
					c->cli.rd = false;
				continue;
			}
			goto out;
		}
		case ST_DEAD:
			return;
		}
	}
out:
	update_events(c);
}

/* ---- accepting, the loop */

/* host_ports: the user listed this port, so the connection goes to the
 * host's own loopback at once, with no policy question (the resolved-
 * address check exists to keep the sandbox off this host: the listed
 * ports are the exception the user made). Reported under --trace. */
static void hostport_dial(struct conn *c, unsigned port)
{
	struct sockaddr_in *in = &c->addrs[0].in;

	snprintf(c->host.text, sizeof(c->host.text), "127.0.0.1");
	c->host.kind = NET_HOST_V4;
	c->host.v4.s_addr = htonl(INADDR_LOOPBACK);
	c->port = port;
	memset(&c->addrs[0], 0, sizeof(c->addrs[0]));
	in->sin_family = AF_INET;
	in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	in->sin_port = htons((uint16_t)port);
	c->naddrs = 1;
	c->ai = 0;
	addr_text((const struct sockaddr *)in, c->addr_text, sizeof(c->addr_text));
	report(c, NET_EV_ALLOWED, NULL, "host_ports", NULL);
	c->deadline = c->l->now + c->l->cfg.connect_ms;
	dial(c);
	update_events(c);
}

/* A connection record, from the few the loop keeps (a sequential client
 * would otherwise have the allocator map and unmap a page for each one),
 * or new; zeroed, with no descriptors. */
static struct conn *conn_new(struct net_loop *l)
{
	struct conn *c = l->spare;

	if (c) {
		l->spare = c->next;
		l->nspare--;
		memset(c, 0, sizeof(*c));
	} else if (!(c = calloc(1, sizeof(*c)))) {
		return NULL;
	}
	c->l = l;
	c->cli = (struct end){ .obj = NET_OBJ_END, .fd = -1, .c = c };
	c->up = (struct end){ .obj = NET_OBJ_END, .fd = -1, .c = c };
	c->c2u.pipe[0] = c->c2u.pipe[1] = c->u2c.pipe[0] = c->u2c.pipe[1] = -1;
	return c;
}

static void conn_free(struct net_loop *l, struct conn *c)
{
	if (l->nspare >= POOL_MAX) {
		free(c);
		return;
	}
	c->next = l->spare;
	l->spare = c;
	l->nspare++;
}

/* accept() failed for want of a descriptor (or memory) while a client
 * waits in the backlog: the listener stays readable, and level-triggered
 * epoll would hand it back at once, forever (a sandbox holding
 * connections past the supervisor's RLIMIT_NOFILE made it spin at 95 %
 * CPU). So it is not watched for ACCEPT_PAUSE_MS, or until a connection
 * closes; its clients wait in the backlog meanwhile. */
static void pause_listener(struct net_loop *l, struct listener *li)
{
	if (errno == EMFILE || errno == ENFILE)
		l->watches.nofile++;
	if (li->paused || poller_mod(l->watches.poller, li->fd, 0, li))
		return;
	li->paused = true;
	l->npaused++;
	l->resume_at = l->now + ACCEPT_PAUSE_MS;
}

static void resume_listeners(struct net_loop *l)
{
	for (struct listener *li = l->listeners; li && l->npaused; li = li->next) {
		if (!li->paused || poller_mod(l->watches.poller, li->fd, POLLER_IN, li))
			continue;
		li->paused = false;
		l->npaused--;
	}
}

static void accept_all(struct net_loop *l, struct listener *li)
{
	for (int i = 0; i < 64; i++) {
		struct sockaddr_storage peer;
		socklen_t pl = sizeof(peer);
		int fd = net_accept(li->fd, (struct sockaddr *)&peer, &pl);

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				pause_listener(l, li);
			return; /* EAGAIN; else the backlog waits */
		}
		if (li->peer_ok && !li->peer_ok(fd)) {
			close(fd);
			continue;
		}
		if (l->nconns >= l->cfg.max_conns) {
			/* over the cap: closed at once, so a flood costs nothing */
			close(fd);
			continue;
		}
		struct conn *c = conn_new(l);
		if (!c) {
			close(fd);
			continue;
		}
		c->cli.fd = fd;
		c->cli.ev = POLLER_IN;
		c->kind = li->kind;
		c->st = li->kind == NET_LISTEN_HTTP ? ST_HTTP_HEAD : ST_SOCKS_GREET;
		c->proto = li->kind == NET_LISTEN_HTTP ? NET_PROTO_CONNECT : NET_PROTO_SOCKS;
		if (li->kind == NET_LISTEN_HOSTPORT)
			c->proto = NET_PROTO_HOSTPORT;
		c->deadline = l->now + l->cfg.handshake_ms;
		c->active = l->now;
		c->cli.wr = true;
		addr_text((struct sockaddr *)&peer, c->client, sizeof(c->client));
		if (poller_add(l->watches.poller, fd, POLLER_IN, &c->cli)) {
			close(fd);
			conn_free(l, c);
			continue;
		}
		c->next = l->conns;
		if (l->conns)
			l->conns->prev = c;
		l->conns = c;
		l->nconns++;
		if (li->kind == NET_LISTEN_HOSTPORT) {
			hostport_dial(c, li->port);
		} else {
			/* its first bytes are most likely in (TCP_DEFER_ACCEPT,
			 * where there is one): read them now rather than after
			 * another wait */
			c->cli.rd = true;
			pump(c);
		}
	}
}

static void sweep(struct net_loop *l)
{
	net_resolver_tick(l->resolver, l->now);
	if (l->dns)
		net_dnsserve_tick(l->dns, l->now);
	for (struct conn *c = l->conns, *next; c; c = next) {
		next = c->next;
		bool due = c->deadline && l->now >= c->deadline;
		switch (c->st) {
		case ST_HTTP_HEAD:
			if (!due)
				break;
			if (!c->c2u.q.len) { /* an idle keep-alive connection */
				conn_kill(c);
				break;
			}
			c->host.text[0] = '\0';
			report(c, NET_EV_ERROR, NULL, "no complete request head in time", NULL);
			fail_text(c, 408, "Request Timeout", "no complete request head in time");
			update_events(c);
			break;
		case ST_SOCKS_GREET:
		case ST_SOCKS_REQ:
			if (due) {
				report(c, NET_EV_ERROR, NULL, "no complete SOCKS5 request in time", NULL);
				conn_kill(c);
			}
			break;
		case ST_RESOLVING:
			if (due) {
				char why[300];
				net_resolve_cancel(l->resolver, c->lookup);
				c->lookup = NULL;
				snprintf(why, sizeof(why), "cannot resolve %s: no answer in time",
					 c->host.text);
				unreachable(c, c->allowed_by, why);
				update_events(c);
			}
			break;
		case ST_CONNECTING:
			if (due) {
				close_up(c);
				dial_failed(c, ETIMEDOUT);
				update_events(c);
			}
			break;
		case ST_CHAIN:
			if (due) {
				chain_fail(c, "did not answer in time");
				update_events(c);
			}
			break;
		case ST_TUNNEL:
		case ST_HTTP_FWD:
			if (l->now - c->active >= l->cfg.idle_ms)
				conn_kill(c);
			break;
		case ST_LINGER:
			if (due)
				conn_kill(c);
			break;
		case ST_DEAD:
			break;
		}
	}
}

int net_loop_new(const struct policy *p, const struct net_cfg *cfg, struct net_loop **out)
{
	struct net_loop *l = calloc(1, sizeof(*l));
	int rc = -ENOMEM;

	if (!l)
		goto fail;
	l->p = p;
	l->cfg = *cfg;
	if (!l->cfg.max_conns)
		l->cfg.max_conns = 1024;
	if (!l->cfg.handshake_ms)
		l->cfg.handshake_ms = 10000;
	if (!l->cfg.connect_ms)
		l->cfg.connect_ms = 10000;
	if (!l->cfg.idle_ms)
		l->cfg.idle_ms = 600000;
	l->cfg.test_hosts = NULL; /* not kept: read once below */
	l->cfg.test_dns = NULL;
	rc = net_ctx_new(cfg->test_hosts, &l->ctx);
	if (rc)
		goto fail;
	rc = poller_new(&l->watches.poller);
	if (rc)
		goto fail;
	if ((rc = net_resolver_new(&l->watches, cfg->test_dns, &l->resolver)) ||
	    (rc = net_names_new(&l->names)) ||
	    (rc = net_dnsserve_new(&l->watches, p, l->names, l->cfg.report, l->cfg.rctx, &l->dns)))
		goto fail;
	l->now = mono_ms();
	l->next_sweep = l->now + SWEEP_MS;
	*out = l;
	return 0;
fail:
	net_loop_free(l);
	return rc;
}

static int add_listener(struct net_loop *l, int fd, enum net_listener_kind kind, unsigned port)
{
	struct listener *li;
	int fl, rc = -ENOMEM;

	if (kind == NET_LISTEN_DNS_UDP || kind == NET_LISTEN_DNS_TCP)
		return net_dnsserve_add(l->dns, fd, kind == NET_LISTEN_DNS_TCP);
	li = calloc(1, sizeof(*li));
	fl = fcntl(fd, F_GETFL);

	if (!li)
		goto fail;
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK)) {
		rc = -errno;
		goto fail;
	}
	/* An HTTP or SOCKS client speaks first: with TCP_DEFER_ACCEPT the
	 * kernel queues a connection for accept() only once its first bytes
	 * are in (or after about DEFER_ACCEPT_S, for one that says nothing:
	 * the handshake timeout takes it from there), so accepting it and
	 * reading its request are one wake-up, not two. Not for host_ports,
	 * where the server may speak first (SSH, SMTP, MySQL). Best effort:
	 * a listener that refuses it, or a system without it, is served as
	 * before. */
	if (kind == NET_LISTEN_HTTP || kind == NET_LISTEN_SOCKS)
		net_defer_accept(fd, DEFER_ACCEPT_S);
	li->obj = NET_OBJ_LISTENER;
	li->fd = fd;
	li->kind = kind;
	li->port = port;
	rc = poller_add(l->watches.poller, fd, POLLER_IN, li);
	if (rc)
		goto fail;
	li->next = l->listeners;
	l->listeners = li;
	return 0;
fail:
	free(li);
	return rc;
}

int net_loop_add_listener(struct net_loop *l, int fd, enum net_listener_kind kind)
{
	if (kind == NET_LISTEN_HOSTPORT)
		return -EINVAL; /* needs its port: net_loop_add_hostport */
	return add_listener(l, fd, kind, 0);
}

int net_loop_add_listener_checked(struct net_loop *l, int fd, enum net_listener_kind kind,
				  bool (*peer_ok)(int fd))
{
	int rc;

	if (kind != NET_LISTEN_HTTP && kind != NET_LISTEN_SOCKS)
		return -EINVAL;
	rc = add_listener(l, fd, kind, 0);
	if (!rc)
		l->listeners->peer_ok = peer_ok; /* add_listener put it first */
	return rc;
}

int net_loop_add_hostport(struct net_loop *l, int fd, unsigned port)
{
	if (!port || port > 65535)
		return -EINVAL;
	return add_listener(l, fd, NET_LISTEN_HOSTPORT, port);
}

int net_loop_pollfds(struct net_loop *l, struct pollfd **out)
{
	return poller_pollfds(l->watches.poller, out);
}

struct net_names *net_loop_names(struct net_loop *l)
{
	return l->names;
}

static void bury(struct net_loop *l);

/* The first time a call found no descriptor (the loop's, the resolver
 * server's): once a run, through the caller (it is a fact about the
 * supervisor, not about a connection). */
static void say_nofile(struct net_loop *l)
{
	if (!l->watches.nofile || l->said_nofile)
		return;
	l->said_nofile = true;
	if (l->cfg.nofile)
		l->cfg.nofile(l->cfg.rctx);
}

/* A record killed from outside the loop (a refused dial, a cancel) is
 * freed at once: the supervisor runs the loop only when its descriptor
 * has events or its timers are due (run.c), and a program calling
 * connect() to a refused host in a loop would otherwise pile up a record
 * (1 KiB) a call until the next sweep. Inside a batch, an event still to
 * come may name it: bury() after the batch does it then. */
static void bury_outside_batch(struct net_loop *l)
{
	if (!l->in_batch)
		bury(l);
}

/* A struct conn without a client socket: what the caller holds is the
 * conn itself, under the public name. */
int net_loop_dial(struct net_loop *l, const struct net_host *host, unsigned port, int pid,
		  const char *comm, net_dial_fn fn, void *ctx, struct net_dial **out)
{
	struct conn *c;

	*out = NULL;
	if (l->nconns >= l->cfg.max_conns)
		return -EAGAIN;
	if (!(c = conn_new(l)))
		return -ENOMEM;
	c->proto = NET_PROTO_SECCOMP;
	c->kind = NET_LISTEN_SOCKS;
	c->st = ST_RESOLVING; /* decide() moves it on */
	c->host = *host;
	c->port = port;
	c->done = fn;
	c->done_ctx = ctx;
	c->pid = pid;
	snprintf(c->comm, sizeof(c->comm), "%s", comm ? comm : "");
	snprintf(c->client, sizeof(c->client), "pid %d", pid);
	l->now = mono_ms();
	c->active = l->now;
	c->deadline = l->now + l->cfg.connect_ms;
	c->next = l->conns;
	if (l->conns)
		l->conns->prev = c;
	l->conns = c;
	l->nconns++;
	*out = (struct net_dial *)c;
	decide(c);
	if (c->st == ST_DEAD)
		*out = NULL; /* answered already */
	else
		update_events(c);
	bury_outside_batch(l);
	say_nofile(l);
	return 0;
}

void net_loop_dial_cancel(struct net_loop *l, struct net_dial *d)
{
	struct conn *c = (struct conn *)d;

	if (!c || c->st == ST_DEAD)
		return;
	c->done = NULL;
	conn_kill(c);
	bury_outside_batch(l);
}

int net_loop_timeout(const struct net_loop *l)
{
	uint64_t now = mono_ms(), next = l->next_sweep;

	if (l->npaused && l->resume_at < next)
		next = l->resume_at;
	return now >= next ? 0 : (int)(next - now);
}

static void bury(struct net_loop *l)
{
	net_watches_bury(&l->watches);
	while (l->dead) {
		struct conn *c = l->dead;
		l->dead = c->next;
		conn_free(l, c);
	}
}

int net_loop_run_once(struct net_loop *l, int timeout_ms)
{
	struct poller_event evs[MAX_EVENTS];
	int t = net_loop_timeout(l);

	if (timeout_ms >= 0 && timeout_ms < t)
		t = timeout_ms;
	int n = poller_wait(l->watches.poller, evs, MAX_EVENTS, t);
	if (n < 0)
		return n;
	l->now = mono_ms();
	l->in_batch = true;
	for (int i = 0; i < n; i++) {
		uint8_t obj = *(uint8_t *)evs[i].ptr;
		if (obj == NET_OBJ_LISTENER) {
			accept_all(l, evs[i].ptr);
			continue;
		}
		if (obj == NET_OBJ_WATCH) {
			net_watch_fire(evs[i].ptr, evs[i].events);
			continue;
		}
		struct end *e = evs[i].ptr;
		struct conn *c = e->c;
		if (c->st == ST_DEAD)
			continue;
		/* the client gone while its name is looked up or dialled: its
		 * hang-up would be reported again and again (nothing reads) */
		if (e == &c->cli && (evs[i].events & (POLLER_HUP | POLLER_ERR)) &&
		    (c->st == ST_RESOLVING || c->st == ST_CONNECTING || c->st == ST_CHAIN)) {
			conn_kill(c);
			continue;
		}
		if (evs[i].events & (POLLER_IN | POLLER_HUP | POLLER_ERR))
			e->rd = true;
		if (evs[i].events & (POLLER_OUT | POLLER_HUP | POLLER_ERR))
			e->wr = true;
		pump(c);
	}
	if (l->now >= l->next_sweep) {
		sweep(l);
		l->next_sweep = l->now + SWEEP_MS;
	}
	if (l->npaused && l->now >= l->resume_at) {
		resume_listeners(l);
		if (l->npaused) /* the poller refused: try again later, not at once */
			l->resume_at = l->now + ACCEPT_PAUSE_MS;
	}
	l->in_batch = false;
	bury(l);
	say_nofile(l);
	return 0;
}

size_t net_loop_conns(const struct net_loop *l)
{
	return l->nconns;
}

void net_loop_free(struct net_loop *l)
{
	if (!l)
		return;
	while (l->conns)
		conn_kill(l->conns);
	net_dnsserve_free(l->dns);
	net_resolver_free(l->resolver);
	bury(l);
	while (l->listeners) {
		struct listener *li = l->listeners;
		l->listeners = li->next;
		close(li->fd);
		free(li);
	}
	poller_free(l->watches.poller);
	while (l->npool)
		munmap(l->pool[--l->npool], NET_BUF_SIZE);
	while (l->spare) {
		struct conn *c = l->spare;
		l->spare = c->next;
		free(c);
	}
	net_names_free(l->names);
	net_ctx_free(l->ctx);
	free(l);
}
