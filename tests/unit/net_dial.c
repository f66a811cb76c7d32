/* tests/unit/net_dial.c: the proxy's loop dialling for the notify layer
 * (net_loop_dial, net/loop.c): the policy's refusal comes back
 * as EPERM with one report marked NET_PROTO_SECCOMP (pid and comm), an
 * allowed host as a connected socket (to a listener of the test's own on
 * loopback, mapped by a test hosts file), a stand-in never given out as
 * EPERM, and a closed port as the dial's own error. */
#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "tests/unit/helpers.h"
#include "net/net.h"

struct result {
	int calls, fd, err;
};
struct seen {
	int n;
	char outcome;
	enum event_via proto;
	enum event_layer layer;
	int pid;
	char comm[16], reason[200];
};

static void done(void *ctx, int fd, int err)
{
	struct result *r = ctx;
	r->calls++;
	r->fd = fd;
	r->err = err;
}

static void on_event(void *ctx, const struct event *ev)
{
	struct seen *s = ctx;
	if (ev->decision == NET_EV_ALLOWED)
		return;
	s->n++;
	s->outcome = ev->decision;
	s->proto = ev->via;
	s->layer = ev->layer;
	s->pid = ev->pid;
	snprintf(s->comm, sizeof(s->comm), "%s", ev->comm ? ev->comm : "");
	snprintf(s->reason, sizeof(s->reason), "%s", ev->reason);
}

/* A listener on loopback, its port; a hosts file naming it. */
static int listener(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int s = socket(AF_INET, SOCK_STREAM, 0);
	cr_assert(s >= 0 && !bind(s, (struct sockaddr *)&a, sizeof(a)) && !listen(s, 4));
	getsockname(s, (struct sockaddr *)&a, &al);
	*port = ntohs(a.sin_port);
	return s;
}

static struct policy *pol; /* the loop borrows it: freed after the loop */

static struct net_loop *loop_for(const char *ini, struct seen *s, char *hosts)
{
	struct net_loop *l;
	int fd = mkstemp(hosts);
	cr_assert(fd >= 0);
	dprintf(fd, "127.0.0.1 allowed.test refused.test\n");
	close(fd);
	struct net_cfg cfg = { .report = on_event, .rctx = s, .test_hosts = hosts,
			       .connect_ms = 3000 };
	pol = compile_ini(ini);
	cr_assert_eq(net_loop_new(pol, &cfg, &l), 0);
	return l;
}

/* loop_for's loop, its policy and its hosts file gone */
static void loop_end(struct net_loop *l, const char *hosts)
{
	net_loop_free(l);
	policy_free(pol);
	unlink(hosts);
}

static void run_until(struct net_loop *l, const struct result *r)
{
	for (int i = 0; i < 300 && !r->calls; i++)
		net_loop_run_once(l, 10);
}

Test(net_dial, refused_host_is_eperm_with_one_report_naming_the_caller)
{
	struct seen s = { 0 };
	struct result r = { 0 };
	struct net_dial *d;
	char hosts[] = "/tmp/sbx-dial-XXXXXX";
	struct net_loop *l = loop_for("[network]\nallow_domains = allowed.test\n", &s, hosts);
	struct net_host h;

	net_host_parse("refused.test", 12, &h);
	cr_assert_eq(net_loop_dial(l, &h, 80, 42, "client", done, &r, &d), 0);
	cr_assert_eq(r.calls, 1, "answered at once");
	cr_assert_null(d);
	cr_assert_eq(r.fd, -1);
	cr_assert_eq(r.err, EPERM);
	cr_assert_eq(s.n, 1);
	cr_assert_eq(s.outcome, NET_EV_DENIED);
	cr_assert_eq(s.proto, EVENT_VIA_SECCOMP);
	cr_assert_eq(s.layer, EVENT_NOTIFY, "a program's own connect: the notify layer's event");
	cr_assert_eq(s.pid, 42);
	cr_assert_str_eq(s.comm, "client");
	loop_end(l, hosts);
}

/* The supervisor runs the loop only when its epoll descriptor has events
 * or its timers are due (run.c), so a dial refused at once -- a sandboxed
 * program calling connect() to a refused host in a loop -- must not leave
 * its record for the loop's next run: 20,000 of them were 20 MB held until
 * the next second's sweep. Freed (kept as a spare) at once, the heap stays
 * flat. (mallinfo2 says nothing under ASan: there it proves nothing.) */
Test(net_dial, refused_dials_are_freed_without_waiting_for_the_loop)
{
	struct seen s = { 0 };
	struct result r = { 0 };
	struct net_dial *d;
	char hosts[] = "/tmp/sbx-dial-XXXXXX";
	struct net_loop *l = loop_for("[network]\nallow_domains = allowed.test\n", &s, hosts);
	struct net_host h;

	net_host_parse("refused.test", 12, &h);
	cr_assert_eq(net_loop_dial(l, &h, 80, 42, "client", done, &r, &d), 0);
	size_t before = mallinfo2().uordblks;
	for (int i = 0; i < 2000; i++)
		cr_assert_eq(net_loop_dial(l, &h, 80, 42, "client", done, &r, &d), 0);
	size_t after = mallinfo2().uordblks;
	cr_assert_eq(r.calls, 2001);
	cr_assert_lt(after, before + 100000, "heap grew by %zu bytes over 2000 refused dials",
		     after - before);
	loop_end(l, hosts);
}

Test(net_dial, allowed_host_is_a_connected_socket)
{
	struct seen s = { 0 };
	struct result r = { 0 };
	struct net_dial *d;
	char hosts[] = "/tmp/sbx-dial-XXXXXX", ini[200];
	unsigned port;
	int ls = listener(&port);
	/* loopback answers need the address allowed too (the address check) */
	snprintf(ini, sizeof(ini), "[network]\nallow_domains = allowed.test, 127.0.0.1:%u\n", port);
	struct net_loop *l = loop_for(ini, &s, hosts);
	struct net_host h;

	net_host_parse("allowed.test", 12, &h);
	cr_assert_eq(net_loop_dial(l, &h, port, 7, "c", done, &r, &d), 0);
	run_until(l, &r);
	cr_assert_eq(r.calls, 1);
	cr_assert_eq(r.err, 0);
	cr_assert(r.fd >= 0);
	struct sockaddr_in peer;
	socklen_t pl = sizeof(peer);
	cr_assert_eq(getpeername(r.fd, (struct sockaddr *)&peer, &pl), 0);
	cr_assert_eq(ntohs(peer.sin_port), port);
	/* connected for the kernel: another connect is EISCONN */
	cr_assert_eq(connect(r.fd, (struct sockaddr *)&peer, pl), -1);
	cr_assert_eq(errno, EISCONN);
	cr_assert_eq(s.n, 0, "no refusal, no failure");
	close(r.fd);
	close(ls);
	loop_end(l, hosts);
}

Test(net_dial, closed_port_is_the_dials_own_error)
{
	struct seen s = { 0 };
	struct result r = { 0 };
	struct net_dial *d;
	char hosts[] = "/tmp/sbx-dial-XXXXXX", ini[200];
	unsigned port;
	int ls = listener(&port);
	close(ls); /* nothing listens there now */
	snprintf(ini, sizeof(ini), "[network]\nallow_domains = allowed.test, 127.0.0.1:%u\n", port);
	struct net_loop *l = loop_for(ini, &s, hosts);
	struct net_host h;

	net_host_parse("allowed.test", 12, &h);
	cr_assert_eq(net_loop_dial(l, &h, port, 7, "c", done, &r, &d), 0);
	run_until(l, &r);
	cr_assert_eq(r.calls, 1);
	cr_assert_eq(r.fd, -1);
	cr_assert_eq(r.err, ECONNREFUSED);
	cr_assert_eq(s.outcome, NET_EV_FAILED);
	loop_end(l, hosts);
}

Test(net_dial, standin_never_given_out_is_refused)
{
	struct seen s = { 0 };
	struct result r = { 0 };
	struct net_dial *d;
	char hosts[] = "/tmp/sbx-dial-XXXXXX";
	struct net_loop *l = loop_for("[network]\nallow_domains = *\ndeny_domains = x.test\n", &s,
				      hosts);
	struct net_host h;

	net_host_parse("198.19.0.77", 11, &h);
	cr_assert_eq(net_loop_dial(l, &h, 443, 1, "c", done, &r, &d), 0);
	cr_assert_eq(r.calls, 1);
	cr_assert_eq(r.err, EPERM);
	cr_assert(strstr(s.reason, "stands for no name"), "%s", s.reason);
	loop_end(l, hosts);
}

/* http_proxy_port: the user's proxy takes the connection by name, but
 * the name is decided first on what it resolves to here; one that
 * resolves to loopback never reaches the upstream (it would resolve it
 * itself and dial this host). */
Test(net_dial, chained_name_resolving_to_loopback_never_reaches_the_upstream)
{
	struct seen s = { 0 };
	struct result r = { 0 };
	struct net_dial *d;
	struct net_loop *l;
	char hosts[] = "/tmp/sbx-dial-XXXXXX";
	unsigned up;
	int ls = listener(&up), fd = mkstemp(hosts);
	struct net_host h;

	cr_assert(fd >= 0);
	dprintf(fd, "127.0.0.1 refused.test\n");
	close(fd);
	struct net_cfg cfg = { .report = on_event, .rctx = &s, .test_hosts = hosts,
			       .connect_ms = 3000, .chain_http_port = up };
	pol = compile_ini("[network]\nallow_domains = *\ndeny_domains = blocked.test\n");
	cr_assert_eq(net_loop_new(pol, &cfg, &l), 0);
	net_host_parse("refused.test", 12, &h);
	cr_assert_eq(net_loop_dial(l, &h, 80, 7, "c", done, &r, &d), 0);
	run_until(l, &r);
	cr_assert_eq(r.calls, 1);
	cr_assert_eq(r.err, EPERM);
	cr_assert_eq(s.outcome, NET_EV_DENIED);
	assert_contains(s.reason, "refused.test resolves to 127.0.0.1, a loopback address");
	/* the upstream was never dialled */
	struct pollfd pf = { .fd = ls, .events = POLLIN };
	cr_assert_eq(poll(&pf, 1, 0), 0, "the upstream proxy got a connection");
	close(ls);
	loop_end(l, hosts);
}
