/* preload/notify/net.c: connect() on network sockets, for every
 * program, decided by the notify layer (preload/notify/internal.h).
 *
 * The sandbox's network namespace holds only loopback. A program that
 * honours the proxy variables, or runs with the shim, reaches the outside
 * through the proxy's listeners on that loopback; a static binary (Go,
 * musl, a raw system call) connects to the stand-in its own resolver got
 * from the sandbox's (dnsserve.c) and used to find no route. Here its
 * connect() is completed instead, exactly as the proxy would carry it:
 *
 *   - a socket that is not in the sandbox's network namespace (one this
 *     layer installed, connected in the host's namespace, or one the
 *     caller passed in): refused. A connected socket can only be
 *     reconnected (or made to listen, or to send with MSG_FASTOPEN) after
 *     connect(AF_UNSPEC), which comes here: so a socket of the host's
 *     never goes anywhere else than where the policy sent it;
 *   - loopback, the unspecified address, AF_UNSPEC (disconnect), another
 *     family: connected by us on the socket we took, with our copy of the
 *     address (notify_connect_here; never CONTINUE, which would look the
 *     descriptor number up again: an AF_UNIX socket dup2()ed onto it got
 *     connected anywhere). The socket lives in the sandbox's namespace,
 *     which decides;
 *   - any other address, TCP: the proxy's decision for the name behind
 *     the stand-in (or the address itself), dialled or chained by the
 *     proxy's loop without blocking it (net_loop_dial); the program waits
 *     in connect() meanwhile, and the connected socket replaces its own
 *     under the same descriptor number (SECCOMP_IOCTL_NOTIF_ADDFD with
 *     SECCOMP_ADDFD_FLAG_SETFD), with its O_NONBLOCK and close-on-exec,
 *     and connect() returns 0 -- also for a non-blocking socket, which
 *     POSIX allows (a connection made at once) and event loops take. Not
 *     EINPROGRESS with a socket still connecting: a host socket whose
 *     connect fails is one sendto(MSG_FASTOPEN) could connect anywhere
 *     (loop.c, handed());
 *   - anything else (a datagram socket, a run without the proxy): refused
 *     with EPERM, as the shim refuses it, and reported like the proxy's
 *     refusals, marked as the boundary's.
 * With the network open (allow_domains = *, the host's namespace) nothing
 * is decided here: connected by us as the policy allows every host.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <poll.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/net.h"
#include "common/event.h"
#include "preload/notify/internal.h"
#include "preload/preload.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71 /* Linux 5.14 */
#endif
#ifndef SIOCGSKNS
#define SIOCGSKNS 0x894C
#endif

#define DENY_NET EPERM /* what the shim answers for a connect no rule allows */

void notify_set_net(struct notify *n, struct net_loop *l)
{
	n->net = l;
}

/* The network namespace of a socket, as something to compare: its cookie
 * (Linux 5.14), else the namespace's inode (SIOCGSKNS, which needs
 * CAP_NET_ADMIN over it: we have it over the sandbox's, not the host's).
 * 0 when it cannot be told. */
static uint64_t netns_id(int s)
{
	uint64_t cookie = 0;
	socklen_t l = sizeof(cookie);
	struct stat st;

	if (!getsockopt(s, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &l) && cookie)
		return cookie;
	int ns = ioctl(s, SIOCGSKNS);
	if (ns < 0)
		return 0;
	int rc = fstat(ns, &st);
	close(ns);
	return rc ? 0 : (uint64_t)st.st_ino | 1ull << 63;
}

/* The rename actor's socket was made by sbx-init in the sandbox's network
 * namespace: its namespace is the yardstick, taken when it arrives (the
 * actor may be killed later). */
void notify_net_init(struct notify *n)
{
	n->netns_cookie = n->actor >= 0 ? netns_id(n->actor) : 0;
}

/* Is `s` in the sandbox's own network namespace? (Not known: no.) */
static bool in_sandbox_netns(struct notify *n, int s)
{
	uint64_t id = netns_id(s);
	return id && id == n->netns_cookie;
}

/* ---- reports of our own (no proxy loop, or no dial at all) */

static void say_refused(struct call *c, const struct net_host *h, unsigned port,
			const struct net_decision *d)
{
	struct event ev = net_event(NET_EV_DENIED, NET_PROTO_SECCOMP, h->text, port, d->rule,
				    d->reason, d->fix);

	notify_report(c, &ev);
}

/* Refuse, saying why: the policy's word when it refuses the host, else
 * `why` (the host is allowed, but not this way). */
static struct answer refuse(struct call *c, const struct net_host *h, unsigned port,
			    const char *why)
{
	struct net_decision d;

	memset(&d, 0, sizeof(d));
	net_decide_policy(c->n->p, h, port, &d);
	if (d.verdict != NET_DENY) {
		d.rule = NULL;
		d.fix[0] = '\0';
		snprintf(d.reason, sizeof(d.reason), "%s", why);
	}
	say_refused(c, h, port, &d);
	return ERR(DENY_NET);
}

/* ---- the dial, carried by the proxy's loop */

static void dial_done(void *ctx, int fd, int err)
{
	struct dialing *di = ctx;
	struct notify *n = di->n;
	struct answer a = ERR(err);

	di->used = false;
	di->d = NULL;
	if (fd >= 0) {
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0)
			fcntl(fd, F_SETFL, di->nonblock ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
		/* onto the program's own descriptor number, as dup2 would;
		 * the answer follows (SETFD without SEND: connect() returns
		 * 0, not a descriptor) */
		struct seccomp_notif_addfd add = {
			.id = di->id, .flags = SECCOMP_ADDFD_FLAG_SETFD, .srcfd = (unsigned)fd,
			.newfd = (unsigned)di->sockfd, .newfd_flags = di->cloexec ? O_CLOEXEC : 0,
		};
		int rc = ioctl(n->fd, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
		int e = errno;
		close(fd);
		if (rc < 0 && e == ENOENT)
			return; /* the caller left connect(): nothing is owed */
		a = rc < 0 ? ERR(e) : OK(0);
	}
	notify_respond(n, di->id, a);
}

/* Is the program's descriptor close-on-exec? (/proc/PID/fdinfo: flags,
 * octal, with O_CLOEXEC for the descriptor's own flag) */
static bool fd_cloexec(const struct call *c, int fd)
{
	char p[64], buf[512];
	snprintf(p, sizeof(p), "/proc/%d/fdinfo/%d", (int)c->pid, fd);
	int f = open(p, O_RDONLY | O_CLOEXEC);
	ssize_t len = f >= 0 ? read(f, buf, sizeof(buf) - 1) : -1;
	if (f >= 0)
		close(f);
	if (len <= 0)
		return false;
	buf[len] = '\0';
	char *fl = strstr(buf, "flags:\t");
	return fl && (strtoul(fl + 7, NULL, 8) & O_CLOEXEC);
}

static struct answer dial(struct call *c, int s, int sockfd, const struct net_host *h,
			  unsigned port)
{
	struct notify *n = c->n;
	struct dialing *di = NULL;
	char comm[32];

	/* a signal took the caller out of connect() and it asked again: the
	 * dial already under way answers the new request */
	for (size_t i = 0; i < MAX_DIALS && !di; i++)
		if (n->dials[i].used && n->dials[i].pid == c->pid &&
		    n->dials[i].sockfd == sockfd && n->dials[i].port == port &&
		    !strcmp(n->dials[i].host, h->text))
			di = &n->dials[i];
	if (di) {
		di->id = c->id;
		close(s);
		return (struct answer){ .fd = -1, .wait = true };
	}
	for (size_t i = 0; i < MAX_DIALS && !di; i++)
		if (!n->dials[i].used)
			di = &n->dials[i];
	int fl = fcntl(s, F_GETFL);
	close(s);
	if (!di)
		return ERR(EAGAIN); /* 64 under way: the program may try again */
	*di = (struct dialing){ .n = n, .used = true, .id = c->id, .pid = c->pid,
				.sockfd = sockfd, .nonblock = fl >= 0 && (fl & O_NONBLOCK),
				.cloexec = fd_cloexec(c, sockfd), .port = port };
	snprintf(di->host, sizeof(di->host), "%s", h->text);
	notify_comm_of(c->pid, comm, sizeof(comm));
	/* the proxy's own work (it may refuse and log at once) */
	notify_own_begin(n);
	int rc = net_loop_dial(n->net, h, port, c->pid, comm, dial_done, di, &di->d);
	notify_own_end(n);
	if (rc) {
		di->used = false;
		return ERR(-rc);
	}
	/* answered at once (a refusal) by dial_done, or later */
	return (struct answer){ .fd = -1, .wait = true };
}

/* ---- the call */

/* The host an address means: the name behind a stand-in of the sandbox's
 * resolver (when the proxy runs), else the address itself. */
static void host_of(const struct notify *n, const struct sockaddr *sa, struct net_host *h)
{
	/* as the proxy's clients name it (mapped folded); the decision reads
	 * its canonical form (net_addr_canon), as for every address */
	if (net_host_from_addr(sa, false, h))
		return;
	if (h->kind == NET_HOST_V4 && n->net && net_names_is_standin(&h->v4)) {
		const char *name = net_names_name(net_loop_names(n->net), &h->v4);
		struct net_host named;
		if (name && !net_host_parse(name, strlen(name), &named))
			*h = named;
	}
}

struct answer notify_net_connect(struct call *c, int s, int sockfd, unsigned long long aaddr,
				 unsigned alen)
{
	struct notify *n = c->n;
	struct sockaddr_storage ss;
	struct net_host h;
	int type = 0, proto = 0;
	socklen_t il = sizeof(int);
	bool open = policy_network_open(n->p);

	if (!open && !in_sandbox_netns(n, s)) {
		/* connected in the host's namespace by us (or passed in by
		 * the caller): it stays where the policy sent it */
		close(s);
		return ERR(EISCONN);
	}
	int e = notify_read_addr(c, aaddr, &alen, &ss, sizeof(ss));
	if (e) {
		close(s);
		return ERR(e);
	}
	/* our copy of the address from here on. Where the kernel decides,
	 * the connect is still made by us on the socket we took, never
	 * CONTINUE: the kernel would look the descriptor number up again,
	 * and a thread dup2()ing an AF_UNIX socket onto it meanwhile had it
	 * connected to any socket file (notify_connect_here) */
	if (open) /* the host's network: every host is allowed */
		return notify_connect_here(c, s, &ss, alen);
	bool v4 = ss.ss_family == AF_INET && alen >= sizeof(struct sockaddr_in);
	bool v6 = ss.ss_family == AF_INET6 && alen >= sizeof(struct sockaddr_in6);
	enum net_addr_class cls = v4 || v6 ? net_addr_classify((struct sockaddr *)&ss) :
			       NET_ADDR_LOOPBACK;
	if (cls == NET_ADDR_LOOPBACK || cls == NET_ADDR_UNSPECIFIED) {
		/* the sandbox's own namespace decides: only loopback is there
		 * (AF_UNSPEC, a short address, another family: the kernel's) */
		return notify_connect_here(c, s, &ss, alen);
	}
	unsigned port = ntohs(v4 ? ((struct sockaddr_in *)&ss)->sin_port :
			      ((struct sockaddr_in6 *)&ss)->sin6_port);
	host_of(n, (struct sockaddr *)&ss, &h);
	if (h.kind == NET_HOST_V4 && net_names_is_standin(&h.v4) && n->net) {
		struct net_decision d = { .verdict = NET_DENY };
		snprintf(d.reason, sizeof(d.reason), "%s stands for no name (the sandbox's "
			 "resolver never gave it out)", h.text);
		close(s);
		say_refused(c, &h, port, &d);
		return ERR(DENY_NET);
	}
	if (getsockopt(s, SOL_SOCKET, SO_TYPE, &type, &il) ||
	    getsockopt(s, SOL_SOCKET, SO_PROTOCOL, &proto, &il) || type != SOCK_STREAM ||
	    proto != IPPROTO_TCP) {
		close(s);
		return refuse(c, &h, port, type == SOCK_DGRAM ?
			      "datagrams have no route out of the sandbox (only TCP "
			      "connections are carried, by the proxy)" :
			      "only TCP connections are carried out of the sandbox");
	}
	if (!n->net) {
		close(s);
		return refuse(c, &h, port, "the sandbox's network is off (no allow_domains)");
	}
	return dial(c, s, sockfd, &h, port);
}

/* The answer for a connect() of ours that finished on socket `s` (closed
 * here): its error, or 0. `fl`: the flags to put back. */
static struct answer connect_done(int s, int fl)
{
	int err = 0;
	socklen_t el = sizeof(err);

	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &el))
		err = errno;
	fcntl(s, F_SETFL, fl);
	close(s);
	return err ? ERR(err) : OK(0);
}

/* connect() on a socket that is not AF_UNIX, made here, on the socket we
 * took (`s`, closed or kept here) with our copy of the address (`ss`,
 * `alen` bytes). Never CONTINUE: the kernel would look the descriptor
 * number up again, and another thread can dup2() an AF_UNIX socket onto
 * it meanwhile, which the kernel then connects to any socket file (the
 * docker socket) undecided -- reproduced in tests/integration/
 * attack-notify.sh. The socket is in the sandbox's network namespace,
 * which decides where it may go whoever connects it. A blocking connect
 * not done at once (on loopback it is by the time connect() returns) is
 * waited for without blocking the loop (notify_net_retry). */
struct answer notify_connect_here(struct call *c, int s, const struct sockaddr_storage *ss,
				  unsigned alen)
{
	int fl = fcntl(s, F_GETFL);
	bool block = fl >= 0 && !(fl & O_NONBLOCK);

	/* the groups of a netlink socket need CAP_NET_ADMIN in the socket's
	 * namespace, which the sandbox's owner (we) has and the program not */
	if (alen >= sizeof(struct sockaddr_nl) && ss->ss_family == AF_NETLINK &&
	    ((const struct sockaddr_nl *)ss)->nl_groups) {
		close(s);
		return ERR(EPERM);
	}
	if (block)
		fcntl(s, F_SETFL, fl | O_NONBLOCK);
	int rc = connect(s, (const struct sockaddr *)ss, alen);
	int e = errno;
	if (rc == 0 || !block || e != EINPROGRESS) {
		if (block)
			fcntl(s, F_SETFL, fl);
		close(s);
		return rc ? ERR(e) : OK(0);
	}
	struct pollfd pf = { s, POLLOUT, 0 };
	if (poll(&pf, 1, 0) == 1)
		return connect_done(s, fl);
	struct notify *n = c->n;
	if (!n->conn && !(n->conn = calloc(MAX_CONNECTING, sizeof(*n->conn)))) {
		fcntl(s, F_SETFL, fl);
		close(s);
		return ERR(ENOMEM);
	}
	if (n->nconn == MAX_CONNECTING) {
		fcntl(s, F_SETFL, fl);
		close(s);
		return ERR(EAGAIN);
	}
	n->conn[n->nconn++] = (struct connecting){ c->id, s, fl };
	return (struct answer){ .fd = -1, .wait = true };
}

/* The blocking connects in progress: answered when done; dropped when
 * their caller is gone (a signal took it out of connect(), which goes on
 * in the kernel, as it would). */
void notify_net_retry(struct notify *n)
{
	for (size_t i = 0; i < n->nconn;) {
		struct connecting *w = &n->conn[i];
		uint64_t id = w->id;
		struct pollfd pf = { w->s, POLLOUT, 0 };
		if (ioctl(n->fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0) {
			if (poll(&pf, 1, 0) != 1) {
				i++;
				continue;
			}
			notify_respond(n, id, connect_done(w->s, w->fl));
		} else {
			fcntl(w->s, F_SETFL, w->fl);
			close(w->s);
		}
		*w = n->conn[--n->nconn];
	}
}
