/* net/dnsserve.c: the sandbox's resolver.
 *
 * The sandbox's /etc/resolv.conf names 127.0.0.53 (sbx-init mounts it);
 * sbx-init makes a UDP and a TCP socket there, port 53, in the sandbox's
 * network namespace and hands them over with the proxy's listeners, so
 * this code answers every lookup a program makes by itself: a static
 * binary, Go's resolver, c-ares, dig. The answers follow the policy:
 *
 *   - a name the policy allows (policy_check_host, the shim's question):
 *     A = its stand-in from the run's map (names.c), never a real address;
 *     AAAA and every other type: no data (NOERROR, no answer), so clients
 *     fall back to IPv4 at once;
 *   - a name it refuses: REFUSED, with an Extended DNS Error "Prohibited"
 *     naming the rule and the fix when the client speaks EDNS, and one
 *     report (op dns) -- a network failure would be SERVFAIL, so a
 *     program (and the person) can tell the two apart;
 *   - malformed: FORMERR (or nothing, for what is not even a query).
 *
 * Nothing is resolved here: the proxy resolves when a connection to the
 * stand-in arrives, with the resolved-address check. Every byte is the
 * sandbox's: parsing is dns.c's, bounded; TCP clients are capped
 * (TCP_MAX), each with one small buffer, and closed when idle or when
 * they do not read their answers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/net.h"
#include "net/compat.h"

#define TCP_MAX 64
#define TCP_IDLE_MS 10000
#define TTL 300 /* stand-ins never change during a run */

struct sock;

struct net_dnsserve {
	struct net_watches *ws; /* the loop's poller (watch.c) */
	const struct policy *p;
	struct net_names *names;
	void (*report)(void *rctx, const struct event *ev);
	void *rctx;
	struct sock *socks;
	size_t ntcp;
};

enum sock_kind { S_UDP, S_TCP_LISTEN, S_TCP };

struct sock {
	struct net_dnsserve *s;
	enum sock_kind kind;
	int fd;
	struct net_watch *w;
	uint64_t quiet_ms; /* S_TCP: since its last bytes, in sweeps of 1 s */
	bool paused;       /* S_TCP_LISTEN: no descriptor for accept(), unwatched till the tick */
	size_t len;
	unsigned char buf[2 + 512]; /* S_TCP: one length-prefixed query */
	struct sock *prev, *next;
};

static void addr_str(const struct sockaddr_storage *ss, char *out, size_t sz)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)ss;
		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		snprintf(out, sz, "%s:%u", ip, ntohs(in->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)ss;
		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		snprintf(out, sz, "[%s]:%u", ip, ntohs(in6->sin6_port));
	} else {
		snprintf(out, sz, "?");
	}
}

static void say(struct net_dnsserve *s, enum net_outcome o, const char *host,
		const struct sbx_rule *rule, const char *reason, const char *fix,
		const char *address, const char *client)
{
	struct event ev = net_event(o, NET_PROTO_DNS, host, 0, rule, reason, fix);

	ev.address = address ? address : "";
	ev.client = client;
	if (s->report)
		s->report(s->rctx, &ev);
}

/* One query in, its answer out (0 = send nothing). */
static size_t answer(struct net_dnsserve *s, const unsigned char *m, size_t len,
		     const char *client, unsigned char *out, size_t outsz)
{
	struct net_dns_query q;
	struct net_host h;
	struct in_addr a;
	const struct sbx_rule *rule = NULL;
	char why[600], fix[420], ede[1400], shown[40];
	int rc = net_dns_parse_query(m, len, &q);

	if (rc == -EINVAL)
		return 0;
	if (rc)
		return net_dns_answer(m, &q, q.rcode, NULL, 0, 0, NULL, out, outsz);
	if (q.qclass != 1 || net_host_parse(q.name, strlen(q.name), &h))
		return net_dns_answer(m, &q, NET_DNS_NXDOMAIN, NULL, 0, 0, NULL, out, outsz);
	if (h.kind != NET_HOST_NAME) /* "1.2.3.4" asked as a name */
		return net_dns_answer(m, &q, NET_DNS_NXDOMAIN, NULL, 0, 0, NULL, out, outsz);
	if (policy_check_host(s->p, h.text, &rule) != SBX_ALLOW) {
		if (rule) {
			snprintf(why, sizeof(why), "denied by `%s = %s` (%s)",
				 sbx_rule_key(rule->kind), rule->value, rule->source);
			snprintf(fix, sizeof(fix), "remove `%s = %s` (%s)",
				 sbx_rule_key(rule->kind), rule->value, rule->source);
		} else {
			snprintf(why, sizeof(why), "not in allow_domains");
			snprintf(fix, sizeof(fix), "--allow-domain %s", h.text);
		}
		say(s, NET_EV_DENIED, h.text, rule, why, fix, NULL, client);
		(void)!snprintf(ede, sizeof(ede), "sbx: the sandbox's network policy refused %s: %s; "
			 "fix: %s", h.text, why, fix);
		return net_dns_answer(m, &q, NET_DNS_REFUSED, NULL, 0, NET_DNS_EDE_PROHIBITED, ede,
				      out, outsz);
	}
	if (q.qtype != NET_DNS_A) /* AAAA, HTTPS, MX...: no data, try A */
		return net_dns_answer(m, &q, NET_DNS_NOERROR, NULL, 0, 0, NULL, out, outsz);
	rc = net_names_addr(s->names, h.text, &a);
	if (rc) {
		snprintf(why, sizeof(why), "the sandbox's resolver cannot give %s an address: %s",
			 h.text, rc == -ENOSPC ? "its map is full (8192 names)" : strerror(-rc));
		say(s, NET_EV_FAILED, h.text, rule, why, NULL, NULL, client);
		return net_dns_answer(m, &q, NET_DNS_SERVFAIL, NULL, 0, 0, NULL, out, outsz);
	}
	inet_ntop(AF_INET, &a, shown, sizeof(shown));
	say(s, NET_EV_ALLOWED, h.text, rule, "", NULL, shown, client);
	return net_dns_answer(m, &q, NET_DNS_NOERROR, &a, TTL, 0, NULL, out, outsz);
}

static void sock_free(struct sock *k)
{
	struct net_dnsserve *s = k->s;

	net_watch_del(s->ws, k->w);
	close(k->fd);
	if (k->prev)
		k->prev->next = k->next;
	else
		s->socks = k->next;
	if (k->next)
		k->next->prev = k->prev;
	if (k->kind == S_TCP)
		s->ntcp--;
	free(k);
}

static void on_event(void *ctx, int fd, uint32_t events);

static struct sock *sock_add(struct net_dnsserve *s, int fd, enum sock_kind kind)
{
	struct sock *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->s = s;
	k->fd = fd;
	k->kind = kind;
	if (net_watch_add(s->ws, fd, POLLER_IN, on_event, k, &k->w)) {
		free(k);
		return NULL;
	}
	k->next = s->socks;
	if (s->socks)
		s->socks->prev = k;
	s->socks = k;
	return k;
}

static void udp_read(struct sock *k)
{
	unsigned char m[1500], out[1024];

	for (int i = 0; i < 64; i++) {
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		char client[INET6_ADDRSTRLEN + 8];
		ssize_t n = recvfrom(k->fd, m, sizeof(m), 0, (struct sockaddr *)&from, &fl);
		if (n < 0)
			return;
		addr_str(&from, client, sizeof(client));
		size_t a = answer(k->s, m, (size_t)n, client, out, sizeof(out));
		if (a)
			sendto(k->fd, out, a, MSG_DONTWAIT, (struct sockaddr *)&from, fl);
	}
}

static void tcp_accept(struct sock *k)
{
	for (int i = 0; i < 16; i++) {
		int fd = net_accept(k->fd, NULL, NULL);
		if (fd < 0) {
			/* the client stays in the backlog and the listener
			 * readable: unwatched until the next tick, not
			 * handed back by epoll at once, forever (loop.c's
			 * pause_listener) */
			if (errno == EMFILE || errno == ENFILE)
				k->s->ws->nofile++;
			if ((errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			     errno == ENOMEM) && !net_watch_mod(k->s->ws, k->w, 0))
				k->paused = true;
			return;
		}
		struct sock *c = k->s->ntcp < TCP_MAX ? sock_add(k->s, fd, S_TCP) : NULL;
		if (!c) {
			close(fd);
			continue;
		}
		c->quiet_ms = 0;
		k->s->ntcp++;
	}
}

/* Length-prefixed queries (RFC 1035 4.2.2); an answer that cannot be sent
 * at once closes the connection: a client that does not read gets nothing
 * queued. */
static void tcp_read(struct sock *k)
{
	unsigned char out[2 + 1024];
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer);
	char client[INET6_ADDRSTRLEN + 8];
	ssize_t n = recv(k->fd, k->buf + k->len, sizeof(k->buf) - k->len, 0);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		sock_free(k);
		return;
	}
	if (n < 0)
		return;
	k->len += (size_t)n;
	k->quiet_ms = 0;
	if (getpeername(k->fd, (struct sockaddr *)&peer, &pl))
		memset(&peer, 0, sizeof(peer));
	addr_str(&peer, client, sizeof(client));
	while (k->len >= 2) {
		size_t ql = (size_t)k->buf[0] << 8 | k->buf[1];
		if (ql + 2 > sizeof(k->buf)) { /* longer than any query of one name */
			sock_free(k);
			return;
		}
		if (k->len < ql + 2)
			return;
		size_t a = answer(k->s, k->buf + 2, ql, client, out + 2, sizeof(out) - 2);
		if (a) {
			out[0] = (unsigned char)(a >> 8);
			out[1] = (unsigned char)a;
			if (send(k->fd, out, a + 2, MSG_DONTWAIT | NET_NOSIGNAL) != (ssize_t)(a + 2)) {
				sock_free(k);
				return;
			}
		}
		memmove(k->buf, k->buf + ql + 2, k->len - ql - 2);
		k->len -= ql + 2;
	}
}

static void on_event(void *ctx, int fd, uint32_t events)
{
	struct sock *k = ctx;

	(void)fd;
	(void)events;
	switch (k->kind) {
	case S_UDP: udp_read(k); break;
	case S_TCP_LISTEN: tcp_accept(k); break;
	case S_TCP: tcp_read(k); break;
	}
}

int net_dnsserve_new(struct net_watches *ws, const struct policy *p, struct net_names *names,
		     void (*report)(void *rctx, const struct event *ev), void *rctx,
		     struct net_dnsserve **out)
{
	struct net_dnsserve *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->ws = ws;
	s->p = p;
	s->names = names;
	s->report = report;
	s->rctx = rctx;
	*out = s;
	return 0;
}

int net_dnsserve_add(struct net_dnsserve *s, int fd, bool tcp)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK))
		return -errno;
	if (!sock_add(s, fd, tcp ? S_TCP_LISTEN : S_UDP))
		return -ENOMEM;
	return 0;
}

/* Called about once a second: a TCP client quiet for TCP_IDLE_MS goes;
 * a listener paused for want of a descriptor is watched again. */
void net_dnsserve_tick(struct net_dnsserve *s, uint64_t now_ms)
{
	(void)now_ms;
	for (struct sock *k = s->socks, *next; k; k = next) {
		next = k->next;
		if (k->kind == S_TCP_LISTEN && k->paused && !net_watch_mod(s->ws, k->w, POLLER_IN))
			k->paused = false;
		if (k->kind != S_TCP)
			continue;
		k->quiet_ms += 1000;
		if (k->quiet_ms >= TCP_IDLE_MS)
			sock_free(k);
	}
}

void net_dnsserve_free(struct net_dnsserve *s)
{
	if (!s)
		return;
	while (s->socks)
		sock_free(s->socks);
	free(s);
}
