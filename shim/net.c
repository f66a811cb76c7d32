/* shim/net.c: name lookups and connections.
 *
 * A lookup of a host the network policy does not allow fails at once
 * (EAI_FAIL, HOST_NOT_FOUND) with a report, instead of a slow timeout in the
 * sandbox's empty network namespace. A connect or a datagram to an address
 * no rule allows fails with EPERM and a report naming the destination. The
 * sandbox's own loopback is always reachable (it is not the host's).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "shim.h"

/* Names that never leave the machine. */
static bool local_name(const char *h)
{
	static const char *const names[] = { "localhost", "localhost.localdomain",
					     "ip6-localhost", "ip6-loopback" };
	struct utsname u;
	size_t n = strlen(h);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(h, names[i]))
			return true;
	if (n > 10 && !strcasecmp(h + n - 10, ".localhost"))
		return true;
	/* the sandbox's own host name, which /etc/hosts answers */
	return uname(&u) == 0 && !strcasecmp(h, u.nodename);
}

static bool numeric_host(const char *h)
{
	unsigned char buf[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, h, buf) == 1 || inet_pton(AF_INET6, h, buf) == 1;
}

/* 0 to go ahead, or -1 when the policy refuses (reported). */
static int judge(enum wire_op op, const char *host, unsigned port, const char *target)
{
	const struct policy *p = shim_policy();
	enum sbx_verdict v;
	int rc = 0;

	if (!shim_enter())
		return 0;
	if (policy_network_open(p)) {
		if (shim_mode() != SHIM_ENFORCE)
			shim_trace(op, target);
		goto out;
	}
	v = op == WIRE_DNS ? policy_check_host(p, host, NULL) :
			     policy_check_domain(p, host, port, NULL);
	if (v == SBX_ALLOW) {
		if (shim_mode() != SHIM_ENFORCE)
			shim_trace(op, target);
	} else if (shim_mode() == SHIM_LEARN) {
		shim_report(WIRE_LEARN, op, target, 0);
	} else {
		shim_report(WIRE_DENY, op, target, op == WIRE_DNS ? 0 : EPERM);
		rc = -1;
	}
out:
	shim_leave();
	return rc;
}

static int judge_lookup(const char *node, const char *service)
{
	char target[300];
	size_t n;

	if (!node || !*node || numeric_host(node) || local_name(node))
		return 0;
	n = strlen(node);
	if (n >= 256)
		return 0;
	memcpy(target, node, n + 1);
	if (service && *service && strspn(service, "0123456789") == strlen(service) &&
	    strlen(service) <= 5) {
		target[n] = ':';
		memcpy(target + n + 1, service, strlen(service) + 1);
	}
	return judge(WIRE_DNS, node, 0, target);
}

/* A destination address, unless it is the sandbox's own loopback. */
static int judge_addr(const struct sockaddr *sa, socklen_t len)
{
	char ip[INET6_ADDRSTRLEN], target[INET6_ADDRSTRLEN + 10];
	unsigned port;
	size_t n;

	if (!sa || len < (socklen_t)sizeof(sa_family_t) || !shim_ready())
		return 0;
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)sa;
		if ((ntohl(in->sin_addr.s_addr) >> 24) == 127 || in->sin_addr.s_addr == 0)
			return 0;
		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		port = ntohs(in->sin_port);
		n = strlen(ip);
		memcpy(target, ip, n);
	} else if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) || IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr) ||
		    (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && in6->sin6_addr.s6_addr[12] == 127))
			return 0;
		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		port = ntohs(in6->sin6_port);
		target[0] = '[';
		n = strlen(ip);
		memcpy(target + 1, ip, n);
		target[++n] = ']';
		n++;
	} else {
		return 0; /* unix sockets: the seccomp filter's business */
	}
	target[n++] = ':';
	wire_utoa(port, target + n);
	return judge(WIRE_CONNECT, ip, port, target);
}

/* socket(AF_UNIX) and a Unix socketpair fail with EPERM when the seccomp
 * filter blocks Unix sockets (allow_all_unix_sockets off): said, once per
 * run by the supervisor's de-duplication, so `ssh-agent`, `tmux` or a
 * docker client failing is explained. */
static void unix_refused(int domain)
{
	int err = errno;

	if (domain == AF_UNIX && err == EPERM && shim_ready() && shim_enter()) {
		if (!policy_allow_all_unix_sockets(shim_policy()))
			shim_report(WIRE_DENY, WIRE_UNIX, "socket", EPERM);
		shim_leave();
	}
	errno = err;
}

SHIM_EXPORT int socket(int domain, int type, int protocol)
{
	int fd = REAL(socket)(domain, type, protocol);

	if (fd < 0)
		unix_refused(domain);
	return fd;
}

SHIM_EXPORT int socketpair(int domain, int type, int protocol, int sv[2])
{
	int rc = REAL(socketpair)(domain, type, protocol, sv);

	if (rc < 0)
		unix_refused(domain);
	return rc;
}

SHIM_EXPORT int connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	if (judge_addr(sa, len)) {
		errno = EPERM;
		return -1;
	}
	return REAL(connect)(fd, sa, len);
}

SHIM_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags,
			   const struct sockaddr *sa, socklen_t len)
{
	if (judge_addr(sa, len)) {
		errno = EPERM;
		return -1;
	}
	return REAL(sendto)(fd, buf, n, flags, sa, len);
}

SHIM_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	if (msg && judge_addr(msg->msg_name, msg->msg_namelen)) {
		errno = EPERM;
		return -1;
	}
	return REAL(sendmsg)(fd, msg, flags);
}

SHIM_EXPORT int getaddrinfo(const char *node, const char *service,
			    const struct addrinfo *hints, struct addrinfo **res)
{
	if (!(hints && (hints->ai_flags & AI_NUMERICHOST)) && shim_ready() &&
	    judge_lookup(node, service))
		return EAI_FAIL;
	return REAL(getaddrinfo)(node, service, hints, res);
}

SHIM_EXPORT struct hostent *gethostbyname(const char *name)
{
	if (shim_ready() && judge_lookup(name, NULL)) {
		h_errno = HOST_NOT_FOUND;
		return NULL;
	}
	return REAL(gethostbyname)(name);
}

SHIM_EXPORT struct hostent *gethostbyname2(const char *name, int af)
{
	if (shim_ready() && judge_lookup(name, NULL)) {
		h_errno = HOST_NOT_FOUND;
		return NULL;
	}
	return REAL(gethostbyname2)(name, af);
}

SHIM_EXPORT int gethostbyname_r(const char *name, struct hostent *ret, char *buf,
				size_t buflen, struct hostent **result, int *h_errnop)
{
	if (shim_ready() && judge_lookup(name, NULL)) {
		*result = NULL;
		*h_errnop = HOST_NOT_FOUND;
		return ENOENT;
	}
	return REAL(gethostbyname_r)(name, ret, buf, buflen, result, h_errnop);
}

SHIM_EXPORT int gethostbyname2_r(const char *name, int af, struct hostent *ret,
				 char *buf, size_t buflen, struct hostent **result,
				 int *h_errnop)
{
	if (shim_ready() && judge_lookup(name, NULL)) {
		*result = NULL;
		*h_errnop = HOST_NOT_FOUND;
		return ENOENT;
	}
	return REAL(gethostbyname2_r)(name, af, ret, buf, buflen, result, h_errnop);
}
