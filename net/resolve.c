/* net/resolve.c: name lookups that never stall the loop.
 *
 * The proxy resolves every allowed name itself (the resolved-address check
 * needs the answers, and the checked addresses are the ones dialled). A
 * blocking getaddrinfo() in the one loop would stop every tunnel, the
 * report pipe and the signals for as long as a slow nameserver takes. So
 * lookups are asynchronous: /etc/hosts first (re-read when it changes),
 * then an A and an AAAA query over UDP to the nameservers of
 * /etc/resolv.conf, each lookup on its own connected socket (the kernel
 * drops datagrams from any other source; the port is the kernel's random
 * ephemeral one and the ids are random, against forged answers), watched
 * by the loop like any descriptor. An attempt that gets no answer in
 * ATTEMPT_MS tries the next nameserver; ATTEMPTS in all.
 *
 * Not done (docs/NETWORK.md, "Resolution"): search domains (a name is
 * looked up as written, which is what a URL or a CONNECT target means),
 * DNS over TCP for truncated answers (the addresses that came whole are
 * used), nsswitch modules.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "net/net.h"
#include "net/compat.h"

#define ATTEMPT_MS 2000
#define ATTEMPTS 4
#define NS_MAX 3            /* as many as glibc and musl use */
#define HOSTS_MAX 4096
#define RESOLV_CONF "/etc/resolv.conf"
#define HOSTS_FILE "/etc/hosts"

struct hosts_entry {
	char name[256];
	struct sockaddr_storage addr;
};

/* One attempt: its socket stays open until the lookup ends, so a slow
 * answer to an earlier attempt still counts. */
struct try {
	int fd;
	struct net_watch *w;
	uint16_t id[2];        /* A, AAAA */
};

struct net_lookup {
	struct net_resolver *r;
	char name[256];
	struct try tries[ATTEMPTS];
	bool done[2];          /* A, AAAA answered */
	unsigned attempt;      /* attempts made */
	uint64_t deadline;     /* of this attempt */
	struct sockaddr_storage addrs[NET_MAX_ADDRS];
	size_t n;
	int last_err;          /* of the answers so far: -ENOENT, -EAGAIN */
	net_resolved_fn fn;
	void *ctx;
	struct net_lookup *prev, *next;
};

struct net_resolver {
	struct net_watches *ws; /* the loop's poller (watch.c) */
	struct sockaddr_storage ns[NS_MAX];
	size_t nns;
	bool fixed_ns;         /* the test-only override: no resolv.conf, no hosts */
	struct timespec conf_mtime, hosts_mtime;
	bool conf_read, hosts_read;
	struct hosts_entry *hosts;
	size_t nhosts;
	struct net_lookup *pending;
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* "1.2.3.4", "::1", "1.2.3.4:53", "[::1]:53" into ss (port 53 by default). */
static int parse_server(const char *s, struct sockaddr_storage *ss)
{
	char host[INET6_ADDRSTRLEN + 2];
	unsigned port = 53;
	const char *colon = strrchr(s, ':');
	struct sockaddr_in *in = (void *)ss;
	struct sockaddr_in6 *in6 = (void *)ss;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *end = strchr(s, ']');
		if (!end || (size_t)(end - s - 1) >= sizeof(host))
			return -EINVAL;
		memcpy(host, s + 1, (size_t)(end - s - 1));
		host[end - s - 1] = '\0';
		if (end[1] == ':')
			port = (unsigned)strtoul(end + 2, NULL, 10);
	} else if (colon && strchr(s, ':') == colon) {
		if ((size_t)(colon - s) >= sizeof(host))
			return -EINVAL;
		memcpy(host, s, (size_t)(colon - s));
		host[colon - s] = '\0';
		port = (unsigned)strtoul(colon + 1, NULL, 10);
	} else {
		snprintf(host, sizeof(host), "%s", s);
	}
	if (!port || port > 65535)
		return -EINVAL;
	if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		return 0;
	}
	return -EINVAL;
}

static bool changed(const char *path, struct timespec *seen, bool *read)
{
	struct stat st;

	if (stat(path, &st))
		st.st_mtim = (struct timespec){ 0, 0 };
	if (*read && st.st_mtim.tv_sec == seen->tv_sec && st.st_mtim.tv_nsec == seen->tv_nsec)
		return false;
	*seen = st.st_mtim;
	*read = true;
	return true;
}

/* The nameservers, when resolv.conf changed; none listed: 127.0.0.1, as
 * the C libraries do. */
static void read_conf(struct net_resolver *r)
{
	char line[512];
	FILE *f;

	if (r->fixed_ns || !changed(RESOLV_CONF, &r->conf_mtime, &r->conf_read))
		return;
	r->nns = 0;
	if ((f = fopen(RESOLV_CONF, "re"))) {
		while (r->nns < NS_MAX && fgets(line, sizeof(line), f)) {
			char key[16], val[80];
			if (sscanf(line, " %15s %79s", key, val) == 2 && !strcmp(key, "nameserver") &&
			    !strchr(val, '%') && !parse_server(val, &r->ns[r->nns]))
				r->nns++;
		}
		fclose(f);
	}
	if (!r->nns)
		parse_server("127.0.0.1", &r->ns[r->nns++]);
}

static void read_hosts(struct net_resolver *r)
{
	char line[1024];
	FILE *f;

	if (r->fixed_ns || !changed(HOSTS_FILE, &r->hosts_mtime, &r->hosts_read))
		return;
	r->nhosts = 0;
	if (!(f = fopen(HOSTS_FILE, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *hash = strchr(line, '#'), *tok;
		struct sockaddr_storage ss;
		if (hash)
			*hash = '\0';
		/* an address alone (no port, no zone) */
		if (!(tok = strtok_r(line, " \t\r\n", &save)) || strchr(tok, '%') ||
		    strchr(tok, '[') || (strchr(tok, '.') && strchr(tok, ':')) ||
		    parse_server(tok, &ss))
			continue;
		while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
			if (r->nhosts >= HOSTS_MAX)
				break;
			if (!(r->nhosts % 64)) {
				void *nv = realloc(r->hosts, (r->nhosts + 64) * sizeof(*r->hosts));
				if (!nv)
					break;
				r->hosts = nv;
			}
			snprintf(r->hosts[r->nhosts].name, sizeof(r->hosts[0].name), "%s", tok);
			r->hosts[r->nhosts].addr = ss;
			r->nhosts++;
		}
	}
	fclose(f);
}

int net_resolver_new(struct net_watches *ws, const char *test_dns, struct net_resolver **out)
{
	struct net_resolver *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->ws = ws;
	if (test_dns && *test_dns) {
		if (parse_server(test_dns, &r->ns[0])) {
			free(r);
			return -EINVAL;
		}
		r->nns = 1;
		r->fixed_ns = true;
	}
	*out = r;
	return 0;
}

static void lookup_close(struct net_lookup *q)
{
	for (unsigned i = 0; i < ATTEMPTS; i++) {
		struct try *t = &q->tries[i];
		net_watch_del(q->r->ws, t->w);
		t->w = NULL;
		if (t->fd >= 0)
			close(t->fd);
		t->fd = -1;
	}
}

static void unlink_lookup(struct net_lookup *q)
{
	struct net_resolver *r = q->r;

	if (q->prev)
		q->prev->next = q->next;
	else
		r->pending = q->next;
	if (q->next)
		q->next->prev = q->prev;
}

static void finish(struct net_lookup *q)
{
	char err[400];
	int rc = q->n ? 0 : q->last_err ? q->last_err : -ETIMEDOUT;

	lookup_close(q);
	unlink_lookup(q);
	if (rc == -ENOENT)
		snprintf(err, sizeof(err), "cannot resolve %s: no such name", q->name);
	else if (rc == -ETIMEDOUT)
		snprintf(err, sizeof(err), "cannot resolve %s: no answer from the nameserver", q->name);
	else if (rc)
		snprintf(err, sizeof(err), "cannot resolve %s: the nameserver failed", q->name);
	else
		err[0] = '\0';
	net_resolved_fn fn = q->fn;
	void *ctx = q->ctx;
	struct sockaddr_storage addrs[NET_MAX_ADDRS];
	size_t n = q->n;
	memcpy(addrs, q->addrs, n * sizeof(addrs[0]));
	free(q);
	fn(ctx, rc, addrs, n, err);
}

static void on_readable(void *ctx, int fd, uint32_t events);

/* One attempt: a fresh socket to the next nameserver, both questions. */
static int attempt(struct net_lookup *q)
{
	struct net_resolver *r = q->r;
	const struct sockaddr_storage *ns = &r->ns[q->attempt % r->nns];
	socklen_t sl = ns->ss_family == AF_INET ? sizeof(struct sockaddr_in) :
		       sizeof(struct sockaddr_in6);
	unsigned char msg[300];
	static const uint16_t types[2] = { NET_DNS_A, NET_DNS_AAAA };
	struct try *t = &q->tries[q->attempt];

	q->deadline = mono_ms() + ATTEMPT_MS;
	q->attempt++;
	t->fd = net_socket(ns->ss_family, SOCK_DGRAM, 0);
	if (t->fd < 0)
		return -errno;
	if (connect(t->fd, (const struct sockaddr *)ns, sl))
		return -errno;
	if (net_random(t->id, sizeof(t->id)))
		return -EIO;
	if (t->id[0] == t->id[1])
		t->id[1] ^= 0x5a5a;
	for (int i = 0; i < 2; i++) {
		if (q->done[i])
			continue;
		size_t len = net_dns_build_query(t->id[i], q->name, types[i], msg, sizeof(msg));
		if (!len)
			return -EINVAL;
		if (send(t->fd, msg, len, 0) < 0)
			return -errno;
	}
	return net_watch_add(r->ws, t->fd, POLLER_IN, on_readable, q, &t->w);
}

static void on_readable(void *ctx, int fd, uint32_t events)
{
	struct net_lookup *q = ctx;
	unsigned char msg[4096];
	static const uint16_t types[2] = { NET_DNS_A, NET_DNS_AAAA };

	struct try *t = NULL;

	(void)events;
	for (unsigned i = 0; i < q->attempt; i++)
		if (q->tries[i].fd == fd)
			t = &q->tries[i];
	if (!t)
		return;
	for (int k = 0; k < 8; k++) {
		ssize_t len = recv(fd, msg, sizeof(msg), 0);
		if (len < 0)
			break; /* EAGAIN; ECONNREFUSED (nothing there) waits for the timeout */
		for (int i = 0; i < 2; i++) {
			size_t n = 0;
			if (q->done[i])
				continue;
			int rc = net_dns_parse_response(msg, (size_t)len, t->id[i], q->name, types[i],
							q->addrs + q->n, NET_MAX_ADDRS - q->n, &n);
			if (rc == -EINVAL)
				continue; /* not the answer to this question: ignored */
			q->done[i] = true;
			q->n += n;
			if (rc && q->last_err != -ENOENT)
				q->last_err = rc;
		}
		if (q->done[0] && q->done[1]) {
			finish(q);
			return;
		}
	}
}

int net_resolve(struct net_resolver *r, const char *name, net_resolved_fn fn, void *ctx,
		struct net_lookup **out)
{
	struct net_lookup *q;
	int rc;

	*out = NULL;
	read_conf(r);
	read_hosts(r);
	if (!(q = calloc(1, sizeof(*q))))
		return -ENOMEM;
	q->r = r;
	for (unsigned i = 0; i < ATTEMPTS; i++)
		q->tries[i].fd = -1;
	q->fn = fn;
	q->ctx = ctx;
	snprintf(q->name, sizeof(q->name), "%s", name);
	q->next = r->pending;
	if (r->pending)
		r->pending->prev = q;
	r->pending = q;
	/* /etc/hosts answers alone, as the C libraries' "files" first */
	for (size_t i = 0; i < r->nhosts && q->n < NET_MAX_ADDRS; i++)
		if (!strcasecmp(r->hosts[i].name, name))
			q->addrs[q->n++] = r->hosts[i].addr;
	if (q->n) {
		finish(q);
		return 0;
	}
	rc = attempt(q);
	if (rc)
		q->last_err = -EAGAIN; /* the next tick tries the next server */
	*out = q;
	return 0;
}

void net_resolve_cancel(struct net_resolver *r, struct net_lookup *q)
{
	(void)r;
	if (!q)
		return;
	lookup_close(q);
	unlink_lookup(q);
	free(q);
}

void net_resolver_tick(struct net_resolver *r, uint64_t now)
{
	for (struct net_lookup *q = r->pending, *next; q; q = next) {
		next = q->next;
		if (now < q->deadline)
			continue;
		/* one of the two answered: enough (a nameserver that drops
		 * AAAA questions is common) */
		if (q->n || q->attempt >= ATTEMPTS) {
			finish(q);
			continue;
		}
		if (attempt(q))
			q->last_err = -EAGAIN;
	}
}

size_t net_resolver_pending(const struct net_resolver *r)
{
	size_t n = 0;

	for (const struct net_lookup *q = r->pending; q; q = q->next)
		n++;
	return n;
}

void net_resolver_free(struct net_resolver *r)
{
	if (!r)
		return;
	while (r->pending)
		net_resolve_cancel(r, r->pending);
	free(r->hosts);
	free(r);
}
