/* preload/notify/deny.c: the calls the boundary refuses as such, named
 * (preload/notify/internal.h).
 *
 * 1. The seccomp table's rows (seccomp/rules.h): keyctl, bpf,
 *    perf_event_open, a new user namespace, TIOCSTI... With the notify
 *    layer, sbx-init's deny table answers them with USER_NOTIF
 *    (gen-filters.c, sbx_filter_notified) and so does the notify filter,
 *    whose listener is ours: the call waits here, and the answer is the
 *    row's own errno, never CONTINUE. Which row matched (ioctl's request,
 *    socket's family, personality's bits) is found by running the
 *    generated row finder, sbx_deny_rows_prog, on the notification's
 *    seccomp_data: the same comparisons, from the same table, on the
 *    registers the kernel copied (nothing the program can rewrite). The
 *    report is the row's one-line reason, once per call and program.
 *    Should the supervisor be gone, the kernel answers ENOSYS: refused
 *    still.
 * 2. allow_local_binding = false: listen() and bind() are notified
 *    (gen-notify.c, the _nobind programs) and decided on the socket
 *    itself, taken from the caller (pidfd_getfd): its family and type
 *    cannot change under us, as a descriptor number can (a thread may
 *    dup2 another socket onto it). A stream socket of AF_INET or AF_INET6
 *    may not listen; a datagram socket of those may not bind a port
 *    (EACCES, reported). What is allowed is done here, on that socket,
 *    with our copy of the address: never CONTINUE.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "gen/filters.h"
#include "common/event.h"
#include "preload/notify/internal.h"
#include "preload/preload.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Classic BPF as libseccomp emits it, over a seccomp_data: our own
 * program, bounds-checked anyway. The return value, or KILL when the
 * program does something it never should. */
static uint32_t bpf_run(const struct sock_filter *prog, size_t len, const struct seccomp_data *d)
{
	uint32_t a = 0;

	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &prog[pc];
		uint32_t w;
		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (f->k > sizeof(*d) - 4 || f->k % 4)
				return SECCOMP_RET_KILL_PROCESS;
			memcpy(&w, (const char *)d + f->k, 4);
			a = w;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= f->k;
			break;
		case BPF_JMP | BPF_JA:
			pc += f->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += a > f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & f->k) ? f->jt : f->jf;
			break;
		case BPF_RET | BPF_K:
			return f->k;
		default:
			return SECCOMP_RET_KILL_PROCESS;
		}
	}
	return SECCOMP_RET_KILL_PROCESS;
}

int notify_deny_row(const struct seccomp_data *d)
{
	uint32_t ret = bpf_run(sbx_deny_rows_prog, LEN(sbx_deny_rows_prog), d);
	uint32_t row = ret & SECCOMP_RET_DATA;

	if ((ret & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_ERRNO || !row || row > LEN(sbx_deny_rows))
		return -1;
	return (int)row - 1;
}

/* The comm of `pid`'s parent, "" when gone: a nested sandbox is often a
 * bubblewrap its agent started (Codex's), and "bwrap" alone names no one. */
static void parent_comm(pid_t pid, char *out, size_t outsz)
{
	char p[64], stat[512], *close_paren;
	int fd, ppid = 0;
	ssize_t n;

	out[0] = '\0';
	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return;
	stat[n] = '\0';
	/* pid (comm) state ppid: comm may hold anything, so from the last ')' */
	if (!(close_paren = strrchr(stat, ')')) || sscanf(close_paren + 1, " %*c %d", &ppid) != 1 ||
	    ppid <= 1)
		return;
	notify_comm_of(ppid, out, outsz);
}

/* A program that tried to make a user namespace (unshare, clone with
 * CLONE_NEWUSER): a sandbox of its own, which cannot start inside sbx.
 * Said as such, with the setting that turns an agent's own sandbox off;
 * `parent` may be "". The names came from the sandbox: shown printable. */
static const char *nested_sandbox_why(const char *comm, const char *parent, char *why,
				      size_t whysz)
{
	char who[16 * 6], by[16 * 6];

	report_printable(comm, who, sizeof(who), true);
	report_printable(parent, by, sizeof(by), true);
	/* sbx is the sandbox: the fix is the agent's own sandbox off, which
	 * the codex profile does (share/sbx/profiles/codex.ini) */
	snprintf(why, whysz, "%s%s%s%s tried to start its own sandbox (a new user "
		 "namespace): sbx is the sandbox; turn the program's own sandbox off "
		 "(Codex: --sandbox danger-full-access, which the codex profile sets: "
		 "sbx-preload codex)", who[0] ? who : "a program", by[0] ? " (started by " : "",
		 by, by[0] ? ")" : "");
	return why;
}

struct answer notify_deny(struct call *c, const struct seccomp_data *d)
{
	const char *call = NULL;
	char comm[32], rule[64], why[512];
	int row = notify_deny_row(d);

	if (row < 0)
		return ERR(ENOSYS); /* not one we notify: refuse, never continue */
	for (size_t i = 0; i < LEN(sbx_deny_calls) && !call; i++)
		if (sbx_deny_calls[i].nr == d->nr)
			call = sbx_deny_calls[i].name;
	if (c->n->r) {
		notify_comm_of(c->pid, comm, sizeof(comm));
		/* the name was the caller's if it still waits */
		if (!notify_call_valid(c))
			return ERR(ENOENT);
		snprintf(rule, sizeof(rule), "the seccomp table (%s)", sbx_deny_rows[row].calls);
		struct event ev = { .what = EVENT_CALL, .decision = WIRE_DENY,
				    .target = call ? call : "a system call", .comm = comm,
				    .reason = sbx_deny_rows[row].why, .rule_text = rule,
				    .err = sbx_deny_rows[row].err };
		/* the only unshare and clone rows are those of CLONE_NEWUSER: a
		 * program starting a sandbox of its own, said as such */
		if (!strcmp(sbx_deny_rows[row].calls, "unshare") ||
		    !strcmp(sbx_deny_rows[row].calls, "clone")) {
			char parent[32];
			parent_comm(c->pid, parent, sizeof(parent));
			ev.target = call ? call : "clone";
			ev.reason = nested_sandbox_why(comm, parent, why, sizeof(why));
		}
		notify_report(c, &ev);
	}
	return ERR(sbx_deny_rows[row].err);
}

/* ---- allow_local_binding = false */

#define LOCAL_BINDING_WHY "servers inside the sandbox are refused by allow_local_binding = false"
#define LOCAL_BINDING_RULE "allow_local_binding = false"

static bool inet(int domain)
{
	return domain == AF_INET || domain == AF_INET6;
}

static void sock_kind(int s, int *domain, int *type)
{
	socklen_t il = sizeof(int);

	*domain = *type = -1;
	getsockopt(s, SOL_SOCKET, SO_DOMAIN, domain, &il);
	il = sizeof(int);
	getsockopt(s, SOL_SOCKET, SO_TYPE, type, &il);
}

static void refused(struct call *c, const char *call, const char *target)
{
	notify_report(c, &(struct event){ .what = EVENT_CALL, .decision = WIRE_DENY,
					  .target = call, .on = target, .reason = LOCAL_BINDING_WHY,
					  .rule_text = LOCAL_BINDING_RULE, .err = EACCES });
}

/* Where a socket is bound, as text ("127.0.0.1:8080", "[::]:53"). */
static void bound_text(const struct sockaddr_storage *ss, char *out, size_t outsz)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)ss;
		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		snprintf(out, outsz, "%s:%u", ip, ntohs(in->sin_port));
	} else {
		const struct sockaddr_in6 *in6 = (const void *)ss;
		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		snprintf(out, outsz, "[%s]:%u", ip, ntohs(in6->sin6_port));
	}
}

struct answer notify_listen(struct call *c, int sockfd, int backlog)
{
	int domain, type, s = notify_take_fd(c, sockfd);

	if (s < 0)
		return ERR(-s);
	sock_kind(s, &domain, &type);
	if (inet(domain) && type == SOCK_STREAM) {
		struct sockaddr_storage ss = { 0 };
		socklen_t sl = sizeof(ss);
		char where[INET6_ADDRSTRLEN + 16] = "";
		if (!getsockname(s, (struct sockaddr *)&ss, &sl))
			bound_text(&ss, where, sizeof(where));
		close(s);
		refused(c, "listen", where[0] ? where : NULL);
		return ERR(EACCES);
	}
	/* another kind of socket (a Unix one, a server the policy allows):
	 * listened to here, on the object we checked */
	int rc = listen(s, backlog);
	int e = errno;
	close(s);
	return rc ? ERR(e) : OK(0);
}

/* The lowest port a process inside may bind (it holds no capability); the
 * supervisor owns the sandbox's user namespace, and so could. */
#define UNPRIVILEGED_PORT_START 1024

/* A bind of a family neither IP nor a Unix path the supervisor may make
 * for the program (notify_bind): one where no kernel check asks who binds.
 * A Unix socket with another family in the address: EINVAL, the kernel's.
 * Netlink (the table lets NETLINK_ROUTE and NETLINK_SOCK_DIAG through): a
 * port id needs nothing, nor do the groups of either, but NETLINK_ROUTE's
 * multicast-routing ones (CAP_NET_ADMIN, which the program lacks: EPERM,
 * as the kernel answers it). AF_ALG names an algorithm. Anything else
 * (the seccomp table lets few families through) is refused. */
static bool other_family_bindable(int s, int domain, const struct sockaddr_storage *ss,
				  unsigned alen)
{
	if (domain == AF_UNIX || domain == AF_ALG)
		return true;
	if (domain != AF_NETLINK)
		return false;
	if (ss->ss_family != AF_NETLINK || alen < sizeof(struct sockaddr_nl))
		return true; /* the kernel's EINVAL */
	uint32_t groups = ((const struct sockaddr_nl *)ss)->nl_groups;
	int proto = 0;
	socklen_t pl = sizeof(proto);
	if (!groups)
		return true;
	if (getsockopt(s, SOL_SOCKET, SO_PROTOCOL, &proto, &pl))
		return false;
	if (proto == NETLINK_SOCK_DIAG)
		return true; /* its groups are anyone's (NL_CFG_F_NONROOT_RECV) */
	/* bit g-1 is group g (netlink_bind) */
	return proto == NETLINK_ROUTE &&
	       !(groups & (1u << (RTNLGRP_IPV4_MROUTE_R - 1) | 1u << (RTNLGRP_IPV6_MROUTE_R - 1)));
}

struct answer notify_bind(struct call *c, int sockfd, unsigned long long aaddr, unsigned alen)
{
	struct sockaddr_storage ss;
	int domain, type, s = notify_take_fd(c, sockfd);

	if (s < 0)
		return ERR(-s);
	sock_kind(s, &domain, &type);
	int rd = notify_read_addr(c, aaddr, &alen, &ss, sizeof(ss));
	if (rd) {
		close(s);
		return ERR(rd);
	}
	/* Every bind is made here, on the socket we took (a descriptor
	 * swapped meanwhile changes nothing), with the bytes we read. A
	 * Unix socket's path is a name made like a file's: judged as one. */
	if (domain == AF_UNIX && ss.ss_family == AF_UNIX) {
		struct answer a = notify_unix_bind(c, s, (struct sockaddr_un *)&ss, alen);
		close(s);
		return a;
	}
	/* No bind is CONTINUEd: the kernel would read the caller's memory
	 * again (a thread turns the family into AF_UNIX and the path into a
	 * protected name), and look the descriptor number up again (a thread
	 * dup2()s a Unix socket over the netlink one we checked): either way
	 * it made a socket file .mcp.json. Every other family is bound here,
	 * with our copy, when no check of the kernel's depends on who binds,
	 * and refused otherwise: the program holds no capability, we hold all
	 * of the sandbox's user namespace's. */
	if (!inet(domain)) {
		int rc = other_family_bindable(s, domain, &ss, alen) ?
			 bind(s, (struct sockaddr *)&ss, alen) : (errno = EPERM, -1);
		int e = errno;
		close(s);
		return rc ? ERR(e) : OK(0);
	}
	if (policy_allow_local_binding(c->n->p)) {
		int rc = 0;
		unsigned port = 0;
		if (ss.ss_family == AF_INET && alen >= sizeof(struct sockaddr_in))
			port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
		else if (ss.ss_family == AF_INET6 && alen >= sizeof(struct sockaddr_in6))
			port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
		if (port && port < UNPRIVILEGED_PORT_START)
			errno = EACCES, rc = -1; /* as the kernel answers the caller */
		else
			rc = bind(s, (struct sockaddr *)&ss, alen);
		int e = errno;
		close(s);
		return rc ? ERR(e) : OK(0);
	}
	unsigned port = 0;
	if (ss.ss_family == AF_INET && alen >= sizeof(struct sockaddr_in))
		port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	else if (ss.ss_family == AF_INET6 && alen >= sizeof(struct sockaddr_in6))
		port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	if (type == SOCK_DGRAM && port) {
		char where[INET6_ADDRSTRLEN + 16];
		bound_text(&ss, where, sizeof(where));
		close(s);
		refused(c, "bind", where);
		return ERR(EACCES);
	}
	if (port && port < UNPRIVILEGED_PORT_START) {
		close(s);
		return ERR(EACCES); /* as the kernel answers the caller */
	}
	int rc = bind(s, (struct sockaddr *)&ss, alen);
	int e = errno;
	close(s);
	return rc ? ERR(e) : OK(0);
}
